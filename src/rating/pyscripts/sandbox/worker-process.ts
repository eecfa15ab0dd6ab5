/**
 * The API process's handle on one sandbox worker process (whose program is `child-program.ts`):
 * spawning it, its start-up, one request at a time, and the limits the parent enforces itself (the worker enforces them first, from inside):
 * a kill timer at the time budget plus a grace period, a resident-size watchdog, and a generous
 * overall timer for the whole request.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Outcome, WorkerConfig, WorkerMessage, WorkerRequest, WorkerStart } from './protocol.js';

/** Limits the parent enforces on a worker. */
export interface WorkerLimits {
  /** `--max-old-space-size` of the worker, in MiB. */
  heapLimitMb: number;
  /** SIGKILL when the worker's resident size exceeds this many bytes during a request. */
  rssLimitBytes: number;
  /** How long past the time budget the worker may take to answer before SIGKILL, in ms. */
  graceMs: number;
  /** SIGKILL when a whole request (conversions included) takes longer than this, in ms. */
  requestLimitMs: number;
  /** How long start-up (loading pyodide) may take, in ms. */
  startupLimitMs: number;
}

/** Node's flag for the permission model: `--permission` where known, else Node 20's name. */
const PERMISSION_FLAG = process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';
const RSS_POLL_MS = 100;
/**
 * The worker's program, `child-program`: the compiled `.js` beside this module in dist/, the
 * `.ts` itself (Node strips its types) when this module runs from src/ (the tests).
 */
const CHILD_PROGRAM = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './child-program.ts' : './child-program.js', import.meta.url));

interface Pending {
  request: WorkerRequest;
  resolve: (outcome: Outcome) => void;
  /** Script running, as the worker last said; -1 before the first, the script count after the last. */
  index: number;
  budgetTimer?: NodeJS.Timeout;
  requestTimer: NodeJS.Timeout;
  rssTimer?: NodeJS.Timeout;
}

/**
 * A worker process. `ready` settles when pyodide is loaded; `request` sends one request and
 * resolves with its {@link Outcome} (never rejects: a dead or killed worker gives a `fatal`,
 * `timeout` or `memory` outcome). After such an outcome the worker is dead: `onExit` is called once.
 */
export class WorkerProcess {
  /** Resolves when the worker can take requests; rejects when it fails to start. */
  readonly ready: Promise<void>;
  /** Resolves when the process is gone. */
  readonly exited: Promise<void>;
  /** Whether `ready` resolved. */
  isReady = false;
  private readonly child: ChildProcess;
  private pending: Pending | null = null;
  private nextId = 1;
  private stderrTail = '';
  private dead = false;
  private gone = false;
  private resolveExited: () => void = () => {};

