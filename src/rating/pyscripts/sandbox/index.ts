/**
 * The PyScripts sandbox (rating.md §6): runs operators' Python scripts over a dataframe in
 * confined worker processes (CPython in WebAssembly via pyodide, under Node's permission model).
 * See `pool.ts` for the pool, `queue.ts` for the bounded, fair queue, `restarts.ts` for replacing
 * workers, `child-program.ts` for what runs in a worker process, `worker-process.ts` for how the
 * API process starts and watches one, `conversion.py`/`harness.py` (loaded by `python-source.ts`)
 * for the Python side, `faults.ts` for the HTTP answers to its errors.
 */
export { ScriptSandbox } from './pool.js';
export { SandboxBusyError, SandboxError, ScriptError, ScriptResourceError, ScriptTimeoutError, type BusyReason } from './errors.js';
export type { CompileResult, RunOptions, SandboxOptions, SandboxStats, ScriptPrices, ScriptSource } from './types.js';
/** The dataframe the sandbox exchanges: the rating modules' JSON dataframe. */
export type { JsonDataframe, JsonPoint } from '../../contract/dataframe.js';
