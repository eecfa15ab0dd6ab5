/**
 * Tariff's configuration, read and validated once at start-up. This is the only module that reads
 * `process.env`; everything else receives a {@link TariffConfig}.
 */
import { TimeZone, UnknownTimeZoneError } from './kernel/time-zone.js';

/** How requests are authenticated. `noauth` is CloudKitty's `auth_strategy = noauth`. */
export type AuthStrategy = 'noauth' | 'keystone';

/**
 * Keystone mode's settings, named after keystonemiddleware's `[keystone_authtoken]` options:
 * Tariff's own service credentials, used to validate callers' tokens.
 */
export interface KeystoneSettings {
  /** Identity v3 URL, ending in `/v3` (`TARIFF_KEYSTONE_AUTH_URL`; `/v3` is added when missing). */
  authUrl: string;
  /** Sent in `WWW-Authenticate: Keystone uri="..."` with 401s (`TARIFF_KEYSTONE_WWW_AUTHENTICATE_URI`, default the auth URL). */
  wwwAuthenticateUri: string;
  /** Tariff's service user (`TARIFF_KEYSTONE_USERNAME`, required) and password (`TARIFF_KEYSTONE_PASSWORD`, required). */
  username: string;
  password: string;
  /** Project of the service token (`TARIFF_KEYSTONE_PROJECT_NAME`, default `service`). */
  projectName: string;
  /** Domains of the user and the project (`TARIFF_KEYSTONE_USER_DOMAIN_NAME`, `TARIFF_KEYSTONE_PROJECT_DOMAIN_NAME`, default `Default`). */
  userDomainName: string;
  projectDomainName: string;
  /**
   * The same domains by id (`TARIFF_KEYSTONE_USER_DOMAIN_ID`, `TARIFF_KEYSTONE_PROJECT_DOMAIN_ID`,
   * keystonemiddleware's `user_domain_id` / `project_domain_id`, which kolla-ansible writes); an
   * id, when set, is sent instead of the name, as keystoneauth does.
   */
  userDomainId?: string;
  projectDomainId?: string;
  /** Milliseconds one token validation may take before the request fails with 503 (`TARIFF_KEYSTONE_TIMEOUT`, seconds, default 5). */
  timeoutMs: number;
  /** Milliseconds a validated token is trusted without asking Keystone again, at most until it expires (`TARIFF_TOKEN_CACHE_TIME`, seconds, default 300). */
  tokenCacheMs: number;
  /**
   * Milliseconds a token Keystone refused is refused again without asking it
   * (`TARIFF_INVALID_TOKEN_CACHE_TIME`, seconds, default 30; 0 asks every time). keystonemiddleware
   * compat: its token cache remembers invalid tokens too. fix: issue 24 — each random
   * well-formed token cost one Keystone validation.
   */
  invalidTokenCacheMs: number;
}

