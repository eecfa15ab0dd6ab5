/**
 * Quotes over HTTP (rating.md §3-§5), with rules made through the configuration API: every worked
 * case of §5 priced by `POST /v2/rating/quote` with exact decimal strings, the v1 quote (bare
 * number; flat and nested desc), tenants, rating time, explain, body limits, a 100,000-point quote,
 * and the rule cache's in-process invalidation (across two server processes:
 * test/databases/quote-processes.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { H, daysFromNow, startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { createField, createGroup, createService, expectFault } from '../helpers/fixtures.js';

const Q1 = '/v1/rating/quote';
const Q2 = '/v2/rating/quote';

const IMAGE_F56 = 'f5600101-8fa2-4864-899e-ebcb7ed6b568';
const IMAGE_A41 = 'a41fba37-2429-4f15-aa00-b5bc4bf557bf';
const IMAGE_005 = '0052f884-461d-4e4e-a9d2-ea1fb6cd4b02';

interface Point {
  vol: { unit: string; qty: string | number };
  rating?: { price: string };
  groupby?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  [key: string]: unknown;
}

const point = (qty: string | number, groupby: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): Point => ({
  vol: { unit: 'instance', qty },
  rating: { price: '0' },
  groupby,
  metadata,
});

/** The points P0-P3 of rating.md §5, every desc key in `groupby` (vcpus a number in P0 and P2). */
const POINTS: Point[] = [
  point('1', { flavor: 'm1.nano', image_id: IMAGE_F56, memory: '64', vcpus: 1 }),
  point('2', { flavor: 'm1.tiny', image_id: IMAGE_A41, memory: '512', vcpus: '1' }),
  point('2', { flavor: 'm1.xlarge', image_id: IMAGE_005, memory: '16384', vcpus: 8 }),
  point('1', { flavor: 'm1.nano', image_id: IMAGE_A41, memory: '64', vcpus: '1' }),
];

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
  await setHashmap(true);
});
afterAll(() => t?.close());

/** Enables or disables hashmap the way the client does: PUT with the whole module echoed. */
async function setHashmap(enabled: boolean): Promise<void> {
  const current = await t.get('/v1/rating/modules/hashmap?module_id=hashmap');
  expect(current.status, current.text).toBe(200);
  const response = await t.put('/v1/rating/modules/hashmap', { ...current.body, enabled });
  expect(response.status, response.text).toBe(200);
  expect(response.body.enabled).toBe(enabled);
}

/** Removes every service (with its fields, mappings and thresholds) and every group. */
async function clearRules(): Promise<void> {
  for (const service of (await t.get(`${H}/services/`)).body.services) {
    expect((await t.del(`${H}/services/`, { service_id: service.service_id })).status).toBe(204);
  }
  for (const group of (await t.get(`${H}/groups/`)).body.groups) {
    expect((await t.del(`${H}/groups/`, { group_id: group.group_id, recursive: true })).status).toBe(204);
  }
}

/** Creates a mapping; returns its id. */
async function mapping(body: Record<string, unknown>, query = ''): Promise<string> {
  const response = await t.post(`${H}/mappings/${query}`, body);
  expect(response.status, response.text).toBe(201);
  return response.body.mapping_id;
}

/** Creates a threshold; returns its id. */
async function threshold(body: Record<string, unknown>): Promise<string> {
  const response = await t.post(`${H}/thresholds/`, body);
  expect(response.status, response.text).toBe(201);
  return response.body.threshold_id;
}

/** A v2 quote that must succeed. */
async function quote(body: Record<string, unknown>): Promise<any> {
  const response = await t.post(Q2, body);
  expect(response.status, response.text).toBe(200);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  return response.body;
}

/** The prices of a v2 quote of `points` of `service`, and the total. */
async function priced(points: Point[], extra: Record<string, unknown> = {}, service = 'compute'): Promise<{ prices: string[]; total: string }> {
  const body = await quote({ usage: { [service]: points }, ...extra });
  return { prices: body.usage[service].map((p: Point) => p.rating!.price), total: body.total };
}

/** A v1 quote that must succeed: the raw text and the parsed number. */
async function quoteV1(resources: unknown[]): Promise<{ text: string; value: unknown }> {
  const response = await t.post(Q1, { resources });
  expect(response.status, response.text).toBe(200);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  return { text: response.text, value: response.body };
}

/** The compute service with the fields of the worked cases. */
async function computeService(): Promise<{ service: string; flavor: string; image: string; memory: string; vcpus: string }> {
  const service = await createService(t, 'compute');
  return {
    service,
    flavor: await createField(t, service, 'flavor'),
    image: await createField(t, service, 'image_id'),
    memory: await createField(t, service, 'memory'),
    vcpus: await createField(t, service, 'vcpus'),
  };
}

