/**
 * docs/price-list.md §4, generated: whatever the usage (repeated and distinct points, numbers
 * written `2`, `2.0` or `"2"`, points without a project, services without rules, a dataframe an
 * hour or an hour and metric type) and whatever the
 * draft and its effective time, the simulation's totals per project and service are the sums of
 * what the v2 quote prices each point at, one point at a time: with the live rules ("current"),
 * and on a second server where the draft was really applied at the effective time ("draft").
 * The table of distinct points is kept tiny so that it starts again many times.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { Exact } from '../../src/rating/common/exact.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { HOUR, isoTime, simulate, TOMORROW, usageFile, type UsageDataframe, type UsagePoint } from '../simulation/simulation.js';
import { apply } from './price-list.js';

const BEGIN = TOMORROW;
const iso = isoTime;

/** Live rules with field, service and tenant mappings and a threshold. */
function rules(large: string, volume: string, tenantLarge: string) {
  return {
    modules: { hashmap: { enabled: true, priority: 1 } },
    groups: ['compute', 'storage'],
    services: {
      instance: {
        fields: {
          flavor_name: {
            mappings: [
              { value: 'm1.small', cost: '0.5', group: 'compute' },
              { value: 'm1.large', cost: large, group: 'compute' },
              { value: 'm1.large', cost: tenantLarge, group: 'compute', tenant_id: 'p1' },
              { value: '2', cost: '7', group: 'compute' },
            ],
          },
        },
      },
      volume: { mappings: [{ type: 'flat', cost: volume, group: 'storage' }], thresholds: [{ level: '50', type: 'rate', cost: '0.9', group: 'storage' }] },
    },
  };
}
const LIVE = rules('2', '0.01', '1.5');

const costs = fc.constantFrom('0', '1', '2', '2.25', '0.333', '10');
// Few values, repeated: points that differ in one member only are the memo's hard case.
const point = fc.record({
  service: fc.constantFrom('instance', 'instance', 'volume', 'image'),
  project: fc.constantFrom('p1', 'p1', 'p2', undefined),
  flavor: fc.constantFrom<unknown>('m1.small', 'm1.large', 'm1.tiny', 2, '2', 2.5),
  qty: fc.constantFrom<string | number>('1', '1', '1', 1, '1.0', '20', 60, '0.5'),
  price: fc.constantFrom('0', '0', '0', '1'),
});
/** Hours of usage: each hour some resources of a small pool (steady resources repeat, as in real usage). */
const scattered = fc
  .array(point, { minLength: 2, maxLength: 8 })
  .chain((pool) => fc.array(fc.array(fc.constantFrom(...pool), { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 8 }));
/**
 * Hours of steady resources, as CloudKitty lists them: the pool in the same order each hour, some
 * missing (those after them move up a place), some with another quantity: the engine's
 * comparison with the point at the same place in the last hour meets every case.
 */
const steady = fc.array(point, { minLength: 2, maxLength: 8 }).chain((pool) =>
  fc
    .array(fc.array(fc.constantFrom('same', 'same', 'missing', 'other quantity'), { minLength: pool.length, maxLength: pool.length }), {
      minLength: 1,
      maxLength: 8,
    })
    .map((hours) =>
      hours.map((fates) =>
        pool.flatMap((resource, index) => (fates[index] === 'missing' ? [] : fates[index] === 'same' ? [resource] : [{ ...resource, qty: '20' }])),
      ),
    ),
);
const usage = fc.oneof(scattered, steady);

/** The usage as dataframes, one an hour from tomorrow, or (`split`) one an hour and metric type. */
function dataframes(hours: { service: string; project?: string; flavor: unknown; qty: string | number; price: string }[][], split = false): UsageDataframe[] {
  return hours.flatMap((points, hour) => {
    const begin = BEGIN + hour * HOUR;
    const byService: Record<string, UsagePoint[]> = {};
    for (const { service, project, flavor, qty, price } of points) {
      (byService[service] ??= []).push({
        vol: { unit: 'u', qty },
        rating: { price },
        groupby: project === undefined ? { id: 'x' } : { project_id: project, id: 'x' },
        metadata: service === 'instance' ? { flavor_name: flavor } : {},
      });
    }
    const period = { begin: iso(begin), end: iso(begin + HOUR) };
    return split ? Object.entries(byService).map(([service, list]) => ({ period, usage: { [service]: list } })) : [{ period, usage: byService }];
  });
}

/** Sums, per `project \0 service`, of what the v2 quote prices each point at on `t`. */
async function quotedTotals(t: TestApp, frames: UsageDataframe[]): Promise<Map<string, Exact>> {
  const totals = new Map<string, Exact>();
  for (const frame of frames) {
    for (const [service, points] of Object.entries(frame.usage)) {
      for (const stored of points) {
        const project = stored.groupby.project_id as string | undefined;
        const body = `{"at": "${frame.period.begin}", "period": ${JSON.stringify(frame.period)}, ${project === undefined ? '' : `"tenant_id": "${project}", `}"usage": {${JSON.stringify(service)}: [${JSON.stringify({ vol: stored.vol, groupby: stored.groupby, metadata: stored.metadata })}]}}`;
        const quote = await t.post('/v2/rating/quote', body);
        expect(quote.status, quote.text).toBe(200);
        const key = `${project ?? ''}\u0000${service}`;
        totals.set(key, (totals.get(key) ?? Exact.ZERO).plus(Exact.from(quote.body.total)));
      }
    }
  }
  return totals;
}

describe('a simulation equals pricing each point alone (generated usage and drafts)', () => {
  let live: TestApp;

  beforeAll(async () => {
    const config = loadConfig({});
    live = await startTestApp({ config: { simulation: { ...config.simulation, maxDistinctPoints: 3 } } });
    expect((await apply(live, LIVE)).status).toBe(200);
  });
  afterAll(async () => live?.close());

  it('gives the quote’s sums on both sides, per project and service', { timeout: 240_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(usage, fc.boolean(), costs, costs, costs, fc.nat({ max: 8 }), async (hours, split, large, volume, tenantLarge, effectiveHour) => {
        const frames = dataframes(hours, split);
        const draft = rules(large, volume, tenantLarge);
        const effectiveAt = iso(BEGIN + effectiveHour * HOUR);
        const response = await simulate(live, draft, usageFile(frames), { begin: iso(BEGIN), end: iso(BEGIN + 8 * HOUR), effective_at: effectiveAt });
        expect(response.status, response.text).toBe(200);
        // The draft really applied, at the effective time, on a server of its own.
        const applied = await startTestApp();
        try {
          expect((await apply(applied, LIVE)).status).toBe(200);
          expect((await apply(applied, draft, { effective_at: effectiveAt })).status).toBe(200);
          const current = await quotedTotals(live, frames);
          const drafted = await quotedTotals(applied, frames);
          const rows = response.body.project_services as { project_id: string | null; service: string; current: string; draft: string }[];
          expect(rows.length).toBe(current.size);
          for (const row of rows) {
            const key = `${row.project_id ?? ''}\u0000${row.service}`;
            expect(Exact.from(row.current).eq(current.get(key)!), `current ${key}`).toBe(true);
            expect(Exact.from(row.draft).eq(drafted.get(key)!), `draft ${key}`).toBe(true);
          }
        } finally {
          await applied.close();
        }
      }),
      { numRuns: 25 },
    );
  });
});
