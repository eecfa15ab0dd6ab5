/**
 * A client that closes its connection before its request body is complete (a cut upload, a
 * client killed or timed out while sending).
 *
 * fix (issue 24, finding 10): Node reports it on the request stream as `Error: aborted` with code
 * `ECONNRESET`, the code a lost database connection has too; the fault handler read it as one,
 * so each cut upload raised `tariff_database_errors_total{kind="lost_connection"}` and logged
 * "database unavailable" at warning level, even on SQLite: any tenant could page the on-call.
 * Here it becomes a {@link ClientClosedError}, counted in `tariff_client_aborts_total` and logged
 * at info level.
 */
import type { FastifyRequest } from 'fastify';
import { TariffError } from '../kernel/errors.js';

/**
 * 400: the client closed its connection before its request body was complete. Nobody is left to
 * read the fault; it is what the access log and `tariff_http_requests_total` show.
 */
export class ClientClosedError extends TariffError {
  constructor() {
    super(400, 'The client closed the connection before its request body was complete.');
  }
}

/**
 * What an error of `request`'s body stream (the raw request, as the first `preParsing` hook gets
 * it) means: Tariff's own errors (a {@link TariffError} a hook destroyed the stream with) stay as
 * they are; any other comes from the connection closing before the body was complete (Node's
 * `aborted`, a reset: the client went, or the server cut a stalled request, which
 * `tariff_connections_cut_total` counts too) and becomes a {@link ClientClosedError}, logged at
 * info level with the bytes declared.
 *
 * @param error - the error the request stream emitted.
 * @returns the error to fail the body with.
 */
export function clientClosed(error: Error & { code?: string }, request: FastifyRequest): Error {
  if (error instanceof TariffError) return error;
  request.log.info(
    { code: error.code, declaredBytes: request.headers['content-length'] ?? null, remoteAddress: request.ip },
    'client closed the connection before its request body was complete',
  );
  return new ClientClosedError();
}