/** The validated configuration of one Tariff process. */
export interface TariffConfig {
  /** Address the HTTP server binds to (`TARIFF_HOST`, default `127.0.0.1`). */
  host: string;
  /** TCP port (`TARIFF_PORT`, default 8889: CloudKitty's port). */
  port: number;
  /**
   * Database URL (`TARIFF_DATABASE_URL`): `sqlite:<path>` (default `sqlite:./data/tariff.db`),
   * `postgres://...` or `mysql://...`.
   */
  databaseUrl: string;
  /** Authentication strategy (`TARIFF_AUTH`, default `noauth`). */
  auth: AuthStrategy;
  /** Keystone settings; present exactly when `auth` is `keystone`. */
  keystone?: KeystoneSettings;
  /** An oslo.policy file (YAML or JSON) overriding CloudKitty's default rules (`TARIFF_POLICY_FILE`); used in Keystone mode. */
  policyFile?: string;
  /**
   * oslo.policy's `[oslo_policy] enforce_new_defaults` (`TARIFF_POLICY_ENFORCE_NEW_DEFAULTS`,
   * default true, as oslo.policy 4.4+ gives CloudKitty 2025.x): false also allows what a rule's
   * deprecated default (CloudKitty 17's) allowed.
   */
  policyEnforceNewDefaults: boolean;
  /**
   * oslo.policy's `[oslo_policy] enforce_scope` (`TARIFF_POLICY_ENFORCE_SCOPE`, default true): a
   * system- or domain-scoped token is refused by rules meant for project scope (every rating rule).
   */
  policyEnforceScope: boolean;
  /**
   * pino log level (`TARIFF_LOG_LEVEL`, default `info`). The start-up and shutdown lines are
   * written at `info` even when it is `warn`, `error` or `fatal` (kernel/logger.ts); `silent`
   * silences them too.
   */
  logLevel: string;
  /**
   * How log lines are written (`TARIFF_LOG_FORMAT`, default `json`): `json`, one JSON object a
   * line for a log collector, or `text`, one readable line each for a terminal. Both carry ISO
   * 8601 UTC times.
   */
  logFormat: LogFormat;
  /** Whether `GET /metrics` and the counting behind it are on (`TARIFF_METRICS`, `on` or `off`, default `on`). */
  metrics: boolean;
  /**
   * A port of its own for `GET /metrics`, on `host`, open without a token even in Keystone mode;
   * the API's port then answers it 404 (`TARIFF_METRICS_PORT`; unset: served on the API's port).
   */
  metricsPort?: number;
  /**
   * The address the metrics port listens on (`TARIFF_METRICS_HOST`, default `127.0.0.1`): not
   * `host`, so that an API open to the world does not open its unauthenticated metrics with it
   * (fix: issue 24).
   */
  metricsHost: string;
  /** Largest accepted configuration request body in bytes (`TARIFF_BODY_LIMIT_MB`, default 1 MiB, api.md §1). */
  bodyLimitBytes: number;
  /**
   * Largest over-limit body read to its end (and dropped) so the caller can read the 413
   * (`TARIFF_BODY_DRAIN_LIMIT_MB`, default 64 MiB, at least the quote limit); past it the 413 is
   * sent at once and the connection closed.
   */
  bodyDrainLimitBytes: number;
  /**
   * Largest request line and headers together, in bytes (`TARIFF_HEADER_LIMIT_KB`, default 16 KiB,
   * Node's default `maxHeaderSize`); larger: 431 with the fault body.
   */
  headerLimitBytes: number;
  /**
   * Milliseconds a connection stays open after a request the HTTP parser refused (431, 400), its
   * rest read and dropped so the client reads the fault rather than a reset
   * (`TARIFF_LINGER_TIMEOUT`, seconds, default 5); then it is cut.
   */
  lingerTimeoutMs: number;
  /**
   * Milliseconds a whole request (line, headers and body) may take to arrive (`TARIFF_REQUEST_TIMEOUT`,
   * seconds, default 300: a 32 MiB quote at 1 Mbit/s); its line and headers alone get at most 60 s
   * of it. Past it: 408 with the fault body, and the connection closed (Node's `requestTimeout`,
   * `headersTimeout`).
   */
  requestTimeoutMs: number;
  /**
   * Milliseconds a connection with a request under way may go without a byte either way
   * (`TARIFF_STALL_TIMEOUT`, seconds, default 30): a body that stops coming is a 408 and the
   * connection closed; an answer the client stops reading is cut (fix, issue 24).
   */
  stallTimeoutMs: number;
  /** Milliseconds an idle keep-alive connection is kept open (`TARIFF_KEEP_ALIVE_TIMEOUT`, seconds, default 72: Fastify's). */
  keepAliveTimeoutMs: number;
  /** Largest accepted quote body in bytes (`TARIFF_QUOTE_BODY_LIMIT_MB`, default 32 MiB). */
  quoteBodyLimitBytes: number;
  /**
   * Quote bodies (their declared `Content-Length`) one process prices at once, in bytes; a quote
   * past it is refused with 503 and `Retry-After`, unless nothing else is in flight
   * (`TARIFF_QUOTE_BYTES_IN_FLIGHT_MB`, default 64 MiB). rating.md §3.
   */
  quoteBytesInFlight: number;
  /**
   * The same for one caller (Keystone project, else the client's address): 503 past it, unless the
   * caller has nothing else in flight (`TARIFF_QUOTE_TENANT_BYTES_MB`, default 32 MiB).
   */
  quoteTenantBytes: number;
  /**
   * A quote's answer may be at most this many times its request body (never refused under 1 MiB);
   * larger: 413 naming the setting, before anything is sent (`TARIFF_QUOTE_ANSWER_GROWTH`, default 20).
   */
  quoteAnswerGrowth: number;
  /** Largest quote answer in bytes, whatever the request (`TARIFF_QUOTE_ANSWER_LIMIT_MB`, default 256 MiB); larger: 413. */
  quoteAnswerLimitBytes: number;
  /** Deepest JSON nesting accepted in a body, the top level being 1 (`TARIFF_JSON_MAX_DEPTH`, default 32). */
  jsonMaxDepth: number;
  /** YAML aliases (`*name`) a price list may use (`TARIFF_PRICE_LIST_MAX_ALIASES`, default 100; 0 refuses any). */
  priceListMaxAliases: number;
  /** Problems listed when a price list is refused (`TARIFF_PRICE_LIST_MAX_PROBLEMS`, default 1000; the rest are counted). */
  priceListMaxProblems: number;
  /**
   * Price lists one process reads (parses and checks, off the event loop) at once; past it an
   * apply is refused with 503 and `Retry-After` (`TARIFF_PRICE_LIST_READS`, default 2).
   */
  priceListReads: number;
  /**
   * Least milliseconds between two full garbage collections after bulk price-list work (an export
   * or apply of 100 KB or more, done and answered) (`TARIFF_BULK_COLLECTION_INTERVAL`, seconds, default 10).
   */
  bulkCollectionIntervalMs: number;
  /** The largest page of `GET /v2/rating/changes`, the audit trail (`TARIFF_CHANGES_MAX_LIMIT`, default 1000). */
  changesMaxLimit: number;
  /**
   * What a PUT changing a running mapping's or script's terms does (`TARIFF_RUNNING_RULE_UPDATES`):
   * `new-version` (default: the terms change from now on, the old ones kept as an ended version)
   * or `refuse` (CloudKitty 23's 400). api.md §6.
   */
  runningRuleUpdates: 'new-version' | 'refuse';
  /**
   * Quote quantities and prices (the caller's and the scripts') must be 0 or within
   * [10^-n, 10^n) in magnitude (`TARIFF_DECIMAL_MAX_EXPONENT`, default 100).
   */
  maxDecimalExponent: number;
  /** The pyscripts sandbox: warm worker processes (`TARIFF_SANDBOX_WORKERS`, default 2; 0 disables scripts). */
  sandboxWorkers: number;
  /** Wall-clock limit of one script run in ms (`TARIFF_SCRIPT_TIMEOUT_MS`, default 2000). */
  scriptTimeoutMs: number;
  /** Memory limit of a sandbox worker in MiB (`TARIFF_SCRIPT_MEMORY_MB`, default 256). */
  scriptMemoryMb: number;
  /** Warm spare sandbox workers beside the pool, taking over from killed ones at once (`TARIFF_SANDBOX_SPARE_WORKERS`, default 1; 0 for none). */
  sandboxSpareWorkers: number;
  /** Most script runs (and, apart, compile checks) waiting for a sandbox worker; past it 503 (`TARIFF_SANDBOX_QUEUE_LENGTH`, default 20). */
  sandboxQueueLength: number;
  /** Longest wait of a script run or compile check for a sandbox worker in ms; past it 503 (`TARIFF_SANDBOX_QUEUE_WAIT_MS`, default 10000). */
  sandboxQueueWaitMs: number;
  /** Most script runs one tenant may have running or waiting in the sandbox; past it 503 (`TARIFF_SANDBOX_TENANT_RUNS`, default 10). */
  sandboxTenantRuns: number;
  /** Longest start of one sandbox worker in ms; past it the start fails, 503 for the calls waiting (`TARIFF_SANDBOX_START_TIMEOUT_MS`, default 60000). */
  sandboxStartTimeoutMs: number;
  /** Connections per process to PostgreSQL or MySQL (`TARIFF_DB_POOL_SIZE`, default 10). */
  databasePoolSize: number;
  /**
   * Milliseconds a request waits for the database (connecting, or a statement) before it fails
   * with 503 (`TARIFF_DB_TIMEOUT`, in seconds, default 5).
   */
  databaseTimeoutMs: number;
  /** Milliseconds start-up waits for the database to answer (`TARIFF_DB_START_TIMEOUT`, seconds, default 60). */
  databaseStartTimeoutMs: number;
  /**
   * The zone whose wall time CloudKitty's naive datetime columns hold: its hosts' `TZ`
   * (`TARIFF_CLOUDKITTY_TIMEZONE`, an IANA name, default `UTC`; kept under its canonical name).
   */
  cloudKittyTimeZone: string;
  /**
   * `/healthcheck` also asks the database (`TARIFF_HEALTHCHECK_DATABASE`, `true` or `false`,
   * default `false`): 503 when it does not answer within {@link healthcheckDatabaseTimeoutMs}.
   */
  healthcheckDatabase: boolean;
  /** Milliseconds the health check waits for the database (`TARIFF_HEALTHCHECK_DATABASE_TIMEOUT`, seconds, default 2). */
  healthcheckDatabaseTimeoutMs: number;
  /**
   * oslo.middleware compat (`disable_by_file_path`): while this file exists `/healthcheck`
   * answers 503 `DISABLED BY FILE` (`TARIFF_HEALTHCHECK_DISABLE_FILE`, an absolute path; unset: never).
   */
  healthcheckDisableFile?: string;
  /**
   * Milliseconds a SIGTERM/SIGINT drain lets requests in flight finish before their connections
   * are cut (`TARIFF_SHUTDOWN_TIMEOUT`, seconds, default 30).
   */
  shutdownTimeoutMs: number;
  /** Where CloudKitty's own routes Tariff does not serve are forwarded (http/cloudkitty-forward/, api.md "Forwarded routes"). */
  cloudKitty: CloudKittyApiSettings;
  /** The limits of simulations of draft price lists (docs/price-list.md §4). */
  simulation: SimulationSettings;
}