/** Worked case D's rules (rating.md §5): groups, field and service mappings, field thresholds. */
async function createCaseDRules(): Promise<void> {
  const c = await computeService();
  const group = await createGroup(t, 'test_group');
  const second = await createGroup(t, 'second_test_group');
  await mapping({ service_id: c.service, cost: '1.00' });
  await mapping({ field_id: c.flavor, value: 'm1.nano', cost: '1.337', group_id: group });
  await mapping({ field_id: c.flavor, value: 'm1.tiny', cost: '1.42', group_id: group });
  await mapping({ field_id: c.image, value: IMAGE_A41, type: 'rate', cost: '1.10', group_id: group });
  await threshold({ field_id: c.memory, level: '64', cost: '0.15', group_id: group });
  await threshold({ field_id: c.memory, level: '128', cost: '0.2', group_id: group });
  await mapping({ field_id: c.vcpus, value: '8', cost: '16.0', group_id: second });
}

describe('rating.md §5 worked cases, through the API and the v2 quote', () => {
  beforeEach(clearRules);

  it('A: service flats in two groups add up', async () => {
    const { service } = await computeService();
    await mapping({ service_id: service, cost: '1.337', group_id: await createGroup(t, 'test_group') });
    await mapping({ service_id: service, cost: '1.42' });
    expect(await priced(POINTS)).toEqual({ prices: ['2.757', '5.514', '5.514', '2.757'], total: '16.542' });
  });

  it('B: field flats and rates per group; a rate-only group yields 0', async () => {
    const c = await computeService();
    const group = await createGroup(t, 'test_group');
    await mapping({ field_id: c.flavor, value: 'm1.nano', cost: '1.337', group_id: group });
    await mapping({ field_id: c.image, value: IMAGE_A41, type: 'rate', cost: '1.10', group_id: group });
    await mapping({ field_id: c.flavor, value: 'm1.tiny', cost: '1.42' });
    expect(await priced(POINTS)).toEqual({ prices: ['1.337', '2.84', '0', '1.4707'], total: '5.6477' });
  });

  it('C: field thresholds (flat per quantity)', async () => {
    const c = await computeService();
    await threshold({ field_id: c.memory, level: '64', cost: '0.1337' });
    await threshold({ field_id: c.memory, level: '128', cost: '0.2' });
    expect(await priced(POINTS)).toEqual({ prices: ['0.1337', '0.4', '0.4', '0.1337'], total: '1.0674' });
  });

  it('C: service thresholds (flat, not multiplied by the quantity)', async () => {
    const { service } = await computeService();
    await threshold({ service_id: service, level: '1', cost: '0.1' });
    await threshold({ service_id: service, level: '2', cost: '0.15' });
    expect(await priced(POINTS)).toEqual({ prices: ['0.1', '0.15', '0.15', '0.1'], total: '0.5' });
  });

  it('D: groups, mappings and thresholds together', async () => {
    await createCaseDRules();
    expect(await priced(POINTS)).toEqual({ prices: ['2.487', '5.564', '34.4', '2.6357'], total: '45.0867' });
  });

  it('E: a tenant rule replaces the global one with the same key in the same group', async () => {
    const c = await computeService();
    const group = await createGroup(t, 'test_group');
    await mapping({ field_id: c.flavor, value: 'm1.tiny', cost: '1.337', group_id: group });
    await mapping({ field_id: c.flavor, value: 'm1.tiny', cost: '2', group_id: group, tenant_id: 'X' });
    const tiny = [point('1', { flavor: 'm1.tiny' })];
    expect(await priced(tiny, { tenant_id: 'X' })).toEqual({ prices: ['2'], total: '2' });
    expect(await priced(tiny, { tenant_id: 'Y' })).toEqual({ prices: ['1.337'], total: '1.337' });
    expect(await priced(tiny, { tenant_id: null })).toEqual({ prices: ['1.337'], total: '1.337' });
    expect(await priced(tiny)).toEqual({ prices: ['1.337'], total: '1.337' });
    // The v1 quote is global only, as in CloudKitty.
    expect((await quoteV1([{ service: 'compute', volume: '1', desc: { flavor: 'm1.tiny' } }])).text).toBe('1.337');
  });

  it('F: volume thresholds (rate) with a tenant override', async () => {
    const service = await createService(t, 'volume.size');
    await mapping({ service_id: service, cost: '0.001' });
    await threshold({ service_id: service, level: '50', type: 'rate', cost: '0.98' });
    await threshold({ service_id: service, level: '50', type: 'rate', cost: '0.97', tenant_id: 'X' });
    await threshold({ service_id: service, level: '200', type: 'rate', cost: '0.95' });
    const volumes = ['20', '50', '80', '250'].map((qty) => ({ vol: { unit: 'GiB', qty } }));
    expect(await priced(volumes, {}, 'volume.size')).toEqual({ prices: ['0.02', '0.049', '0.0784', '0.2375'], total: '0.3849' });
    expect(await priced(volumes, { tenant_id: 'X' }, 'volume.size')).toEqual({ prices: ['0.02', '0.0485', '0.0776', '0.2375'], total: '0.3836' });
    expect(await priced(volumes, { tenant_id: 'other' }, 'volume.size')).toEqual({ prices: ['0.02', '0.049', '0.0784', '0.2375'], total: '0.3849' });
  });
});

