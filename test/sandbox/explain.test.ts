/**
 * Each script's effect in the v2 quote's `explain` (issue 26: the explanation left a pyscripts
 * discount out, so the total did not add up from it), and script failures counted by kind in
 * `tariff_pyscripts_script_failures_total`, through the API on real workers.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { H, P, startTestApp, type TestApp } from '../helpers/app.js';
import { ScriptSandbox } from '../../src/rating/pyscripts/sandbox/index.js';
import { TariffMetrics } from '../../src/kernel/metrics.js';

let t: TestApp;
let sandbox: ScriptSandbox;
const metrics = new TariffMetrics();

/** Doubles every compute price. */
const DOUBLE = "for point in data['usage']['compute']:\n    point['rating']['price'] *= 2\n";
/** 10 % off every compute price. */
const DISCOUNT = "from decimal import Decimal\nfor point in data['usage']['compute']:\n    point['rating']['price'] *= Decimal('0.9')\n";
/** Reads the prices, changes nothing. */
const READER = "total = sum(point['rating']['price'] for point in data['usage']['compute'])\n";

async function replaceScripts(scripts: Record<string, string>): Promise<void> {
  const listed = await t.get(`${P}/scripts`);
  for (const script of listed.body.scripts) expect((await t.del(`${P}/scripts/${script.script_id}`)).status).toBe(204);
  for (const [name, data] of Object.entries(scripts)) {
    const created = await t.post(`${P}/scripts?force=true`, { name, data, start: '2020-01-01' });
    expect(created.status, created.text).toBe(201);
  }
}

function quote(explain: boolean) {
  const point = (qty: string) => ({ vol: { unit: 'instance', qty }, groupby: {}, metadata: {} });
  return t.post('/v2/rating/quote', { usage: { compute: [point('1'), point('3')] }, explain });
}

async function failures(): Promise<Record<string, number>> {
  const text = await metrics.text();
  return Object.fromEntries(
    [...text.matchAll(/^tariff_pyscripts_script_failures_total\{kind="(\w+)"\} (\d+)$/gm)].map(([, kind, count]) => [kind, Number(count)]),
  );
}

beforeAll(async () => {
  sandbox = new ScriptSandbox({ poolSize: 1, spareWorkers: 0, timeoutMs: 1500, queueWaitMs: 120_000, metrics });
  await sandbox.start();
  t = await startTestApp({ sandbox });
  for (const module of ['hashmap', 'pyscripts']) expect((await t.put(`/v2/rating/modules/${module}`, { enabled: true })).status).toBe(204);
  // hashmap first (priority), then the scripts: 1 per instance.
  expect((await t.put('/v2/rating/modules/hashmap', { priority: 10 })).status).toBe(204);
  const service = await t.post(`${H}/services`, { name: 'compute' });
  expect((await t.post(`${H}/mappings`, { service_id: service.body.service_id, cost: '1' })).status).toBe(201);
}, 180_000);

afterAll(async () => {
  await t?.close();
  await sandbox?.close();
});

describe("the v2 quote's explain", () => {
  beforeEach(async () => {
    await replaceScripts({ a_double: DOUBLE, b_reader: READER, c_discount: DISCOUNT });
  });

  it('lists each script that changed a price, in order: its name, the price before and after, and the difference', async () => {
    const answer = await quote(true);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.total).toBe('7.2');
    const [first, second] = answer.body.usage.compute;
    expect(first.rating.price).toBe('1.8');
    expect(first.explain.map((entry: { module: string }) => entry.module)).toEqual(['hashmap', 'pyscripts', 'pyscripts']);
    expect(first.explain.slice(1)).toEqual([
      { module: 'pyscripts', script: 'a_double', price_before: '1', price_after: '2', delta: '1' },
      { module: 'pyscripts', script: 'c_discount', price_before: '2', price_after: '1.8', delta: '-0.2' },
    ]);
    expect(second.explain.slice(1)).toEqual([
      { module: 'pyscripts', script: 'a_double', price_before: '3', price_after: '6', delta: '3' },
      { module: 'pyscripts', script: 'c_discount', price_before: '6', price_after: '5.4', delta: '-0.6' },
    ]);
    // The entries add up: the last script's price is the point's.
    for (const point of answer.body.usage.compute) expect(point.explain.at(-1).price_after).toBe(point.rating.price);
  });

  it('without explain, nothing changes: no entries, the same prices', async () => {
    const answer = await quote(false);
    expect(answer.body.total).toBe('7.2');
    expect(answer.body.usage.compute.map((point: Record<string, unknown>) => point.explain)).toEqual([undefined, undefined]);
  });

  it("a script that adds points starts their entries afresh; the earlier scripts' entries were about other points", async () => {
    await replaceScripts({
      a_double: DOUBLE,
      b_split: "import copy\ndata['usage']['compute'].append(copy.deepcopy(data['usage']['compute'][0]))\n",
      c_discount: DISCOUNT,
    });
    const answer = await quote(true);
    expect(answer.status, answer.text).toBe(200);
    const points = answer.body.usage.compute;
    expect(points).toHaveLength(3);
    expect(points[0].explain).toEqual([{ module: 'pyscripts', script: 'c_discount', price_before: '2', price_after: '1.8', delta: '-0.2' }]);
    expect(points[2].explain).toEqual([{ module: 'pyscripts', script: 'c_discount', price_before: '2', price_after: '1.8', delta: '-0.2' }]);
  });
});

describe('script failures by kind', () => {
  it('counts errors, timeouts and refused output apart', { timeout: 400_000 }, async () => {
    const before = await failures();
    expect(Object.keys(before).sort()).toEqual(['crash', 'error', 'memory', 'refused_output', 'timeout']);
    const expectFailures = async (scripts: Record<string, string>, status: number, kind: string) => {
      await replaceScripts(scripts);
      const counted = await failures();
      const answer = await quote(false);
      expect(answer.status, answer.text).toBe(status);
      expect((await failures())[kind], kind).toBe(counted[kind] + 1);
    };
    await expectFailures({ raises: '1 / 0\n' }, 422, 'error');
    await expectFailures({ breaks: "data['usage'] = 5\n" }, 422, 'refused_output');
    await expectFailures(
      { huge: "from decimal import Decimal\nfor p in data['usage']['compute']:\n    p['rating']['price'] = Decimal('1E+999')\n" },
      422,
      'refused_output',
    );
    // Last: a timeout kills the worker, and the next call waits for a new one to boot.
    await expectFailures({ loops: 'while True:\n    pass\n' }, 422, 'timeout');
    // A good run counts nothing.
    await replaceScripts({ a_double: DOUBLE });
    const counted = await failures();
    expect((await quote(false)).status).toBe(200);
    expect(await failures()).toEqual(counted);
  });
});