/** The settings of simulations of draft price lists (docs/price-list.md §4). */
export interface SimulationSettings {
  /** Points per simulation (`TARIFF_SIMULATION_MAX_POINTS`, default 50,000,000); past it, 413. */
  maxPoints: number;
  /** Milliseconds per simulation (`TARIFF_SIMULATION_TIMEOUT`, seconds, default 3600); past it, 504. */
  timeoutMs: number;
  /** Simulations at once per process (`TARIFF_SIMULATIONS`, default 1); past it, 503. */
  concurrent: number;
  /** Distinct points kept priced (`TARIFF_SIMULATION_DISTINCT_POINTS`, default 250,000; about 250 bytes each). */
  maxDistinctPoints: number;
  /** Reconciliation findings listed (`TARIFF_SIMULATION_MAX_FINDINGS`, default 1,000). */
  maxFindings: number;
  /** Longest usage file line, in bytes (`TARIFF_SIMULATION_MAX_LINE_MB`, default 16). */
  maxLineBytes: number;
  /** Largest upload, in bytes (`TARIFF_SIMULATION_UPLOAD_LIMIT_MB`, default 4096). */
  uploadBytes: number;
  /** Milliseconds of usage read from CloudKitty at once (`TARIFF_SIMULATION_WINDOW`, seconds, default 3600). */
  windowMs: number;
  /** Points per page read from CloudKitty (`TARIFF_SIMULATION_PAGE_POINTS`, default 1000). */
  pagePoints: number;
}

