/**
 * Errors of the PyScripts sandbox. Each script failure names the script; none carries an HTTP
 * status (the quote routes map them: a `ScriptError` is the client's 422, the others are limits).
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
    super(
      reason === 'memory'
        ? `Script ${script} exceeded the memory limit of ${detail} MB`
        : `Script ${script} crashed the sandbox: ${detail}`,
    );
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
