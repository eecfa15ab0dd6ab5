/**
 * docs/price-list.md §4 with a script (in the system tier: it starts a sandbox, but measures no
 * time): a script sees whole dataframes, so the simulation prices each tenant's part of each
 * dataframe whole, on each side, in the real sandbox. Its totals are the v2 quote's of the same
 * dataframes; a draft that changes the script moves exactly the points from the effective time on,
 * and names the script.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptSandbox } from '../../src/rating/pyscripts/sandbox/index.js';
import { Exact } from '../../src/rating/common/exact.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { apply } from '../price-list/price-list.js';
import { HOUR, isoTime, simulate, TOMORROW, usageFile, type UsageDataframe } from './simulation.js';

/** Doubles every compute price when the dataframe holds more than one point: a script that reads the whole dataframe. */
const scriptFor = (factor: string) =>
  `from decimal import Decimal\nif len(data['usage'].get('compute', [])) > 1:\n    for point in data['usage']['compute']:\n        point['rating']['price'] *= Decimal('${factor}')\n`;

const live = (factor: string) => ({
  modules: { hashmap: { enabled: true, priority: 10 }, pyscripts: { enabled: true, priority: 1 } },
  services: { compute: { mappings: [{ cost: '1' }] } },
  scripts: [{ name: 'bulk', data: scriptFor(factor) }],
});

const BEGIN = TOMORROW;
const iso = isoTime;

/** Hours of compute usage: project a runs two instances, project b one (its dataframe part has one point). */
function usage(hours: number): UsageDataframe[] {
  return Array.from({ length: hours }, (_, hour) => {
    const begin = BEGIN + hour * HOUR;
    const point = (project: string, qty: string) => ({
      vol: { unit: 'instance', qty },
      rating: { price: '0' },
      groupby: { project_id: project },
      metadata: {},
    });
    return { period: { begin: iso(begin), end: iso(begin + HOUR) }, usage: { compute: [point('a', '1'), point('a', '2'), point('b', '3')] } };
  });
}

let t: TestApp;
let sandbox: ScriptSandbox;

beforeAll(async () => {
  sandbox = new ScriptSandbox({ poolSize: 1, spareWorkers: 0, timeoutMs: 5000, queueWaitMs: 120_000 });
  await sandbox.start();
  t = await startTestApp({ sandbox });
  const applied = await apply(t, live('2'));
  expect(applied.status, applied.text).toBe(200);
}, 180_000);

afterAll(async () => {
  await t?.close();
  await sandbox?.close();
});

describe('simulating a draft that changes a script', () => {
  it('prices each tenant’s dataframe whole, on both sides, as the quote does', { timeout: 120_000 }, async () => {
    const frames = usage(4);
    const response = await simulate(t, live('3'), usageFile(frames), { begin: iso(BEGIN), end: iso(BEGIN + 4 * HOUR), effective_at: iso(BEGIN + 2 * HOUR) });
    expect(response.status, response.text).toBe(200);
    const { totals, projects, rules } = response.body;
    // a: (1 + 2) × 2 = 6 an hour now, × 3 = 9 with the draft; b alone in its part: 3, untouched.
    expect(totals).toMatchObject({ points: 12, current: String(4 * 6 + 4 * 3), draft: String(2 * 6 + 2 * 9 + 4 * 3), changed_points: 4 });
    expect(Object.fromEntries(projects.map((project: { project_id: string; delta: string }) => [project.project_id, project.delta]))).toEqual({
      a: '6',
      b: '0',
    });
    expect(rules).toEqual([{ module: 'pyscripts', name: 'bulk', points: 4 }]);
    // The quote of one hour of project a, for the current side.
    const quote = await t.post('/v2/rating/quote', { at: frames[0].period.begin, tenant_id: 'a', usage: { compute: frames[0].usage.compute.slice(0, 2) } });
    expect(Exact.from(quote.body.total).eq(Exact.from('6'))).toBe(true);
  });
});
