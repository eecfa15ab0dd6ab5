/**
 * Builds the Fastify application shell: CloudKitty's wire conventions (trailing slashes, JSON
 * bodies on DELETE, WSME faults, OpenStack request ids, body limits, input text checks), Keystone
 * authentication, the OpenAPI document and the unversioned routes. The API's own routes come from
 * the caller (`routes`): the composition root (`src/application.ts`) hands it the rating API, so
 * nothing here knows the rating modules.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TariffConfig } from '../config.js';
import { BadRequestError, TariffError } from '../kernel/errors.js';
import { installFaultHandling, sendFault } from './faults.js';
import { installBodyLimits } from './body-limit.js';
import { clientErrorHandler } from './client-errors.js';
import { connectionTimeouts, tariffServerFactory } from './http-server.js';
import { checkInputText, checkQueryEncoding, decodeUtf8Body } from './input-text.js';
import { keepNumberTextInPlace, parseKeepingNumberText, type NumberTextRouteConfig } from './json-number-text.js';
import { LARGE_BODY_BYTES, readLargeJsonBody } from './large-json-body.js';
import { registerRootRoutes } from './root.js';
import { installUpdateAnswers, takeFollowedUpdate } from './update-answers.js';
import type { Database } from '../database/connection.js';
import { databaseCheck, disableByFileCheck, type HealthCheck } from './healthcheck/checks.js';
import { keystoneAdminOnly } from './healthcheck/keystone-admin.js';
import { registerHealthcheck, type HealthcheckOptions } from './healthcheck/route.js';
import { registerConsole } from './console.js';
import { installKeystoneAuth, type KeystoneAuthOptions } from './keystone-auth.js';
import { registerConsoleSession, type ConsoleSessionKeystone } from './console-session.js';
import { PolicyEnforcer } from '../auth/policy/enforcer.js';
import { installMetrics } from './metrics.js';
import type { TariffMetrics } from '../kernel/metrics.js';
import { KeystoneClient } from '../auth/keystone.js';
import { createLoggers } from '../kernel/logger.js';
import { RequestLogController } from './request-log.js';

/** What {@link buildApp} needs. */
export interface AppDependencies {
  config: TariffConfig;
  /**
   * Registers the API's routes (after the shell's hooks, the OpenAPI document and the
   * unversioned routes): the rating API, from the composition root.
   */
  routes: (app: FastifyInstance) => Promise<void>;
  /** pino options, `false` to silence (tests); default: kernel/logger.ts's, at `config.logLevel` in `config.logFormat`. */
  logger?: FastifyServerOptions['logger'];
  /** A ready pino logger to use instead (the server's, which logged start-up already). */
  loggerInstance?: FastifyBaseLogger;
  /** Keystone mode: replaces the real Keystone client (tests). */
  keystoneClient?: KeystoneAuthOptions['client'];
  /** Counts the answers and serves `GET /metrics` (unless on `TARIFF_METRICS_PORT`); absent: metrics off. */
  metrics?: TariffMetrics;
  /** The database `/healthcheck` asks when `config.healthcheckDatabase` is on. */
  database?: Database;
}

/** The application type: Fastify with TypeBox-typed routes. */
export type TariffApp = FastifyInstance;

const REQUEST_ID = /^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Creates the application; the caller listens (or injects) and closes it.
 *
 * @throws ConfigurationError when the policy file (Keystone mode) cannot be loaded; whatever
 *   `routes` throws.
 */
