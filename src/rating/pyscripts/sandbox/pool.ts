/**
 * The sandbox as the rest of Tariff sees it: a warm pool of worker processes with a spare, the
 * bounded and fair queue in front of them (`queue.ts`), replacing killed workers (`restarts.ts`),
 * and the translation of worker outcomes into results and typed errors.
 */
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { SandboxError, ScriptError, ScriptResourceError, ScriptTimeoutError } from './errors.js';
import { harnessSource } from './python-source.js';
import { spoilsWorker, type Outcome, type WorkerConfig, type WorkerRequest } from './protocol.js';
import { RequestQueue, type Job } from './queue.js';
import { RestartPolicy } from './restarts.js';
import type { JsonDataframe } from '../../contract/dataframe.js';
import type { CompileResult, RunOptions, SandboxLog, SandboxOptions, SandboxStats, ScriptSource } from './types.js';
import { WorkerProcess, type WorkerLimits } from './worker-process.js';
import type { ScriptFailureKind, TariffMetrics } from '../../../kernel/metrics.js';

/**
 * Runs PyScripts (rating.md §6) in a pool of confined worker processes, each with CPython
 * (pyodide, WebAssembly) loaded once, plus warm spares. Each worker serves one request at a time;
 * at most `poolSize` runs are in progress, and compile checks go first. A worker that timed out,
 * went past the memory limit or crashed is SIGKILLed; a spare takes over at once and a
 * replacement boots in the background.
 *
 * ```ts
 * const sandbox = new ScriptSandbox({ poolSize: 2 });
 * await sandbox.start();
 * const priced = await sandbox.run([{ name: 'discount', source: 'data["usage"] ...' }], dataframe, { tenant: projectId });
 * await sandbox.close();
 * ```
 */
export class ScriptSandbox {
  private readonly poolSize: number;
  private readonly spareWorkers: number;
  private readonly timeoutMs: number;
  private readonly memoryLimitMb: number;
  private readonly config: WorkerConfig;
  private readonly limits: WorkerLimits;
  private readonly queue: RequestQueue;
  private readonly restarts: RestartPolicy;
  private readonly workers = new Set<WorkerProcess>();
  private readonly idle: WorkerProcess[] = [];
  private starting: Promise<void> | null = null;
  /** Set once `start` succeeded: from then on dead workers are replaced. */
  private started = false;
  private closed = false;
  private bootTimer: NodeJS.Timeout | null = null;
  private lastStartError = '';
  /**
   * Bumped when the workers are stopped (no script needs them) or the pool is closed: a start
   * begun before ends quietly, since its workers were killed on purpose, not by a failure.
   */
  private epoch = 0;
  /** Workers killed because they were no longer needed: their exit is neither a kill nor a failure. */
  private readonly retired = new WeakSet<WorkerProcess>();
  /** What {@link setDemand} last said; undefined: never told (the workers stay once started). */
  private demand: boolean | undefined;
  private retireTimer: NodeJS.Timeout | null = null;
  private readonly log: SandboxLog | undefined;
  private replaced = 0;
  private timedOut = 0;
  private crashed = 0;
  private readonly metrics: TariffMetrics | undefined;

