/**
 * The client's one error: a message for the operator, printed as `tariff: <message>`, and the exit
 * code (1: the command failed; nothing else is thrown on purpose).
 */
export class ClientError extends Error {
  /**
   * @param message - one or more lines, complete sentences, naming what to do where it helps.
   * @param exitCode - the process exit code (default 1).
   */
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'ClientError';
  }
}
