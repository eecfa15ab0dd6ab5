/**
 * Requests Node's HTTP parser refuses before any route sees them: a request line and headers past
 * the size limit, a malformed request line or header, headers that never arrive in time.
 *
 * fix: Fastify answered these with a body of its own (`{"error": ..., "statusCode": 431}`) instead
 * of the WSME fault, and destroyed the socket at once; a client still writing its body (a long URL
 * with a 500 KB body, found by test/fuzz/) then often got `EPIPE` or `ECONNRESET` instead of the
 * answer. Here the fault is sent with `Connection: close`, and the connection lingers: what the
 * client still sends is read and dropped until it stops, up to a byte and a time limit, so its
 * kernel never sees a reset before it has read the answer (Apache's "lingering close").
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { faultBody } from './faults.js';

/** The limits of {@link clientErrorHandler}. */
export interface ClientErrorLimits {
  /** Largest request line and headers, in bytes (`TARIFF_HEADER_LIMIT_KB`; Node's `maxHeaderSize`). */
  headerBytes: number;
  /** Most bytes read and dropped after the fault before the connection is cut (`TARIFF_BODY_DRAIN_LIMIT_MB`). */
  drainBytes: number;
  /** Longest time, in milliseconds, the connection is kept open after the fault (`TARIFF_LINGER_TIMEOUT`). */
  lingerMs: number;
}

/** The error Node gives a `clientError` listener: `code` is llhttp's (`HPE_*`) or Node's. */
type ClientError = Error & { code?: string; reason?: string };

/** The status and fault message for a request the parser refused. */
function clientErrorFault(error: ClientError, limits: Pick<ClientErrorLimits, 'headerBytes'>): { status: number; message: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        message: `Request line and headers are too large: at most ${limits.headerBytes} bytes are accepted (TARIFF_HEADER_LIMIT_KB).`,
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'The request was not received in time.' };
    default:
      return { status: 400, message: `Malformed HTTP request: ${error.reason ?? error.message}.` };
  }
}

/** The raw HTTP/1.1 answer carrying a fault, closing the connection. */
function faultAnswer(status: number, message: string): string {
  const body = JSON.stringify(faultBody(status, message));
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/**
 * Ends our side of `socket` and reads what the client still sends, dropping it, until the client
 * ends its side (the socket then closes), `drainBytes` have come or `lingerMs` have passed (then
 * the socket is destroyed).
 */
function lingeringClose(socket: Socket, limits: ClientErrorLimits): void {
  // Node's parser has failed; whatever comes next is the rest of a request nobody will read.
  socket.removeAllListeners('data');
  let received = 0;
  const timer = setTimeout(() => socket.destroy(), limits.lingerMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > limits.drainBytes) socket.destroy();
  });
  socket.end();
  socket.resume();
}

/**
 * A Fastify `clientErrorHandler`: answers a request the parser refused with the fault (431, 408
 * or 400, see {@link clientErrorFault}), logs it at info level, and closes the connection after
 * lingering. Node may report one socket more than once (the parser fails again on what follows);
 * only the first report answers.
 */
export function clientErrorHandler(limits: ClientErrorLimits): (this: { log: FastifyBaseLogger }, error: ClientError, socket: Socket) => void {
  const answered = new WeakSet<Socket>();
  return function handleClientError(error, socket) {
    // A reset by the client: nothing to answer, nobody to answer to.
    if (error.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
    answered.add(socket);
    const { status, message } = clientErrorFault(error, limits);
    this.log.info({ status, code: error.code, remoteAddress: socket.remoteAddress }, `request refused before routing: ${message}`);
    // As Node's own handler: no answer in the middle of one already being sent on this connection.
    const underWay = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (socket.writable && !underWay) socket.write(faultAnswer(status, message));
    lingeringClose(socket, limits);
  };
}