describe('v2 quote: the dataframe', () => {
  beforeEach(clearRules);

  it('returns the same dataframe, points in order, every price an exact decimal string', async () => {
    const { service } = await computeService();
    await mapping({ service_id: service, cost: '0.1' });
    const period = { begin: '2030-01-01T00:00:00+00:00', end: '2030-01-01T01:00:00+00:00' };
    const points = Array.from({ length: 200 }, (_, index) => ({
      vol: { unit: 'instance', qty: String(index) },
      groupby: { id: `r-${index}`, project_id: 'p' },
      metadata: { flavor: index % 2 ? 'm1.tiny' : 'm1.nano' },
      extra: { kept: index },
    }));
    const other = [{ vol: { unit: 'GiB', qty: '3' }, metadata: {} }];
    const body = await quote({ usage: { compute: points, 'unknown.service': other }, period });
    expect(Object.keys(body).sort()).toEqual(['period', 'total', 'usage']);
    expect(body.period).toEqual(period);
    expect(Object.keys(body.usage)).toEqual(['compute', 'unknown.service']);
    // Exactly the input, with a price: 0.1 × qty, exact (0.1 + 0.2 style errors would show).
    expect(body.usage.compute).toEqual(points.map((p, index) => ({ ...p, rating: { price: exactTenth(index) } })));
    // An unknown service is priced 0 and left as it was.
    expect(body.usage['unknown.service']).toEqual([{ ...other[0], rating: { price: '0' } }]);
    // Σ 0.1 × i for i < 200 = 1990.
    expect(body.total).toBe('1990');
    // No explain unless asked.
    expect(body.usage.compute.some((p: Record<string, unknown>) => 'explain' in p)).toBe(false);
  });

  it('accepts quantities as JSON numbers and prices them exactly', async () => {
    const { service } = await computeService();
    await mapping({ service_id: service, cost: '0.1' });
    const { prices, total } = await priced([point(3), point(0.2), point('1e2'), point('0.0000001')]);
    expect(prices).toEqual(['0.3', '0.02', '10', '0.00000001']);
    expect(total).toBe('10.32000001');
  });

  it('prices an unknown service 0, alone or beside a known one', async () => {
    const { service } = await computeService();
    await mapping({ service_id: service, cost: '2' });
    const body = await quote({ usage: { nothing: [point('5'), point('7')], compute: [point('3')] } });
    expect(body.usage.nothing.map((p: Point) => p.rating!.price)).toEqual(['0', '0']);
    expect(body.usage.compute[0].rating.price).toBe('6');
    expect(body.total).toBe('6');
    expect((await quote({ usage: { nothing: [point('5')] } })).total).toBe('0');
    expect((await quote({ usage: {} })).total).toBe('0');
  });

  it('with explain, lists what contributed to each point (module, group, rule id, kind, type, cost, amount)', async () => {
    const c = await computeService();
    const group = await createGroup(t, 'test_group');
    const second = await createGroup(t, 'second_test_group');
    const ids = {
      service: await mapping({ service_id: c.service, cost: '1.00' }),
      nano: await mapping({ field_id: c.flavor, value: 'm1.nano', cost: '1.337', group_id: group }),
      tiny: await mapping({ field_id: c.flavor, value: 'm1.tiny', cost: '1.42', group_id: group }),
      image: await mapping({ field_id: c.image, value: IMAGE_A41, type: 'rate', cost: '1.10', group_id: group }),
      memory64: await threshold({ field_id: c.memory, level: '64', cost: '0.15', group_id: group }),
      memory128: await threshold({ field_id: c.memory, level: '128', cost: '0.2', group_id: group }),
      vcpus: await mapping({ field_id: c.vcpus, value: '8', cost: '16.0', group_id: second }),
    };
    const body = await quote({ usage: { compute: POINTS }, explain: true });
    const explain = body.usage.compute.map((p: Record<string, unknown>) => p.explain);
    const entry = (group: string, rule_id: string, kind: string, type: string, cost: string, amount: string) => ({
      module: 'hashmap',
      group,
      rule_id,
      kind,
      type,
      cost,
      amount,
    });
    const byGroup = (entries: Record<string, string>[]) =>
      [...entries].sort((a, b) => `${a.group} ${a.kind} ${a.rule_id}`.localeCompare(`${b.group} ${b.kind} ${b.rule_id}`));
    // P0: 1 (default group) + 1.337 + 0.15 (test_group) = 2.487.
    expect(byGroup(explain[0])).toEqual(
      byGroup([
        entry('_DEFAULT_', ids.service, 'service mapping', 'flat', '1', '1'),
        entry('test_group', ids.nano, 'field mapping', 'flat', '1.337', '1.487'),
        entry('test_group', ids.memory64, 'field threshold', 'flat', '0.15', '1.487'),
      ]),
    );
    // P2: 2 + 0.4 + 32.
    expect(byGroup(explain[2])).toEqual(
      byGroup([
        entry('_DEFAULT_', ids.service, 'service mapping', 'flat', '1', '2'),
        entry('test_group', ids.memory128, 'field threshold', 'flat', '0.2', '0.4'),
        entry('second_test_group', ids.vcpus, 'field mapping', 'flat', '16', '32'),
      ]),
    );
    // P3: the image rate multiplies its group: (1.337 + 0.15) × 1.1.
    expect(byGroup(explain[3])).toEqual(
      byGroup([
        entry('_DEFAULT_', ids.service, 'service mapping', 'flat', '1', '1'),
        entry('test_group', ids.nano, 'field mapping', 'flat', '1.337', '1.6357'),
        entry('test_group', ids.image, 'field mapping', 'rate', '1.1', '1.6357'),
        entry('test_group', ids.memory64, 'field threshold', 'flat', '0.15', '1.6357'),
      ]),
    );
    expect(explain[1]).toHaveLength(4);
    expect(body.usage.compute.map((p: Point) => p.rating!.price)).toEqual(['2.487', '5.564', '34.4', '2.6357']);
    // The explained points are otherwise the input.
    body.usage.compute.forEach((p: Record<string, unknown>, index: number) => {
      const { explain: _explain, rating, ...rest } = p;
      const { rating: _rating, ...input } = POINTS[index];
      expect(rest).toEqual(input);
      expect(rating).toEqual({ price: ['2.487', '5.564', '34.4', '2.6357'][index] });
    });
    // explain: false is the same as absent.
    expect((await quote({ usage: { compute: POINTS }, explain: false })).usage.compute.some((p: Record<string, unknown>) => 'explain' in p)).toBe(false);
  });

  it('explains a service threshold, and the tenant rule that replaced a global one', async () => {
    const service = await createService(t, 'volume.size');
    const flat = await mapping({ service_id: service, cost: '0.001' });
    await threshold({ service_id: service, level: '50', type: 'rate', cost: '0.98' });
    const tenant = await threshold({ service_id: service, level: '50', type: 'rate', cost: '0.97', tenant_id: 'X' });
    const body = await quote({
      usage: { 'volume.size': [{ vol: { unit: 'GiB', qty: '50' } }, { vol: { unit: 'GiB', qty: '20' } }] },
      tenant_id: 'X',
      explain: true,
    });
    expect(body.usage['volume.size'][0].explain).toEqual([
      { module: 'hashmap', group: '_DEFAULT_', rule_id: flat, kind: 'service mapping', type: 'flat', cost: '0.001', amount: '0.0485' },
      { module: 'hashmap', group: '_DEFAULT_', rule_id: tenant, kind: 'service threshold', type: 'rate', cost: '0.97', amount: '0.0485' },
    ]);
    expect(body.usage['volume.size'][1].explain).toEqual([
      { module: 'hashmap', group: '_DEFAULT_', rule_id: flat, kind: 'service mapping', type: 'flat', cost: '0.001', amount: '0.02' },
    ]);
    // A point nothing priced has an empty explanation.
    const nothing = await quote({ usage: { nothing: [point('1')] }, explain: true });
    expect(nothing.usage.nothing[0].explain).toEqual([]);
  });

  it('matches field values by their Python text: a number, True and None', async () => {
    const c = await computeService();
    const bools = await createField(t, c.service, 'public');
    const nones = await createField(t, c.service, 'zone');
    await mapping({ field_id: c.vcpus, value: '2', cost: '1' });
    await mapping({ field_id: bools, value: 'True', cost: '10', group_id: await createGroup(t, 'bools') });
    await mapping({ field_id: nones, value: 'None', cost: '100', group_id: await createGroup(t, 'nones') });
    const { prices } = await priced([
      point('1', { vcpus: 2, public: true, zone: null }),
      point('1', { vcpus: '2', public: 'true' }),
      point('1', { vcpus: 2.0 }, { zone: 'None' }),
    ]);
    expect(prices).toEqual(['111', '1', '101']);
  });

  it('groupby wins over metadata for the same key', async () => {
    const c = await computeService();
    await mapping({ field_id: c.flavor, value: 'm1.nano', cost: '3' });
    const { prices } = await priced([
      point('1', { flavor: 'm1.nano' }, { flavor: 'm1.tiny' }),
      point('1', { flavor: 'm1.tiny' }, { flavor: 'm1.nano' }),
      point('1', {}, { flavor: 'm1.nano' }),
    ]);
    expect(prices).toEqual(['3', '0', '3']);
  });

  it('refuses a non-numeric quantity with a 400 fault naming the point', async () => {
    const c = await computeService();
    await mapping({ service_id: c.service, cost: '1' });
    expectFault(
      await t.post(Q2, { usage: { compute: [point('1'), point('abc')] } }),
      400,
      "Invalid input for field/attribute usage.compute[1].vol.qty. Value: 'abc'. Value must be a finite decimal number.",
    );
    for (const qty of ['', 'NaN', 'Infinity', '1,5', '0x10']) {
      expectFault(
        await t.post(Q2, { usage: { compute: [point(qty)] } }),
        400,
        `Invalid input for field/attribute usage.compute[0].vol.qty. Value: '${qty}'. Value must be a finite decimal number.`,
      );
    }
    for (const qty of [true, null, { n: 1 }]) {
      const response = await t.post(Q2, { usage: { compute: [{ vol: { unit: 'x', qty } }] } });
      expect(response.status, response.text).toBe(400);
      expect(response.body.faultcode).toBe('Client');
      expect(response.body.faultstring).toMatch(/qty/);
    }
    // With hashmap disabled the quantity is still checked.
    await setHashmap(false);
    try {
      expectFault(
        await t.post(Q2, { usage: { compute: [point('abc')] } }),
        400,
        "Invalid input for field/attribute usage.compute[0].vol.qty. Value: 'abc'. Value must be a finite decimal number.",
      );
    } finally {
      await setHashmap(true);
    }
  });

  it('refuses a malformed body with a 400 fault', async () => {
    const bad: [unknown, RegExp][] = [
      [{}, /^Invalid input for field\/attribute usage\. Value: 'None'\. Mandatory field missing\.$/],
      [{ usage: { compute: [point('1')] }, colour: 'red' }, /^Unknown attribute for argument quote: colour$/],
      [{ usage: { compute: [point('1')] }, at: 'yesterday' }, /^Invalid input for field\/attribute at\. Value: 'yesterday'\./],
      [{ usage: { compute: [point('1')] }, period: { begin: 'soon', end: 'later' } }, /^Invalid input for field\/attribute period\.begin\. Value: 'soon'\./],
      [{ usage: { compute: [point('1')] }, explain: 'yes' }, /^Invalid input for field\/attribute explain\. Value: 'yes'\. Wrong type/],
      [{ usage: { compute: [{ groupby: {} }] } }, /^Invalid input for field\/attribute vol\. Value: 'None'\. Mandatory field missing\.$/],
      [{ usage: { compute: point('1') } }, /attribute compute\..*Wrong type/],
    ];
    for (const [body, message] of bad) {
      const response = await t.post(Q2, body);
      expect(response.status, `${JSON.stringify(body)} → ${response.text}`).toBe(400);
      expect(response.body.faultcode).toBe('Client');
      expect(response.body.faultstring).toMatch(message);
    }
  });
});

