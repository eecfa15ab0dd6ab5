/**
 * Tariff's Prometheus metrics (`GET /metrics`, issue 15): every series is defined here, on a
 * registry of this process's own, so that each layer records through {@link TariffMetrics}'s small
 * methods without importing prom-client. Durations are in seconds, as Prometheus wants them.
 *
 * Two ways in: the hot paths (an HTTP answer, a quote, a sandbox run, a database error) call a
 * method that updates a series at once; the state of things (pool connections, sandbox workers,
 * the rules' age) is read only when Prometheus scrapes, from a source the owner registered with a
 * `watch…` method. docs/api.md §10 lists the series.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import { RequestSeries } from './request-series.js';
import { TARIFF_VERSION } from './version.js';

/** A database error worth counting: why requests failed or were repeated. */
export type DatabaseErrorKind = 'timeout' | 'lost_connection' | 'deadlock_retried';

/**
 * Why a request forwarded to CloudKitty's API failed: `unreachable` (no connection: refused, no
 * such host, or not within the connect timeout; a 502), `timeout` (no answer within the answer
 * timeout; a 504), `connection_lost` (the connection closed or failed before the answer; a 502),
 * `answer_cut` (the answer's body broke off after its headers were passed on: the caller's
 * connection is cut).
 */
export type ForwardErrorKind = 'unreachable' | 'timeout' | 'connection_lost' | 'answer_cut';

const FORWARD_ERROR_KINDS: readonly ForwardErrorKind[] = ['unreachable', 'timeout', 'connection_lost', 'answer_cut'];

/**
 * Why a client's connection was cut (http/http-server.ts, client-errors.ts): `read_stall` (its
 * request stopped coming for `TARIFF_STALL_TIMEOUT`: a 408), `request_timeout` (its request took
 * longer than `TARIFF_REQUEST_TIMEOUT`: a 408), `write_stall` (it read nothing of its answer for
 * `TARIFF_STALL_TIMEOUT`: the answer was dropped).
 */
export type ConnectionCutReason = 'read_stall' | 'request_timeout' | 'write_stall';

const CONNECTION_CUT_REASONS: readonly ConnectionCutReason[] = ['read_stall', 'request_timeout', 'write_stall'];

/**
 * Why a quote was refused: `process` or `tenant` (503: its body would have passed the bytes in
 * flight of the process or of its tenant), `answer_size` (413: its answer would have passed its bound).
 */
export type QuoteRefusalReason = 'process' | 'tenant' | 'answer_size';

const QUOTE_REFUSAL_REASONS: readonly QuoteRefusalReason[] = ['process', 'tenant', 'answer_size'];

/**
 * Why a PyScripts script run (a quote's scripts) failed: `timeout` (past `TARIFF_SCRIPT_TIMEOUT_MS`),
 * `memory` (past `TARIFF_SCRIPT_MEMORY_MB`), `crash` (the worker crashed), `error` (a script
 * raised), `refused_output` (a script left a `data` Tariff refuses: not a dataframe, or a decimal
 * out of range).
 */
export type ScriptFailureKind = 'timeout' | 'memory' | 'crash' | 'error' | 'refused_output';

const SCRIPT_FAILURE_KINDS: readonly ScriptFailureKind[] = ['timeout', 'memory', 'crash', 'error', 'refused_output'];

/** The connections of the database pool at one moment (SQLite: its one connection). */
export interface PoolStatistics {
  /** Connections lent to a query or a transaction. */
  inUse: number;
  /** Connections open and free. */
  idle: number;
  /** Queries and transactions waiting for a connection. */
  waiting: number;
}

/** The rules the quotes price with, at one moment. */
export interface RulesStatistics {
  /** Times a rating snapshot was loaded from the database, since the process started. */
  reloads: number;
  /** Times reading a snapshot or the configuration's revision failed (a database error), since the process started. */
  reloadFailures: number;
  /** Seconds since the snapshot in use was loaded; 0 before the first one. */
  ageSeconds: number;
  /** The configuration revision of that snapshot (`tariff_config_version`); 0 before the first one. */
  revision: number;
}