export async function buildApp({ config, routes, logger, loggerInstance, keystoneClient, database, metrics }: AppDependencies): Promise<TariffApp> {
  const timeouts = connectionTimeouts(config);
  const refusal = { drainBytes: config.bodyDrainLimitBytes, lingerMs: config.lingerTimeoutMs };
  const app: FastifyInstance = Fastify({
    ...(loggerInstance ? { loggerInstance } : logger !== undefined ? { logger } : { loggerInstance: createLoggers(config).logger }),
    // One access-log line per request, with its fault's message (request-log.ts).
    logController: new RequestLogController(),
    // Each route's own limit is enforced by installBodyLimits; Fastify stops only past the hard cap.
    bodyLimit: config.bodyDrainLimitBytes,
    // The HTTP server with the connection time-outs and Node's own refusals as faults (http-server.ts).
    serverFactory: tariffServerFactory({ timeouts, headerBytes: config.headerLimitBytes, refusal, log: () => app.log, metrics }),
    // A request the HTTP parser refuses gets the fault body and a lingering close (client-errors.ts).
    clientErrorHandler: clientErrorHandler(
      { headerBytes: config.headerLimitBytes, requestMs: timeouts.requestMs, headersMs: timeouts.headersMs, ...refusal },
      metrics,
    ),
    // The drain on SIGTERM (server.ts): idle keep-alive connections are closed at once; a request
    // arriving on a busy one is still served, with `Connection: close`, rather than refused.
    forceCloseConnections: 'idle',
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    // Errors the router raises before any route is chosen get the WSME fault body too: a
    // malformed URL (bad percent-encoding) is a 400; a path segment too long to be any id is not
    // found, as a non-UUID id in a path is (api.md §1).
    frameworkErrors: (error, request, reply) => {
      const path = request.raw.url?.split('?')[0] ?? '';
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') sendFault(reply, 404, `Resource not found: ${request.method} ${path}`);
      else sendFault(reply, error.statusCode ?? 400, `Malformed URL: ${error.message}`);
    },
    // OpenStack request ids: `req-<uuid>`, taken from the caller when well-formed.
    requestIdHeader: false,
    genReqId: (request) => {
      const given = request.headers['x-openstack-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : `req-${randomUUID()}`;
    },
    ajv: {
      customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: false, verbose: true, strict: false },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  // CloudKitty compat: WSME reads a GET's JSON body for handler arguments (tempest sends
  // `GET H/fields/` with `{"service_id": …}`), so a GET's body is parsed like any other.
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true });
  // noauth: every caller is CloudKitty's admin context, and may see the health check's details.
  let mayShowHealthDetails: HealthcheckOptions['mayShowDetails'] = () => true;

  let consoleKeystone: ConsoleSessionKeystone | undefined;
  if (config.auth === 'keystone' && config.keystone) {
    const enforcer = new PolicyEnforcer({
      policyFile: config.policyFile,
      enforceNewDefaults: config.policyEnforceNewDefaults,
      enforceScope: config.policyEnforceScope,
      // Once per token and rule (decisions are remembered per identity): the callers enforce_scope would refuse.
      onScopeMismatch: ({ rule, tokenScope, scopeTypes }) =>
        app.log.warn(
          { rule, tokenScope, scopeTypes },
          `policy ${rule} failed its scope check (a ${tokenScope}-scoped token); allowed since TARIFF_POLICY_ENFORCE_SCOPE is false`,
        ),
    });
    for (const warning of enforcer.warnings) app.log.warn({ policyFile: config.policyFile }, warning);
    mayShowHealthDetails = keystoneAdminOnly({ settings: config.keystone, client: keystoneClient, enforcer });
    const client = new KeystoneClient(config.keystone);
    const auth = installKeystoneAuth(app, { settings: config.keystone, enforcer, client: keystoneClient ?? client });
    consoleKeystone = { auth, client };
  }
  installFaultHandling(app, { unknownRouteGuard: consoleKeystone?.auth.unknownRouteGuard });
  installBodyLimits(app, { defaultBytes: config.bodyLimitBytes, drainBytes: config.bodyDrainLimitBytes });
  installJsonBodies(app, config.jsonMaxDepth);
  installUpdateAnswers(app);
  if (metrics) installMetrics(app, metrics, { serveRoute: config.metricsPort === undefined });
  // Hooks run on every request take `done` instead of being async: a promise per hook per request
  // cost a few percent of a cheap GET's throughput (bench/run.js --baseline).
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('X-Openstack-Request-Id', request.id);
    done(null, payload);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Tariff rating API',
        description: "OpenStack CloudKitty's rating configuration API (hashmap, pyscripts), served by Tariff.",
        version: '1',
      },
    },
  });

  registerRootRoutes(app);
  const healthChecks: HealthCheck[] = [disableByFileCheck(config.healthcheckDisableFile)];
  if (config.healthcheckDatabase && database) healthChecks.push(databaseCheck(database, config.healthcheckDatabaseTimeoutMs));
  registerHealthcheck(app, { checks: healthChecks, mayShowDetails: mayShowHealthDetails });
  await registerConsole(app);
  await registerConsoleSession(app, consoleKeystone);
  await routes(app);
  return app;
}

/** Route config key: media types whose bodies the handler reads itself, as text (UTF-8 checked). */
export interface TextBodyRouteConfig {
  /** E.g. `['application/json', 'application/yaml']`: such a body reaches the handler as a string. */
  textBody?: readonly string[];
}