/** `n / 10` as exact decimal text. */
function exactTenth(n: number): string {
  const whole = Math.floor(n / 10);
  const tenth = n % 10;
  return tenth === 0 ? String(whole) : `${whole}.${tenth}`;
}

describe('v1 quote', () => {
  beforeEach(clearRules);

  async function caseB(): Promise<void> {
    const c = await computeService();
    const group = await createGroup(t, 'test_group');
    await mapping({ field_id: c.flavor, value: 'm1.nano', cost: '1.337', group_id: group });
    await mapping({ field_id: c.image, value: IMAGE_A41, type: 'rate', cost: '1.10', group_id: group });
    await mapping({ field_id: c.flavor, value: 'm1.tiny', cost: '1.42' });
  }

  it('answers the total as a bare JSON number; a flat desc matches field rules (fix)', async () => {
    await caseB();
    const one = await quoteV1([{ service: 'compute', volume: '1', desc: { flavor: 'm1.nano', image_id: IMAGE_A41 } }]);
    expect(one).toEqual({ text: '1.4707', value: 1.4707 });
    const several = await quoteV1([
      { service: 'compute', volume: 1, desc: { flavor: 'm1.nano', image_id: IMAGE_F56 } },
      { service: 'compute', volume: '2', desc: { flavor: 'm1.tiny', image_id: IMAGE_A41 } },
      { service: 'compute', volume: 2, desc: { flavor: 'm1.xlarge' } },
      { service: 'unknown', volume: 100, desc: { flavor: 'm1.tiny' } },
    ]);
    // 1.337 + 2.84 + 0 + 0.
    expect(several).toEqual({ text: '4.177', value: 4.177 });
  });

  it('a nested {"metadata", "groupby"} desc matches field rules from both parts', async () => {
    await caseB();
    expect(await quoteV1([{ service: 'compute', volume: '1', desc: { metadata: { image_id: IMAGE_A41 }, groupby: { flavor: 'm1.nano' } } }])).toEqual({
      text: '1.4707',
      value: 1.4707,
    });
    expect(await quoteV1([{ service: 'compute', volume: '2', desc: { groupby: { flavor: 'm1.tiny' } } }])).toEqual({ text: '2.84', value: 2.84 });
    expect(await quoteV1([{ service: 'compute', volume: '2', desc: { metadata: { flavor: 'm1.tiny' } } }])).toEqual({ text: '2.84', value: 2.84 });
    // groupby wins over metadata.
    expect(await quoteV1([{ service: 'compute', volume: '1', desc: { metadata: { flavor: 'm1.tiny' }, groupby: { flavor: 'm1.nano' } } }])).toEqual({
      text: '1.337',
      value: 1.337,
    });
  });

  it('prices a resource without desc, an empty list and unknown services', async () => {
    const service = await createService(t, 'compute');
    await mapping({ service_id: service, cost: '0.5' });
    expect(await quoteV1([{ service: 'compute', volume: '3' }])).toEqual({ text: '1.5', value: 1.5 });
    expect(await quoteV1([])).toEqual({ text: '0', value: 0 });
    expect(await quoteV1([{ service: 'network', volume: '3', desc: {} }])).toEqual({ text: '0', value: 0 });
  });

  it('refuses a non-numeric volume and a malformed body with 400 faults', async () => {
    for (const body of [
      { resources: [{ service: 'compute', volume: 'x' }] },
      { resources: [{ service: 'compute' }] },
      { resources: [{ service: 'compute', volume: 1, colour: 'red' }] },
      {},
      { resources: 'all' },
    ]) {
      const response = await t.post(Q1, body);
      expect(response.status, `${JSON.stringify(body)} → ${response.text}`).toBe(400);
      expect(response.body.faultcode).toBe('Client');
    }
    expect((await t.post(Q1, { resources: [{ service: 'compute', volume: 'x' }] })).body.faultstring).toMatch(
      /resources\[0\]\.volume\. Value: 'x'\. Value must be a finite decimal number/,
    );
    expect((await t.post(Q1, { resources: [{ service: 'compute', volume: 1, colour: 'red' }] })).body.faultstring).toMatch(/colour/);
  });

  it('is also served under /v1/billing and with a trailing slash (the client posts to quote/)', async () => {
    const service = await createService(t, 'compute');
    await mapping({ service_id: service, cost: '0.25' });
    for (const url of ['/v1/rating/quote/', '/v1/billing/quote', '/v1/billing/quote/']) {
      const response = await t.post(url, { resources: [{ service: 'compute', volume: '2' }] });
      expect({ url, status: response.status, text: response.text }).toEqual({ url, status: 200, text: '0.5' });
    }
  });
});

