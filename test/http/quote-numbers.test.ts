/**
 * Decimal JSON numbers in a quote's desc (rating.md §5), through the v1 and v2 quote routes on a
 * real database: a field mapping's `value` is compared with Python's `str()` of the number as
 * CloudKitty's `json` reads it (`2.0` → `'2.0'`, `2` → `'2'`, `1e16` → `'1e+16'`, `0.00001` →
 * `'1e-05'`), field thresholds with its exact value (a float by its double), a number Python
 * reads as infinity is a 400 naming the attribute, and the answer echoes the numbers as before.
 * Bodies are sent as JSON text: `JSON.stringify` cannot write `2.0`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, startTestApp, type TestApp } from '../helpers/app.js';
import { createField, createService, expectFault } from '../helpers/fixtures.js';

const Q1 = '/v1/rating/quote';
const Q2 = '/v2/rating/quote';

/** The `size` mappings: value → flat cost (each cost names its mapping). */
const SIZE_MAPPINGS: [string, string][] = [
  ['2.0', '1'],
  ['2', '2'],
  ['1e+16', '3'],
  ['1e-05', '4'],
  ['12345678901234567890', '5'],
  ['-0.0', '6'],
  ['1500.0', '7'],
  ['inf', '8'],
];

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
  const enabled = await t.put('/v2/rating/modules/hashmap', { enabled: true });
  expect(enabled.status, enabled.text).toBe(204);
  const service = await createService(t, 'compute');
  const size = await createField(t, service, 'size');
  for (const [value, cost] of SIZE_MAPPINGS) {
    const response = await t.post(`${H}/mappings/`, { field_id: size, value, cost, type: 'flat' });
    expect(response.status, response.text).toBe(201);
  }
  const level = await createField(t, service, 'level');
  const threshold = await t.post(`${H}/thresholds/`, { field_id: level, level: '0.3', cost: '10', type: 'flat' });
  expect(threshold.status, threshold.text).toBe(201);
});
afterAll(() => t?.close());

/** A v2 quote of points written as JSON text (`{"vol": ..., "metadata": {...}}` each); the prices. */
async function v2Prices(pointTexts: string[]): Promise<string[]> {
  const response = await t.post(Q2, `{"usage": {"compute": [${pointTexts.join(', ')}]}}`);
  expect(response.status, response.text).toBe(200);
  return (response.body.usage.compute as { rating: { price: string } }[]).map((point) => point.rating.price);
}