/**
 * The CloudKitty API behind Tariff: every request for a path CloudKitty serves and Tariff does not
 * (`/v1/info`, `/v1/report`, `/v2/summary`, …) is forwarded there.
 */
export interface CloudKittyApiSettings {
  /**
   * Its base URL, without a trailing slash (`TARIFF_CLOUDKITTY_API_URL`, e.g.
   * `http://cloudkitty-api:8889`; a path such as `/rating` is kept in front of the forwarded
   * path). Unset: those paths answer 404 naming the setting.
   */
  url?: string;
  /** Milliseconds to open a connection to it before the request fails with 502 (`TARIFF_CLOUDKITTY_CONNECT_TIMEOUT`, seconds, default 5). */
  connectTimeoutMs: number;
  /**
   * Milliseconds from forwarding a request to the answer's headers, and between two pieces of its
   * body, before the request fails with 504 (or the answer is cut) (`TARIFF_CLOUDKITTY_TIMEOUT`,
   * seconds, default 60).
   */
  timeoutMs: number;
  /** Connections per process to it at most; further requests wait for one (`TARIFF_CLOUDKITTY_CONNECTIONS`, default 32). */
  connections: number;
  /** Largest request body forwarded, in bytes; larger: 413 (`TARIFF_CLOUDKITTY_BODY_LIMIT_MB`, default 32 MiB). */
  bodyLimitBytes: number;
}

/** Thrown when an environment variable holds a value Tariff cannot use; the message names it. */
export class ConfigurationError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** The values of `TARIFF_LOG_FORMAT`. */
export type LogFormat = 'json' | 'text';
const LOG_FORMATS: readonly LogFormat[] = ['json', 'text'];

/**
 * Every `TARIFF_*` variable {@link loadConfig} reads: the keys a configuration file's `[tariff]`
 * section may set (`db_timeout` for `TARIFF_DB_TIMEOUT`). test/config-file/ checks that it names
 * every variable this file reads.
 */
