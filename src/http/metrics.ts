/**
 * `GET /metrics` in the API (issue 15): counts every answer by route template, method and status,
 * with its duration, and the database errors the handlers let through; serves the Prometheus text
 * on the API's port unless `TARIFF_METRICS_PORT` moves it to a listener of its own
 * (`metrics-listener.ts`). Every label takes its values from a fixed set ({@link routeLabel},
 * {@link methodLabel}; a status is a number from 100 to 599), so no request adds a series of its own.
 */
import { METHODS } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { TariffError } from '../kernel/errors.js';
import { UNMATCHED_ROUTE, type TariffMetrics } from '../kernel/metrics.js';
import { databaseErrorKind } from '../database/errors.js';
import { ClientClosedError } from './client-abort.js';

/**
 * The `route` label of every built console file (`/console/assets/index-DUkJp6eL.js`, one route
 * each): their names change with every release, so they share one value (fix, issue 26: each
 * release added series).
 */
export const CONSOLE_FILES_ROUTE = '/console/assets/*';

/** The console's routes that serve its page: their own label. Any other route under `/console/` serves a built file. */
const CONSOLE_PAGE_ROUTES = new Set(['/console/', '/console/*']);

/** The `method` label of a method Node's HTTP parser does not know (it refuses those before routing: never expected). */
const OTHER_METHOD = 'other';
const KNOWN_METHODS = new Set(METHODS);

/**
 * The `route` label of an answer: the route pattern it matched (Fastify's `routeOptions.url`,
 * `/v1/rating/module_config/hashmap/mappings/:mapping_id`), {@link CONSOLE_FILES_ROUTE} for a
 * built console file, {@link UNMATCHED_ROUTE} when none matched (a 404 or a 405 from the
 * not-found handler). The values are the routes registered at start-up, the same in every release
 * but for the API's own changes.
 *
 * @param routeUrl - `request.routeOptions.url`: undefined when no route matched.
 */
export function routeLabel(routeUrl: string | undefined): string {
  if (routeUrl === undefined) return UNMATCHED_ROUTE;
  if (routeUrl.startsWith('/console/') && !CONSOLE_PAGE_ROUTES.has(routeUrl)) return CONSOLE_FILES_ROUTE;
  return routeUrl;
}

/** The `method` label: the request's method when Node's HTTP parser knows it (`http.METHODS`), else `other`. */
export function methodLabel(method: string): string {
  return KNOWN_METHODS.has(method) ? method : OTHER_METHOD;
}

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
    metrics.httpAnswered(routeLabel(request.routeOptions.url), methodLabel(request.method), reply.statusCode, reply.elapsedTime / 1000);
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
