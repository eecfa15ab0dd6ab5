/**
 * The sandbox's waiting room: two lanes in front of the workers, each bounded in length and in
 * wait, and fair between tenants.
 *
 * - **Compile checks** have a lane of their own, served first: a compile check never waits
 *   behind runs, only for the next worker to free.
 * - **Runs** wait in one queue per tenant. A free worker takes the run of the tenant with the
 *   fewest runs in progress; among equals, of the tenant that started a run least recently; among
 *   those, the oldest run. A tenant may hold at most `tenantRuns` runs, running or waiting.
 * - Each lane holds at most `queueLength` waiting calls. A call that would go past a bound fails
 *   at once; a call that waited `queueWaitMs` leaves its lane and fails. Either way it never runs.
 *   Calls made before the sandbox first started wait for it to start (at most its start-up limit)
 *   and count their wait from then: a server just started does not turn its first callers away.
 */
import { SandboxBusyError } from './errors.js';
import type { Outcome, WorkerRequest } from './protocol.js';

/** One call of `run` or `compile`, from submission until its outcome. */
export interface Job {
  kind: 'run' | 'compile';
  /** The tenant a run counts against (`''` for compile checks, which count against none). */
  tenant: string;
  request: WorkerRequest;
  /** Names of the scripts, to name the one an outcome is about. */
  names: string[];
  resolve: (outcome: Outcome) => void;
  reject: (error: Error) => void;
  /** Order of admission, among all jobs. */
  sequence?: number;
  /** `performance.now()` when the job's wait began (entering its lane, or the sandbox starting). */
  queuedAt?: number;
  /** Fires when the job has waited `queueWaitMs`. */
  waitTimer?: NodeJS.Timeout;
}

/** Bounds of a {@link RequestQueue}. */
export interface QueueLimits {
  /** Most jobs waiting in each lane (runs, compile checks). */
  queueLength: number;
  /** Longest wait of a job in a lane, in ms. */
  queueWaitMs: number;
  /** Most runs of one tenant, running or waiting. */
  tenantRuns: number;
  /** `Retry-After` given with refusals, in seconds. */
  retryAfterSeconds: number;
}

interface Tenant {
  running: number;
  waiting: Job[];
  /** Sequence number of the tenant's last run start; 0: none since it had nothing in the sandbox. */
  lastStarted: number;
}

/**
 * The lanes and their bookkeeping. The pool asks it to {@link admit} each job and, whenever a
 * worker is free, for the next compile check or run; it reports each run's end with {@link finished}.
 */
export class RequestQueue {
  private readonly compiles: Job[] = [];
  private readonly tenants = new Map<string, Tenant>();
  private waitingRuns = 0;
  private runningRuns = 0;
  private runningCompiles = 0;
  private starts = 0;
  private admitted = 0;
  /** Calls refused at once. */
  refused = 0;
  /** Calls dropped after waiting too long. */
  expired = 0;

  constructor(private readonly limits: QueueLimits) {}

  /** Runs in progress. */
  get running(): number {
    return this.runningRuns;
  }

  /** Compile checks in progress. */
  get compiling(): number {
    return this.runningCompiles;
  }

  /** Runs waiting. */
  get queuedRuns(): number {
    return this.waitingRuns;
  }

  /** Compile checks waiting. */
  get queuedCompiles(): number {
    return this.compiles.length;
  }

  /**
   * Puts `job` in its lane, or refuses it.
   *
   * @param startsNow - whether a worker can take the job at once (then the lane is empty and its
   *   length bound does not apply).
   * @param waitStarts - whether the job's wait counts from now; otherwise from {@link startWaits}.
   * @returns null when admitted; the {@link SandboxBusyError} to fail the job with when refused.
   */
  admit(job: Job, startsNow: boolean, waitStarts: boolean): SandboxBusyError | null {
    const { queueLength, tenantRuns, retryAfterSeconds } = this.limits;
    if (job.kind === 'compile') {
      if (!startsNow && this.compiles.length >= queueLength) return this.refuse(new SandboxBusyError('queue', queueLength, retryAfterSeconds, 'compile'));
      this.compiles.push(job);
    } else {
      const tenant = this.tenants.get(job.tenant) ?? { running: 0, waiting: [], lastStarted: 0 };
      if (tenant.running + tenant.waiting.length >= tenantRuns) return this.refuse(new SandboxBusyError('tenant', tenantRuns, retryAfterSeconds, 'run'));
      if (!startsNow && this.waitingRuns >= queueLength) return this.refuse(new SandboxBusyError('queue', queueLength, retryAfterSeconds, 'run'));
      this.tenants.set(job.tenant, tenant);
      tenant.waiting.push(job);
      this.waitingRuns++;
    }
    job.sequence = ++this.admitted;
    if (waitStarts) this.startWait(job);
    return null;
  }