export const TARIFF_SETTINGS: readonly string[] = Object.freeze(
  (
    'AUTH BODY_DRAIN_LIMIT_MB BODY_LIMIT_MB BULK_COLLECTION_INTERVAL CHANGES_MAX_LIMIT CLOUDKITTY_API_URL CLOUDKITTY_BODY_LIMIT_MB CLOUDKITTY_CONNECT_TIMEOUT ' +
    'CLOUDKITTY_CONNECTIONS CLOUDKITTY_TIMEOUT CLOUDKITTY_TIMEZONE DATABASE_URL DB_POOL_SIZE DB_START_TIMEOUT DB_TIMEOUT ' +
    'DECIMAL_MAX_EXPONENT HEADER_LIMIT_KB HEALTHCHECK_DATABASE HEALTHCHECK_DATABASE_TIMEOUT HEALTHCHECK_DISABLE_FILE HOST INVALID_TOKEN_CACHE_TIME JSON_MAX_DEPTH KEEP_ALIVE_TIMEOUT ' +
    'KEYSTONE_AUTH_URL KEYSTONE_PASSWORD KEYSTONE_PROJECT_DOMAIN_ID KEYSTONE_PROJECT_DOMAIN_NAME KEYSTONE_PROJECT_NAME KEYSTONE_TIMEOUT ' +
    'KEYSTONE_USERNAME KEYSTONE_USER_DOMAIN_ID KEYSTONE_USER_DOMAIN_NAME KEYSTONE_WWW_AUTHENTICATE_URI LINGER_TIMEOUT LOG_FORMAT LOG_LEVEL METRICS ' +
    'METRICS_HOST METRICS_PORT POLICY_ENFORCE_NEW_DEFAULTS POLICY_ENFORCE_SCOPE POLICY_FILE PORT PRICE_LIST_MAX_ALIASES PRICE_LIST_MAX_PROBLEMS PRICE_LIST_READS ' +
    'QUOTE_ANSWER_GROWTH QUOTE_ANSWER_LIMIT_MB QUOTE_BODY_LIMIT_MB QUOTE_BYTES_IN_FLIGHT_MB QUOTE_TENANT_BYTES_MB ' +
    'REQUEST_TIMEOUT RUNNING_RULE_UPDATES SANDBOX_QUEUE_LENGTH SANDBOX_QUEUE_WAIT_MS SANDBOX_SPARE_WORKERS SANDBOX_START_TIMEOUT_MS SANDBOX_TENANT_RUNS SANDBOX_WORKERS ' +
    'SCRIPT_MEMORY_MB SCRIPT_TIMEOUT_MS SHUTDOWN_TIMEOUT SIMULATIONS SIMULATION_DISTINCT_POINTS SIMULATION_MAX_FINDINGS SIMULATION_MAX_LINE_MB ' +
    'SIMULATION_MAX_POINTS SIMULATION_PAGE_POINTS SIMULATION_TIMEOUT SIMULATION_UPLOAD_LIMIT_MB SIMULATION_WINDOW STALL_TIMEOUT TOKEN_CACHE_TIME'
  )
    .split(' ')
    .map((name) => `TARIFF_${name}`),
);

