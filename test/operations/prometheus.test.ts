/**
 * Issue 15, "how it is shown": Debian's real Prometheus (`/usr/bin/prometheus`, installed by
 * .ci/run) scrapes a real Tariff process every second, on `TARIFF_METRICS_PORT`, while it serves a
 * short load (configuration writes and reads, quotes through the hashmap and a PyScript); then
 * PromQL through Prometheus's HTTP API checks that the request, database, rules, quote, sandbox and
 * process series are there with plausible values. Issue 26: every panel query of the Grafana
 * dashboard Tariff ships (deploy/grafana/tariff-dashboard.json) returns data there, its template
 * variables given their values; and the alert rules it ships (deploy/prometheus/tariff-alerts.yml)
 * all evaluate there, none firing on a healthy run. Skipped, with a warning, without Prometheus.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callServer, freePort, startServerProcess, type ServerProcess } from '../helpers/server.js';

const PROMETHEUS = '/usr/bin/prometheus';
const AVAILABLE = existsSync(PROMETHEUS);
if (!AVAILABLE) console.warn(`test/operations/prometheus.test.ts skipped: ${PROMETHEUS} is missing (install Debian's prometheus)`);

const H = '/v1/rating/module_config/hashmap';
const P = '/v1/rating/module_config/pyscripts';
/** Quotes of the load, and points per quote. */
const QUOTES = 20;
const POINTS = 3;

const DASHBOARD = join(import.meta.dirname, '../../deploy/grafana/tariff-dashboard.json');
const ALERT_RULES = join(import.meta.dirname, '../../deploy/prometheus/tariff-alerts.yml');
/** The data source every panel and variable of the dashboard names: its variable, chosen on import. */
const DATA_SOURCE = { type: 'prometheus', uid: '${DS_PROMETHEUS}' };

/** What the test reads of a Grafana dashboard (schema version 39). */
interface Dashboard {
  schemaVersion: number;
  templating: { list: { name: string; type: string; query: unknown; datasource?: unknown }[] };
  panels: {
    id: number;
    type: string;
    title: string;
    datasource?: unknown;
    gridPos: { x: number; w: number };
    targets?: { expr: string; datasource?: unknown }[];
  }[];
}

/**
 * A panel query as Grafana sends it to Prometheus: the variables given values (every job and
 * instance; `$__rate_interval` as at least four scrapes of 1 s, taken as 1m as Grafana would for a
 * short range).
 */
function substituted(expr: string): string {
  return expr.replaceAll('$__rate_interval', '1m').replaceAll('$job', 'tariff').replaceAll('$instance', '.*');
}

/** One sample of an instant vector: its labels and value. */
interface Sample {
  metric: Record<string, string>;
  value: number;
}