  /**
   * Starts a worker process confined by Node's permission model: it may read its program file and
   * the pyodide directory and nothing else, write nothing, start no process and no worker thread.
   * Its command line names the program file (a few hundred bytes); the configuration, Python
   * source included, is its first IPC message.
   *
   * @param onExit - called once when the process is gone (killed, crashed or failed to start).
   */
  constructor(
    config: WorkerConfig,
    private readonly limits: WorkerLimits,
    private readonly onExit: (worker: WorkerProcess) => void,
  ) {
    this.child = spawn(
      process.execPath,
      [
        PERMISSION_FLAG,
        `--allow-fs-read=${config.pyodideDir}`,
        `--allow-fs-read=${CHILD_PROGRAM}`,
        '--disallow-code-generation-from-strings',
        `--max-old-space-size=${limits.heapLimitMb}`,
        '--no-warnings',
        CHILD_PROGRAM,
      ],
      { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'advanced', env: {}, cwd: config.pyodideDir },
    );
    const start: WorkerStart = { kind: 'start', config };
    this.child.send(start, () => {});
    // stderr is kept for diagnostics only; it must not keep the API process alive.
    (this.child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-2000);
    });
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`the worker did not start within ${limits.startupLimitMs} ms`));
        this.kill();
      }, limits.startupLimitMs);
      const settle = (error?: Error) => {
        clearTimeout(timer);
        this.child.off('message', onMessage);
        if (error) reject(error);
        else resolve();
      };
      const onMessage = (message: WorkerMessage) => {
        if (message.kind === 'ready') settle();
        else if (message.kind === 'startup-failed') settle(new Error(message.message));
      };
      this.child.on('message', onMessage);
      this.child.once('exit', (code, signal) =>
        settle(new Error(`the worker exited during start-up (${signal ?? `code ${code}`}): ${errorLine(this.stderrTail)}`)),
      );
      this.child.once('error', (error) => settle(error));
    });
    this.exited = new Promise<void>((resolve) => {
      this.resolveExited = resolve;
    });
    this.ready.then(
      () => {
        this.isReady = true;
        this.setReferenced(false);
      },
      () => {},
    );
    this.child.on('message', (message: WorkerMessage) => this.onMessage(message));
    this.child.on('exit', (code, signal) => this.onProcessExit(code, signal));
    // A process that could not be spawned emits 'error' and no 'exit'.
    this.child.on('error', () => (this.child.pid === undefined ? this.onProcessExit(null, null) : this.kill()));
  }

  /** Whether the process is gone or going. */
  get isDead(): boolean {
    return this.dead;
  }

  /**
   * Sends one request (the worker must be ready and idle) and resolves with how it ended.
   * The caller's `id` is replaced by the worker's own.
   */
  request(request: WorkerRequest): Promise<Outcome> {
    if (this.pending) throw new Error('the worker is busy');
    return new Promise<Outcome>((resolve) => {
      const sent = { ...request, id: this.nextId++ };
      const pending: Pending = {
        request: sent,
        resolve,
        index: request.kind === 'compile' ? 0 : -1,
        requestTimer: setTimeout(
          () => this.abort({ type: 'fatal', index: pending.index, detail: `the worker did not answer within ${this.limits.requestLimitMs} ms` }),
          this.limits.requestLimitMs,
        ),
      };
      this.pending = pending;
      if (sent.kind === 'compile') this.startBudget(pending);
      this.watchMemory(pending);
      this.setReferenced(true);
      if (this.dead) {
        this.finish({ type: 'fatal', index: pending.index, detail: 'the worker is gone' });
        return;
      }
      this.child.send(sent, (error) => {
        if (error) this.abort({ type: 'fatal', index: pending.index, detail: `cannot reach the worker: ${error.message}` });
      });
    });
  }

  /**
   * SIGKILLs the process (idempotent). fix: the process is referenced again until its exit is
   * seen: killing an idle (unreferenced) worker while the server drained let the event loop empty
   * first, and the API process ended (exit 0) before `exited` resolved, skipping the rest of the
   * drain (closing the database, the "stopped" line).
   */
  kill(): void {
    this.dead = true;
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.setReferenced(true);
      this.child.kill('SIGKILL');
    }
  }

  private onMessage(message: WorkerMessage): void {
    const pending = this.pending;
    if (!pending || !('id' in message) || message.id !== pending.request.id) return;
    if (message.kind === 'script') {
      pending.index = message.index;
      this.startBudget(pending);
    } else if (message.kind === 'scripts-done') {
      clearTimeout(pending.budgetTimer);
      if (pending.request.kind === 'run') pending.index = pending.request.scripts.length;
    } else if (message.kind === 'outcome') {
      this.finish(message.outcome);
    }
  }

  /** Arms the kill timer at the first script (the budget covers the scripts together). */
  private startBudget(pending: Pending): void {
    if (pending.budgetTimer) return;
    const budget = pending.request.budgetMs + this.limits.graceMs;
    pending.budgetTimer = setTimeout(() => this.abort({ type: 'timeout', index: pending.index }), budget);
  }

  private watchMemory(pending: Pending): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    pending.rssTimer = setInterval(() => {
      if (residentBytes(pid) > this.limits.rssLimitBytes) this.abort({ type: 'memory', index: pending.index });
    }, RSS_POLL_MS);
  }

  /** Ends the pending request with `outcome` and kills the worker. */
  private abort(outcome: Outcome): void {
    this.kill();
    this.finish(outcome);
  }

  private finish(outcome: Outcome): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = null;
    clearTimeout(pending.budgetTimer);
    clearTimeout(pending.requestTimer);
    clearInterval(pending.rssTimer);
    if (!this.dead) this.setReferenced(false);
    pending.resolve(outcome);
  }

  private onProcessExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.gone) return;
    this.gone = true;
    const wasKilled = this.dead;
    this.dead = true;
    const pending = this.pending;
    if (pending) {
      const tail = errorLine(this.stderrTail);
      if (/heap out of memory|Allocation failed/i.test(this.stderrTail)) this.finish({ type: 'memory', index: pending.index });
      else
        this.finish({
          type: 'fatal',
          index: pending.index,
          detail: `the worker process ${wasKilled ? 'was killed' : `exited (${signal ?? `code ${code}`})`}${tail ? `: ${tail}` : ''}`,
        });
    }
    this.onExit(this);
    this.resolveExited();
  }

  /** An idle worker does not keep the API process alive; a busy one does. */
  private setReferenced(referenced: boolean): void {
    if (referenced) {
      this.child.ref();
      this.child.channel?.ref();
    } else {
      this.child.unref();
      this.child.channel?.unref();
    }
  }
}

/** The first line of a process's stderr that names an error, else its last 300 characters. */
function errorLine(stderr: string): string {
  return (
    stderr
      .split('\n')
      .find((line) => /\b\w*Error\b|FATAL/.test(line))
      ?.trim()
      .slice(0, 300) ?? stderr.trim().slice(-300)
  );
}

/** Resident size of a process in bytes (Linux `/proc`; 0 where unavailable). */
function residentBytes(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}
