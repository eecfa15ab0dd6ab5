/**
 * The access log (issue 26): one line per request, written when its answer is sent, with what an
 * operator asks of it: method, URL, route, status, duration, request id, the acting user and
 * project when known, and for a fault its message (and, for a server fault, the error with its
 * stack). Fastify's own two lines ("incoming request" at info, "request completed" without the
 * fault) are replaced: "incoming request" is written at debug level only.
 *
 * Levels: a 5xx is `error` (or what the fault handler chose, e.g. `warn` for load shedding);
 * anything else `info`; `/healthcheck` and `/metrics`, polled every few seconds, `debug` unless
 * they fail unexpectedly.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { ACCESS_LINE_MESSAGE, type AccessLineFields } from '../kernel/logger.js';

/** A fault as the fault handler answered it, for the request's log line. */
export interface RecordedFault {
  /** The fault body's `faultstring`: what the client was told. */
  message: string;
  /** The error behind a server fault, logged with its stack (pino's `err`). */
  error?: unknown;
  /** The line's level instead of the status's (`warn` for a 503 that sheds load). */
  level?: 'info' | 'warn' | 'error';
}

/** Log levels of the access log's lines. */
type LineLevel = 'debug' | 'info' | 'warn' | 'error';

const faults = new WeakMap<FastifyReply, RecordedFault>();

/**
 * Remembers the fault `reply` answers with, for its access-log line (the last one recorded wins).
 * Called by `sendFault` and the fault handler (faults.ts); cheap, and only on faults.
 */
export function recordFault(reply: FastifyReply, fault: RecordedFault): void {
  faults.set(reply, fault);
}

/** The routes that are polled (health checks, scrapes): their lines are written at debug level. */
const POLLED_ROUTES = new Set(['/healthcheck', '/metrics']);

/** The longest `X-User-Id` written in the log as it is; a longer one is cut to this length. */
const LOGGED_USER_LENGTH = 64;

/**
 * The acting user and project of `request`: the validated token's in Keystone mode; in noauth
 * mode the `X-User-Id` header (unchecked, cut to {@link LOGGED_USER_LENGTH}) when given.
 */
function callerOf(request: FastifyRequest): { user?: string; project?: string } {
  const identity = request.identity;
  if (identity) return { user: identity.userId, project: identity.projectId ?? undefined };
  const header = request.headers['x-user-id'];
  const user = Array.isArray(header) ? header[0] : header;
  return user ? { user: user.slice(0, LOGGED_USER_LENGTH) } : {};
}

function levelOf(route: string | undefined, status: number, fault: RecordedFault | undefined, streamError: Error | null | undefined): LineLevel {
  if (streamError) return 'error';
  if (fault?.level) return fault.level;
  if (route !== undefined && POLLED_ROUTES.has(route) && fault?.error === undefined) return 'debug';
  return status >= 500 ? 'error' : 'info';
}

/**
 * Fastify's log controller for Tariff's access log: see the file's comment. Passed to Fastify as
 * `logController` (app.ts).
 */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ method: request.method, url: request.url }, 'incoming request');
  }

  /**
   * Writes the request's one line, `request completed`, when its answer is sent (or its stream
   * failed: `streamError`, at error level).
   */
  override requestCompleted(streamError: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const route = request.routeOptions.url;
    const status = reply.statusCode;
    const fault = faults.get(reply);
    const level = levelOf(route, status, fault, streamError);
    const error = streamError ?? fault?.error;
    const line: AccessLineFields = {
      method: request.method,
      url: request.url,
      route,
      status,
      duration_ms: Math.round(reply.elapsedTime * 10) / 10,
      ...callerOf(request),
      fault: fault?.message,
      err: error,
    };
    request.log[level](line, ACCESS_LINE_MESSAGE);
  }
}
