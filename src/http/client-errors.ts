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
 *
 * fix (issue 24): a malformed request pipelined behind a good one (`POST H/groups` and a broken
 * request line in one packet) got only the 400, and the connection closed before the good
 * request's 201, although its group was committed. The answers already owed on the connection are
 * now sent first, then the fault.
 */
import { STATUS_CODES } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { TariffMetrics } from '../kernel/metrics.js';
import { faultBody } from './faults.js';

/** The limits of {@link clientErrorHandler}. */
export interface ClientErrorLimits {
  /** Largest request line and headers, in bytes (`TARIFF_HEADER_LIMIT_KB`; Node's `maxHeaderSize`). */
  headerBytes: number;
  /** Most bytes read and dropped after the fault before the connection is cut (`TARIFF_BODY_DRAIN_LIMIT_MB`). */
  drainBytes: number;
  /** Longest time, in milliseconds, the connection is kept open after the fault (`TARIFF_LINGER_TIMEOUT`). */
  lingerMs: number;
  /** Longest time, in milliseconds, a whole request may take to arrive (`TARIFF_REQUEST_TIMEOUT`; Node's `requestTimeout`). */
  requestMs: number;
  /** Longest time, in milliseconds, its line and headers may take (at most 60 s of `requestMs`; Node's `headersTimeout`). */
  headersMs: number;
}

/** The error Node gives a `clientError` listener: `code` is llhttp's (`HPE_*`) or Node's. */
type ClientError = Error & { code?: string; reason?: string };

/** The status and fault message for a request the parser refused. */
function clientErrorFault(error: ClientError, limits: ClientErrorLimits): { status: number; message: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        message: `Request line and headers are too large: at most ${limits.headerBytes} bytes are accepted (TARIFF_HEADER_LIMIT_KB).`,
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        message:
          `The request was not received in time: its line and headers must arrive within ${limits.headersMs / 1000} s, ` +
          `and the whole request within ${limits.requestMs / 1000} s (TARIFF_REQUEST_TIMEOUT).`,
      };
    default:
      return { status: 400, message: `Malformed HTTP request: ${error.reason ?? error.message}.` };
  }
}

/** The raw HTTP/1.1 answer carrying a fault, closing the connection. */
export function faultAnswer(status: number, message: string): string {
  const body = JSON.stringify(faultBody(status, message));
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/** The limits {@link refuseOnConnection} needs. */
export type RefusalLimits = Pick<ClientErrorLimits, 'drainBytes' | 'lingerMs'>;

/** The answer Node's HTTP server is writing on `socket`, if any (its own bookkeeping, as Node's default `clientError` handler reads it). */
export function responseUnderWay(socket: Socket): ServerResponse | undefined {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
}

/** Sockets refused already (by a parser error, a time-out or a stall): one fault each. */
const refusedSockets = new WeakSet<Socket>();

/** Whether `socket` has been refused already by {@link refuseOnConnection}. */
export function isRefused(socket: Socket): boolean {
  return refusedSockets.has(socket);
}

/** Stops Node's parser reading `socket`: what comes from now on is read, counted and dropped; past `drainBytes` the socket is destroyed. */
function dropWhatComes(socket: Socket, limits: RefusalLimits): void {
  socket.removeAllListeners('data');
  let received = 0;
  socket.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > limits.drainBytes) socket.destroy();
  });
  socket.resume();
}

/**
 * Ends our side of `socket` and keeps dropping what the client still sends until the client ends
 * its side (the socket then closes), or `lingerMs` have passed (then the socket is destroyed).
 */
function lingeringClose(socket: Socket, limits: RefusalLimits): void {
  const timer = setTimeout(() => socket.destroy(), limits.lingerMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.end();
}

/**
 * Calls `then` once every answer owed on `socket` has been sent: the one under way, and those of
 * requests pipelined behind it, which Node attaches to the socket in turn as each one finishes.
 * An answer whose request is still arriving (its body stalled or timed out), and `refused`, the
 * answer of the request being refused, are owed nothing more: they are given up.
 */
function afterAnswersOwed(socket: Socket, refused: ServerResponse | undefined, then: () => void): void {
  const response = responseUnderWay(socket);
  if (!response || response === refused || response.writableFinished || response.req?.complete !== true || socket.destroyed) return then();
  const next = () => {
    response.off('finish', next);
    response.off('close', next);
    // Node's own 'finish' listener, registered first, has attached the next pipelined answer.
    afterAnswersOwed(socket, refused, then);
  };
  response.on('finish', next);
  response.on('close', next);
}

/**
 * Refuses what comes next on `socket` with a fault (`status`, `message`) and `Connection: close`:
 * Node's parser stops reading it at once (the rest is dropped, up to `drainBytes`), the answers
 * already owed on the connection are sent first (pipelined requests before the refused one), then
 * the fault, and the connection lingers (see {@link lingeringClose}). Only the first refusal of a
 * socket does anything. An answer already begun (headers sent) cannot be followed by another:
 * then the connection is only closed. `refused`: the answer Node made for the refused request, if
 * it parsed one (it is never sent: the fault takes its place).
 */
export function refuseOnConnection(socket: Socket, status: number, message: string, limits: RefusalLimits, refused?: ServerResponse): void {
  if (socket.destroyed || refusedSockets.has(socket)) return;
  refusedSockets.add(socket);
  dropWhatComes(socket, limits);
  afterAnswersOwed(socket, refused, () => {
    if (socket.destroyed) return;
    // An answer cut short (its request never arrived whole) has its headers on the wire or not: a
    // fault after half an answer would be read as its body.
    const underWay = responseUnderWay(socket);
    const halfSent = underWay !== refused && underWay?.headersSent === true;
    if (socket.writable && !halfSent) socket.write(faultAnswer(status, message));
    lingeringClose(socket, limits);
  });
}

/**
 * A Fastify `clientErrorHandler`: answers a request the parser refused with the fault (431, 408
 * or 400, see {@link clientErrorFault}) after the answers already owed on the connection, logs it
 * at info level, and closes the connection after lingering ({@link refuseOnConnection}). Node may
 * report one socket more than once (the parser fails again on what follows); only the first
 * report answers. A request past `TARIFF_REQUEST_TIMEOUT` is counted in `metrics`
 * (`tariff_connections_cut_total{reason="request_timeout"}`).
 */
export function clientErrorHandler(
  limits: ClientErrorLimits,
  metrics?: TariffMetrics,
): (this: { log: FastifyBaseLogger }, error: ClientError, socket: Socket) => void {
  return function handleClientError(error, socket) {
    // A reset by the client: nothing to answer, nobody to answer to.
    if (error.code === 'ECONNRESET' || socket.destroyed || refusedSockets.has(socket)) return;
    const { status, message } = clientErrorFault(error, limits);
    this.log.info({ status, code: error.code, remoteAddress: socket.remoteAddress }, `request refused before routing: ${message}`);
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') metrics?.connectionCut('request_timeout');
    refuseOnConnection(socket, status, message, limits);
  };
}