/**
 * Reads the configuration from environment variables, over the values of the configuration files.
 *
 * @param environment - the variables to read, `process.env` by default.
 * @param fromFiles - `TARIFF_*` values from `--config-file` (src/config-file/): each is used
 *   unless the environment sets the variable to a non-empty value. Order: defaults < files < environment.
 * @throws ConfigurationError when a variable is set to an invalid value.
 */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env, fromFiles: Readonly<Record<string, string>> = {}): TariffConfig {
  environment = withFileFallbacks(environment, fromFiles);
  const port = Number(environment.TARIFF_PORT ?? '8889');
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigurationError(`TARIFF_PORT must be a TCP port number, got '${environment.TARIFF_PORT}'`);
  }
  const auth = environment.TARIFF_AUTH ?? 'noauth';
  if (auth !== 'noauth' && auth !== 'keystone') {
    throw new ConfigurationError(`TARIFF_AUTH must be 'noauth' or 'keystone', got '${auth}'`);
  }
  const logLevel = environment.TARIFF_LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigurationError(`TARIFF_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got '${logLevel}'`);
  }
  const logFormat = (environment.TARIFF_LOG_FORMAT || 'json') as LogFormat;
  if (!LOG_FORMATS.includes(logFormat)) {
    throw new ConfigurationError(`TARIFF_LOG_FORMAT must be 'json' (one JSON object a line) or 'text' (readable lines), got '${logFormat}'`);
  }
  const bodyLimitBytes = megabytes(environment, 'TARIFF_BODY_LIMIT_MB', 1);
  const quoteBodyLimitBytes = megabytes(environment, 'TARIFF_QUOTE_BODY_LIMIT_MB', 32);
  const cloudKitty = cloudKittyApiSettings(environment);
  return {
    host: environment.TARIFF_HOST ?? '127.0.0.1',
    port,
    databaseUrl: environment.TARIFF_DATABASE_URL ?? 'sqlite:./data/tariff.db',
    auth,
    keystone: auth === 'keystone' ? keystoneSettings(environment) : undefined,
    policyFile: environment.TARIFF_POLICY_FILE || undefined,
    policyEnforceNewDefaults: booleanSetting(environment, 'TARIFF_POLICY_ENFORCE_NEW_DEFAULTS', true),
    policyEnforceScope: booleanSetting(environment, 'TARIFF_POLICY_ENFORCE_SCOPE', true),
    logLevel,
    logFormat,
    ...metricsSettings(environment, port),
    bodyLimitBytes,
    quoteBodyLimitBytes,
    quoteBytesInFlight: megabytes(environment, 'TARIFF_QUOTE_BYTES_IN_FLIGHT_MB', 64),
    quoteTenantBytes: megabytes(environment, 'TARIFF_QUOTE_TENANT_BYTES_MB', 32),
    quoteAnswerGrowth: positiveNumber(environment, 'TARIFF_QUOTE_ANSWER_GROWTH', 20),
    quoteAnswerLimitBytes: megabytes(environment, 'TARIFF_QUOTE_ANSWER_LIMIT_MB', 256),
    bodyDrainLimitBytes: Math.max(quoteBodyLimitBytes, bodyLimitBytes, cloudKitty.bodyLimitBytes, megabytes(environment, 'TARIFF_BODY_DRAIN_LIMIT_MB', 64)),
    headerLimitBytes: Math.round(positiveNumber(environment, 'TARIFF_HEADER_LIMIT_KB', 16) * 1024),
    lingerTimeoutMs: positiveNumber(environment, 'TARIFF_LINGER_TIMEOUT', 5) * 1000,
    requestTimeoutMs: positiveNumber(environment, 'TARIFF_REQUEST_TIMEOUT', 300) * 1000,
    stallTimeoutMs: positiveNumber(environment, 'TARIFF_STALL_TIMEOUT', 30) * 1000,
    keepAliveTimeoutMs: positiveNumber(environment, 'TARIFF_KEEP_ALIVE_TIMEOUT', 72) * 1000,
    jsonMaxDepth: positiveInteger(environment, 'TARIFF_JSON_MAX_DEPTH', 32),
    priceListMaxAliases: nonNegativeInteger(environment, 'TARIFF_PRICE_LIST_MAX_ALIASES', 100),
    priceListMaxProblems: positiveInteger(environment, 'TARIFF_PRICE_LIST_MAX_PROBLEMS', 1000),
    priceListReads: positiveInteger(environment, 'TARIFF_PRICE_LIST_READS', 2),
    bulkCollectionIntervalMs: positiveNumber(environment, 'TARIFF_BULK_COLLECTION_INTERVAL', 10) * 1000,
    changesMaxLimit: positiveInteger(environment, 'TARIFF_CHANGES_MAX_LIMIT', 1000),
    runningRuleUpdates: runningRuleUpdates(environment),
    maxDecimalExponent: positiveInteger(environment, 'TARIFF_DECIMAL_MAX_EXPONENT', 100),
    sandboxWorkers: environment.TARIFF_SANDBOX_WORKERS === '0' ? 0 : Math.round(positiveNumber(environment, 'TARIFF_SANDBOX_WORKERS', 2)),
    scriptTimeoutMs: positiveNumber(environment, 'TARIFF_SCRIPT_TIMEOUT_MS', 2000),
    scriptMemoryMb: positiveNumber(environment, 'TARIFF_SCRIPT_MEMORY_MB', 256),
    sandboxSpareWorkers: sandboxCount(environment, 'TARIFF_SANDBOX_SPARE_WORKERS', 1, 0),
    sandboxQueueLength: sandboxCount(environment, 'TARIFF_SANDBOX_QUEUE_LENGTH', 20, 1),
    sandboxQueueWaitMs: sandboxCount(environment, 'TARIFF_SANDBOX_QUEUE_WAIT_MS', 10_000, 1),
    sandboxTenantRuns: sandboxCount(environment, 'TARIFF_SANDBOX_TENANT_RUNS', 10, 1),
    sandboxStartTimeoutMs: sandboxCount(environment, 'TARIFF_SANDBOX_START_TIMEOUT_MS', 60_000, 1),
    databasePoolSize: positiveInteger(environment, 'TARIFF_DB_POOL_SIZE', 10),
    databaseTimeoutMs: positiveNumber(environment, 'TARIFF_DB_TIMEOUT', 5) * 1000,
    databaseStartTimeoutMs: positiveNumber(environment, 'TARIFF_DB_START_TIMEOUT', 60) * 1000,
    cloudKittyTimeZone: timeZoneName(environment),
    healthcheckDatabase: booleanSetting(environment, 'TARIFF_HEALTHCHECK_DATABASE', false),
    healthcheckDatabaseTimeoutMs: positiveNumber(environment, 'TARIFF_HEALTHCHECK_DATABASE_TIMEOUT', 2) * 1000,
    healthcheckDisableFile: absolutePath(environment, 'TARIFF_HEALTHCHECK_DISABLE_FILE'),
    shutdownTimeoutMs: positiveNumber(environment, 'TARIFF_SHUTDOWN_TIMEOUT', 30) * 1000,
    cloudKitty,
    simulation: {
      maxPoints: positiveInteger(environment, 'TARIFF_SIMULATION_MAX_POINTS', 50_000_000),
      timeoutMs: positiveNumber(environment, 'TARIFF_SIMULATION_TIMEOUT', 3600) * 1000,
      concurrent: positiveInteger(environment, 'TARIFF_SIMULATIONS', 1),
      maxDistinctPoints: positiveInteger(environment, 'TARIFF_SIMULATION_DISTINCT_POINTS', 250_000),
      maxFindings: nonNegativeInteger(environment, 'TARIFF_SIMULATION_MAX_FINDINGS', 1000),
      maxLineBytes: megabytes(environment, 'TARIFF_SIMULATION_MAX_LINE_MB', 16),
      uploadBytes: megabytes(environment, 'TARIFF_SIMULATION_UPLOAD_LIMIT_MB', 4096),
      windowMs: positiveNumber(environment, 'TARIFF_SIMULATION_WINDOW', 3600) * 1000,
      pagePoints: positiveInteger(environment, 'TARIFF_SIMULATION_PAGE_POINTS', 1000),
    },
  };
}