describe('enabled modules', () => {
  beforeEach(clearRules);

  it('a disabled hashmap prices everything 0; enabling it again prices again', async () => {
    const c = await computeService();
    await mapping({ service_id: c.service, cost: '1.5' });
    await mapping({ field_id: c.flavor, value: 'm1.nano', cost: '2', group_id: await createGroup(t, 'g') });
    expect(await priced(POINTS)).toEqual({ prices: ['3.5', '3', '3', '3.5'], total: '13' });
    await setHashmap(false);
    try {
      expect(await priced(POINTS)).toEqual({ prices: ['0', '0', '0', '0'], total: '0' });
      expect(await quoteV1([{ service: 'compute', volume: '1', desc: { flavor: 'm1.nano' } }])).toEqual({ text: '0', value: 0 });
      // An explanation is empty.
      const explained = await quote({ usage: { compute: POINTS.slice(0, 1) }, explain: true });
      expect(explained.usage.compute[0].explain).toEqual([]);
      // Through v2 too: enabling via /v2 is seen at once.
      expect((await t.put('/v2/rating/modules/hashmap', { enabled: true })).status).toBe(204);
      expect((await priced(POINTS)).total).toBe('13');
      expect((await t.put('/v2/rating/modules/hashmap', { enabled: false })).status).toBe(204);
      expect((await priced(POINTS)).total).toBe('0');
    } finally {
      await setHashmap(true);
    }
    expect(await priced(POINTS)).toEqual({ prices: ['3.5', '3', '3', '3.5'], total: '13' });
  });

  it('noop or pyscripts enabled without scripts change nothing', async () => {
    const { service } = await computeService();
    await mapping({ service_id: service, cost: '1.5' });
    for (const name of ['noop', 'pyscripts']) expect((await t.put(`/v2/rating/modules/${name}`, { enabled: true, priority: 5 })).status).toBe(204);
    try {
      expect(await priced(POINTS)).toEqual({ prices: ['1.5', '3', '3', '1.5'], total: '9' });
    } finally {
      for (const name of ['noop', 'pyscripts']) expect((await t.put(`/v2/rating/modules/${name}`, { enabled: false, priority: 1 })).status).toBe(204);
    }
  });
});

