/**
 * Messages between the pool (API process) and a worker process, over Node's IPC channel with
 * `serialization: 'advanced'`. One request at a time per worker; `id` pairs the answers with it.
 */
import type { CompileResult, ScriptPrices, ScriptSource } from './types.js';

/** What a worker is started with (its first IPC message, {@link WorkerStart}). */
export interface WorkerConfig {
  /** Absolute path of the pyodide package directory (the only path the worker may read). */
  pyodideDir: string;
  /** `file:` URL of `pyodide.mjs` in that directory. */
  pyodideUrl: string;
  /** Cap of the interpreter's WebAssembly memory, in bytes (a multiple of 64 KiB). */
  memoryLimitBytes: number;
  /** Python source run once at start-up (`python-source.ts`: conversion.py and harness.py); its last expression is the request dispatcher. */
  python: string;
}

/** The first message to a worker process: what to start with. */
export interface WorkerStart {
  kind: 'start';
  config: WorkerConfig;
}

/** A request to a worker. */
export type WorkerRequest =
  | { kind: 'compile'; id: number; name: string; source: string; budgetMs: number }
  | {
      kind: 'run';
      id: number;
      scripts: ScriptSource[];
      /** The dataframe as JSON text (rating.md §1). */
      dataframe: string;
      /** Time the scripts may take together, in milliseconds. */
      budgetMs: number;
      /** Record each point's price after each script (`Outcome` `ok`'s `prices`), for the quote's explain. */
      tracePrices?: boolean;
    };

/** How a request ended, as the worker reports it (or as the pool concludes when it kills one). */
export type Outcome =
  | { type: 'compiled'; result: CompileResult }
  /**
   * The scripts ran; `dataframe` is the resulting JSON text. With `tracePrices`, `prices` holds,
   * for each script in order, each service's point prices (decimal text) after it.
   */
  | { type: 'ok'; dataframe: string; prices?: ScriptPrices[] }
  | { type: 'raised'; index: number; exception: string; detail: string; line: number | null }
  | { type: 'invalid-data'; index: number; detail: string }
  /** The dataframe given to `run` is not valid. */
  | { type: 'input-error'; detail: string }
  | { type: 'timeout'; index: number }
  | { type: 'memory'; index: number }
  | { type: 'fatal'; index: number; detail: string };

/**
 * What a worker sends. An outcome's `index` is the script it is about; -1 means "before the first
 * script" (loading the dataframe), the number of scripts "after the last" (converting the result).
 */
export type WorkerMessage =
  | { kind: 'ready' }
  | { kind: 'startup-failed'; message: string }
  /** Script `index` of request `id` starts now (the pool starts its clock at the first one). */
  | { kind: 'script'; id: number; index: number }
  /** The scripts of request `id` are done; converting the result back to JSON. */
  | { kind: 'scripts-done'; id: number }
  | { kind: 'outcome'; id: number; outcome: Outcome };

/** Outcomes after which the worker is killed and replaced. */
export function spoilsWorker(outcome: Outcome): boolean {
  return outcome.type === 'timeout' || outcome.type === 'memory' || outcome.type === 'fatal';
}
