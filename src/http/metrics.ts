/**
 * `GET /metrics` in the API (issue 15): counts every answer by route template, method and status,
 * with its duration, and the database errors the handlers let through; serves the Prometheus text
 * on the API's port unless `TARIFF_METRICS_PORT` moves it to a listener of its own
 * (`metrics-listener.ts`).
 */
import type { FastifyInstance } from 'fastify';
import { TariffError } from '../kernel/errors.js';
import { UNMATCHED_ROUTE, type TariffMetrics } from '../kernel/metrics.js';
import { databaseErrorKind } from '../database/errors.js';
import { ClientClosedError } from './client-abort.js';

/** Options of {@link installMetrics}. */
export interface MetricsOptions {
  /** Whether `GET /metrics` is served by this app (false when `TARIFF_METRICS_PORT` serves it). */
  serveRoute: boolean;
}

/**
 * Counts the app's answers into `metrics` and, with `serveRoute`, registers `GET /metrics`
 * (open in noauth mode; in Keystone mode an admin token, `context_is_admin`: auth/route-policy.ts).
 * Call it before the routes are registered.
 */
export function installMetrics(app: FastifyInstance, metrics: TariffMetrics, { serveRoute }: MetricsOptions): void {
  // Fastify times every request from its arrival (`reply.elapsedTime`, ms): nothing to start here.
  app.addHook('onResponse', (request, reply, done) => {
    metrics.httpAnswered(request.routeOptions.url ?? UNMATCHED_ROUTE, request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  // Database errors that reach the shell as they are (reads; writes count theirs in transaction.ts),
  // and bodies cut off by their connection closing (client-abort.ts: never a database error).
  app.addHook('onError', (_request, _reply, error, done) => {
    if (error instanceof ClientClosedError) {
      metrics.clientAborted();
    } else if (!(error instanceof TariffError)) {
      const kind = databaseErrorKind(error);
      if (kind) metrics.databaseError(kind);
    }
    done();
  });
  if (!serveRoute) return;
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const text = await metrics.text();
    return reply.type(metrics.contentType).send(text);
  });
}