describe('rating time (`at`) and period', () => {
  beforeEach(clearRules);

  it('applies the mappings valid at `at`; `period.begin` is the default `at`; now otherwise', async () => {
    const service = await createService(t, 'at.svc');
    const past = { start: daysFromNow(-10), end: daysFromNow(-5) };
    const boundary = daysFromNow(5);
    await mapping({ service_id: service, cost: '5', ...past }, '?force=true');
    await mapping({ service_id: service, cost: '1', end: boundary });
    await mapping({ service_id: service, cost: '7', start: boundary });
    const usage = { 'at.svc': [{ vol: { unit: 'u', qty: '1' } }] };
    const total = async (extra: Record<string, unknown>) => (await quote({ usage, ...extra })).total;

    expect(await total({})).toBe('1');
    expect(await total({ at: daysFromNow(-7) })).toBe('5');
    // start inclusive, end exclusive.
    expect(await total({ at: past.start })).toBe('5');
    expect(await total({ at: past.end })).toBe('0');
    expect(await total({ at: daysFromNow(-20) })).toBe('0');
    expect(await total({ at: daysFromNow(-2) })).toBe('0');
    expect(await total({ at: boundary })).toBe('7');
    expect(await total({ at: daysFromNow(10) })).toBe('7');
    // period.begin is the default `at`.
    const period = { begin: daysFromNow(-7), end: daysFromNow(-6) };
    const inPast = await quote({ usage, period });
    expect(inPast.total).toBe('5');
    expect(inPast.period).toEqual(period);
    expect((await quote({ usage, period: { begin: daysFromNow(10), end: daysFromNow(11) } })).total).toBe('7');
    // An explicit `at` wins over period.begin.
    const both = await quote({ usage, period, at: daysFromNow(10) });
    expect(both.total).toBe('7');
    expect(both.period).toEqual(period);
    // Without a period, the answer's period starts at `at`.
    const at = daysFromNow(-7);
    const answer = await quote({ usage, at });
    expect(Date.parse(answer.period.begin)).toBe(Date.parse(at));
    expect(Date.parse(answer.period.end)).toBeGreaterThan(Date.parse(at));
    // `at` with an offset.
    expect(await total({ at: '2000-01-01T00:00:00+02:00' })).toBe('0');
  });

  it('`at` and the tenant combine: a tenant rule valid only in the past', async () => {
    const c = await computeService();
    await mapping({ field_id: c.flavor, value: 'm1.tiny', cost: '1.337' });
    await mapping({ field_id: c.flavor, value: 'm1.tiny', cost: '2', tenant_id: 'X', start: daysFromNow(-10), end: daysFromNow(-5) }, '?force=true');
    const tiny = [point('1', { flavor: 'm1.tiny' })];
    expect((await priced(tiny, { tenant_id: 'X' })).total).toBe('1.337');
    expect((await priced(tiny, { tenant_id: 'X', at: daysFromNow(-7) })).total).toBe('2');
    // The global rule started now: seven days ago nothing applied to other tenants.
    expect((await priced(tiny, { at: daysFromNow(-7) })).total).toBe('0');
    expect((await priced(tiny, { tenant_id: 'Y', at: daysFromNow(-7) })).total).toBe('0');
  });

  it('thresholds apply at any `at` (they have no validity interval)', async () => {
    const service = await createService(t, 'volume.size');
    await threshold({ service_id: service, level: '10', cost: '3' });
    for (const at of [daysFromNow(-3650), daysFromNow(3650)]) {
      expect((await quote({ usage: { 'volume.size': [{ vol: { unit: 'GiB', qty: '10' } }] }, at })).total).toBe('3');
    }
  });
});