/** The request's media type, lowercased, without parameters (`application/yaml`). */
function mediaTypeOf(request: FastifyRequest): string {
  return (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

function takesTextBody(request: FastifyRequest, mediaType: string): boolean {
  return (request.routeOptions.config as TextBodyRouteConfig | undefined)?.textBody?.includes(mediaType) ?? false;
}

/**
 * JSON is the only body type, but for routes that read their body as text (`config.textBody`): an empty body is no body (the client sends
 * `Content-Type: application/json` on GET and DELETE without one), malformed JSON is a 400 fault,
 * and a write with any other content type is refused by Fastify with 415. Bodies and query
 * strings must be valid UTF-8 and well-formed text without NUL, JSON at most `maxDepth` deep
 * (`TARIFF_JSON_MAX_DEPTH`) and without `__proto__` keys: a 400 otherwise, before validation or
 * any handler walks them (`JSON.parse` itself is not recursive). A route with
 * `config.numberTextUnder` gets the numbers of the named members with their source text
 * (`json-number-text.ts`): taken from the text's number tokens, or, when those leave a doubt,
 * read a second time by the lossless parser. A body of {@link LARGE_BODY_BYTES} or more goes
 * through the same steps in slices (`large-json-body.ts`, fix, issue 24: a 32 MiB quote held the
 * event loop 1-2 s), its check done there and its fault thrown here after the query's.
 */
function installJsonBodies(app: FastifyInstance, maxDepth: number): void {
  /**
   * Bodies whose text was checked by the parser already (those read with their number text, and
   * large ones), with the check's fault if it found one (thrown once the query is checked).
   */
  const checkedBodies = new WeakMap<object, Error | undefined>();
  const numberTextNames = new WeakMap<readonly string[], ReadonlySet<string>>();
  const namesOf = (request: FastifyRequest): ReadonlySet<string> | undefined => {
    const under = (request.routeOptions.config as NumberTextRouteConfig | undefined)?.numberTextUnder;
    if (!under) return undefined;
    let names = numberTextNames.get(under);
    if (!names) numberTextNames.set(under, (names = new Set(under)));
    return names;
  };
  const refuseSyntax = (error: unknown): Error =>
    error instanceof SyntaxError ? new BadRequestError(`Request is not in valid JSON format: ${error.message}`) : (error as Error);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      const text = decodeUtf8Body(body as Buffer);
      if (text.trim() === '') return done(null, undefined);
      if (takesTextBody(request, 'application/json')) return done(null, text);
      if ((body as Buffer).length >= LARGE_BODY_BYTES) {
        readLargeJsonBody(text, namesOf(request), maxDepth).then(
          ({ value, checked, fault }) => {
            if (checked) checkedBodies.set(value as object, fault);
            done(null, value);
          },
          (error: unknown) => done(refuseSyntax(error), undefined),
        );
        return;
      }
      const parsed: unknown = JSON.parse(text);
      const names = namesOf(request);
      if (!names || parsed === null || typeof parsed !== 'object') return done(null, parsed);
      if (keepNumberTextInPlace(text, parsed, names)) return done(null, parsed);
      // The lossless parser recurses: check depth (and the rest) on JSON.parse's value first.
      checkInputText(parsed, 'body', maxDepth);
      const withNumberText = parseKeepingNumberText(text, names) as object;
      checkedBodies.set(withNumberText, undefined);
      done(null, withNumberText);
    } catch (error) {
      done(refuseSyntax(error), undefined);
    }
  });
  // Any other type is read to its end like an over-limit body (within the route's limit, up to the
  // drain limit), then refused: answering before reading made clients see a broken pipe.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    // A GET naming a content type but sending nothing has no body to refuse.
    if ((body as Buffer).length === 0 && request.method === 'GET') return done(null, undefined);
    if (takesTextBody(request, mediaTypeOf(request))) {
      try {
        return done(null, decodeUtf8Body(body as Buffer));
      } catch (error) {
        return done(error as Error, undefined);
      }
    }
    done(new TariffError(415, `Unknown mimetype: ${request.headers['content-type'] ?? 'none'}; send application/json`), undefined);
  });
  app.addHook('preValidation', (request, _reply, done) => {
    // DELETE may carry its arguments in a body or not at all: validate an absent body as `{}`.
    if (request.method === 'DELETE' && request.body === undefined) request.body = {};
    try {
      checkQueryEncoding(request.url);
      checkInputText(request.query, 'query', maxDepth);
      const body = request.body;
      if (body !== null && typeof body === 'object' && checkedBodies.has(body)) {
        const fault = checkedBodies.get(body);
        if (fault) throw fault;
      } else checkInputText(body, 'body', maxDepth);
      takeFollowedUpdate(request);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });
}
