/**
 * Issue 27: a draft price list simulated on usage stored in the real CloudKitty 17
 * (`POST /v2/rating/price_list/simulation`, price-list.md §4), read through CloudKitty's own
 * `GET /v2/dataframes`, or uploaded as a JSON Lines file. One fixture for the whole file:
 * InfluxDB, CloudKitty 17 on its v2 storage (its v2 API exists only there: cloudkitty-usage.ts),
 * a Tariff server on SQLite forwarding to it, the live rules, and a month of hourly usage of 50
 * projects (168,850 points) written through `POST /v2/dataframes` with the prices Tariff's quote
 * gives on the live rules. Expected results come from cloudkitty-usage.ts's exact computation,
 * not from Tariff.
 *
 * Measured on this machine (2 cores), CloudKitty 17 on InfluxDB 1.6.7, writing with
 * `POST /v2/dataframes`: one uWSGI process, 24 hourly dataframes (~5,600 points) per request,
 * 9,000–9,600 points/s (the month in 17.6–18.6 s); one dataframe (~230 points) per request
 * 9,400 points/s, 240 (~55,000 points) 10,200 points/s: the batch size hardly matters, CloudKitty's
 * validation of each point does; two uWSGI processes and two requests at a time 13,900 points/s
 * (12.1 s), but CloudKitty then loses points (cloudkitty-usage.ts): the file writes one at a time. Reading (`GET /v2/dataframes`): an hourly window of ~230 points in one page 30–55 ms,
 * a day (4,900 points) in one page 0.3–0.5 s, 6 hours paged by 100 points (1,211 points, 13 pages)
 * 0.45–0.5 s. The Tariff server reads a day per window (`TARIFF_SIMULATION_WINDOW=86400`, a
 * multiple of the hourly period) to keep the file's run short.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_HEADERS } from '../helpers/headers.js';
import { callServer, startServerProcess, type ServerProcess } from '../helpers/server.js';
import { cloudKittyAvailable, startCloudKitty, type CloudKitty } from '../adoption/cloudkitty.js';
import { influxDbAvailable, startInfluxDb, type InfluxDb } from './influxdb.js';
import {
  DRAFT,
  EFFECTIVE_AT,
  Exact,
  LIVE,
  MONTH,
  PROJECTS,
  alterStoredPrices,
  cloudKittyDatabase,
  countPoints,
  dataframeLine,
  createLiveRules,
  expectedSimulation,
  generateUsage,
  pointsOf,
  priceUsage,
  projectId,
  writeUsage,
  writeUsageFile,
  type AlteredPoint,
  type Expected,
  type UsageFrame,
} from './cloudkitty-usage.js';

const available = cloudKittyAvailable() && influxDbAvailable();
if (!available) console.warn("test/simulation/cloudkitty.test.ts skipped: needs ../shared/anchors/cloudkitty and Debian's influxdb");

const SIMULATION = '/v2/rating/price_list/simulation';
/** A simulation of the month reads it all from CloudKitty: allow it time on a busy machine. */
const SIMULATION_TIMEOUT_MS = 180_000;

/** The query of a simulation of the month, or of [begin, end). */
function query(effectiveAt?: string, period: { begin: string; end: string } = MONTH): string {
  const parameters = new URLSearchParams({ begin: period.begin, end: period.end });
  if (effectiveAt) parameters.set('effective_at', effectiveAt);
  return parameters.toString();
}

/** The month's first week: every project, a quarter of the reads. */
const FIRST_WEEK = { begin: MONTH.begin, end: '2026-09-08T00:00:00+00:00' };

/** Exact decimal text equal to an expected value (the text may differ: `1.50` = `1.5`). */
function expectAmount(actual: unknown, expected: Exact, what: string): void {
  expect(typeof actual, `${what}: ${String(actual)}`).toBe('string');
  expect(Exact.of(actual as string).toString(), what).toBe(expected.toString());
}