describe('configuration writes and the rule cache (one process)', () => {
  beforeEach(clearRules);

  it('a write is seen by the very next quote: create, update, delete, module change', async () => {
    const c = await computeService();
    const nano = [point('2', { flavor: 'm1.nano', memory: '64' })];
    expect((await priced(nano)).total).toBe('0');
    const service = await mapping({ service_id: c.service, cost: '1' });
    expect((await priced(nano)).total).toBe('2');
    const group = await createGroup(t, 'g');
    const field = await mapping({ field_id: c.flavor, value: 'm1.nano', cost: '3', group_id: group });
    expect((await priced(nano)).total).toBe('8');
    const memory = await threshold({ field_id: c.memory, level: '64', cost: '0.5', group_id: group });
    expect((await priced(nano)).total).toBe('9');
    // Threshold update.
    const updated = await t.put(`${H}/thresholds/`, { threshold_id: memory, cost: '1.5' });
    expect(updated.status, updated.text).toBe(200);
    expect((await priced(nano)).total).toBe('11');
    // Deletes.
    expect((await t.del(`${H}/mappings/`, { mapping_id: field })).status).toBe(204);
    expect((await priced(nano)).total).toBe('5');
    expect((await t.del(`${H}/thresholds/${memory}`)).status).toBe(204);
    expect((await priced(nano)).total).toBe('2');
    expect((await t.del(`${H}/mappings/${service}`)).status).toBe(204);
    expect((await priced(nano)).total).toBe('0');
    // A group deleted without recursion detaches its rules: they move to _DEFAULT_.
    const group2 = await createGroup(t, 'g2');
    await mapping({ service_id: c.service, cost: '1', group_id: group2 });
    await mapping({ field_id: c.flavor, value: 'm1.nano', cost: '4' });
    expect((await priced(nano)).total).toBe('10');
    expect((await t.del(`${H}/groups/`, { group_id: group2, recursive: false })).status).toBe(204);
    expect((await priced(nano)).total).toBe('8');
    // Deleting the field removes its mappings.
    expect((await t.del(`${H}/fields/`, { field_id: c.flavor })).status).toBe(204);
    expect((await priced(nano)).total).toBe('2');
    // Deleting the service removes the rest.
    expect((await t.del(`${H}/services/`, { service_id: c.service })).status).toBe(204);
    expect((await priced(nano)).total).toBe('0');
  });

  it('a write is seen by the next quote even when a load of the rules began before it', async () => {
    const { service } = await computeService();
    const BULK_CHUNKS = 5;
    // Many rules make every load of the rule set slow, slower than a write: 5,000 mappings
    // stored behind the server's back, on a field no point carries, then taken in.
    const bulk = await createService(t, 'bulk');
    const bulkField = await createField(t, bulk, 'id');
    const fieldRow = await t.tables.selectFrom('hashmap_fields').select('id').where('field_id', '=', bulkField).executeTakeFirstOrThrow();
    const stamp = '2000-01-01 00:00:00';
    for (let chunk = 0; chunk < BULK_CHUNKS; chunk += 1) {
      const rows = Array.from({ length: 1000 }, (_, index) => {
        const n = chunk * 1000 + index;
        return {
          mapping_id: randomUUID(),
          value: `v-${n}`,
          cost: '1.0000000000000000000000000000',
          map_type: 'flat',
          service_id: null,
          field_id: fieldRow.id,
          group_id: null,
          tenant_id: null,
          name: `bulk${n}`,
          description: null,
          start: stamp,
          end: null,
          created_at: stamp,
          created_by: 'test',
          updated_by: null,
          deleted: null,
          deleted_by: null,
        };
      });
      await t.tables.insertInto('hashmap_mappings').values(rows).execute();
    }
    expect((await t.get('/v1/rating/reload_modules')).status).toBe(204);
    expect((await priced([point('1', { id: 'v-7' })], {}, 'bulk')).total).toBe('1');
    for (let round = 1; round <= 10; round += 1) {
      // A first write makes the cache stale; the quote sent next starts a load of the rules,
      // and the second write overtakes that load: the quote after it must see it all the same.
      const group = await createGroup(t, `round-${round}`);
      const early = t.post(Q2, { usage: { compute: [point('1')] } });
      const created = await t.post(`${H}/mappings/`, { service_id: service, cost: String(round) });
      expect(created.status, created.text).toBe(201);
      expect((await priced([point('1')])).total, `round ${round}: the quote after the create`).toBe(String(round));
      expect((await early).status).toBe(200);
      expect((await t.del(`${H}/groups/`, { group_id: group })).status).toBe(204);
      const late = t.post(Q2, { usage: { compute: [point('1')] } });
      expect((await t.del(`${H}/mappings/`, { mapping_id: created.body.mapping_id })).status).toBe(204);
      expect((await priced([point('1')])).total, `round ${round}: the quote after the delete`).toBe('0');
      expect((await late).status).toBe(200);
    }
  }, 60_000);
});

