/**
 * docs/price-list.md §4: a draft price list simulated on a usage file, through real HTTP on a real
 * database. The draft equal to the live rules moves nothing; a changed price moves exactly the
 * points it prices from the effective time on; stored prices that differ from the current rules
 * are the reconciliation's findings; nothing the draft plans is written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { testDatabaseKind } from '../helpers/databases.js';
import { HOUR, isoTime, simulate, simulationPath, TOMORROW, usageFile, type UsageDataframe } from '../simulation/simulation.js';
import { apply, PRICE_LIST } from './price-list.js';

/** Live rules: two flavors priced flat, volumes by the GB, a tenant's own price for m1.large. */
const LIVE = {
  modules: { hashmap: { enabled: true, priority: 1 } },
  groups: ['compute', 'storage'],
  services: {
    instance: {
      fields: {
        flavor_name: {
          mappings: [
            { value: 'm1.small', cost: '0.5', group: 'compute', name: 'small' },
            { value: 'm1.large', cost: '2', group: 'compute', name: 'large' },
            { value: 'm1.large', cost: '1.5', group: 'compute', tenant_id: 'project-b', name: 'large-b' },
          ],
        },
      },
    },
    volume: { mappings: [{ type: 'flat', cost: '0.01', group: 'storage', name: 'gigabytes' }] },
  },
};

/** Two days of hourly usage, starting tomorrow (the live rules start now). */
const BEGIN = new Date(TOMORROW);
const HOURS = 48;
const iso = isoTime;

/** The price of one point under the live rules. */
function livePrice(project: string, service: string, qty: number, flavor?: string): string {
  if (service === 'volume') return String(qty / 100);
  if (flavor === 'm1.small') return '0.5';
  return project === 'project-b' ? '1.5' : '2';
}

/** Hourly usage: each project runs a small and a large instance and a 20 GB volume; prices as stored by the live rules. */
function usage(projects: readonly string[], price = livePrice): UsageDataframe[] {
  const dataframes: UsageDataframe[] = [];
  for (let hour = 0; hour < HOURS; hour += 1) {
    const begin = BEGIN.getTime() + hour * HOUR;
    const instance = projects.flatMap((project) =>
      ['m1.small', 'm1.large'].map((flavor) => ({
        vol: { unit: 'instance', qty: 1 },
        rating: { price: price(project, 'instance', 1, flavor) },
        groupby: { project_id: project, id: `${project}-${flavor}` },
        metadata: { flavor_name: flavor },
      })),
    );
    const volume = projects.map((project) => ({
      vol: { unit: 'GiB', qty: '20' },
      rating: { price: price(project, 'volume', 20) },
      groupby: { project_id: project, id: `${project}-volume` },
      metadata: { volume_type: 'ssd' },
    }));
    dataframes.push({ period: { begin: iso(begin), end: iso(begin + HOUR) }, usage: { instance, volume } });
  }
  return dataframes;
}

const PROJECTS = ['project-a', 'project-b', 'project-c'];
const PERIOD = { begin: iso(BEGIN.getTime()), end: iso(BEGIN.getTime() + HOURS * HOUR) };