describe('decimal JSON numbers in a quote desc', () => {
  it("match the mapping of Python's str(): 2.0, 2, 1e16, 0.00001 and the others (v2, metadata and groupby)", async () => {
    const prices = await v2Prices([
      '{"vol": {"qty": 1}, "metadata": {"size": 2.0}}',
      '{"vol": {"qty": 1}, "metadata": {"size": 2}}',
      '{"vol": {"qty": 1}, "groupby": {"size": 1e16}}',
      '{"vol": {"qty": 1}, "groupby": {"size": 0.00001}}',
      '{"vol": {"qty": 1}, "metadata": {"size": 12345678901234567890}}',
      '{"vol": {"qty": 1}, "metadata": {"size": -0.0}}',
      '{"vol": {"qty": 1.0}, "metadata": {"size": 1.5E3}}',
      '{"vol": {"qty": 1}, "metadata": {"size": 10000000000000000}}',
      '{"vol": {"qty": 1}, "metadata": {"size": "2.0"}}',
      '{"vol": {"qty": 1}, "metadata": {"size": 2.5}}',
      // groupby wins over metadata
      '{"vol": {"qty": 1}, "metadata": {"size": 2}, "groupby": {"size": 2.0}}',
    ]);
    expect(prices).toEqual(['1', '2', '3', '4', '5', '6', '7', '0', '1', '0', '1']);
  });

  it('match the same way in a body without any fraction or exponent (JSON.parse alone reads it)', async () => {
    expect(await v2Prices(['{"vol": {"qty": 1}, "metadata": {"size": 2}}', '{"vol": {"qty": 3}, "groupby": {"size": -0}}'])).toEqual(['2', '0']);
  });

  it('match the same way whichever numbers of the body have fractions (quantities, other points, strings)', async () => {
    // A fractional quantity beside an integer desc value, a string holding ":2.0}", a quantity
    // 2.0 beside a desc value 2 (the same double), and the reverse.
    expect(
      await v2Prices([
        '{"vol": {"qty": 1.5}, "metadata": {"size": 2}}',
        '{"vol": {"qty": 1}, "metadata": {"size": 2, "note": "x:2.0}"}}',
        '{"vol": {"qty": 2.0}, "metadata": {"size": 2}}',
        '{"vol": {"qty": 2}, "metadata": {"size": 2.0}}',
      ]),
    ).toEqual(['3', '2', '4', '2']);
  });

  it('match in the v1 quote, flat and nested desc', async () => {
    const flat = await t.post(Q1, '{"resources": [{"service": "compute", "volume": 1, "desc": {"size": 2.0}}]}');
    expect(flat.status, flat.text).toBe(200);
    expect(flat.text).toBe('1');
    const nested = await t.post(
      Q1,
      '{"resources": [{"service": "compute", "volume": 2.0, "desc": {"metadata": {"size": 1e16}}}, {"service": "compute", "volume": 1, "desc": {"groupby": {"size": 0.00001}}}]}',
    );
    expect(nested.status, nested.text).toBe(200);
    expect(nested.text).toBe('10');
  });

  it('reach field thresholds by their exact value: a float by its double, as Python compares Decimal(float)', async () => {
    const prices = await v2Prices([
      '{"vol": {"qty": 1}, "metadata": {"level": 0.3}}',
      '{"vol": {"qty": 1}, "metadata": {"level": "0.3"}}',
      '{"vol": {"qty": 1}, "metadata": {"level": 0.30000000000000004}}',
      '{"vol": {"qty": 1}, "metadata": {"level": 3e-1}}',
      '{"vol": {"qty": 1}, "metadata": {"level": 1}}',
      '{"vol": {"qty": 1}, "metadata": {"level": 0.29}}',
      '{"vol": {"qty": 1}, "metadata": {"level": 1e-400}}',
    ]);
    // Decimal(0.3) = 0.299999999999999988897769753748...: below the level 0.3.
    expect(prices).toEqual(['0', '10', '10', '0', '10', '0', '0']);
  });

  it('are echoed as JSON numbers, as before', async () => {
    const response = await t.post(Q2, '{"usage": {"compute": [{"vol": {"qty": 1.50}, "metadata": {"size": 2.0, "other": 1e16}, "groupby": {"n": 7}}]}}');
    expect(response.status, response.text).toBe(200);
    const [point] = response.body.usage.compute;
    expect(point.metadata).toEqual({ size: 2, other: 1e16 });
    expect(point.groupby).toEqual({ n: 7 });
    expect(point.vol.qty).toBe('1.5');
    expect(response.text).toContain('"metadata":{"size":2,"other":10000000000000000}');
  });

  it('are refused with a 400 naming the attribute when Python reads them as infinity', async () => {
    expectFault(
      await t.post(Q2, '{"usage": {"compute": [{"vol": {"qty": 1}}, {"vol": {"qty": 1}, "metadata": {"size": 1E400}}]}}'),
      400,
      "Invalid input for field/attribute usage.compute[1].metadata.size. Value: '1E400'. Number must be within the range of a double (magnitude below about 1.8e308): Python reads it as infinity.",
    );
    expectFault(
      await t.post(Q2, '{"usage": {"compute": [{"vol": {"qty": 1}, "groupby": {"size": -1e400}}]}}'),
      400,
      "Invalid input for field/attribute usage.compute[0].groupby.size. Value: '-1e400'. Number must be within the range of a double (magnitude below about 1.8e308): Python reads it as infinity.",
    );
    expectFault(
      await t.post(Q1, '{"resources": [{"service": "compute", "volume": 1, "desc": {"size": 1e999}}]}'),
      400,
      "Invalid input for field/attribute resources[0].desc.size. Value: '1e999'. Number must be within the range of a double (magnitude below about 1.8e308): Python reads it as infinity.",
    );
    expectFault(
      await t.post(Q1, '{"resources": [{"service": "compute", "volume": 1, "desc": {"groupby": {"size": 1e999}}}]}'),
      400,
      "Invalid input for field/attribute resources[0].desc.groupby.size. Value: '1e999'. Number must be within the range of a double (magnitude below about 1.8e308): Python reads it as infinity.",
    );
    const digits = `1${'0'.repeat(4300)}`;
    expectFault(
      await t.post(Q2, `{"usage": {"compute": [{"vol": {"qty": 1}, "metadata": {"size": ${digits}}}]}}`),
      400,
      `Invalid input for field/attribute usage.compute[0].metadata.size. Value: '${digits.slice(0, 80)}...'. Integer must have at most 4300 digits (Python's limit).`,
    );
    // A quantity out of range is refused as before.
    expectFault(
      await t.post(Q2, '{"usage": {"compute": [{"vol": {"qty": 1e400}, "metadata": {"size": 2.0}}]}}'),
      400,
      "Invalid input for field/attribute usage.compute[0].vol.qty. Value: 'Infinity'. Value must be a finite decimal number.",
    );
  });

  it('leave the other input checks as they were: __proto__ keys, depth, malformed JSON', async () => {
    expectFault(
      await t.post(Q2, '{"usage": {"compute": [{"vol": {"qty": 1.5}, "metadata": {"size": 2.0, "__proto__": 1}}]}}'),
      400,
      "Invalid input in body.usage.compute[0].metadata: a key's name must not be __proto__.",
    );
    const deep = `${'['.repeat(40)}1.5${']'.repeat(40)}`;
    expectFault(
      await t.post(Q2, `{"usage": {"compute": [{"vol": {"qty": 1}, "metadata": {"size": ${deep}}}]}}`),
      400,
      'Invalid input in body: JSON nested deeper than 32 levels (TARIFF_JSON_MAX_DEPTH).',
    );
    const malformed = await t.post(Q2, '{"usage": {"compute": [{"vol": {"qty": 1}, "metadata": {"size": 2.0,}}]}}');
    expect(malformed.status).toBe(400);
    expect(malformed.body.faultstring).toMatch(/^Request is not in valid JSON format: /);
    // Duplicate keys: the last one wins, as JSON.parse has it.
    expect(await v2Prices(['{"vol": {"qty": 1}, "metadata": {"size": 2, "size": 2.0}}'])).toEqual(['1']);
  });
});
