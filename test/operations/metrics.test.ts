/**
 * `GET /metrics` (issue 15) inside one process: the settings and their errors, the series an
 * answer, a quote and the database leave, `TARIFF_METRICS=off`, `TARIFF_METRICS_PORT` (the API's
 * port answers 404, the listener of its own answers without a token), and Keystone mode on the
 * API's port (admin only). Prometheus itself scraping a real server: prometheus.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigurationError, loadConfig } from '../../src/config.js';
import type { TariffApp } from '../../src/http/app.js';
import { buildTariffApp, ratingModules } from '../../src/application.js';
import { openDatabase, type Database } from '../../src/database/connection.js';
import { migrateToLatest } from '../../src/database/migrate.js';
import { TariffMetrics } from '../../src/kernel/metrics.js';
import { listenForMetrics, type MetricsListener } from '../../src/http/metrics-listener.js';
import { connectionTimeouts } from '../../src/http/http-server.js';
import { databaseErrorKind } from '../../src/database/errors.js';
import { RatingSnapshotCache } from '../../src/rating/quote/snapshot.js';
import { H, startTestApp, type TestApp } from '../helpers/app.js';
import { testIdentity } from '../helpers/keystone-identity.js';

/** The metrics listener's time-outs with a stall time-out of 1 s. */
const STALL_ONE_SECOND = connectionTimeouts({ requestTimeoutMs: 300_000, stallTimeoutMs: 1000, keepAliveTimeoutMs: 72_000 });

