/**
 * The sandbox as the rest of Tariff sees it: a warm pool of worker processes, a FIFO queue in
 * front of them, and the translation of worker outcomes into results and typed errors.
 */
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { CONVERSION_PY } from './conversion.js';
import { SandboxError, ScriptError, ScriptResourceError, ScriptTimeoutError } from './errors.js';
import { HARNESS_PY } from './harness.js';
import { spoilsWorker, type Outcome, type WorkerConfig, type WorkerRequest } from './protocol.js';
import type { CompileResult, JsonDataframe, SandboxOptions, ScriptSource } from './types.js';
import { SandboxWorker, type WorkerLimits } from './worker.js';

/** Longest pause between attempts to replace a worker that keeps failing to start. */
const MAX_RESPAWN_DELAY_MS = 30_000;

interface Job {
  request: WorkerRequest;
  /** Names of the scripts, to name the one an outcome is about. */
  names: string[];
  resolve: (outcome: Outcome) => void;
  reject: (error: Error) => void;
}

/**
 * Runs PyScripts (rating.md §6) in a pool of confined worker processes, each with CPython
 * (pyodide, WebAssembly) loaded once. Requests queue in order and each worker serves one at a
 * time; a worker that timed out, went past the memory limit or crashed is SIGKILLed and replaced
 * in the background while the others keep serving.
 *
 * ```ts
 * const sandbox = new ScriptSandbox({ poolSize: 2 });
 * await sandbox.start();
 * const priced = await sandbox.run([{ name: 'discount', source: 'data["usage"] ...' }], dataframe);
 * await sandbox.close();
 * ```
 */
export class ScriptSandbox {
  private readonly poolSize: number;
  private readonly timeoutMs: number;
  private readonly memoryLimitMb: number;
  private readonly config: WorkerConfig;
  private readonly limits: WorkerLimits;
  private readonly workers = new Set<SandboxWorker>();
  private readonly idle: SandboxWorker[] = [];
  private readonly queue: Job[] = [];
  private starting: Promise<void> | null = null;
  /** Set once `start` succeeded: from then on dead workers are replaced. */
  private started = false;
  private closed = false;
  private respawnDelayMs = 0;
  private lastStartError = '';
  private replaced = 0;

