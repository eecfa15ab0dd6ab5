/**
 * The Node HTTP server under Fastify (its `serverFactory`): the connection time-outs, and the
 * requests Node itself would refuse before Fastify sees them, answered with the WSME fault body.
 *
 * fix (issue 24): Fastify's `requestTimeout` and `connectionTimeout` are 0, so headers and half of
 * a declared body, then silence, held the connection and the body in memory for ever; and a client
 * that read 1 KB of a 44 MB answer and stopped held the answer for ever. Now:
 * - a whole request (line, headers, body) must arrive within `TARIFF_REQUEST_TIMEOUT` (its line and
 *   headers within 60 s of it): a 408 fault, then the connection closed (client-errors.ts);
 * - a connection with a request under way may not go `TARIFF_STALL_TIMEOUT` without a byte either
 *   way (Node's socket time-out, which a write the client does not read does not refresh): a body
 *   that stopped coming is a 408 fault and the connection closed; an answer the client stopped
 *   reading is cut (the connection destroyed, the answer freed), logged at info and counted in
 *   `tariff_connections_cut_total`. A request whose handler is still working is left alone;
 * - an idle keep-alive connection is closed after `TARIFF_KEEP_ALIVE_TIMEOUT`.
 *
 * fix (issue 24): Node answered an HTTP/1.1 request without `Host`, an `Expect` other than
 * `100-continue` and a `CONNECT` with an empty body (or none: `CONNECT` was reset); each now gets
 * the fault body and `Connection: close`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyServerFactoryHandler } from 'fastify';
import type { TariffMetrics } from '../kernel/metrics.js';
import { isRefused, refuseOnConnection, responseUnderWay, type RefusalLimits } from './client-errors.js';

/** The time limits of a connection, in milliseconds. */
export interface ConnectionTimeouts {
  /** A whole request, line to body (`TARIFF_REQUEST_TIMEOUT`). */
  requestMs: number;
  /** Its line and headers: at most 60 s of `requestMs` (Node's default `headersTimeout`). */
  headersMs: number;
  /** Without a byte either way while a request is under way (`TARIFF_STALL_TIMEOUT`). */
  stallMs: number;
  /** An idle keep-alive connection (`TARIFF_KEEP_ALIVE_TIMEOUT`). */
  keepAliveMs: number;
}

/** What {@link tariffServerFactory} needs. */
export interface HttpServerOptions {
  timeouts: ConnectionTimeouts;
  /** Largest request line and headers, in bytes (`TARIFF_HEADER_LIMIT_KB`). */
  headerBytes: number;
  /** How a refused connection lingers (client-errors.ts). */
  refusal: RefusalLimits;
  /** Where refusals and cut connections are logged; called once Fastify's logger exists. */
  log: () => FastifyBaseLogger;
  /** Counts the connections cut (`tariff_connections_cut_total`); absent: metrics off. */
  metrics?: TariffMetrics;
}

/** The longest wait for a request's line and headers (Node's default `headersTimeout`). */
const HEADERS_LIMIT_MS = 60_000;

/** The connection time-outs from the configuration's settings, in milliseconds. */
export function connectionTimeouts(settings: { requestTimeoutMs: number; stallTimeoutMs: number; keepAliveTimeoutMs: number }): ConnectionTimeouts {
  return {
    requestMs: settings.requestTimeoutMs,
    headersMs: Math.min(HEADERS_LIMIT_MS, settings.requestTimeoutMs),
    stallMs: settings.stallTimeoutMs,
    keepAliveMs: settings.keepAliveTimeoutMs,
  };
}

/**
 * A Fastify `serverFactory` building the HTTP/1.1 server with {@link HttpServerOptions}' limits.
 * Fastify still registers its own `clientErrorHandler` on it (client-errors.ts).
 */
export function tariffServerFactory(options: HttpServerOptions): (handler: FastifyServerFactoryHandler) => Server {
  return (handler) => {
    const { timeouts } = options;
    const server = createServer(
      {
        maxHeaderSize: options.headerBytes,
        requestTimeout: timeouts.requestMs,
        headersTimeout: timeouts.headersMs,
        // Node checks the two above on this beat (30 s by default): a tenth of the shorter, within 0.1-30 s.
        connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.min(timeouts.requestMs, timeouts.headersMs) / 10)),
        // Node's own refusal is an empty 400: the handler below answers with the fault.
        requireHostHeader: false,
      },
      (request, response) => {
        if (request.headers.host === undefined && request.httpVersionMajor === 1 && request.httpVersionMinor === 1) {
          refuseRequest(options, response, 400, 'Malformed HTTP request: an HTTP/1.1 request must carry a Host header.');
          return;
        }
        handler(request, response);
        if (!request.complete) watchBodyAfterAnswer(request, response, timeouts);
      },
    );
    server.keepAliveTimeout = timeouts.keepAliveMs;
    server.setTimeout(timeouts.stallMs);
    server.on('timeout', (socket: Socket) => onSocketTimeout(options, socket));
    server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) =>
      refuseRequest(options, response, 417, `Expectation failed: only "Expect: 100-continue" is understood, got "${request.headers.expect}".`),
    );
    server.on('connect', (request: IncomingMessage, socket: Duplex) => {
      options.log().info({ status: 405, remoteAddress: request.socket.remoteAddress }, 'request refused before routing: CONNECT');
      refuseOnConnection(socket as Socket, 405, 'Method not allowed: CONNECT is not served.', options.refusal);
    });
    return server;
  };
}