describe('body limits and volume', () => {
  beforeEach(clearRules);

  it('a 100,000-point quote (> 1 MiB) is priced correctly and in order', async () => {
    await createCaseDRules();
    const N = 100_000;
    const points = Array.from({ length: N }, (_, index) => {
      const base = POINTS[index % 4];
      return { vol: base.vol, groupby: { ...base.groupby, id: index }, metadata: {} };
    });
    const body = JSON.stringify({ usage: { compute: points } });
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const response = await t.post(Q2, body);
    expect(response.status, response.text.slice(0, 300)).toBe(200);
    const answer = JSON.parse(response.text);
    // 25,000 × (2.487 + 5.564 + 34.4 + 2.6357).
    expect(answer.total).toBe('1127167.5');
    const expected = ['2.487', '5.564', '34.4', '2.6357'];
    expect(answer.usage.compute).toHaveLength(N);
    answer.usage.compute.forEach((p: any, index: number) => {
      if (p.groupby.id !== index || p.rating.price !== expected[index % 4]) throw new Error(`point ${index}: ${JSON.stringify(p)}`);
    });
  }, 60_000);

  it('the v1 quote accepts a body over 1 MiB too', async () => {
    const service = await createService(t, 'compute');
    await mapping({ service_id: service, cost: '0.001' });
    const resources = Array.from({ length: 20_000 }, (_, index) => ({
      service: 'compute',
      volume: '1',
      desc: { id: `resource-${index}`, project_id: 'abcdef0123456789abcdef0123456789' },
    }));
    expect(JSON.stringify({ resources }).length).toBeGreaterThan(1024 * 1024);
    expect(await quoteV1(resources)).toEqual({ text: '20', value: 20 });
  });

  it('a configuration write over 1 MiB is still a 413, and a quote over 32 MiB too', async () => {
    const large = 'x'.repeat(1024 * 1024 + 10);
    for (const [url, body] of [
      [`${H}/services/`, { name: large }],
      [`${H}/mappings/`, { service_id: '3c1e5f52-9d1a-4c55-8f43-0e2b9a7d6c11', cost: 1, description: large }],
      ['/v1/rating/modules/hashmap', { enabled: true, description: large }],
    ] as [string, unknown][]) {
      const response: TestResponse = url.includes('modules') ? await t.put(url, body) : await t.post(url, body);
      expect(response.status, `${url}: ${response.text.slice(0, 200)}`).toBe(413);
      expect(response.body.faultcode).toBe('Client');
    }
    expect((await t.get(`${H}/services/`)).body.services).toEqual([]);
    const huge = JSON.stringify({ usage: { compute: [{ vol: { unit: 'u', qty: '1' }, metadata: { padding: 'y'.repeat(32 * 1024 * 1024) } }] } });
    const refused = await t.post(Q2, huge);
    expect(refused.status, refused.text.slice(0, 200)).toBe(413);
    expect(refused.body.faultcode).toBe('Client');
  }, 60_000);
});
