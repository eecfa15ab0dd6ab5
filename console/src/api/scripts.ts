/**
 * The pyscripts module's scripts through the v1 API (docs/api.md §5, §6): reading, creating,
 * changing, ending, versioning and deleting them, and reading a compile error's line and column
 * back out of the server's fault.
 */
import type { Answer, RequestBody } from './answers.js';
import { ApiError, call, PYSCRIPTS } from './client.js';

/**
 * An error in a source: Python's message and position, `line` and `column` 1-based (Python's
 * `lineno` and `offset`); 0 when Python gave no position.
 */
export interface SourceError {
  message: string;
  line: number;
  column: number;
}

/** A script as the API returns it: dates ISO with offset or null; `data` absent from `no_data` lists. */
export type Script = Answer<'/v1/rating/module_config/pyscripts/scripts/{script_id}', 'get'>;

/** What a create sends: dates as ISO texts, `null` to clear an end. */
export type ScriptDraft = Pick<RequestBody<'/v1/rating/module_config/pyscripts/scripts', 'post'>, 'name' | 'data' | 'description' | 'start' | 'end'>;

/** What a change of a scheduled script sends. */
export type ScriptChange = Pick<RequestBody<'/v1/rating/module_config/pyscripts/scripts/{script_id}', 'put'>, 'data' | 'description' | 'start' | 'end'>;

const scriptPath = (script: Script) => `${PYSCRIPTS}/scripts/${encodeURIComponent(script.script_id)}`;

/**
 * The live scripts, without their sources, by name then start; the soft-deleted ones too when
 * `withDeleted` (`deleted=true`, docs/api.md §5). @throws ApiError
 */
export async function listScripts(withDeleted = false): Promise<Script[]> {
  const path = `${PYSCRIPTS}/scripts?no_data=true${withDeleted ? '&deleted=true' : ''}`;
  const { scripts } = await call<Answer<'/v1/rating/module_config/pyscripts/scripts', 'get'>>('GET', path);
  return scripts.sort((a, b) => a.name.localeCompare(b.name) || (a.start ?? '').localeCompare(b.start ?? ''));
}

/** One script with its source. @throws ApiError (404 when deleted meanwhile) */
export function readScript(script: Script): Promise<Script> {
  return call<Script>('GET', scriptPath(script));
}

/** Creates a script; the server compiles it first. @throws ApiError (400 compile error, 409 name taken) */
export function createScript(draft: ScriptDraft): Promise<Script> {
  const { start, ...rest } = draft;
  return call<Script>('POST', `${PYSCRIPTS}/scripts`, start === undefined ? rest : draft);
}

/**
 * Changes a scheduled script (not started yet): source, description, start and end.
 *
 * @throws ApiError (400 compile error or dates refused, 409 interval clash)
 */
export function updateScheduledScript(script: Script, change: ScriptChange): Promise<Script> {
  return call<Script>('PUT', scriptPath(script), change);
}

/** Sets the end of a running script (the only change allowed while it runs). @throws ApiError */
export function endScript(script: Script, end: string | null): Promise<Script> {
  return call<Script>('PUT', scriptPath(script), { end });
}

/**
 * A new version of a running script, as for mappings: the running one ends at `start`, then a copy
 * with the new source and description starts there under the same name, until the old end. When
 * the new version is refused (a compile error), the running one gets its old end back, and the
 * refusal is thrown.
 *
 * @throws ApiError from either write.
 */
export async function createScriptVersion(running: Script, data: string, description: string | null, start: string): Promise<Script> {
  await endScript(running, start);
  try {
    return await createScript({ name: running.name, data, description, start, end: running.end });
  } catch (error) {
    await endScript(running, running.end).catch(() => undefined);
    throw error;
  }
}

/** Soft-deletes a script: it no longer rates, its history keeps it. @throws ApiError */
export async function deleteScript(script: Script): Promise<void> {
  await call('DELETE', scriptPath(script));
}

/** `Script {name} does not compile: {message} (line {l}, column {c})` (src/rating/pyscripts/compile.ts). */
const COMPILE_FAULT = /does not compile: ([\s\S]*) \(line (\d+), column (\d+)\)$/;

/** The compile error a refusal reports, or undefined when it is another fault. */
export function compileErrorOf(error: unknown): SourceError | undefined {
  if (!(error instanceof ApiError) || error.status !== 400) return undefined;
  const match = COMPILE_FAULT.exec(error.message);
  if (match === null) return undefined;
  return { message: match[1], line: Number(match[2]), column: Number(match[3]) };
}
