/**
 * Errors of the PyScripts sandbox. Each script failure names the script; none carries an HTTP
 * status (the quote routes and the compile check map them, with `faults.ts`: a `ScriptError` is
 * the client's 422, a `SandboxBusyError` a 503 with `Retry-After`, the others are limits).
 */

/**
 * A script raised an exception, or left a `data` that is not a valid dataframe (rating.md §1).
 * Message: `Script {name} failed: {Exception}: {detail} (line {n})` or
 * `Script {name} left an invalid data: {detail}`.
 */
export class ScriptError extends Error {
  constructor(
    /** The script's name. */
    readonly script: string,
    /** Python exception class name (`ZeroDivisionError`), or null when `data` was invalid. */
    readonly exception: string | null,
    /** The exception's text, or what is wrong with `data` and where. */
    readonly detail: string,
    /** 1-based line of the script where the exception was raised, when known. */
    readonly line: number | null,
  ) {
    super(
      exception === null
        ? `Script ${script} left an invalid data: ${detail}`
        : `Script ${script} failed: ${exception}: ${detail}${line === null ? '' : ` (line ${line})`}`,
    );
    this.name = 'ScriptError';
  }
}

/**
 * The scripts of a run (or a compile) took longer than the sandbox's `timeoutMs`; the worker was
 * killed and is being replaced. Message: `Script {name} exceeded the time limit of {ms} ms`.
 */
export class ScriptTimeoutError extends Error {
  constructor(
    /** The script that was running when the time ran out. */
    readonly script: string,
    /** The limit, in milliseconds. */
    readonly timeoutMs: number,
  ) {
    super(`Script ${script} exceeded the time limit of ${timeoutMs} ms`);
    this.name = 'ScriptTimeoutError';
  }
}

/**
 * A script went past the memory limit (`reason: 'memory'`) or crashed its worker (`'crash'`: a
 * fatal interpreter error such as a stack overflow, or the process died); the worker was killed
 * and is being replaced. Message: `Script {name} exceeded the memory limit of {mb} MB` or
 * `Script {name} crashed the sandbox: {detail}`.
 */
export class ScriptResourceError extends Error {
  constructor(
    /** The script that was running. */
    readonly script: string,
    /** What happened. */
    readonly reason: 'memory' | 'crash',
    /** For `memory` the limit in MiB, for `crash` a short description. */
    readonly detail: string,
  ) {
    super(reason === 'memory' ? `Script ${script} exceeded the memory limit of ${detail} MB` : `Script ${script} crashed the sandbox: ${detail}`);
    this.name = 'ScriptResourceError';
  }
}

/**
 * The sandbox itself cannot serve: it is closed, its workers do not start (pyodide missing, Node
 * without the permission model), or the dataframe given to `run` is not one of rating.md §1.
 */
export class SandboxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxError';
  }
}

/** Which bound of the sandbox's queue a {@link SandboxBusyError} met. */
export type BusyReason =
  /** `queueLength` calls of the kind were already waiting for a worker. */
  | 'queue'
  /** The tenant already had `tenantRuns` runs running or waiting. */
  | 'tenant'
  /** The call waited `queueWaitMs` for a worker and left the queue without running. */
  | 'wait';

/**
 * The sandbox is too busy to take the call now; it did not run and may be retried. Messages:
 * `The PyScripts sandbox is busy: {n} runs are already waiting for a worker`,
 * `... this tenant already has {n} runs running or waiting`,
 * `... the run waited {ms} ms for a worker` (`compile check` instead of `run` for compiles).
 */
export class SandboxBusyError extends SandboxError {
  constructor(
    /** The bound that was met. */
    readonly reason: BusyReason,
    /** That bound's value: a count of calls (`queue`, `tenant`) or milliseconds (`wait`). */
    readonly limit: number,
    /** Seconds after which a retry may find room (the longest one run may hold a worker). */
    readonly retryAfterSeconds: number,
    /** What was refused. */
    readonly kind: 'run' | 'compile',
  ) {
    const what = kind === 'run' ? 'run' : 'compile check';
    super(
      reason === 'queue'
        ? `The PyScripts sandbox is busy: ${limit} ${what}s are already waiting for a worker`
        : reason === 'tenant'
          ? `The PyScripts sandbox is busy: this tenant already has ${limit} runs running or waiting`
          : `The PyScripts sandbox is busy: the ${what} waited ${limit} ms for a worker`,
    );
    this.name = 'SandboxBusyError';
  }
}