/** The PyScripts sandbox at one moment; the last three count since it was created. */
export interface SandboxStatistics {
  /** Workers running a script or a compile check. */
  busy: number;
  /** Workers loaded and waiting for work (spares included). */
  idle: number;
  /** Runs and compile checks waiting for a worker. */
  queued: number;
  /** Runs and compile checks stopped at the time limit. */
  timeouts: number;
  /** Workers lost otherwise: past the memory limit, or crashed. */
  crashes: number;
  /** Workers killed (by a limit or a crash) and replaced. */
  restarts: number;
  /** Runs and compile checks the queue refused at once (503: its length or the tenant's runs reached). */
  refused: number;
  /** Runs and compile checks dropped from the queue after waiting too long (503). */
  expired: number;
}

/** Buckets of the HTTP request durations, in seconds: from 0.5 ms (a cached read) to 10 s. */
const HTTP_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Buckets of the quote and script run durations, in seconds: 1 ms to 30 s. */
const WORK_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The label of requests no route matched (a 404), so that unknown paths make one series, not one each. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Node's default metrics go to one registry per process: they watch the process, not an app. */
let processRegistry: Registry | undefined;

function defaultProcessMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * The metrics of one Tariff app: create one per app (`src/application.ts`, `src/server.ts`) and
 * hand it to the database, the sandbox, the rules and the HTTP shell. Node's default process
 * metrics (`process_*`, `nodejs_*`) are shared by every app of the process.
 */