/** A result's sums (`totals` or a project's) are the expected ones. */
function expectSums(actual: any, expected: Expected, what: string, options: { stored?: boolean } = {}): void {
  expect(actual.points, `${what} points`).toBe(expected.points);
  expect(actual.changed_points, `${what} changed_points`).toBe(expected.changed_points);
  if (options.stored !== false) expectAmount(actual.stored, expected.stored, `${what} stored`);
  expectAmount(actual.current, expected.current, `${what} current`);
  expectAmount(actual.draft, expected.draft, `${what} draft`);
  expectAmount(actual.delta, expected.delta, `${what} delta`);
  // delta / current to 28 significant digits, null when current is 0.
  if (expected.current.isZero()) expect(actual.relative_delta, `${what} relative_delta`).toBeNull();
  else expectAmount(actual.relative_delta, expected.delta.dividedBy(expected.current), `${what} relative_delta`);
}

describe.skipIf(!available)("simulating a draft on CloudKitty 17's stored usage", () => {
  let directory: string;
  let influx: InfluxDb;
  let database: Awaited<ReturnType<typeof cloudKittyDatabase>>;
  let ck: CloudKitty;
  let server: ServerProcess;
  let frames: UsageFrame[];
  /** GET /v2/rating/price_list once the live rules are written. */
  let live: any;
  /** Set by test (c): the points whose stored price it altered. */
  let altered: AlteredPoint[] = [];
  /** Test (c)'s answer, which (d) compares with the same simulation on an uploaded file. */
  let fromCloudKitty: any;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-simulation-'));
    [influx, database] = await Promise.all([startInfluxDb(), cloudKittyDatabase()]);
    ck = await startCloudKitty(database.url, {}, { influxDb: influx });
    server = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`, {
      TARIFF_CLOUDKITTY_API_URL: ck.url,
      TARIFF_SIMULATION_WINDOW: '86400',
      TARIFF_SIMULATION_PAGE_POINTS: '5000',
    });
    await createLiveRules(server);
    frames = generateUsage();
    await priceUsage(server, frames);
    // One request at a time: CloudKitty's InfluxDB storage loses points under concurrent writes (cloudkitty-usage.ts).
    const measure = await writeUsage(ck, frames, { framesPerRequest: 24 });
    console.log(`CloudKitty took the month's usage: ${JSON.stringify(measure)}`);
    const exported = await callServer(server, 'GET', '/v2/rating/price_list');
    expect(exported.status).toBe(200);
    live = exported.body;
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    await ck?.stop();
    await influx?.stop();
    await database?.drop();
    rmSync(directory, { recursive: true, force: true });
  });

  /** A JSON simulation of the month with `draft`, usage read from CloudKitty. */
  async function simulate(draft: unknown, effectiveAt?: string, period = MONTH): Promise<{ status: number; body: any }> {
    const response = await fetch(`${server.url}${SIMULATION}?${query(effectiveAt, period)}`, {
      method: 'POST',
      headers: { ...TEST_HEADERS, accept: 'application/json' },
      body: JSON.stringify(draft),
      signal: AbortSignal.timeout(SIMULATION_TIMEOUT_MS),
    });
    const text = await response.text();
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: kept as text for the failure message
    }
    return { status: response.status, body };
  }

  /** The draft of test (b): the live export with m1.small and m1.large repriced and project-07's instances at × 0.9. */
  function twoFlavorsAndDiscount(): any {
    const draft = structuredClone(live);
    const instance = draft.services.instance;
    for (const mapping of instance.fields.flavor_name.mappings)
      if (mapping.tenant_id === undefined || mapping.tenant_id === null) mapping.cost = DRAFT.flavor[mapping.value];
    instance.mappings = [
      ...(instance.mappings ?? []),
      ...Object.entries(DRAFT.tenantInstanceRate).map(([tenant_id, cost]) => ({ type: 'rate', cost, tenant_id })),
    ];
    return draft;
  }

  it("CloudKitty answers GET /v2/dataframes as cloudkitty-usage.ts says, and the file's lines are its dataframes", async () => {
    const read = async (parameters: Record<string, string>) => {
      const response = await fetch(`${ck.url}/v2/dataframes?${new URLSearchParams(parameters)}`, { headers: { 'x-roles': 'admin' } });
      return { status: response.status, text: await response.text() };
    };
    const hour = frames[400];
    const begin = new Date(hour.begin).toISOString();
    const end = new Date(hour.begin + 3_600_000).toISOString();
    const points = Object.values(hour.usage).flat().length;
    // A whole window in one page: one dataframe, the file's line for that hour (points in another order).
    const whole = await read({ begin, end, limit: '1000' });
    expect(whole.status).toBe(200);
    expect(whole.text.includes('"qty": 1.0}'), 'qty written as a Python float').toBe(true);
    const answer = JSON.parse(whole.text);
    expect(answer.total).toBe(points);
    expect(answer.dataframes).toHaveLength(1);
    const byId = (frame: any) =>
      Object.fromEntries(
        Object.entries<any[]>(frame.usage).map(([service, list]) => [service, [...list].sort((a, b) => a.groupby.id.localeCompare(b.groupby.id))]),
      );
    const line = JSON.parse(dataframeLine(hour));
    expect(answer.dataframes[0].period).toEqual(line.period);
    expect(byId(answer.dataframes[0])).toEqual(byId(line));
    // The next window lists the resources both windows have in the same order (engine.ts compares
    // each point with the one at its place in the last window first).
    const next = JSON.parse((await read({ begin: end, end: new Date(hour.begin + 7_200_000).toISOString(), limit: '1000' })).text);
    for (const [service, list] of Object.entries<any[]>(answer.dataframes[0].usage)) {
      const ids = list.map((point) => point.groupby.id);
      const nextIds = (next.dataframes[0].usage[service] as any[]).map((point) => point.groupby.id);
      const common = ids.filter((id) => nextIds.includes(id));
      expect(common.length, service).toBeGreaterThan(list.length / 2);
      expect(
        nextIds.filter((id) => ids.includes(id)),
        service,
      ).toEqual(common);
    }
    // offset and limit count points; total is the window's, whatever the page; a cut dataframe comes back twice.
    const [first, second] = await Promise.all([read({ begin, end, limit: '100' }), read({ begin, end, limit: '100', offset: '100' })]);
    const pagePoints = (text: string) => JSON.parse(text).dataframes.flatMap((frame: any) => Object.values<any[]>(frame.usage).flat());
    expect(JSON.parse(first.text).total).toBe(points);
    expect(JSON.parse(second.text).total).toBe(points);
    expect(pagePoints(first.text)).toHaveLength(100);
    expect(JSON.parse(second.text).dataframes[0].period).toEqual(line.period);
    const past = await read({ begin, end, limit: '100', offset: String(points + 100) });
    expect(past.status).toBe(200);
    expect(JSON.parse(past.text)).toEqual({ total: points, dataframes: [] });
    // A window without usage: 404, not an empty list.
    const empty = await read({ begin: '2027-01-01T00:00:00Z', end: '2027-01-02T00:00:00Z' });
    expect(empty).toEqual({ status: 404, text: '{"message": "No resource found for provided filters."}' });
  });

  it(
    "(a) a draft equal to the live rules (their export) changes nothing, on every project (the month's first week)",
    async () => {
      const { status, body } = await simulate(live, undefined, FIRST_WEEK);
      expect(status, JSON.stringify(body).slice(0, 2000)).toBe(200);
      const week = frames.filter((frame) => frame.begin < Date.parse(FIRST_WEEK.end));
      expect(week).toHaveLength(7 * 24);
      const expected = expectedSimulation(week, { draft: false, effectiveAt: FIRST_WEEK.begin });
      expect(body.usage).toBe('cloudkitty');
      expect(body.totals.points).toBe(countPoints(week));
      expectSums(body.totals, expected.totals, 'totals');
      expect(body.totals.delta).toBe('0');
      expect(body.totals.changed_points).toBe(0);
      // Every stored price is the live rules' price: nothing to reconcile.
      expect(body.reconciliation.points).toBe(0);
      expect(body.reconciliation.findings).toEqual([]);
      expect(body.rules).toEqual([]);
      expect(body.projects.map((project: any) => project.project_id).sort()).toEqual(PROJECTS);
      for (const project of body.projects) {
        expect(project.delta, project.project_id).toBe('0');
        expectSums(project, expected.projects.get(project.project_id)!, project.project_id);
      }
    },
    SIMULATION_TIMEOUT_MS,
  );

  it(
    '(b) two flavor prices and a tenant discount from mid-month: per-project deltas as computed independently',
    async () => {
      const { status, body } = await simulate(twoFlavorsAndDiscount(), EFFECTIVE_AT);
      expect(status, JSON.stringify(body).slice(0, 2000)).toBe(200);
      const expected = expectedSimulation(frames, { draft: true, effectiveAt: EFFECTIVE_AT });
      expect(body.effective_at).toBe(EFFECTIVE_AT);
      expectSums(body.totals, expected.totals, 'totals');
      expect(body.projects).toHaveLength(PROJECTS.length);
      for (const project of body.projects) expectSums(project, expected.projects.get(project.project_id)!, project.project_id);
      // Sorted by |delta|, then by project.
      const order = [...expected.projects.entries()]
        .sort(([a, x], [b, y]) => {
          const [ax, ay] = [x.delta.units < 0n ? x.delta.times('-1') : x.delta, y.delta.units < 0n ? y.delta.times('-1') : y.delta];
          return ay.minus(ax).units > 0n ? 1 : ax.minus(ay).units > 0n ? -1 : a < b ? -1 : 1;
        })
        .map(([project]) => project);
      expect(body.projects.map((project: any) => project.project_id)).toEqual(order);
      // The rules whose contribution differs on some point (price-list.md §4), counted here: from
      // mid-month, a flavor mapping whose cost changed (not project-03's own m1.large price), the
      // tenant's rate on all its instances, and, for that tenant, every flavor mapping its rate
      // multiplies (the flat's amount in the group changes with it).
      const effective = Date.parse(EFFECTIVE_AT);
      const counts: Record<string, number> = {};
      for (const { begin, service, point } of pointsOf(frames)) {
        if (begin < effective || service !== 'instance') continue;
        const tenant = point.groupby.project_id;
        const flavor = point.metadata.flavor_name;
        const own = LIVE.tenantFlavor[tenant]?.[flavor] !== undefined;
        const discounted = DRAFT.tenantInstanceRate[tenant] !== undefined;
        if (discounted || (!own && DRAFT.flavor[flavor] !== LIVE.flavor[flavor])) {
          const name = `hashmap instance/flavor_name/${flavor}${own ? ` (tenant ${tenant})` : ''}`;
          counts[name] = (counts[name] ?? 0) + 1;
        }
        if (discounted) counts[`hashmap instance (tenant ${tenant})`] = (counts[`hashmap instance (tenant ${tenant})`] ?? 0) + 1;
      }
      expect(Object.keys(counts)).toHaveLength(5);
      expect(Object.fromEntries(body.rules.map((rule: any) => [`${rule.module} ${rule.name}`, rule.points]))).toEqual(counts);
      expect(body.reconciliation.points).toBe(0);
    },
    SIMULATION_TIMEOUT_MS,
  );

  it(
    '(c) prices altered in storage for one project and six hours: the reconciliation lists exactly those points',
    async () => {
      altered = await alterStoredPrices(ck, frames, {
        project: projectId(11),
        service: 'instance',
        from: '2026-09-20T00:00:00+00:00',
        to: '2026-09-20T06:00:00+00:00',
        factor: '1.1',
      });
      expect(altered.length).toBeGreaterThanOrEqual(12);
      const { status, body } = await simulate(twoFlavorsAndDiscount(), EFFECTIVE_AT);
      expect(status, JSON.stringify(body).slice(0, 2000)).toBe(200);
      fromCloudKitty = body;
      const expected = expectedSimulation(frames, { draft: true, effectiveAt: EFFECTIVE_AT });
      expectSums(body.totals, expected.totals, 'totals');
      expectSums(
        body.projects.find((project: any) => project.project_id === projectId(11)),
        expected.projects.get(projectId(11))!,
        projectId(11),
      );
      const reconciliation = body.reconciliation;
      const stored = altered.reduce((total, point) => total.plus(point.after), Exact.ZERO);
      const current = altered.reduce((total, point) => total.plus(point.before), Exact.ZERO);
      expect(reconciliation.points).toBe(altered.length);
      expectAmount(reconciliation.stored, stored, 'reconciliation stored');
      expectAmount(reconciliation.current, current, 'reconciliation current');
      expectAmount(reconciliation.difference, stored.minus(current), 'reconciliation difference');
      expect(reconciliation.findings_omitted).toBe(0);
      expect(reconciliation.projects).toHaveLength(1);
      const [project] = reconciliation.projects;
      expect(project.project_id).toBe(projectId(11));
      expect(project.points).toBe(altered.length);
      expectAmount(project.difference, stored.minus(current), 'project difference');
      const windows = [...new Set(altered.map((point) => point.begin))];
      expect(project.windows.map((window: any) => window.begin)).toEqual(windows);
      for (const window of project.windows) {
        const inWindow = altered.filter((point) => point.begin === window.begin);
        expect(window.end).toBe(inWindow[0].end);
        expect(window.points).toBe(inWindow.length);
        expectAmount(
          window.stored,
          inWindow.reduce((total, point) => total.plus(point.after), Exact.ZERO),
          `window ${window.begin} stored`,
        );
        expectAmount(
          window.current,
          inWindow.reduce((total, point) => total.plus(point.before), Exact.ZERO),
          `window ${window.begin} current`,
        );
      }
      const findings = reconciliation.findings
        .map((finding: any) =>
          [
            finding.project_id,
            finding.service,
            finding.begin,
            finding.end,
            Exact.of(finding.qty).toString(),
            Exact.of(finding.stored).toString(),
            Exact.of(finding.current).toString(),
          ].join(' '),
        )
        .sort();
      expect(findings).toEqual(
        altered.map((point) => [point.project_id, point.service, point.begin, point.end, point.qty, point.after, point.before].join(' ')).sort(),
      );
    },
    SIMULATION_TIMEOUT_MS,
  );

  it.each([
    ['plain', false],
    ['gzip', true],
  ])(
    '(d) the same usage uploaded as a JSON Lines file (%s): the same result',
    async (_name, gzip) => {
      expect(fromCloudKitty, 'test (c) ran first').toBeDefined();
      const file = join(directory, gzip ? 'usage.jsonl.gz' : 'usage.jsonl');
      await writeUsageFile(file, frames, { gzip });
      const form = new FormData();
      form.append('price_list', new Blob([JSON.stringify(twoFlavorsAndDiscount())], { type: 'application/json' }), 'draft.json');
      form.append('usage', new Blob([readFileSync(file)], { type: gzip ? 'application/gzip' : 'application/x-ndjson' }), file);
      const response = await fetch(`${server.url}${SIMULATION}?${query(EFFECTIVE_AT)}`, {
        method: 'POST',
        headers: { 'x-tariff-datetimes': 'offset', accept: 'application/json' },
        body: form,
        signal: AbortSignal.timeout(SIMULATION_TIMEOUT_MS),
      });
      const text = await response.text();
      expect(response.status, text.slice(0, 2000)).toBe(200);
      const body = JSON.parse(text);
      expect(body.usage).not.toBe('cloudkitty');
      const sortedFindings = (result: any) => [...result.reconciliation.findings].sort((a: any, b: any) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
      const comparable = (result: any) => ({ ...result, usage: undefined, reconciliation: { ...result.reconciliation, findings: sortedFindings(result) } });
      expect(comparable(body)).toEqual(comparable(fromCloudKitty));
    },
    SIMULATION_TIMEOUT_MS,
  );

  it(
    "a script sees its tenant's whole dataframe of a period, also when CloudKitty's pages cut it (6 hours, pages of 100 points)",
    async () => {
      // A Tariff of its own: scripts run (one sandbox worker), an hourly window, small pages, pyscripts
      // enabled with no script, no hashmap rule. The draft adds a script pricing every point at the
      // number of points in its dataframe: one tenant's, one period's, as CloudKitty's processor
      // gives a script (orchestrator.py: one DataFrame per scope and period).
      const scripted = await startServerProcess(`sqlite:${join(directory, 'scripted.db')}`, {
        TARIFF_CLOUDKITTY_API_URL: ck.url,
        TARIFF_SIMULATION_WINDOW: '3600',
        TARIFF_SIMULATION_PAGE_POINTS: '100',
        TARIFF_SANDBOX_WORKERS: '1',
      });
      try {
        expect((await callServer(scripted, 'PUT', '/v1/rating/modules/pyscripts', { module_id: 'pyscripts', enabled: true, priority: 1 })).status).toBe(200);
        const draft = {
          scripts: [
            {
              name: 'count-points',
              data: "import decimal\npoints = [point for points in data['usage'].values() for point in points]\nfor point in points:\n    point['rating']['price'] = decimal.Decimal(len(points))\n",
            },
          ],
        };
        const period = { begin: '2026-09-02T00:00:00+00:00', end: '2026-09-02T06:00:00+00:00' };
        const hours = frames.filter((frame) => frame.begin >= Date.parse(period.begin) && frame.begin < Date.parse(period.end));
        // Expected: per project, the sum over the hours of n² (n points in its dataframe, each priced n).
        const expected = new Map<string, Exact>();
        let total = Exact.ZERO;
        for (const frame of hours) {
          const counts = new Map<string, number>();
          for (const points of Object.values(frame.usage))
            for (const point of points) counts.set(point.groupby.project_id, (counts.get(point.groupby.project_id) ?? 0) + 1);
          for (const [project, n] of counts) {
            expected.set(project, (expected.get(project) ?? Exact.ZERO).plus(String(n * n)));
            total = total.plus(String(n * n));
          }
        }
        const check = (body: any, what: string) => {
          expectAmount(body.totals.current, Exact.ZERO, `${what} totals current`);
          expectAmount(body.totals.draft, total, `${what} totals draft`);
          for (const project of body.projects) expectAmount(project.draft, expected.get(project.project_id)!, `${what} ${project.project_id} draft`);
        };
        // The same hours as a file: one whole dataframe per line.
        const form = new FormData();
        form.append('price_list', new Blob([JSON.stringify(draft)], { type: 'application/json' }), 'draft.json');
        form.append('usage', new Blob([hours.map((frame) => `${dataframeLine(frame)}\n`).join('')], { type: 'application/x-ndjson' }), 'usage.jsonl');
        const fromFile = await fetch(`${scripted.url}${SIMULATION}?${query(undefined, period)}`, {
          method: 'POST',
          headers: { 'x-tariff-datetimes': 'offset', accept: 'application/json' },
          body: form,
          signal: AbortSignal.timeout(SIMULATION_TIMEOUT_MS),
        });
        const fileText = await fromFile.text();
        expect(fromFile.status, fileText.slice(0, 2000)).toBe(200);
        check(JSON.parse(fileText), 'file');
        const fromCloudKitty = await fetch(`${scripted.url}${SIMULATION}?${query(undefined, period)}`, {
          method: 'POST',
          headers: { ...TEST_HEADERS, accept: 'application/json' },
          body: JSON.stringify(draft),
          signal: AbortSignal.timeout(SIMULATION_TIMEOUT_MS),
        });
        const text = await fromCloudKitty.text();
        expect(fromCloudKitty.status, text.slice(0, 2000)).toBe(200);
        check(JSON.parse(text), 'CloudKitty');
      } finally {
        await scripted.stop();
      }
    },
    SIMULATION_TIMEOUT_MS,
  );

  it(
    '(e) CloudKitty killed mid-way, answer streamed: the last line is an error and no result line is written',
    async () => {
      const response = await fetch(`${server.url}${SIMULATION}?${query(EFFECTIVE_AT)}`, {
        method: 'POST',
        headers: { ...TEST_HEADERS, accept: 'application/x-ndjson' },
        body: JSON.stringify(twoFlavorsAndDiscount()),
        signal: AbortSignal.timeout(SIMULATION_TIMEOUT_MS),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
      const lines: any[] = [];
      let killed = false;
      let buffer = '';
      const decoder = new TextDecoder();
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line.trim() !== '') lines.push(JSON.parse(line));
        }
        // Once Tariff has read part of the month: CloudKitty gone at once, as in a crash.
        if (!killed && lines.some((line) => line.progress?.windows_done >= 1)) {
          killed = true;
          killCloudKitty(ck);
        }
      }
      if (buffer.trim() !== '') lines.push(JSON.parse(buffer));
      expect(killed, `no progress line before the end: ${JSON.stringify(lines)}`).toBe(true);
      expect(lines.filter((line) => 'result' in line)).toEqual([]);
      const last = lines.at(-1);
      expect(Object.keys(last)).toEqual(['error']);
      expect(last.error.faultstring).toMatch(/CloudKitty/);
      expect(typeof last.error.status).toBe('number');
      for (const line of lines.slice(0, -1)) expect(Object.keys(line)).toEqual(['progress']);
    },
    SIMULATION_TIMEOUT_MS,
  );
});

/** SIGKILL to CloudKitty's uWSGI master and its workers (from /proc: no procps needed). */
function killCloudKitty(ck: CloudKitty): void {
  const master = ck.pid();
  let children = '';
  try {
    children = readFileSync(`/proc/${master}/task/${master}/children`, 'utf8');
  } catch {
    // gone already
  }
  for (const pid of [master, ...children.split(/\s+/).filter(Boolean).map(Number)]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
}
