/**
 * The compile check of script sources on POST and PUT (fix: CloudKitty accepted any text and
 * failed later, at rating time). Compiling happens in the sandbox, never in the API process.
 */
import { BadRequestError } from '../common/errors.js';

/** What compiling a source gave: fine, or Python's message with its 1-based line and column. */
export type CompileResult = { ok: true } | { ok: false; message: string; line: number; column: number };

/** Compiles Python sources (the pyscripts sandbox). */
export interface ScriptCompiler {
  compile(name: string, source: string): Promise<CompileResult>;
}

/**
 * @throws BadRequestError `Script {name} does not compile: {message} (line {l}, column {c})`.
 *   Without a compiler (a process started without the sandbox) nothing is checked.
 */
export async function ensureCompiles(compiler: ScriptCompiler | undefined, name: string, source: string): Promise<void> {
  if (!compiler) return;
  const result = await compiler.compile(name, source);
  if (!result.ok) throw new BadRequestError(`Script ${name} does not compile: ${result.message} (line ${result.line}, column ${result.column})`);
}