  /**
   * @param options - pool size (default 2), time limit in ms (default 2000) and memory limit in
   *   MiB (default 256); see {@link SandboxOptions}.
   * @throws RangeError when an option is not a positive integer (memory: at least 64 MiB).
   */
  constructor(options: SandboxOptions = {}) {
    this.poolSize = positiveInteger(options.poolSize ?? 2, 'poolSize', 1);
    this.timeoutMs = positiveInteger(options.timeoutMs ?? 2000, 'timeoutMs', 1);
    this.memoryLimitMb = positiveInteger(options.memoryLimitMb ?? 256, 'memoryLimitMb', 64);
    const pyodideDir = dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));
    this.config = {
      pyodideDir,
      pyodideUrl: pathToFileURL(join(pyodideDir, 'pyodide.mjs')).href,
      memoryLimitBytes: this.memoryLimitMb * 1024 * 1024,
      python: `${CONVERSION_PY}\n${HARNESS_PY}`,
    };
    this.limits = {
      heapLimitMb: this.memoryLimitMb,
      rssLimitBytes: (256 + 3 * this.memoryLimitMb) * 1024 * 1024,
      graceMs: 500,
      requestLimitMs: Math.max(60_000, 10 * this.timeoutMs),
      startupLimitMs: 60_000,
    };
  }

  /**
   * Starts the pool's workers and waits until each has loaded pyodide (about 2 s, in parallel).
   * Idempotent; `run` and `compile` call it when it was not called.
   *
   * @throws SandboxError when a worker cannot start (the pool is then empty; a later call retries).
   */
  start(): Promise<void> {
    if (this.closed) return Promise.reject(new SandboxError('The PyScripts sandbox is closed.'));
    this.starting ??= (async () => {
      const started = Array.from({ length: this.poolSize - this.workers.size }, () => this.spawnWorker());
      const results = await Promise.allSettled(started.map((worker) => worker.ready));
      const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
      if (failure) {
        for (const worker of started) worker.kill();
        this.starting = null;
        throw new SandboxError(`The PyScripts sandbox cannot start: ${(failure.reason as Error).message}`);
      }
      this.started = true;
    })();
    return this.starting;
  }

  /**
   * Kills every worker. Requests queued or running are rejected with SandboxError; later calls
   * are too.
   */
  async close(): Promise<void> {
    this.closed = true;
    const workers = [...this.workers];
    for (const worker of workers) worker.kill();
    for (const job of this.queue.splice(0)) job.reject(new SandboxError('The PyScripts sandbox is closed.'));
    await Promise.all(workers.map((worker) => worker.exited));
  }

  /**
   * Checks that `source` compiles, with Python's `compile(source, name, 'exec')`, inside a worker.
   *
   * @returns `{ ok: true }` or Python's SyntaxError message with its line and column.
   * @throws ScriptTimeoutError / ScriptResourceError when compiling goes past a limit;
   *   SandboxError when the sandbox is closed or cannot start.
   */
  async compile(name: string, source: string): Promise<CompileResult> {
    const outcome = await this.submit({ kind: 'compile', id: 0, name, source, budgetMs: this.timeoutMs }, [name]);
    if (outcome.type === 'compiled') return outcome.result;
    throw this.errorOf(outcome, [name]);
  }

  /**
   * Runs `scripts` in the given order over `dataframe` (rating.md §1, §6). Each script gets a
   * fresh global namespace holding `data` (`decimal.Decimal` quantities and prices, UTC-aware
   * `datetime.datetime` period bounds) and hands the `data` it leaves to the next. The scripts
   * together may take `timeoutMs`.
   *
   * @returns the dataframe the last script left: decimals as `str(Decimal)`, datetimes ISO 8601
   *   UTC (`2026-01-01T00:00:00+00:00`), other values as the scripts left them. With no scripts,
   *   `dataframe` itself.
   * @throws ScriptError when a script raises or leaves an invalid `data`;
   *   ScriptTimeoutError / ScriptResourceError past the time or memory limit or on a crash;
   *   SandboxError when the dataframe is not valid, or the sandbox is closed or cannot start.
   */
  async run(scripts: ScriptSource[], dataframe: JsonDataframe): Promise<JsonDataframe> {
    if (scripts.length === 0) return dataframe;
    const names = scripts.map((script) => script.name);
    const request: WorkerRequest = {
      kind: 'run',
      id: 0,
      scripts: scripts.map(({ name, source }) => ({ name, source })),
      dataframe: JSON.stringify(dataframe),
      budgetMs: this.timeoutMs,
    };
    const outcome = await this.submit(request, names);
    if (outcome.type === 'ok') return JSON.parse(outcome.dataframe) as JsonDataframe;
    throw this.errorOf(outcome, names);
  }

  /**
   * The pool's state, for health checks and tests: worker processes alive (`workers`), of which
   * loaded and idle (`idle`); requests waiting for a worker (`queued`); workers replaced so far
   * after a timeout, memory excess or crash (`replaced`).
   */
  stats(): { workers: number; idle: number; queued: number; replaced: number } {
    return { workers: this.workers.size, idle: this.idle.length, queued: this.queue.length, replaced: this.replaced };
  }

  // ---- pool -----------------------------------------------------------------------------------

  private async submit(request: WorkerRequest, names: string[]): Promise<Outcome> {
    await this.start();
    return new Promise<Outcome>((resolve, reject) => {
      if (this.closed) {
        reject(new SandboxError('The PyScripts sandbox is closed.'));
        return;
      }
      this.queue.push({ request, names, resolve, reject });
      this.pump();
    });
  }

  private spawnWorker(): SandboxWorker {
    const worker = new SandboxWorker(this.config, this.limits, (gone) => this.onWorkerExit(gone));
    this.workers.add(worker);
    worker.ready.then(
      () => {
        if (this.closed || worker.isDead) return;
        this.idle.push(worker);
        this.pump();
      },
      (error: Error) => {
        this.lastStartError = error.message;
        worker.kill();
      },
    );
    return worker;
  }

  private onWorkerExit(worker: SandboxWorker): void {
    this.workers.delete(worker);
    const at = this.idle.indexOf(worker);
    if (at >= 0) this.idle.splice(at, 1);
    if (this.closed || !this.started) return;
    this.replaced++;
    // Replace it at once; back off while replacements keep failing to start.
    if (worker.isReady) this.respawnDelayMs = 0;
    else this.respawnDelayMs = Math.min(MAX_RESPAWN_DELAY_MS, Math.max(1000, this.respawnDelayMs * 2));
    const replace = () => {
      if (!this.closed && this.workers.size < this.poolSize) this.spawnWorker();
    };
    if (this.respawnDelayMs === 0) replace();
    else setTimeout(replace, this.respawnDelayMs).unref();
    // Nobody left to serve the queue: fail it rather than keep callers waiting.
    if (this.workers.size === 0 && !worker.isReady) {
      for (const job of this.queue.splice(0)) job.reject(new SandboxError(`The PyScripts sandbox cannot start: ${this.lastStartError}`));
    }
  }

  private pump(): void {
    while (this.idle.length > 0 && this.queue.length > 0) {
      const worker = this.idle.shift() as SandboxWorker;
      const job = this.queue.shift() as Job;
      if (worker.isDead) {
        this.queue.unshift(job);
        continue;
      }
      void worker.request(job.request).then((outcome) => {
        if (spoilsWorker(outcome)) worker.kill();
        else if (!this.closed && !worker.isDead) this.idle.push(worker);
        if (this.closed && outcome.type !== 'compiled' && outcome.type !== 'ok') job.reject(new SandboxError('The PyScripts sandbox is closed.'));
        else job.resolve(outcome);
        this.pump();
      });
    }
  }

  private errorOf(outcome: Outcome, names: string[]): Error {
    const nameAt = (index: number) => names[Math.max(0, Math.min(index, names.length - 1))] ?? '?';
    const phase = 'index' in outcome && outcome.index < 0 ? 'loading the dataframe' : 'index' in outcome && outcome.index >= names.length ? 'converting the result' : null;
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

function positiveInteger(value: number, name: string, minimum: number): number {
  if (!Number.isInteger(value) || value < minimum) throw new RangeError(`${name} must be an integer ≥ ${minimum}, not ${value}`);
  return value;
}