/** `TARIFF_CLOUDKITTY_API_URL` and the settings of the connections to it. */
function cloudKittyApiSettings(environment: NodeJS.ProcessEnv): CloudKittyApiSettings {
  const given = environment.TARIFF_CLOUDKITTY_API_URL?.trim();
  let url: string | undefined;
  if (given) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(given);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.search || parsed.hash || parsed.username || parsed.password) {
      throw new ConfigurationError(
        `TARIFF_CLOUDKITTY_API_URL must be an http(s) URL without query or credentials, such as http://cloudkitty-api:8889, got '${given}'`,
      );
    }
    url = `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
  }
  return {
    url,
    connectTimeoutMs: positiveNumber(environment, 'TARIFF_CLOUDKITTY_CONNECT_TIMEOUT', 5) * 1000,
    timeoutMs: positiveNumber(environment, 'TARIFF_CLOUDKITTY_TIMEOUT', 60) * 1000,
    connections: positiveInteger(environment, 'TARIFF_CLOUDKITTY_CONNECTIONS', 32),
    bodyLimitBytes: megabytes(environment, 'TARIFF_CLOUDKITTY_BODY_LIMIT_MB', 32),
  };
}

/** oslo.config compat (BoolOpt): `true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`, any case. */
function booleanSetting(environment: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const text = environment[name];
  if (text === undefined || text === '') return fallback;
  const word = text.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(word)) return true;
  if (['false', '0', 'no', 'off'].includes(word)) return false;
  throw new ConfigurationError(`${name} must be true or false, got '${text}'`);
}

/** An absolute file path, or undefined when the variable is unset or empty. */
function absolutePath(environment: NodeJS.ProcessEnv, name: string): string | undefined {
  const text = environment[name];
  if (text === undefined || text === '') return undefined;
  if (!text.startsWith('/') || text.includes('\0')) throw new ConfigurationError(`${name} must be an absolute file path, got '${text}'`);
  return text;
}

/** The canonical name of `TARIFF_CLOUDKITTY_TIMEZONE` (default `UTC`). */
function timeZoneName(environment: NodeJS.ProcessEnv): string {
  const name = environment.TARIFF_CLOUDKITTY_TIMEZONE || 'UTC';
  try {
    return TimeZone.named(name).name;
  } catch (error) {
    if (error instanceof UnknownTimeZoneError) {
      throw new ConfigurationError(`TARIFF_CLOUDKITTY_TIMEZONE must be an IANA time zone name such as UTC, Europe/Paris or Asia/Tokyo, got '${name}'`);
    }
    throw error;
  }
}

function required(environment: NodeJS.ProcessEnv, name: string): string {
  const value = environment[name];
  if (!value) throw new ConfigurationError(`${name} is required with TARIFF_AUTH=keystone`);
  return value;
}

function keystoneSettings(environment: NodeJS.ProcessEnv): KeystoneSettings {
  const given = required(environment, 'TARIFF_KEYSTONE_AUTH_URL').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(given)) throw new ConfigurationError(`TARIFF_KEYSTONE_AUTH_URL must be an http(s) URL, got '${given}'`);
  const authUrl = given.endsWith('/v3') ? given : `${given}/v3`;
  return {
    authUrl,
    wwwAuthenticateUri: environment.TARIFF_KEYSTONE_WWW_AUTHENTICATE_URI || given,
    username: required(environment, 'TARIFF_KEYSTONE_USERNAME'),
    password: required(environment, 'TARIFF_KEYSTONE_PASSWORD'),
    projectName: environment.TARIFF_KEYSTONE_PROJECT_NAME || 'service',
    userDomainName: environment.TARIFF_KEYSTONE_USER_DOMAIN_NAME || 'Default',
    projectDomainName: environment.TARIFF_KEYSTONE_PROJECT_DOMAIN_NAME || 'Default',
    userDomainId: environment.TARIFF_KEYSTONE_USER_DOMAIN_ID || undefined,
    projectDomainId: environment.TARIFF_KEYSTONE_PROJECT_DOMAIN_ID || undefined,
    timeoutMs: positiveNumber(environment, 'TARIFF_KEYSTONE_TIMEOUT', 5) * 1000,
    tokenCacheMs: positiveNumber(environment, 'TARIFF_TOKEN_CACHE_TIME', 300) * 1000,
    invalidTokenCacheMs: invalidTokenCacheSeconds(environment) * 1000,
  };
}

/** `TARIFF_INVALID_TOKEN_CACHE_TIME`: seconds, 0 (never cached) to 300 (keystonemiddleware's `token_cache_time` default); default 30. */
function invalidTokenCacheSeconds(environment: NodeJS.ProcessEnv): number {
  const text = environment.TARIFF_INVALID_TOKEN_CACHE_TIME;
  if (text === undefined || text === '') return 30;
  const seconds = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(seconds <= 300)) {
    throw new ConfigurationError(`TARIFF_INVALID_TOKEN_CACHE_TIME must be a number of seconds from 0 to 300, got '${text}'`);
  }
  return seconds;
}

/** `TARIFF_METRICS`, `TARIFF_METRICS_PORT` and `TARIFF_METRICS_HOST`. */
function metricsSettings(environment: NodeJS.ProcessEnv, apiPort: number): Pick<TariffConfig, 'metrics' | 'metricsPort' | 'metricsHost'> {
  const switchText = (environment.TARIFF_METRICS ?? '').trim().toLowerCase();
  if (!['', 'on', 'off', 'true', 'false'].includes(switchText)) {
    throw new ConfigurationError(`TARIFF_METRICS must be 'on' or 'off', got '${environment.TARIFF_METRICS}'`);
  }
  const metrics = switchText !== 'off' && switchText !== 'false';
  const portText = environment.TARIFF_METRICS_PORT;
  const metricsHost = environment.TARIFF_METRICS_HOST || '127.0.0.1';
  if (portText === undefined || portText === '') return { metrics, metricsPort: undefined, metricsHost };
  const metricsPort = Number(portText);
  if (!Number.isInteger(metricsPort) || metricsPort < 1 || metricsPort > 65535) {
    throw new ConfigurationError(`TARIFF_METRICS_PORT must be a TCP port number from 1 to 65535, got '${portText}'`);
  }
  if (metricsPort === apiPort) throw new ConfigurationError(`TARIFF_METRICS_PORT must differ from TARIFF_PORT (${apiPort})`);
  if (!metrics) throw new ConfigurationError('TARIFF_METRICS_PORT is set but TARIFF_METRICS is off: unset one of them');
  return { metrics, metricsPort, metricsHost };
}

function positiveNumber(environment: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = environment[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new ConfigurationError(`${name} must be a positive number, got '${text}'`);
  return value;
}

function positiveInteger(environment: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = positiveNumber(environment, name, fallback);
  if (!Number.isInteger(value)) throw new ConfigurationError(`${name} must be a whole number, got '${environment[name]}'`);
  return value;
}

function nonNegativeInteger(environment: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = environment[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) throw new ConfigurationError(`${name} must be a whole number, 0 or more, got '${text}'`);
  return value;
}

/** A size setting given in MiB (fractions allowed), in bytes. */
function megabytes(environment: NodeJS.ProcessEnv, name: string, fallback: number): number {
  return Math.round(positiveNumber(environment, name, fallback) * 1024 * 1024);
}

/** A whole-number sandbox setting of at least `minimum`. */
function sandboxCount(environment: NodeJS.ProcessEnv, name: string, fallback: number, minimum: number): number {
  const text = environment[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < minimum) throw new ConfigurationError(`${name} must be a whole number of at least ${minimum}, got '${text}'`);
  return value;
}

/** The process's environment variables, for callers that pass them on (src/config-file/load.ts): this module stays the one that reads `process.env`. */
export function environmentVariables(): NodeJS.ProcessEnv {
  return process.env;
}

/** The environment over the files' values: a variable set to a non-empty value wins. */
function withFileFallbacks(environment: NodeJS.ProcessEnv, fromFiles: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...environment };
  for (const [name, value] of Object.entries(fromFiles)) if (!environment[name]) merged[name] = value;
  return merged;
}

/** `TARIFF_RUNNING_RULE_UPDATES`: `new-version` (default) or `refuse`. @throws ConfigurationError for anything else. */
function runningRuleUpdates(environment: NodeJS.ProcessEnv): TariffConfig['runningRuleUpdates'] {
  const value = environment.TARIFF_RUNNING_RULE_UPDATES || 'new-version';
  if (value !== 'new-version' && value !== 'refuse') {
    throw new ConfigurationError(`TARIFF_RUNNING_RULE_UPDATES must be 'new-version' or 'refuse', got '${value}'`);
  }
  return value;
}