  /** Starts the wait of every job admitted with `waitStarts` false (the sandbox has started). */
  startWaits(): void {
    for (const job of this.waiting()) if (job.queuedAt === undefined) this.startWait(job);
  }

  /** Takes the oldest waiting compile check, or undefined. */
  nextCompile(): Job | undefined {
    for (let job = this.compiles.shift(); job; job = this.compiles.shift()) {
      if (this.takeIfFresh(job)) {
        this.runningCompiles++;
        return job;
      }
    }
    return undefined;
  }

  /** Takes the next run by the fairness rule (see the file's comment), or undefined. */
  nextRun(): Job | undefined {
    for (;;) {
      let chosen: Tenant | undefined;
      for (const tenant of this.tenants.values()) {
        if (tenant.waiting.length === 0) continue;
        if (!chosen || before(tenant, chosen)) chosen = tenant;
      }
      if (!chosen) return undefined;
      const job = chosen.waiting.shift() as Job;
      this.waitingRuns--;
      if (!this.takeIfFresh(job)) {
        this.forgetIfIdle(job.tenant);
        continue;
      }
      chosen.running++;
      chosen.lastStarted = ++this.starts;
      this.runningRuns++;
      return job;
    }
  }

  /** Records the end of a job taken with {@link nextCompile} or {@link nextRun}. */
  finished(job: Job): void {
    if (job.kind === 'compile') {
      this.runningCompiles--;
      return;
    }
    this.runningRuns--;
    const tenant = this.tenants.get(job.tenant);
    if (tenant) tenant.running--;
    this.forgetIfIdle(job.tenant);
  }

  /** Empties both lanes (closing, or no worker can start); returns the jobs that were waiting. */
  drain(): Job[] {
    const jobs = this.waiting();
    this.compiles.length = 0;
    for (const tenant of this.tenants.values()) tenant.waiting.length = 0;
    this.waitingRuns = 0;
    for (const [key] of this.tenants) this.forgetIfIdle(key);
    for (const job of jobs) clearTimeout(job.waitTimer);
    return jobs;
  }

  private waiting(): Job[] {
    const jobs = [...this.compiles];
    for (const tenant of this.tenants.values()) jobs.push(...tenant.waiting);
    return jobs;
  }

  private startWait(job: Job): void {
    job.queuedAt = performance.now();
    job.waitTimer = setTimeout(() => this.expire(job), this.limits.queueWaitMs);
  }

  private refuse(error: SandboxBusyError): SandboxBusyError {
    this.refused++;
    return error;
  }

  /** Stops the job's wait; false (and the job failed) when it has waited too long already. */
  private takeIfFresh(job: Job): boolean {
    clearTimeout(job.waitTimer);
    if (job.queuedAt === undefined || performance.now() - job.queuedAt <= this.limits.queueWaitMs) return true;
    this.fail(job);
    return false;
  }

  /** The wait timer fired: out of the lane, failed. */
  private expire(job: Job): void {
    if (job.kind === 'compile') {
      const at = this.compiles.indexOf(job);
      if (at < 0) return;
      this.compiles.splice(at, 1);
    } else {
      const tenant = this.tenants.get(job.tenant);
      const at = tenant ? tenant.waiting.indexOf(job) : -1;
      if (!tenant || at < 0) return;
      tenant.waiting.splice(at, 1);
      this.waitingRuns--;
      this.forgetIfIdle(job.tenant);
    }
    this.fail(job);
  }

  private fail(job: Job): void {
    this.expired++;
    job.reject(new SandboxBusyError('wait', this.limits.queueWaitMs, this.limits.retryAfterSeconds, job.kind));
  }

  private forgetIfIdle(key: string): void {
    const tenant = this.tenants.get(key);
    if (tenant && tenant.running === 0 && tenant.waiting.length === 0) this.tenants.delete(key);
  }
}

/** Whether tenant `a` is served before tenant `b` (both have waiting runs). */
function before(a: Tenant, b: Tenant): boolean {
  if (a.running !== b.running) return a.running < b.running;
  if (a.lastStarted !== b.lastStarted) return a.lastStarted < b.lastStarted;
  return (a.waiting[0].sequence ?? 0) < (b.waiting[0].sequence ?? 0);
}
