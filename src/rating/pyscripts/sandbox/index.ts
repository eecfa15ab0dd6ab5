/**
 * The PyScripts sandbox (rating.md §6): runs operators' Python scripts over a dataframe in
 * confined worker processes (CPython in WebAssembly via pyodide, under Node's permission model).
 * See `pool.ts` for the pool, `runner.ts` for what a worker does, `worker.ts` for how it is
 * started and watched, `conversion.ts`/`harness.ts` for the Python side.
 */
export { ScriptSandbox } from './pool.js';
export { SandboxError, ScriptError, ScriptResourceError, ScriptTimeoutError } from './errors.js';
export type { CompileResult, JsonDataframe, JsonPoint, SandboxOptions, ScriptSource } from './types.js';