describe(`simulating a draft price list on ${testDatabaseKind()}`, () => {
  let t: TestApp;
  let live: Record<string, unknown>;

  beforeAll(async () => {
    t = await startTestApp();
    expect((await apply(t, LIVE)).status).toBe(200);
    live = (await t.get(PRICE_LIST)).body;
  });
  afterAll(async () => t?.close());

  it('moves nothing with a draft equal to the live rules, and finds no stored price to reconcile', async () => {
    const response = await simulate(t, live, usageFile(usage(PROJECTS)), PERIOD);
    expect(response.status, response.text).toBe(200);
    const result = response.body;
    expect(result.totals).toMatchObject({ points: HOURS * 9, changed_points: 0, delta: '0', stored: result.totals.current });
    // 48 h × 3 projects × (0.5 + 0.2) plus m1.large: 2, 1.5, 2.
    expect(result.totals.current).toBe(String(48 * 3 * 0.7 + 48 * 5.5));
    // Each hour repeats the last: 9 distinct points.
    expect(result.totals.distinct_points).toBe(9);
    for (const project of result.projects) expect(project.delta).toBe('0');
    expect(result.reconciliation).toMatchObject({ points: 0, difference: '0', findings: [] });
    expect(result.revision).toBe(live.revision);
  });

  it('moves exactly the points a changed price prices from the effective time on, naming the rule', async () => {
    const draft = structuredClone(LIVE);
    draft.services.instance.fields.flavor_name.mappings[1].cost = '2.25';
    const effectiveAt = iso(BEGIN.getTime() + 12 * HOUR);
    const response = await simulate(t, draft, usageFile(usage(PROJECTS)), { ...PERIOD, effective_at: effectiveAt, top: 2 });
    expect(response.status, response.text).toBe(200);
    const result = response.body;
    // 36 hours from the effective time × the two projects without their own m1.large price.
    expect(result.totals).toMatchObject({ changed_points: 72, delta: '18' });
    const byProject = Object.fromEntries(result.projects.map((project: { project_id: string; delta: string }) => [project.project_id, project.delta]));
    expect(byProject).toEqual({ 'project-a': '9', 'project-b': '0', 'project-c': '9' });
    expect(result.movers.projects.map((project: { project_id: string }) => project.project_id)).toEqual(['project-a', 'project-c']);
    expect(result.services[0]).toMatchObject({ service: 'instance', delta: '18', changed_points: 72 });
    expect(result.rules).toEqual([{ module: 'hashmap', name: 'instance/flavor_name/m1.large', points: 72 }]);
    // Nothing of the draft was written.
    expect({ ...(await t.get(PRICE_LIST)).body, at: live.at }).toEqual(live);
  });

  it('lists the points whose stored price differs from the current rules, with their totals by project and window', async () => {
    const altered = usage(PROJECTS);
    const window = altered[5];
    for (const point of window.usage.instance) if (point.groupby.project_id === 'project-c') point.rating.price = '9';
    const response = await simulate(t, live, usageFile(altered, true), PERIOD);
    expect(response.status, response.text).toBe(200);
    const { reconciliation } = response.body;
    expect(reconciliation).toMatchObject({ points: 2, stored: '18', current: '2.5', difference: '15.5', findings_omitted: 0 });
    expect(reconciliation.projects).toEqual([
      {
        project_id: 'project-c',
        points: 2,
        stored: '18',
        current: '2.5',
        difference: '15.5',
        windows: [{ ...window.period, points: 2, stored: '18', current: '2.5', difference: '15.5' }],
      },
    ]);
    expect(
      reconciliation.findings.map((finding: { metadata: { flavor_name: string }; begin: string }) => [finding.metadata.flavor_name, finding.begin]),
    ).toEqual([
      ['m1.small', window.period.begin],
      ['m1.large', window.period.begin],
    ]);
    expect(response.body.totals.delta).toBe('0');
  });

  it("reconciles a stored price that CloudKitty's InfluxDB kept as the current price's double, and only that", async () => {
    // 0.01 × 12.3456789012345678 = 0.123456789012345678; its double's shortest text has 17 digits.
    const point = (price: string) => ({
      vol: { unit: 'GiB', qty: '12.3456789012345678' },
      rating: { price },
      groupby: { project_id: 'project-a' },
      metadata: {},
    });
    const frame = (hour: number, price: string): UsageDataframe => ({
      period: { begin: iso(BEGIN.getTime() + hour * HOUR), end: iso(BEGIN.getTime() + (hour + 1) * HOUR) },
      usage: { volume: [point(price)] },
    });
    const frames = [frame(0, '0.12345678901234568'), frame(1, '0.123456789012345678'), frame(2, '0.1234567890123457')];
    const response = await simulate(t, live, usageFile(frames), PERIOD);
    expect(response.status, response.text).toBe(200);
    expect(response.body.reconciliation.findings.map((finding: { stored: string }) => finding.stored)).toEqual(['0.1234567890123457']);
  });

  it('lists at most TARIFF_SIMULATION_MAX_FINDINGS findings and windows, and counts every point in the totals', async () => {
    const config = loadConfig({});
    const capped = await startTestApp({ config: { simulation: { ...config.simulation, maxFindings: 1 } } });
    try {
      expect((await apply(capped, LIVE)).status).toBe(200);
      const altered = usage(PROJECTS);
      for (const hour of [3, 4, 5]) for (const point of altered[hour].usage.volume) point.rating.price = '1.2';
      const response = await simulate(capped, (await capped.get(PRICE_LIST)).body, usageFile(altered), PERIOD);
      expect(response.status, response.text).toBe(200);
      const { reconciliation } = response.body;
      // 3 hours × 3 projects' volumes, 1.2 stored for 0.2.
      expect(reconciliation).toMatchObject({ points: 9, stored: '10.8', current: '1.8', difference: '9', findings_omitted: 8, windows_omitted: 8 });
      expect(reconciliation.findings).toHaveLength(1);
      expect(reconciliation.projects.flatMap((project: { windows: unknown[] }) => project.windows)).toHaveLength(1);
      expect(reconciliation.projects.map((project: { points: number }) => project.points)).toEqual([3, 3, 3]);
    } finally {
      await capped.close();
    }
  });

  it('streams progress and the result as NDJSON, and the rows as CSV', async () => {
    const ndjson = await simulate(t, live, usageFile(usage(PROJECTS)), PERIOD, 'application/x-ndjson');
    expect(ndjson.status).toBe(200);
    expect(ndjson.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const lines = ndjson.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toHaveProperty('progress');
    expect(lines.at(-1).result.totals.points).toBe(HOURS * 9);
    const csv = await simulate(t, live, usageFile(usage(PROJECTS)), PERIOD, 'text/csv');
    expect(csv.status).toBe(200);
    const rows = csv.text.trim().split('\r\n');
    expect(rows[0]).toBe('project_id,service,points,changed_points,stored,current,draft,delta,relative_delta');
    expect(rows).toHaveLength(1 + 6);
  });

  it('refuses a malformed draft with its problems, and usage from CloudKitty when none is configured', async () => {
    const bad = await simulate(t, { services: { instance: { fields: { flavor_name: { mappings: [{ value: 'x', cost: 'abc' }] } } } } }, usageFile([]), PERIOD);
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.problems?.length).toBeGreaterThan(0);
    const noCloudKitty = await t.request('POST', simulationPath(PERIOD), JSON.stringify(live));
    expect(noCloudKitty.status).toBe(400);
    expect(noCloudKitty.body.faultstring).toMatch(/TARIFF_CLOUDKITTY_API_URL/);
    const badLine = await simulate(t, live, Buffer.from('{"period": {}}\n'), PERIOD);
    expect(badLine.status).toBe(400);
    expect(badLine.body.faultstring).toMatch(/^Usage file line 1: /);
  });
});
