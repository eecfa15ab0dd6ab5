/**
 * Shapes the PyScripts sandbox takes and gives (rating.md §1 and §6). The dataframe it exchanges
 * is the rating modules' JSON dataframe (`contract/dataframe.ts`).
 */
import type { TariffMetrics } from '../../../kernel/metrics.js';

/** A script to run: its name (used in errors and as Python's file name) and Python source. */
export interface ScriptSource {
  name: string;
  source: string;
}

/**
 * What compiling a source gave: fine, or Python's `SyntaxError` message with its 1-based line and
 * column (both 0 when Python gives no position, e.g. for a `RecursionError` while compiling).
 */
export type CompileResult = { ok: true } | { ok: false; message: string; line: number; column: number };

/** Options of one {@link ScriptSandbox.run} call. */
export interface RunOptions {
  /**
   * Whose share of the sandbox the run counts against (any text; runs without one share the key
   * `''`). Tariff passes the caller's Keystone project, else the quote's `tenant_id`, else the
   * client's address. A tenant holds at most `tenantRuns` runs, running or waiting, and a free
   * worker goes to the tenant with the fewest runs in progress (see the sandbox README).
   */
  tenant?: string;
  /**
   * When given, the run also records each point's price after each script and hands them to this
   * function before `run` resolves (the quote's explain: each script's effect on each price).
   */
  tracePrices?: (prices: ScriptPrices[]) => void;
}

/** Each service's point prices (decimal text, in the points' order) after one script. */
export type ScriptPrices = Record<string, string[]>;

/** Options of a {@link ScriptSandbox}. */
export interface SandboxOptions {
  /** Worker processes that run requests, one request each at a time. Default 2. */
  poolSize?: number;
  /**
   * Warm spare workers kept loaded beside the pool: a spare takes over at once from a worker
   * killed by a limit or a crash, so callers do not wait for a worker to boot (~3 s; 20 s on a
   * loaded machine). Spares run compile checks, never more than `poolSize` runs at once.
   * Default 1; 0 for none.
   */
  spareWorkers?: number;
  /**
   * Wall-clock limit in milliseconds for the scripts of one `run` call taken together (and for
   * one `compile` call); converting the dataframe in and out is not counted. Default 2000.
   */
  timeoutMs?: number;
  /**
   * Memory limit in MiB: the cap of the Python heap (the interpreter's WebAssembly memory, about
   * 30 MiB of which the interpreter itself uses) and of the worker's JavaScript heap. The worker's
   * resident size is also capped, at 256 MiB + 3 × this, as a backstop. Default 256.
   */
  memoryLimitMb?: number;
  /**
   * Most runs waiting for a worker (runs in progress not counted); compile checks have a queue of
   * their own with the same bound. Past it a call fails at once with `SandboxBusyError`
   * (`reason: 'queue'`). Default 20.
   */
  queueLength?: number;
  /**
   * Longest a run or compile check waits for a worker, in milliseconds. Past it, it leaves the
   * queue (it never runs later) and fails with `SandboxBusyError` (`reason: 'wait'`). Calls made
   * before the sandbox first started count from when it started. Default 10000.
   */
  queueWaitMs?: number;
  /**
   * Most runs one tenant ({@link RunOptions.tenant}) may have running or waiting at once. Past it
   * the run fails at once with `SandboxBusyError` (`reason: 'tenant'`). Default 10.
   */
  tenantRuns?: number;
  /**
   * Longest a worker may take to start (load pyodide and the harness), in milliseconds; past it
   * the worker is killed and the start fails with `SandboxError` (`the worker did not start
   * within … ms`), failing the calls that waited for it. Default 60000 (a boot takes ~3 s, 20 s
   * on a loaded machine).
   */
  startTimeoutMs?: number;
  /** Where the workers, the queue, the kills and the run durations are reported (`GET /metrics`). */
  metrics?: TariffMetrics;
  /**
   * Where the pool says that its workers are ready, failed to start (an error), or stopped because
   * no script needs them (a pino logger fits). Default: nothing is logged.
   */
  log?: SandboxLog;
}

/** The slice of a pino logger the sandbox logs through. */
export interface SandboxLog {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

/**
 * The pool's state, for health checks, logs and tests. Counts are of this moment, except
 * `replaced`, `timedOut`, `crashed`, `refused` and `expired`, which count since the sandbox was created.
 */
export interface SandboxStats {
  /** Worker processes alive: loaded or booting. */
  workers: number;
  /** Workers loaded and waiting for a request (spares included). */
  idle: number;
  /** Workers booting (loading pyodide). */
  booting: number;
  /** Runs in progress (at most `poolSize`). */
  running: number;
  /** Compile checks in progress. */
  compiling: number;
  /** Runs waiting for a worker. */
  queued: number;
  /** Compile checks waiting for a worker. */
  queuedCompiles: number;
  /** Workers killed after a timeout, memory excess or crash, and replaced. */
  replaced: number;
  /** Runs and compile checks stopped at the time limit (their worker killed). */
  timedOut: number;
  /** Runs and compile checks whose worker went past the memory limit or crashed. */
  crashed: number;
  /** Calls refused at once because a queue or a tenant's share was full. */
  refused: number;
  /** Calls dropped from a queue after waiting `queueWaitMs`. */
  expired: number;
  /**
   * How long the next replacement boot waits, in ms: 0 normally, growing while workers keep being
   * killed or failing to start (at most 30 s; never while no worker is loaded and callers wait,
   * except after a failed start).
   */
  restartDelayMs: number;
}
