/**
 * CloudKitty's routes Tariff does not serve (issue 23): `/v1/info`, `/v1/report`, `/v1/storage`,
 * `/v1/collector`, `/v2/summary`, `/v2/dataframes`, `/v2/scope`, `/v2/task` and everything under
 * them, every method, forwarded to the CloudKitty API at `TARIFF_CLOUDKITTY_API_URL` with
 * `@fastify/reply-from`; without the setting, a 404 naming it. Tariff's own routes are registered
 * elsewhere and always win (these are prefixes CloudKitty owns alone). docs/api.md "Forwarded
 * routes" is the contract.
 *
 * Bodies stream both ways: the routes live in a plugin of their own whose content-type parser
 * hands the request stream on unread (within `TARIFF_CLOUDKITTY_BODY_LIMIT_MB`, body-limit.ts),
 * and the answer's body is piped to the caller as it comes.
 */
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import replyFrom from '@fastify/reply-from';
import type { CloudKittyApiSettings } from '../../config.js';
import { CLOUDKITTY_FORWARDED_PREFIXES } from '../../auth/route-policy.js';
import type { TariffMetrics } from '../../kernel/metrics.js';
import { BodyTooLargeError, type BodyLimitRouteConfig } from '../body-limit.js';
import { sendFault } from '../faults.js';
import { CloudKittyUpstream } from './upstream.js';
import { endToEndHeaders, upstreamRequestHeaders } from './headers.js';
import { forwardFailure } from './failures.js';
import { TariffError } from '../../kernel/errors.js';
import { maskUrlCredentials } from '../../kernel/url-credentials.js';

/** What {@link registerCloudKittyForward} needs. */
export interface CloudKittyForwardOptions {
  settings: CloudKittyApiSettings;
  /** Where failed forwardings are counted (`tariff_forward_errors_total`); absent when metrics are off. */
  metrics?: TariffMetrics;
}

/** The route patterns of the forwarded prefixes: each prefix and everything under it. */
export const FORWARDED_ROUTE_PATTERNS: readonly string[] = CLOUDKITTY_FORWARDED_PREFIXES.flatMap((prefix) => [prefix, `${prefix}/*`]);

/**
 * Registers the forwarded routes on `app` (after the shell's hooks: faults, body limits, Keystone
 * guards, metrics). In Keystone mode they need a valid token (auth/route-policy.ts); CloudKitty
 * applies its own policy.
 */
export async function registerCloudKittyForward(app: FastifyInstance, options: CloudKittyForwardOptions): Promise<void> {
  await app.register(forwardedRoutes, options);
}

const forwardedRoutes: FastifyPluginAsync<CloudKittyForwardOptions> = async (app, { settings, metrics }) => {
  const bodies = new WeakMap<FastifyRequest, Readable>();
  // This plugin's own parsers: any body, of any type or none, is kept as the stream it is.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request, payload, done) => {
    bodies.set(request, payload);
    done(null, undefined);
  });
  const config: BodyLimitRouteConfig = { maxBodyBytes: settings.bodyLimitBytes };
  const routeOptions = { schema: { hide: true }, config };
  // The upstream as logged: its credentials masked (issue 24, finding 8).
  const shownUpstream = settings.url === undefined ? undefined : maskUrlCredentials(settings.url);

  if (settings.url === undefined) {
    for (const url of FORWARDED_ROUTE_PATTERNS) {
      app.all(url, routeOptions, async (request, reply) => {
        await drain(bodies.get(request) ?? (hasBody(request) ? request.raw : undefined));
        return sendFault(
          reply,
          404,
          `Resource not found: ${request.method} ${pathOf(request)}; CloudKitty's API is not configured (TARIFF_CLOUDKITTY_API_URL).`,
        );
      });
    }
    return;
  }

  const upstream = new CloudKittyUpstream({ ...settings, url: settings.url });
  app.addHook('onClose', async () => upstream.close());
  await app.register(replyFrom, { base: upstream.origin, undici: upstream.dispatcher, disableRequestLogging: true, disableCache: true });

  const failed = (request: FastifyRequest, reply: FastifyReply, error: Error): void => {
    // The caller's own body broke a limit (413) or the stream: answer as Tariff does.
    const own = tariffErrorIn(error);
    if (own) {
      reply.send(own);
      return;
    }
    const failure = forwardFailure(error, request.method, pathOf(request), settings);
    metrics?.forwardError(failure.kind);
    request.log.warn({ kind: failure.kind, code: failure.code, upstream: shownUpstream }, 'forwarding to CloudKitty failed');
    sendFault(reply, failure.status, failure.message);
  };

  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    // A body Fastify did not parse (a GET's, while GETs have no body in the shell) is the raw stream.
    const body = bodies.get(request) ?? (hasBody(request) ? request.raw : undefined);
    // reply-from must not re-encode a parsed body: the stream goes through the upstream's send().
    request.body = undefined;
    if (body && Number(request.headers['content-length']) > settings.bodyLimitBytes) {
      await drain(body);
      throw new BodyTooLargeError(settings.bodyLimitBytes);
    }
    return upstream.send(body, () =>
      reply.from(request.url, {
        rewriteRequestHeaders: (_request, headers) => upstreamRequestHeaders(request, headers),
        rewriteHeaders: (headers) => endToEndHeaders(headers),
        retryDelay: () => null,
        onError: (_reply, { error }) => failed(request, reply, error),
        onResponse: (_request, answer, response) => {
          const stream = response.stream as unknown as Readable;
          stream.once('error', (error: Error & { code?: string }) => {
            // Destroyed on Tariff's side (the caller went away): not CloudKitty's doing.
            if (error.code === 'UND_ERR_ABORTED') return;
            metrics?.forwardError('answer_cut');
            request.log.warn({ err: error, upstream: shownUpstream }, "CloudKitty's answer broke off");
          });
          answer.send(stream);
        },
      }),
    );
  };
  for (const url of FORWARDED_ROUTE_PATTERNS) app.all(url, routeOptions, (request, reply) => forward(request, reply));
};

/** Whether the request announces a body (HTTP/1.1: a length above 0, or chunks). */
function hasBody(request: FastifyRequest): boolean {
  return Number(request.headers['content-length']) > 0 || request.headers['transfer-encoding'] !== undefined;
}

/** The request's path, without the query string. */
function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0];
}

/** The first TariffError in `error`'s cause chain (a body over its limit). */
function tariffErrorIn(error: unknown): TariffError | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 8; current = current.cause, depth += 1) {
    if (current instanceof TariffError) return current;
  }
  return undefined;
}

/**
 * Reads a request body to its end and drops it, so the caller reads the answer rather than a
 * broken pipe; rethrows the body limit's 413 (body-limit.ts).
 */
async function drain(body: Readable | undefined): Promise<void> {
  if (!body) return;
  for await (const _chunk of body);
}