  /**
   * @param options - pool size (default 2), spare workers (1), time limit in ms (2000), memory
   *   limit in MiB (256), queue length (20), queue wait in ms (10000), runs per tenant (10); see
   *   {@link SandboxOptions}.
   * @throws RangeError when an option is not an integer in range (at least 1; memory at least
   *   64 MiB; spare workers at least 0).
   */
  constructor(options: SandboxOptions = {}) {
    this.poolSize = integerOption(options.poolSize ?? 2, 'poolSize', 1);
    this.spareWorkers = integerOption(options.spareWorkers ?? 1, 'spareWorkers', 0);
    this.timeoutMs = integerOption(options.timeoutMs ?? 2000, 'timeoutMs', 1);
    this.memoryLimitMb = integerOption(options.memoryLimitMb ?? 256, 'memoryLimitMb', 64);
    this.restarts = new RestartPolicy(this.poolSize + this.spareWorkers);
    this.queue = new RequestQueue({
      queueLength: integerOption(options.queueLength ?? 20, 'queueLength', 1),
      queueWaitMs: integerOption(options.queueWaitMs ?? 10_000, 'queueWaitMs', 1),
      tenantRuns: integerOption(options.tenantRuns ?? 10, 'tenantRuns', 1),
      // By then a worker has freed: a run holds one at most the time limit (plus the kill grace).
      retryAfterSeconds: Math.max(1, Math.ceil(this.timeoutMs / 1000)),
    });
    this.metrics = options.metrics;
    this.log = options.log;
    this.metrics?.watchSandbox(() => {
      const stats = this.stats();
      return {
        busy: stats.running + stats.compiling,
        idle: stats.idle,
        queued: stats.queued + stats.queuedCompiles,
        timeouts: stats.timedOut,
        crashes: stats.crashed,
        restarts: stats.replaced,
        refused: stats.refused,
        expired: stats.expired,
      };
    });
    const pyodideDir = dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));
    this.config = {
      pyodideDir,
      pyodideUrl: pathToFileURL(join(pyodideDir, 'pyodide.mjs')).href,
      memoryLimitBytes: this.memoryLimitMb * 1024 * 1024,
      python: harnessSource(),
    };
    this.limits = {
      heapLimitMb: this.memoryLimitMb,
      rssLimitBytes: (256 + 3 * this.memoryLimitMb) * 1024 * 1024,
      graceMs: 500,
      requestLimitMs: Math.max(60_000, 10 * this.timeoutMs),
      startupLimitMs: integerOption(options.startTimeoutMs ?? 60_000, 'startTimeoutMs', 1),
    };
  }

  /**
   * Starts the pool's `poolSize` workers and waits until each has loaded pyodide (about 3 s, in
   * parallel); the spares boot afterwards, in the background. Idempotent; `run` and `compile`
   * call it when it was not called (their calls wait in the queue meanwhile). A start that the
   * pool's {@link close} (or a stop of {@link setDemand}) overtakes resolves quietly: its workers
   * were killed on purpose, which is no failure (fix, issue 26: a server stopped within 10 s of its
   * start logged "pyscripts sandbox failed to start … SIGKILL" as an error).
   *
   * @throws SandboxError when a worker cannot start (the pool is then empty, and the calls waiting
   *   fail with the same error; a later call retries).
   */
  start(): Promise<void> {
    if (this.closed) return Promise.reject(new SandboxError('The PyScripts sandbox is closed.'));
    this.cancelRetire();
    this.starting ??= (async () => {
      const epoch = this.epoch;
      const booted = Array.from({ length: this.poolSize - this.aliveWorkers().length }, () => this.spawnWorker());
      const results = await Promise.allSettled(booted.map((worker) => worker.ready));
      if (epoch !== this.epoch) return;
      const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
      if (failure) {
        for (const worker of booted) worker.kill();
        this.starting = null;
        const error = new SandboxError(`The PyScripts sandbox cannot start: ${(failure.reason as Error).message}`);
        for (const job of this.queue.drain()) job.reject(error);
        this.log?.error({ err: error }, 'pyscripts sandbox failed to start');
        throw error;
      }
      this.started = true;
      this.log?.info({ workers: this.poolSize, spare_workers: this.spareWorkers }, 'pyscripts sandbox ready');
      this.queue.startWaits();
      this.replenish();
    })();
    return this.starting;
  }

  /**
   * Says whether scripts need the workers: Tariff calls it with each rating snapshot it loads
   * (true while the pyscripts module is enabled and has a script). True starts the workers (in the
   * background; a start failure is logged, and calls waiting then fail with `SandboxError` as with
   * {@link start}). False, when it was not already, stops them once no call is running or
   * waiting, so a process without scripts holds no worker (~150 MB each). While false, a call (a
   * compile check of a first script, say) starts them again; they stop
   * {@link UNNEEDED_WORKERS_LINGER_MS} after the last call ends, unless they became needed
   * meanwhile: false said again (each rules reload says it) leaves them to that linger.
   */
  setDemand(needed: boolean): void {
    const was = this.demand;
    this.demand = needed;
    if (this.closed) return;
    if (needed) {
      if (!this.started) this.start().catch(() => {});
      else this.cancelRetire();
    } else if (was !== false) {
      this.retireWhenIdle(0);
    }
    // Already unneeded: workers that a call started stay until their linger ends (fix: each
    // configuration write reloads the rules and said "unneeded" again, which stopped them at once,
    // so the compile check of the next write waited seconds for a new worker).
  }

  /**
   * Kills every worker. Calls waiting or running are rejected with SandboxError; later calls
   * are too.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.epoch += 1;
    this.cancelRetire();
    if (this.bootTimer) clearTimeout(this.bootTimer);
    this.bootTimer = null;
    const workers = [...this.workers];
    for (const worker of workers) worker.kill();
    for (const job of this.queue.drain()) job.reject(new SandboxError('The PyScripts sandbox is closed.'));
    await Promise.all(workers.map((worker) => worker.exited));
  }

  /**
   * Checks that `source` compiles, with Python's `compile(source, name, 'exec')`, inside a worker.
   * Compile checks wait in a lane of their own, served before any run.
   *
   * @returns `{ ok: true }` or Python's SyntaxError message with its line and column.
   * @throws ScriptTimeoutError / ScriptResourceError when compiling goes past the time limit (it
   *   finished late, or was stopped) or the memory limit; SandboxBusyError when the compile lane
   *   is full or the check waited `queueWaitMs`; SandboxError when the sandbox is closed or cannot start.
   */
  async compile(name: string, source: string): Promise<CompileResult> {
    const outcome = await this.submit('compile', '', { kind: 'compile', id: 0, name, source, budgetMs: this.timeoutMs }, [name]);
    if (outcome.type === 'compiled') return outcome.result;
    throw this.errorOf(outcome, [name]);
  }

  /**
   * Runs `scripts` in the given order over `dataframe` (rating.md §1, §6). Each script gets a
   * fresh global namespace holding `data` (`decimal.Decimal` quantities and prices, UTC-aware
   * `datetime.datetime` period bounds) and hands the `data` it leaves to the next. The scripts
   * together may take `timeoutMs`.
   *
   * @param options - the tenant the run counts against (see {@link RunOptions}).
   * @returns the dataframe the last script left: decimals as `str(Decimal)`, datetimes ISO 8601
   *   UTC (`2026-01-01T00:00:00+00:00`), other values as the scripts left them. With no scripts,
   *   `dataframe` itself.
   * @throws ScriptError when a script raises or leaves an invalid `data`;
   *   ScriptTimeoutError / ScriptResourceError past the time or memory limit or on a crash;
   *   SandboxBusyError when the queue or the tenant's share is full, or the run waited
   *   `queueWaitMs` (it did not run); SandboxError when the dataframe is not valid, or the
   *   sandbox is closed or cannot start.
   */
  async run(scripts: ScriptSource[], dataframe: JsonDataframe, options: RunOptions = {}): Promise<JsonDataframe> {
    if (scripts.length === 0) return dataframe;
    const names = scripts.map((script) => script.name);
    const request: WorkerRequest = {
      kind: 'run',
      id: 0,
      scripts: scripts.map(({ name, source }) => ({ name, source })),
      dataframe: JSON.stringify(dataframe),
      budgetMs: this.timeoutMs,
      ...(options.tracePrices ? { tracePrices: true } : {}),
    };
    const outcome = await this.submit('run', options.tenant ?? '', request, names);
    if (outcome.type === 'ok') {
      if (options.tracePrices && outcome.prices) options.tracePrices(outcome.prices);
      return JSON.parse(outcome.dataframe) as JsonDataframe;
    }
    throw this.errorOf(outcome, names);
  }

  /** The pool's state (see {@link SandboxStats}). */
  stats(): SandboxStats {
    const loaded = this.loadedWorkers().length;
    return {
      workers: this.aliveWorkers().length,
      idle: this.idle.length,
      booting: this.aliveWorkers().length - loaded,
      running: this.queue.running,
      compiling: this.queue.compiling,
      queued: this.queue.queuedRuns,
      queuedCompiles: this.queue.queuedCompiles,
      replaced: this.replaced,
      refused: this.queue.refused,
      expired: this.queue.expired,
      timedOut: this.timedOut,
      crashed: this.crashed,
      restartDelayMs: this.restarts.delayMs(loaded > 0),
    };
  }

  // ---- queue ----------------------------------------------------------------------------------

  private submit(kind: Job['kind'], tenant: string, request: WorkerRequest, names: string[]): Promise<Outcome> {
    if (this.closed) return Promise.reject(new SandboxError('The PyScripts sandbox is closed.'));
    // A failed start fails the calls waiting, this one included.
    if (!this.started) this.start().catch(() => {});
    return new Promise<Outcome>((resolve, reject) => {
      const job: Job = { kind, tenant, request, names, resolve, reject };
      const startsNow = this.idle.length > 0 && (kind === 'compile' || this.queue.running < this.poolSize);
      const refusal = this.queue.admit(job, startsNow, this.started);
      if (refusal) reject(refusal);
      else this.pump();
    });
  }

  /** Hands waiting calls to idle workers: compile checks first, runs while fewer than `poolSize` run. */
  private pump(): void {
    for (;;) {
      // A worker killed while idle (a failed start kills the others) leaves at its exit.
      while (this.idle.length > 0 && this.idle[0].isDead) this.idle.shift();
      if (this.idle.length === 0) return;
      const job = this.queue.nextCompile() ?? (this.queue.running < this.poolSize ? this.queue.nextRun() : undefined);
      if (!job) return;
      const worker = this.idle.shift() as WorkerProcess;
      const started = performance.now();
      void worker.request(job.request).then((outcome) => {
        this.queue.finished(job);
        this.count(job, outcome, started);
        if (spoilsWorker(outcome)) {
          this.restarts.workerKilled();
          worker.kill();
        } else if (!this.closed && !worker.isDead) {
          this.idle.push(worker);
        }
        if (this.closed && outcome.type !== 'compiled' && outcome.type !== 'ok') job.reject(new SandboxError('The PyScripts sandbox is closed.'));
        else job.resolve(outcome);
        this.pump();
        this.retireWhenIdle(UNNEEDED_WORKERS_LINGER_MS);
      });
    }
  }

  /**
   * Counts a finished call for `stats()` and the metrics: its kill, if any; a run's duration, and
   * a failed run by kind (`tariff_pyscripts_script_failures_total`; a dataframe the sandbox could
   * not take in, invalid or too large, is no script's failure).
   */
  private count(job: Job, outcome: Outcome, started: number): void {
    if (outcome.type === 'timeout') this.timedOut++;
    else if (outcome.type === 'memory' || outcome.type === 'fatal') this.crashed++;
    if (job.kind !== 'run') return;
    this.metrics?.sandboxRun((performance.now() - started) / 1000);
    const failure = FAILURE_KINDS[outcome.type];
    // Before the first script (loading the dataframe: too large for the memory limit) no script failed.
    const beforeScripts = 'index' in outcome && outcome.index < 0;
    if (failure && !beforeScripts) this.metrics?.scriptFailed(failure);
  }

  /**
   * Counts a run whose output Tariff refused after the sandbox accepted it (a decimal out of
   * range: `engine.ts`), as `refused_output`.
   */
  outputRefused(): void {
    this.metrics?.scriptFailed('refused_output');
  }

  // ---- stopping unneeded workers --------------------------------------------------------------

  /** Whether no call is running or waiting. */
  private isIdle(): boolean {
    return this.queue.running + this.queue.compiling + this.queue.queuedRuns + this.queue.queuedCompiles === 0;
  }

  /** When no script needs the workers and no call is running or waiting: stops them after `delayMs`. */
  private retireWhenIdle(delayMs: number): void {
    if (this.demand !== false || this.closed || !this.isIdle() || this.workers.size === 0) return;
    if (delayMs === 0) {
      this.retire();
      return;
    }
    this.retireTimer ??= setTimeout(() => {
      this.retireTimer = null;
      if (this.demand === false && this.isIdle()) this.retire();
    }, delayMs).unref();
  }

  private cancelRetire(): void {
    if (this.retireTimer) clearTimeout(this.retireTimer);
    this.retireTimer = null;
  }

  /** Kills every worker, booting or loaded, as no longer needed; the next call or demand starts the pool again. */
  private retire(): void {
    this.cancelRetire();
    if (this.bootTimer) clearTimeout(this.bootTimer);
    this.bootTimer = null;
    const workers = [...this.workers];
    this.epoch += 1;
    this.starting = null;
    this.started = false;
    this.idle.length = 0;
    for (const worker of workers) {
      this.retired.add(worker);
      worker.kill();
    }
    if (workers.length > 0) this.log?.info({ workers: workers.length }, 'pyscripts sandbox stopped: no enabled pyscripts module has a script');
  }

  // ---- workers --------------------------------------------------------------------------------

  private aliveWorkers(): WorkerProcess[] {
    return [...this.workers].filter((worker) => !worker.isDead);
  }

  private loadedWorkers(): WorkerProcess[] {
    return this.aliveWorkers().filter((worker) => worker.isReady);
  }

  private spawnWorker(): WorkerProcess {
    const worker = new WorkerProcess(this.config, this.limits, (gone) => this.onWorkerExit(gone));
    this.workers.add(worker);
    worker.ready.then(
      () => {
        if (this.closed || worker.isDead) return;
        this.restarts.startSucceeded();
        this.idle.push(worker);
        this.pump();
        this.replenish();
      },
      (error: Error) => {
        if (this.retired.has(worker)) return;
        this.lastStartError = error.message;
        if (this.started) this.restarts.startFailed();
        worker.kill();
      },
    );
    return worker;
  }

  private onWorkerExit(worker: WorkerProcess): void {
    this.workers.delete(worker);
    const at = this.idle.indexOf(worker);
    if (at >= 0) this.idle.splice(at, 1);
    if (this.closed || !this.started || this.retired.has(worker)) return;
    if (worker.isReady) this.replaced++;
    // Nobody left to serve the queue and the last boot failed: fail the waiting calls rather
    // than keep callers waiting.
    if (!worker.isReady && this.aliveWorkers().length === 0) {
      const error = new SandboxError(`The PyScripts sandbox cannot start: ${this.lastStartError}`);
      for (const job of this.queue.drain()) job.reject(error);
    }
    this.replenish();
  }

  /**
   * Boots a replacement when fewer than `poolSize + spareWorkers` workers are alive: one at a
   * time (a boot takes a core for seconds; one boot alone brings a worker back soonest), after the
   * pause of {@link RestartPolicy}.
   */
  private replenish(): void {
    if (this.closed || !this.started) return;
    const alive = this.aliveWorkers();
    if (alive.length >= this.poolSize + this.spareWorkers) return;
    const loaded = alive.filter((worker) => worker.isReady).length;
    if (alive.length > loaded) return; // one boot at a time
    const delay = this.restarts.delayMs(loaded > 0);
    if (delay === 0) {
      if (this.bootTimer) clearTimeout(this.bootTimer);
      this.bootTimer = null;
      this.spawnWorker();
      return;
    }
    this.bootTimer ??= setTimeout(() => {
      this.bootTimer = null;
      const now = this.aliveWorkers();
      if (!this.closed && now.length < this.poolSize + this.spareWorkers && now.every((worker) => worker.isReady)) this.spawnWorker();
    }, delay).unref();
  }

  private errorOf(outcome: Outcome, names: string[]): Error {
    const nameAt = (index: number) => names[Math.max(0, Math.min(index, names.length - 1))] ?? '?';
    const phase =
      'index' in outcome && outcome.index < 0 ? 'loading the dataframe' : 'index' in outcome && outcome.index >= names.length ? 'converting the result' : null;
    if (phase && (outcome.type === 'memory' || outcome.type === 'timeout' || outcome.type === 'fatal')) {
      return new SandboxError(
        outcome.type === 'memory'
          ? `The sandbox went past its memory limit of ${this.memoryLimitMb} MB while ${phase}: the dataframe is too large.`
          : `The sandbox failed while ${phase}: ${outcome.type === 'fatal' ? outcome.detail : 'timeout'}`,
      );
    }
    switch (outcome.type) {
      case 'raised':
        return new ScriptError(nameAt(outcome.index), outcome.exception, outcome.detail, outcome.line);
      case 'invalid-data':
        return new ScriptError(nameAt(outcome.index), null, outcome.detail, null);
      case 'input-error':
        return new SandboxError(`The dataframe is not valid: ${outcome.detail}`);
      case 'timeout':
        return new ScriptTimeoutError(nameAt(outcome.index), this.timeoutMs);
      case 'memory':
        return new ScriptResourceError(nameAt(outcome.index), 'memory', String(this.memoryLimitMb));
      case 'fatal':
        return new ScriptResourceError(nameAt(outcome.index), 'crash', outcome.detail);
      default:
        return new SandboxError(`Unexpected sandbox answer: ${outcome.type}`);
    }
  }
}

/**
 * How long workers that no script needs stay after the last call they served (a compile check of
 * a first script, whose creation makes them needed a moment later), in ms.
 */
export const UNNEEDED_WORKERS_LINGER_MS = 30_000;

/** The failure kind of a run's outcome, for `tariff_pyscripts_script_failures_total`. */
const FAILURE_KINDS: Partial<Record<Outcome['type'], ScriptFailureKind>> = {
  timeout: 'timeout',
  memory: 'memory',
  fatal: 'crash',
  raised: 'error',
  'invalid-data': 'refused_output',
};

function integerOption(value: number, name: string, minimum: number): number {
  if (!Number.isInteger(value) || value < minimum) throw new RangeError(`${name} must be an integer ≥ ${minimum}, not ${value}`);
  return value;
}