/** The value of one sample line (`name{labels} value`) of a Prometheus text, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics settings', () => {
  it('has defaults and refuses invalid values with a message naming the variable', () => {
    expect(loadConfig({})).toMatchObject({ metrics: true, metricsPort: undefined });
    expect(loadConfig({ TARIFF_METRICS: 'off' }).metrics).toBe(false);
    expect(loadConfig({ TARIFF_METRICS: 'ON', TARIFF_METRICS_PORT: '9464' })).toMatchObject({ metrics: true, metricsPort: 9464 });
    expect(() => loadConfig({ TARIFF_METRICS: 'maybe' })).toThrow(new ConfigurationError("TARIFF_METRICS must be 'on' or 'off', got 'maybe'"));
    for (const port of ['0', '65536', '9464.5', 'http'])
      expect(() => loadConfig({ TARIFF_METRICS_PORT: port })).toThrow(`TARIFF_METRICS_PORT must be a TCP port number from 1 to 65535, got '${port}'`);
    expect(() => loadConfig({ TARIFF_PORT: '9000', TARIFF_METRICS_PORT: '9000' })).toThrow('TARIFF_METRICS_PORT must differ from TARIFF_PORT (9000)');
    expect(() => loadConfig({ TARIFF_METRICS: 'off', TARIFF_METRICS_PORT: '9464' })).toThrow('TARIFF_METRICS is off');
    expect(loadConfig({ TARIFF_HOST: '0.0.0.0', TARIFF_METRICS_PORT: '9464' }).metricsHost).toBe('127.0.0.1');
    expect(loadConfig({ TARIFF_METRICS_HOST: '::', TARIFF_METRICS_PORT: '9464' }).metricsHost).toBe('::');
  });
});

describe('the HTTP series', () => {
  it('puts a duration in the first bucket whose bound is at least it, cumulatively, and past the last in +Inf only', async () => {
    const metrics = new TariffMetrics();
    for (const seconds of [0.001, 0.0011, 20]) metrics.httpAnswered('/v1/things/:id', 'GET', 200, seconds);
    metrics.httpAnswered('/v1/things/:id', 'GET', 404, 0.0001);
    const text = await metrics.text();
    const bucket = (le: string) => sample(text, `tariff_http_request_duration_seconds_bucket{route="/v1/things/:id",method="GET",le="${le}"}`);
    expect([bucket('0.0005'), bucket('0.001'), bucket('0.0025'), bucket('10'), bucket('+Inf')]).toEqual([1, 2, 3, 3, 4]);
    expect(sample(text, 'tariff_http_request_duration_seconds_sum{route="/v1/things/:id",method="GET"}')).toBeCloseTo(20.0022, 10);
    expect(sample(text, 'tariff_http_request_duration_seconds_count{route="/v1/things/:id",method="GET"}')).toBe(4);
    expect(sample(text, 'tariff_http_requests_total{route="/v1/things/:id",method="GET",status="200"}')).toBe(3);
    expect(sample(text, 'tariff_http_requests_total{route="/v1/things/:id",method="GET",status="404"}')).toBe(1);
    expect(text).toContain('# TYPE tariff_http_request_duration_seconds histogram');
    expect(text).toContain('# TYPE tariff_http_requests_total counter');
  });
});

describe('GET /metrics on the API port', () => {
  let test: TestApp | undefined;
  afterEach(async () => {
    await test?.close();
    test = undefined;
  });

  it('counts answers by route template, method and status, with durations, and priced quote points', async () => {
    test = await startTestApp();
    const service = await test.post(`${H}/services`, { name: 'compute' });
    expect(service.status).toBe(201);
    await test.get(`${H}/services/${service.body.service_id}`);
    await test.get(`${H}/services/${service.body.service_id}`);
    await test.get('/no/such/path');
    const quote = await test.post('/v2/rating/quote', { usage: { compute: [{ vol: { unit: 'instance', qty: 1 } }, { vol: { unit: 'instance', qty: 2 } }] } });
    expect(quote.status).toBe(200);
    const answer = await test.get('/metrics');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = answer.text;
    const one = `route="${H}/services/:service_id",method="GET",status="200"`;
    expect(sample(text, `tariff_http_requests_total{${one}}`)).toBe(2);
    expect(sample(text, `tariff_http_requests_total{route="${H}/services",method="POST",status="201"}`)).toBe(1);
    expect(sample(text, 'tariff_http_requests_total{route="unmatched",method="GET",status="404"}')).toBe(1);
    expect(sample(text, `tariff_http_request_duration_seconds_count{route="${H}/services/:service_id",method="GET"}`)).toBe(2);
    expect(sample(text, `tariff_http_request_duration_seconds_bucket{route="${H}/services/:service_id",method="GET",le="+Inf"}`)).toBe(2);
    expect(sample(text, 'tariff_quote_points_total')).toBe(2);
    expect(sample(text, 'tariff_quote_duration_seconds_count')).toBe(1);
    expect(sample(text, 'tariff_rules_reloads_total')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'tariff_configuration_revision')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'tariff_database_errors_total{kind="deadlock_retried"}')).toBe(0);
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
  });

  it('is not served with TARIFF_METRICS=off, nor on the API port when TARIFF_METRICS_PORT is set', async () => {
    test = await startTestApp({ config: { metrics: false } });
    expect((await test.get('/metrics')).status).toBe(404);
    await test.close();
    test = await startTestApp({ config: { metricsPort: 9464 } });
    expect((await test.get('/metrics')).status).toBe(404);
  });
});

describe('the database layer', () => {
  it('reports its pool and counts lost connections and timeouts', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'tariff-metrics-'));
    const metrics = new TariffMetrics();
    const database = openDatabase(`sqlite:${join(directory, 'tariff.db')}`, { metrics });
    try {
      await migrateToLatest(database, ratingModules().migrations());
      const text = await metrics.text();
      expect(sample(text, 'tariff_database_pool_connections_in_use')).toBe(0);
      expect(sample(text, 'tariff_database_pool_connections_idle')).toBe(1);
      expect(sample(text, 'tariff_database_pool_waiting')).toBe(0);
      // While a transaction holds SQLite's one connection, a second query waits for it.
      let release!: () => void;
      const held = database.db.transaction().execute(() => new Promise<void>((resolve) => (release = resolve)));
      await new Promise((resolve) => setTimeout(resolve, 20));
      const waiting = database.db.selectFrom('tariff_config_version').selectAll().execute();
      const during = await metrics.text();
      expect(sample(during, 'tariff_database_pool_connections_in_use')).toBe(1);
      expect(sample(during, 'tariff_database_pool_connections_idle')).toBe(0);
      expect(sample(during, 'tariff_database_pool_waiting')).toBe(1);
      release();
      await held;
      await waiting;
      expect(sample(await metrics.text(), 'tariff_database_pool_connections_in_use')).toBe(0);
    } finally {
      await database.close();
      rmSync(directory, { recursive: true, force: true });
    }
    expect(databaseErrorKind(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }))).toBe('timeout');
    expect(databaseErrorKind(new Error('Query read timeout'))).toBe('timeout');
    expect(databaseErrorKind(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe('lost_connection');
    expect(databaseErrorKind(Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST' }))).toBe('lost_connection');
    expect(databaseErrorKind(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBeUndefined();
  });
});

describe('the rules and the sandbox queue', () => {
  it('count the rules reloads that failed, and the runs the sandbox queue refused or dropped by reason', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'tariff-metrics-rules-'));
    const metrics = new TariffMetrics();
    const database = openDatabase(`sqlite:${join(directory, 'tariff.db')}`, { metrics });
    try {
      const modules = ratingModules();
      await migrateToLatest(database, modules.migrations());
      const rules = new RatingSnapshotCache(database, modules, metrics);
      await rules.current();
      const loaded = await metrics.text();
      expect(sample(loaded, 'tariff_rules_reloads_total')).toBe(1);
      expect(sample(loaded, 'tariff_rules_reload_failures_total')).toBe(0);
      // The database goes away under the cache: the next reload fails, and is counted once.
      await database.close();
      rules.invalidate();
      await expect(rules.current()).rejects.toThrow();
      expect(sample(await metrics.text(), 'tariff_rules_reload_failures_total')).toBe(1);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
    expect(sample(await new TariffMetrics().text(), 'tariff_sandbox_queue_rejections_total{reason="refused"}')).toBe(0);
    metrics.watchSandbox(() => ({ busy: 1, idle: 0, queued: 2, timeouts: 0, crashes: 0, restarts: 0, refused: 3, expired: 1 }));
    const text = await metrics.text();
    expect(sample(text, 'tariff_sandbox_queue_rejections_total{reason="refused"}')).toBe(3);
    expect(sample(text, 'tariff_sandbox_queue_rejections_total{reason="expired"}')).toBe(1);
  });
});

describe('TARIFF_METRICS_PORT and Keystone mode', () => {
  let app: TariffApp | undefined;
  let database: Database | undefined;
  let listener: MetricsListener | undefined;
  let directory: string | undefined;
  afterEach(async () => {
    await listener?.close();
    await app?.close();
    await database?.close();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  const ADMIN_TOKEN = 'gAAAAABadmin-token-for-tests-0123456789';
  const MEMBER_TOKEN = 'gAAAAABmember-token-for-tests-012345678';
  const identity = testIdentity;

  async function start(environment: Record<string, string>): Promise<{ app: TariffApp; metrics: TariffMetrics }> {
    directory = mkdtempSync(join(tmpdir(), 'tariff-metrics-auth-'));
    const config = loadConfig({
      TARIFF_AUTH: 'keystone',
      TARIFF_KEYSTONE_AUTH_URL: 'http://keystone.invalid:5000',
      TARIFF_KEYSTONE_USERNAME: 'tariff',
      TARIFF_KEYSTONE_PASSWORD: 'secret',
      TARIFF_DATABASE_URL: `sqlite:${join(directory, 'tariff.db')}`,
      ...environment,
    });
    database = openDatabase(config.databaseUrl);
    const modules = ratingModules();
    await migrateToLatest(database, modules.migrations());
    const metrics = new TariffMetrics();
    const validate = async (token: string) => (token === ADMIN_TOKEN ? identity(['admin']) : token === MEMBER_TOKEN ? identity(['member']) : null);
    app = await buildTariffApp({ config, database, modules, logger: false, keystoneClient: { validate }, metrics });
    return { app, metrics };
  }

  it('on the API port asks an admin token (context_is_admin)', async () => {
    const { app } = await start({});
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/metrics', headers: { 'x-auth-token': MEMBER_TOKEN } })).statusCode).toBe(403);
    const admin = await app.inject({ method: 'GET', url: '/metrics', headers: { 'x-auth-token': ADMIN_TOKEN } });
    expect(admin.statusCode).toBe(200);
    expect(admin.body).toContain('tariff_http_requests_total{route="/metrics",method="GET",status="401"} 1');
  });

  it('on its own port asks no token, and the API port answers it 404', async () => {
    const { app, metrics } = await start({ TARIFF_METRICS_PORT: '9464' });
    listener = await listenForMetrics(metrics, { host: '127.0.0.1', port: 0, timeouts: STALL_ONE_SECOND });
    await app.inject({ method: 'GET', url: '/v1/rating/modules', headers: { 'x-auth-token': ADMIN_TOKEN } });
    const onApiPort = await app.inject({ method: 'GET', url: '/metrics', headers: { 'x-auth-token': ADMIN_TOKEN } });
    expect(onApiPort.statusCode).toBe(404);
    const scraped = await fetch(`${listener.url}/metrics`);
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(await scraped.text()).toContain('tariff_http_requests_total{route="/v1/rating/modules",method="GET",status="200"} 1');
    expect((await fetch(`${listener.url}/other`)).status).toBe(404);
    expect((await fetch(`${listener.url}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('on its own port closes a request that stalls at TARIFF_STALL_TIMEOUT', async () => {
    const { metrics } = await start({ TARIFF_METRICS_PORT: '9464' });
    listener = await listenForMetrics(metrics, { host: '127.0.0.1', port: 0, timeouts: STALL_ONE_SECOND });
    const { port } = new URL(listener.url);
    const started = performance.now();
    const closedAfterMs = await new Promise<number>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: Number(port) }, () => socket.write('GET /metrics HTTP/1.1\r\nHost: m'));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(performance.now() - started));
    });
    // Node's own time-outs alone (headers 60 s) would keep it a minute.
    expect(closedAfterMs).toBeGreaterThan(900);
    expect(closedAfterMs).toBeLessThan(20_000);
  });
});