/** Sockets whose answer went out before its request's body was all read, until that body ends. */
const answeredBeforeBody = new WeakSet<Socket>();

/**
 * fix (issue 24): a refusal sent before the body was read (a quote's 503 from the admission
 * budget) lets Node read the rest of the body and drop it; Node then times the connection as an
 * idle keep-alive one, so a body that stalled there held the connection for
 * `TARIFF_KEEP_ALIVE_TIMEOUT`. Until such a body ends, the connection is timed by
 * `TARIFF_STALL_TIMEOUT` and cut when it stalls ({@link onSocketTimeout}).
 */
function watchBodyAfterAnswer(request: IncomingMessage, response: ServerResponse, timeouts: ConnectionTimeouts): void {
  response.once('finish', () => {
    if (request.complete) return;
    const socket = request.socket;
    answeredBeforeBody.add(socket);
    socket.setTimeout(timeouts.stallMs);
    request.once('end', () => {
      answeredBeforeBody.delete(socket);
      if (!socket.destroyed) socket.setTimeout(timeouts.keepAliveMs);
    });
  });
}

/**
 * Answers a request Node parsed but Fastify must not see with the fault, in its place, closing the
 * connection as a parser refusal does: after the answers owed before it, lingering so that a
 * client still sending its body reads the fault rather than a reset.
 */
function refuseRequest(options: HttpServerOptions, response: ServerResponse, status: number, message: string): void {
  const socket = response.req.socket;
  options.log().info({ status, remoteAddress: socket.remoteAddress }, `request refused before routing: ${message}`);
  refuseOnConnection(socket, status, message, options.refusal, response);
}

/**
 * Node found `socket` without a byte either way for `stallMs` (or `keepAliveMs` when idle
 * between requests). Listening to the server's `'timeout'` leaves every decision here: Node
 * destroys nothing itself then.
 */
function onSocketTimeout(options: HttpServerOptions, socket: Socket): void {
  if (socket.destroyed) return;
  const response = responseUnderWay(socket);
  const stallSeconds = options.timeouts.stallMs / 1000;
  if (socket.writableLength > 0) {
    // Node refreshes the time-out while the kernel takes bytes: these have waited `stallMs`.
    options
      .log()
      .info(
        { requestId: response?.getHeader('x-openstack-request-id'), pendingBytes: socket.writableLength, timeout_s: stallSeconds },
        'answer cut: the client read nothing of it for TARIFF_STALL_TIMEOUT',
      );
    options.metrics?.connectionCut('write_stall');
    socket.destroy();
    return;
  }
  // Refused already (client-errors.ts): its lingering close has a time limit of its own.
  if (isRefused(socket)) return;
  if (answeredBeforeBody.has(socket)) {
    // Answered already; the rest of the body, which nobody reads, stopped coming.
    options.log().info({ remoteAddress: socket.remoteAddress, timeout_s: stallSeconds }, 'connection cut: the body of an answered request stalled');
    options.metrics?.connectionCut('read_stall');
    socket.destroy();
    return;
  }
  if (response) {
    // The answer is being worked out (or produced, and every byte written was taken): not the client's stall.
    if (response.req.complete || response.headersSent) return;
    // The body waits for the server (its handler reads slowly: Node paused the socket), not the client.
    if (socket.isPaused() || response.req.readableLength > 0) return;
    refuseStalled(options, socket, stallSeconds);
    return;
  }
  // No request under way: never a byte, or idle between requests (Node set the socket's time-out to
  // `keepAliveMs` and a margin of its own after the last answer, and sets `stallMs` back once the
  // next request's headers are in): closed without a word, as Node does. Otherwise a first
  // request's line or headers that stopped coming: a 408.
  const idle = socket.bytesRead === 0 || socket.timeout !== options.timeouts.stallMs;
  if (idle) socket.destroy();
  else refuseStalled(options, socket, stallSeconds);
}

/** A request that stopped coming: 408 and the connection closed (its body, read so far, freed with it). */
function refuseStalled(options: HttpServerOptions, socket: Socket, stallSeconds: number): void {
  const message = `The request stalled: nothing of it came for ${stallSeconds} s (TARIFF_STALL_TIMEOUT).`;
  options.log().info({ status: 408, remoteAddress: socket.remoteAddress }, `request refused: ${message}`);
  options.metrics?.connectionCut('read_stall');
  refuseOnConnection(socket, 408, message, options.refusal);
}