describe.skipIf(!AVAILABLE)('Prometheus scraping Tariff', () => {
  let directory: string;
  let tariff: ServerProcess | undefined;
  let prometheus: ChildProcess | undefined;
  let prometheusOutput = '';
  let prometheusUrl: string;
  let metricsPort: number;

  /** Runs a PromQL instant query. */
  async function query(promql: string): Promise<Sample[]> {
    const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`, { signal: AbortSignal.timeout(10_000) });
    const body = (await response.json()) as {
      status: string;
      error?: string;
      data: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
    };
    if (body.status !== 'success') throw new Error(`${promql}: ${body.error}`);
    return body.data.result.map(({ metric, value }) => ({ metric, value: Number(value[1]) }));
  }

  /** The one value of `promql` (a sum, a single series). */
  async function value(promql: string): Promise<number> {
    const samples = await query(promql);
    expect(samples, promql).toHaveLength(1);
    return samples[0].value;
  }

  /** Waits (at most `limitMs`) until `promql` has a result, i.e. until a filtering comparison holds. */
  async function eventually(promql: string, limitMs = 60_000): Promise<void> {
    const deadline = Date.now() + limitMs;
    while ((await query(promql)).length === 0) {
      if (Date.now() > deadline) throw new Error(`${promql} still empty after ${limitMs / 1000} s; Prometheus said:\n${prometheusOutput.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  async function send(method: string, path: string, body?: unknown, expected?: number) {
    const answer = await callServer(tariff!, method, path, body, { timeoutMs: 60_000 });
    if (expected !== undefined) expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(expected);
    return answer;
  }

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-prometheus-'));
    metricsPort = await freePort();
    tariff = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`, {
      TARIFF_SANDBOX_WORKERS: '1',
      TARIFF_SANDBOX_SPARE_WORKERS: '0',
      TARIFF_METRICS_PORT: String(metricsPort),
    });
    const prometheusPort = await freePort();
    prometheusUrl = `http://127.0.0.1:${prometheusPort}`;
    const configFile = join(directory, 'prometheus.yml');
    writeFileSync(
      configFile,
      [
        'global:',
        '  scrape_interval: 1s',
        '  scrape_timeout: 1s',
        '  evaluation_interval: 1s',
        'rule_files:',
        `  - ${ALERT_RULES}`,
        'scrape_configs:',
        '  - job_name: tariff',
        '    static_configs:',
        `      - targets: ['127.0.0.1:${metricsPort}']`,
        '',
      ].join('\n'),
    );
    prometheus = spawn(
      PROMETHEUS,
      [
        `--config.file=${configFile}`,
        `--storage.tsdb.path=${join(directory, 'prometheus-data')}`,
        `--web.listen-address=127.0.0.1:${prometheusPort}`,
        '--storage.tsdb.retention.time=1h',
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout?.on('data', (chunk) => (prometheusOutput += chunk));
    prometheus.stderr?.on('data', (chunk) => (prometheusOutput += chunk));
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (prometheus.exitCode !== null) throw new Error(`prometheus exited: ${prometheusOutput}`);
      const ready = await fetch(`${prometheusUrl}/-/ready`).then(
        (response) => response.ok,
        () => false,
      );
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`prometheus did not start: ${prometheusOutput}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 120_000);

  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
      prometheus.kill('SIGTERM');
      await exited;
    }
    await tariff?.stop();
    rmSync(directory, { recursive: true, force: true });
  }, 60_000);

  it('finds the request, database, rules, quote, sandbox and process series after a short load', async () => {
    // The API's own port does not serve the metrics when TARIFF_METRICS_PORT does.
    await send('GET', '/metrics', undefined, 404);

    // Configuration writes and reads: a service with a field and mappings; one mapping deleted.
    await send('PUT', '/v2/rating/modules/hashmap', { enabled: true }, 204);
    await send('PUT', '/v2/rating/modules/pyscripts', { enabled: true }, 204);
    const service = await send('POST', `${H}/services`, { name: 'compute' }, 201);
    const field = await send('POST', `${H}/fields`, { service_id: service.body.service_id, name: 'flavor' }, 201);
    const mappings = [];
    for (const [index, flavor] of ['m1.small', 'm1.large', 'm1.xlarge'].entries()) {
      const mapping = await send('POST', `${H}/mappings`, { field_id: field.body.field_id, value: flavor, cost: `${index + 1}.5`, type: 'flat' }, 201);
      mappings.push(mapping.body.mapping_id as string);
      await send('GET', `${H}/mappings/${mapping.body.mapping_id}`, undefined, 200);
    }
    await send('DELETE', `${H}/mappings/${mappings[2]}`, undefined, 204);
    await send('GET', `${H}/mappings?field_id=${field.body.field_id}`, undefined, 200);
    await send('POST', `${P}/scripts`, { name: 'discount', data: 'for points in data["usage"].values():\n    pass\n' }, 201);

    // Quotes: each through the hashmap and the script (the sandbox's first run waits for its worker to load).
    const usage = { compute: Array.from({ length: POINTS }, (_, index) => ({ vol: { unit: 'instance', qty: index + 1 }, metadata: { flavor: 'm1.small' } })) };
    for (let quote = 0; quote < QUOTES; quote += 1) {
      const priced = await send('POST', '/v2/rating/quote', { usage }, 200);
      expect(Number(priced.body.total)).toBeGreaterThan(0);
    }

    // Prometheus has the load once it scraped after the last quote.
    const quotes = 'sum(tariff_http_requests_total{route="/v2/rating/quote",method="POST",status="200"})';
    await eventually(`${quotes} >= ${QUOTES}`);
    expect(await value('up{job="tariff"}')).toBe(1);

    // HTTP: by route template, method and status; the histogram's buckets grow with `le`, up to the count.
    expect(await value(`sum(tariff_http_requests_total{route="${H}/mappings/:mapping_id",method="GET",status="200"})`)).toBe(3);
    expect(await value(`sum(tariff_http_requests_total{route="${H}/mappings/:mapping_id",method="DELETE",status="204"})`)).toBe(1);
    expect(await value(`sum(tariff_http_requests_total{route="${H}/mappings",method="POST",status="201"})`)).toBe(3);
    const buckets = await query('tariff_http_request_duration_seconds_bucket{route="/v2/rating/quote",method="POST"}');
    expect(buckets.length).toBeGreaterThan(5);
    const counts = buckets
      .map((sample) => ({ le: sample.metric.le === '+Inf' ? Infinity : Number(sample.metric.le), count: sample.value }))
      .sort((a, b) => a.le - b.le)
      .map((bucket) => bucket.count);
    for (let index = 1; index < counts.length; index += 1) expect(counts[index]).toBeGreaterThanOrEqual(counts[index - 1]);
    expect(counts.at(-1)).toBe(await value('tariff_http_request_duration_seconds_count{route="/v2/rating/quote",method="POST"}'));
    const median = await value('histogram_quantile(0.5, sum by (le) (tariff_http_request_duration_seconds_bucket{route="/v2/rating/quote"}))');
    expect(median).toBeGreaterThan(0);
    expect(median).toBeLessThan(10);

    // Database: the pool's gauges, and every error kind present (none expected here).
    for (const gauge of ['tariff_database_pool_connections_in_use', 'tariff_database_pool_connections_idle', 'tariff_database_pool_waiting']) {
      expect(await value(gauge), gauge).toBeGreaterThanOrEqual(0);
    }
    expect(await value('tariff_database_pool_connections_in_use + tariff_database_pool_connections_idle')).toBe(1);
    const errorKinds = (await query('tariff_database_errors_total')).map((sample) => sample.metric.kind).sort();
    expect(errorKinds).toEqual(['deadlock_retried', 'lost_connection', 'timeout']);

    // Rules: reloaded at least once since the writes, at the revision of the last of them (7 rule writes).
    expect(await value('tariff_rules_reloads_total')).toBeGreaterThanOrEqual(1);
    expect(await value('tariff_configuration_revision')).toBeGreaterThanOrEqual(7);
    expect(await value('tariff_rules_age_seconds')).toBeGreaterThanOrEqual(0);

    // Quotes: every point priced, one duration each.
    expect(await value('tariff_quote_points_total')).toBe(QUOTES * POINTS);
    expect(await value('tariff_quote_duration_seconds_count')).toBe(QUOTES);

    // Sandbox: one worker, one run per quote, no kill.
    expect(await value('tariff_sandbox_workers_busy + tariff_sandbox_workers_idle')).toBe(1);
    expect(await value('tariff_sandbox_queue_length')).toBeGreaterThanOrEqual(0);
    expect(await value('tariff_sandbox_run_duration_seconds_count')).toBe(QUOTES);
    expect(await value('tariff_sandbox_run_duration_seconds_sum')).toBeGreaterThan(0);
    for (const total of ['tariff_sandbox_timeouts_total', 'tariff_sandbox_crashes_total', 'tariff_sandbox_restarts_total']) {
      expect(await value(total), total).toBe(0);
    }

    // Node's default process metrics.
    expect(await value('process_resident_memory_bytes')).toBeGreaterThan(10 * 1024 * 1024);
    expect(await value('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(await value('process_cpu_seconds_total')).toBeGreaterThan(0);
  }, 240_000);

  it('answers every query of the Grafana dashboard with data: a 5xx-free run with quotes and a 404', async () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
    expect(dashboard.schemaVersion).toBe(39);
    const variables = dashboard.templating.list;
    expect(variables.find((variable) => variable.name === 'DS_PROMETHEUS')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    for (const variable of variables.filter((candidate) => candidate.type === 'query')) expect(variable.datasource, variable.name).toEqual(DATA_SOURCE);
    const panels = dashboard.panels.filter((panel) => panel.type !== 'row');
    expect(new Set(dashboard.panels.map((panel) => panel.id)).size).toBe(dashboard.panels.length);
    for (const panel of panels) {
      expect(panel.datasource, panel.title).toEqual(DATA_SOURCE);
      expect(panel.gridPos.x + panel.gridPos.w, panel.title).toBeLessThanOrEqual(24);
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) expect(target.datasource, panel.title).toEqual(DATA_SOURCE);
    }

    // Traffic of its own within the queries' one-minute windows (it runs alone too, with -t):
    // quotes through the hashmap and a script, and a 404; no 5xx.
    const quotesBefore = await value('sum(tariff_http_requests_total{route="/v2/rating/quote"}) or vector(0)');
    await send('PUT', '/v2/rating/modules/hashmap', { enabled: true }, 204);
    await send('PUT', '/v2/rating/modules/pyscripts', { enabled: true }, 204);
    await send('POST', `${P}/scripts`, { name: 'dashboard', data: 'pass\n' }, 201);
    const usage = { compute: [{ vol: { unit: 'instance', qty: 1 }, metadata: { flavor: 'm1.small' } }] };
    for (let quote = 0; quote < 5; quote += 1) await send('POST', '/v2/rating/quote', { usage }, 200);
    await send('GET', '/no/such/path', undefined, 404);
    await eventually(`sum(tariff_http_requests_total{route="/v2/rating/quote"}) >= ${quotesBefore + 5}`);
    // Two scrapes more: every rate() has two samples after the traffic.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await query('tariff_http_requests_total{status=~"5.."}')).toEqual([]);

    // The variables' own queries: the job and the instance of the Tariff scraped.
    const labelValues = async (label: string) => {
      const response = await fetch(`${prometheusUrl}/api/v1/label/${label}/values?match[]=tariff_build_info`);
      return ((await response.json()) as { data: string[] }).data;
    };
    expect(await labelValues('job')).toEqual(['tariff']);
    expect(await labelValues('instance')).toEqual([`127.0.0.1:${metricsPort}`]);

    const empty: string[] = [];
    let queries = 0;
    for (const panel of panels) {
      for (const target of panel.targets ?? []) {
        const promql = substituted(target.expr);
        expect(promql, `${panel.title}: a variable the test does not know`).not.toContain('$');
        const samples = await query(promql);
        queries += 1;
        if (!samples.some((sample) => Number.isFinite(sample.value))) empty.push(`${panel.title}: ${promql} → ${JSON.stringify(samples)}`);
      }
    }
    expect(empty, 'panel queries without a finite value').toEqual([]);
    expect(queries).toBeGreaterThanOrEqual(30);
  }, 120_000);

  it('evaluates every shipped alert rule on the real series, none firing on a healthy run', async () => {
    interface Rule {
      name: string;
      health: string;
      state: string;
      lastError?: string;
    }
    const rules = async () => {
      const response = await fetch(`${prometheusUrl}/api/v1/rules?type=alert`, { signal: AbortSignal.timeout(10_000) });
      return ((await response.json()) as { data: { groups: { rules: Rule[] }[] } }).data.groups.flatMap((group) => group.rules);
    };
    const deadline = Date.now() + 30_000;
    let seen = await rules();
    while (seen.some((rule) => rule.health !== 'ok') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      seen = await rules();
    }
    expect(seen.map((rule) => rule.name).sort()).toEqual([
      'TariffDatabaseErrors',
      'TariffDown',
      'TariffQuoteFailures',
      'TariffRulesBehind',
      'TariffRulesNotReloaded',
      'TariffSandboxQueueRejections',
      'TariffSandboxRestarts',
      'TariffServerErrors',
    ]);
    for (const rule of seen)
      expect({ name: rule.name, health: rule.health, state: rule.state, error: rule.lastError ?? '' }).toEqual({
        name: rule.name,
        health: 'ok',
        state: 'inactive',
        error: '',
      });
  }, 60_000);
});
