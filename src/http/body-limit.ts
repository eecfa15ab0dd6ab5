/**
 * Request body limits that the caller can read about: an over-limit body is read to its end and
 * dropped, up to a hard cap, before the 413 fault is sent (fix, issue 11: answering 413 and
 * closing while a client was still sending made the real CLI print "Broken pipe" instead of the
 * fault).
 */
import { Transform, type TransformCallback } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { TariffError } from '../kernel/errors.js';
import { clientClosed } from './client-abort.js';

/** Route config key: the route's own body limit in bytes, when it is not the default one. */
export interface BodyLimitRouteConfig {
  maxBodyBytes?: number;
}

/** The limits of {@link installBodyLimits}, in bytes. */
export interface BodyLimits {
  /** Largest body of a route without its own limit (`TARIFF_BODY_LIMIT_MB`). */
  defaultBytes: number;
  /**
   * Largest body read to its end when over its route's limit (`TARIFF_BODY_DRAIN_LIMIT_MB`);
   * beyond it the 413 is sent at once and the connection closed. Also Fastify's own limit.
   */
  drainBytes: number;
}

/** 413: the body is larger than the route accepts. */
export class BodyTooLargeError extends TariffError {
  constructor(limitBytes: number) {
    super(413, `Request body is too large: at most ${limitBytes} bytes are accepted here.`);
  }
}

/**
 * Passes a body through while it stays within `limitBytes`; past it, drops the rest while
 * counting and fails at the end (or at once past `drainBytes`) with {@link BodyTooLargeError}.
 */
class LimitedBody extends Transform {
  private received = 0;

  constructor(
    private readonly limitBytes: number,
    private readonly drainBytes: number,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.received += chunk.length;
    if (this.received > this.drainBytes) return callback(new BodyTooLargeError(this.limitBytes));
    if (this.received <= this.limitBytes) return callback(null, chunk);
    callback();
  }

  override _flush(callback: TransformCallback): void {
    callback(this.received > this.limitBytes ? new BodyTooLargeError(this.limitBytes) : null);
  }
}

/**
 * Enforces each route's body limit (its `config.maxBodyBytes`, else `limits.defaultBytes`) in a
 * `preParsing` hook. Fastify's own `bodyLimit` must be `limits.drainBytes`: it then only stops
 * bodies past the hard cap. Requests without a body pass untouched (a callback hook: no promise
 * on the hot path of GETs).
 */
export function installBodyLimits(app: FastifyInstance, limits: BodyLimits): void {
  app.addHook('preParsing', (request, _reply, payload, done) => {
    if (request.method === 'HEAD') return done(null, payload);
    const declared = Number(request.headers['content-length']);
    if (!(declared > 0) && request.headers['transfer-encoding'] === undefined) return done(null, payload);
    const limit = (request.routeOptions.config as BodyLimitRouteConfig | undefined)?.maxBodyBytes ?? limits.defaultBytes;
    // A route may take more than the drain limit (a simulation's usage upload): its own limit is its cap.
    if (declared > Math.max(limit, limits.drainBytes)) return done(new BodyTooLargeError(limit));
    const limited = new LimitedBody(limit, Math.max(limit, limits.drainBytes));
    // A connection closed before the body's end is the client's doing, never the database's (fix, issue 24).
    payload.on('error', (error) => limited.destroy(clientClosed(error, request)));
    done(null, payload.pipe(limited));
  });
}
