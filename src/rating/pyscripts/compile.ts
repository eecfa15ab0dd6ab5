/**
 * The compile check of script sources on POST and PUT (fix: CloudKitty accepted any text and
 * failed later, at rating time). Compiling happens in the sandbox, never in the API process.
 */
import { BadRequestError, TariffError } from '../../kernel/errors.js';
import { SandboxBusyError, SandboxError, ScriptResourceError, ScriptTimeoutError } from './sandbox/errors.js';
import { sandboxBusyFault } from './sandbox/faults.js';
import type { CompileResult } from './sandbox/types.js';

/** Compiles Python sources (the pyscripts sandbox). */
export interface ScriptCompiler {
  compile(name: string, source: string): Promise<CompileResult>;
}

/**
 * Checks that a script's source compiles. Compiling must fit the limits of a run (a script that
 * cannot compile within them could never run: each run compiles it under the same limits).
 *
 * @throws BadRequestError `Script {name} does not compile: {message} (line {l}, column {c})`;
 *   BadRequestError `Script {name} could not be compiled within the sandbox's limits: compiling
 *   took longer than {ms} ms (TARIFF_SCRIPT_TIMEOUT_MS)` (or `needed more than {mb} MB of memory
 *   (TARIFF_SCRIPT_MEMORY_MB)`, or `it crashed the sandbox: {what happened}`);
 *   503 with `Retry-After` when the sandbox has no room for the check (see `sandbox/faults.ts`);
 *   503 when the sandbox cannot serve at all.
 *   Without a compiler (a process started without the sandbox) nothing is checked.
 */
export async function ensureCompiles(compiler: ScriptCompiler | undefined, name: string, source: string): Promise<void> {
  if (!compiler) return;
  let result: CompileResult;
  try {
    result = await compiler.compile(name, source);
  } catch (error) {
    throw compileFailure(name, error);
  }
  if (!result.ok) throw new BadRequestError(`Script ${name} does not compile: ${result.message} (line ${result.line}, column ${result.column})`);
}

/** The HTTP error for a compile check the sandbox could not complete. */
function compileFailure(name: string, error: unknown): unknown {
  const beyond = `Script ${name} could not be compiled within the sandbox's limits`;
  if (error instanceof ScriptTimeoutError)
    return new BadRequestError(`${beyond}: compiling took longer than ${error.timeoutMs} ms (TARIFF_SCRIPT_TIMEOUT_MS).`);
  if (error instanceof ScriptResourceError && error.reason === 'memory') {
    return new BadRequestError(`${beyond}: compiling needed more than ${error.detail} MB of memory (TARIFF_SCRIPT_MEMORY_MB).`);
  }
  if (error instanceof ScriptResourceError) return new BadRequestError(`${beyond}: compiling crashed the sandbox: ${error.detail}`);
  if (error instanceof SandboxBusyError) return sandboxBusyFault(error);
  if (error instanceof SandboxError) return new TariffError(503, `The PyScripts sandbox cannot check the script: ${error.message}`);
  return error;
}