export class TariffMetrics {
  private readonly registry = new Registry();
  /** The HTTP series, kept in plain numbers (request-series.ts) and formatted by the registry at each scrape. */
  private readonly requests = new RequestSeries(HTTP_BUCKETS);
  private readonly databaseErrors = new Counter({
    name: 'tariff_database_errors_total',
    help: 'Database errors by kind: timeout (a statement or a connection took too long), lost_connection, deadlock_retried (a lost race, the transaction repeated).',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  private readonly forwardErrors = new Counter({
    name: 'tariff_forward_errors_total',
    help: "Requests forwarded to CloudKitty's API that failed, by kind: unreachable (502), timeout (504), connection_lost (502), answer_cut (the answer broke off midway).",
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  private readonly connectionsCut = new Counter({
    name: 'tariff_connections_cut_total',
    help: 'Client connections cut, by reason: read_stall (the request stopped coming, 408), request_timeout (the request took too long, 408), write_stall (the client read nothing of its answer).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly clientAborts = new Counter({
    name: 'tariff_client_aborts_total',
    help: 'Requests whose body was cut off by their connection closing (the client went, or a stalled request was cut): no database error.',
    registers: [this.registry],
  });
  private readonly quotePoints = new Counter({
    name: 'tariff_quote_points_total',
    help: 'Dataframe points priced by quotes (v1 resources and v2 points).',
    registers: [this.registry],
  });
  private readonly quoteDurations = new Histogram({
    name: 'tariff_quote_duration_seconds',
    help: 'Time to price one quote with the enabled modules (rules, engines, scripts), in seconds.',
    buckets: WORK_BUCKETS,
    registers: [this.registry],
  });
  private readonly quoteRefusals = new Counter({
    name: 'tariff_quote_refusals_total',
    help: "Quotes refused before pricing or answering, by reason: process or tenant (503, the bytes-in-flight budget), answer_size (413, the answer's bound).",
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly sandboxRunDurations = new Histogram({
    name: 'tariff_sandbox_run_duration_seconds',
    help: "Time a sandbox worker took for one script run (a quote's scripts together), in seconds, whatever its outcome.",
    buckets: WORK_BUCKETS,
    registers: [this.registry],
  });
  private readonly scriptFailures = new Counter({
    name: 'tariff_pyscripts_script_failures_total',
    help: "PyScripts script runs (a quote's scripts together) that failed, by kind: timeout, memory, crash (the worker crashed), error (a script raised), refused_output (a script left a data Tariff refuses).",
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  private poolSource: (() => PoolStatistics) | undefined;
  private rulesSource: (() => RulesStatistics) | undefined;
  private sandboxSource: (() => SandboxStatistics) | undefined;
  private quoteBytesSource: (() => number) | undefined;

  constructor() {
    // prom-client formats any metric with a `get()` in its counters' and histograms' shape.
    this.registry.registerMetric(
      this.requests.counter('tariff_http_requests_total', 'HTTP requests answered, by route template, method and status code.') as unknown as Metric,
    );
    this.registry.registerMetric(
      this.requests.histogram(
        'tariff_http_request_duration_seconds',
        'Time from receiving an HTTP request to the end of its answer, in seconds, by route template and method.',
      ) as unknown as Metric,
    );
    for (const kind of ['timeout', 'lost_connection', 'deadlock_retried'] as const) this.databaseErrors.labels(kind).inc(0);
    new Gauge({
      name: 'tariff_build_info',
      help: "Always 1: the running Tariff's version (package.json) and Node.js version as labels.",
      labelNames: ['version', 'node_version'] as const,
      registers: [this.registry],
    })
      .labels(TARIFF_VERSION, process.version)
      .set(1);
    for (const kind of FORWARD_ERROR_KINDS) this.forwardErrors.labels(kind).inc(0);
    for (const reason of CONNECTION_CUT_REASONS) this.connectionsCut.labels(reason).inc(0);
    for (const reason of QUOTE_REFUSAL_REASONS) this.quoteRefusals.labels(reason).inc(0);
    for (const kind of SCRIPT_FAILURE_KINDS) this.scriptFailures.labels(kind).inc(0);
    this.gauge('tariff_database_pool_connections_in_use', 'Database connections lent to a query or a transaction.', () => this.poolSource?.().inUse);
    this.gauge('tariff_database_pool_connections_idle', 'Database connections open and free.', () => this.poolSource?.().idle);
    this.gauge('tariff_database_pool_waiting', 'Queries and transactions waiting for a database connection.', () => this.poolSource?.().waiting);
    this.total('tariff_rules_reloads_total', 'Rating snapshots (module states and rules) loaded from the database.', () => this.rulesSource?.().reloads);
    this.total(
      'tariff_rules_reload_failures_total',
      "Reads of the rating snapshot or of the configuration's revision that failed (a database error): the rules were not reloaded, the quote failed.",
      () => this.rulesSource?.().reloadFailures,
    );
    this.gauge(
      'tariff_rules_age_seconds',
      'Seconds since the rating snapshot in use was loaded (0 before the first quote).',
      () => this.rulesSource?.().ageSeconds,
    );
    this.gauge('tariff_configuration_revision', 'The configuration revision the rating snapshot in use was loaded at.', () => this.rulesSource?.().revision);
    this.gauge('tariff_quote_bytes_in_flight', 'Bytes of quote bodies admitted and not yet answered (TARIFF_QUOTE_BYTES_IN_FLIGHT_MB bounds them).', () =>
      this.quoteBytesSource?.(),
    );
    this.gauge('tariff_sandbox_workers_busy', 'Sandbox workers running a script or a compile check.', () => this.sandboxSource?.().busy);
    this.gauge('tariff_sandbox_workers_idle', 'Sandbox workers loaded and waiting for work.', () => this.sandboxSource?.().idle);
    this.gauge('tariff_sandbox_queue_length', 'Script runs and compile checks waiting for a sandbox worker.', () => this.sandboxSource?.().queued);
    this.total('tariff_sandbox_timeouts_total', 'Script runs and compile checks stopped at the time limit.', () => this.sandboxSource?.().timeouts);
    this.total('tariff_sandbox_crashes_total', 'Sandbox workers killed past the memory limit or crashed.', () => this.sandboxSource?.().crashes);
    this.total('tariff_sandbox_restarts_total', 'Sandbox workers killed (a limit or a crash) and replaced.', () => this.sandboxSource?.().restarts);
    this.totals(
      'tariff_sandbox_queue_rejections_total',
      "Script runs and compile checks the sandbox's queue answered 503, by reason: refused (at once: the queue's length or the tenant's runs reached), expired (after waiting TARIFF_SANDBOX_QUEUE_WAIT_MS).",
      'reason',
      () => {
        const sandbox = this.sandboxSource?.();
        return { refused: sandbox?.refused ?? 0, expired: sandbox?.expired ?? 0 };
      },
    );
  }

  /** The media type of {@link text}: Prometheus text format 0.0.4. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every series, Node's default process metrics included, in Prometheus text format. */
  async text(): Promise<string> {
    const [own, process] = await Promise.all([this.registry.metrics(), defaultProcessMetrics().metrics()]);
    return `${own}\n${process}`;
  }

  /**
   * Counts one HTTP answer and its duration. Called once per request: after the first request of a
   * route, method and status it only looks up three maps and adds (request-series.ts).
   *
   * @param route - the route template (`/v1/rating/module_config/hashmap/mappings/:mapping_id`),
   *   {@link UNMATCHED_ROUTE} when none matched.
   * @param seconds - from receiving the request to the end of the answer.
   */
  httpAnswered(route: string, method: string, status: number, seconds: number): void {
    this.requests.record(route, method, status, seconds);
  }

  /** Counts one database error of `kind`. */
  databaseError(kind: DatabaseErrorKind): void {
    this.databaseErrors.labels(kind).inc();
  }

  /** Counts one request whose client closed its connection before sending its whole body (http/client-abort.ts). */
  clientAborted(): void {
    this.clientAborts.inc();
  }

  /** Counts one request forwarded to CloudKitty's API that failed, by {@link ForwardErrorKind}. */
  forwardError(kind: ForwardErrorKind): void {
    this.forwardErrors.labels(kind).inc();
  }

  /** Counts one client connection cut, by {@link ConnectionCutReason}. */
  connectionCut(reason: ConnectionCutReason): void {
    this.connectionsCut.labels(reason).inc();
  }

  /** Counts one priced quote: its points (v1 resources, v2 points) and its duration in seconds. */
  quotePriced(points: number, seconds: number): void {
    this.quotePoints.inc(points);
    this.quoteDurations.observe(seconds);
  }

  /** Counts one quote refused, by {@link QuoteRefusalReason}. */
  quoteRefused(reason: QuoteRefusalReason): void {
    this.quoteRefusals.labels(reason).inc();
  }

  /** Records the duration of one sandbox script run, in seconds. */
  sandboxRun(seconds: number): void {
    this.sandboxRunDurations.observe(seconds);
  }

  /** Counts one failed PyScripts script run, by {@link ScriptFailureKind}. */
  scriptFailed(kind: ScriptFailureKind): void {
    this.scriptFailures.labels(kind).inc();
  }

  /** Where the pool gauges are read at each scrape (the last database opened with these metrics). */
  watchDatabasePool(source: () => PoolStatistics): void {
    this.poolSource = source;
  }

  /** Where the quote bytes in flight (the admission budget's use) are read at each scrape. */
  watchQuoteBytes(source: () => number): void {
    this.quoteBytesSource = source;
  }

  /** Where the rules' reloads, age and revision are read at each scrape. */
  watchRules(source: () => RulesStatistics): void {
    this.rulesSource = source;
  }

  /** Where the sandbox's gauges and counts are read at each scrape. */
  watchSandbox(source: () => SandboxStatistics): void {
    this.sandboxSource = source;
  }

  /** A gauge read from `read` at each scrape (0 while it gives nothing). */
  private gauge(name: string, help: string, read: () => number | undefined): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read() ?? 0);
      },
    });
  }

  /** A counter with one label whose totals (by label value, a fixed set) are kept by their owner and read from `read` at each scrape. */
  private totals(name: string, help: string, labelName: string, read: () => Record<string, number>): void {
    new Counter({
      name,
      help,
      labelNames: [labelName],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [value, count] of Object.entries(read())) this.labels(value).inc(count);
      },
    });
  }

  /** A counter whose total is kept by its owner and read from `read` at each scrape. */
  private total(name: string, help: string, read: () => number | undefined): void {
    new Counter({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(read() ?? 0);
      },
    });
  }
}
