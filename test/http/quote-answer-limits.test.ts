/**
 * The bound of a v2 quote's answer (issue 24, findings 3 and 5): an explained quote of
 * `qty 1e-99` prints 100+ digits per number and grew 35 times; past `TARIFF_QUOTE_ANSWER_GROWTH`
 * × the request (never under 1 MiB) or `TARIFF_QUOTE_ANSWER_LIMIT_MB` it is a 413 naming the
 * setting, sent before anything else, never a 500; the same points with short quantities pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, startTestApp, type TestApp } from '../helpers/app.js';
import { createField, createGroup, createService, expectFault } from '../helpers/fixtures.js';

const Q2 = '/v2/rating/quote';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ config: { quoteAnswerGrowth: 5, quoteAnswerLimitBytes: 8 * 1024 * 1024 } });
  const service = await createService(t, 'compute');
  const field = await createField(t, service, 'flavor');
  for (let index = 0; index < 3; index += 1) {
    const group = await createGroup(t, `g${index}`);
    const made = await t.post(`${H}/mappings`, { field_id: field, value: 'm1.nano', cost: `1.${index}`, type: 'flat', group_id: group });
    expect(made.status, made.text).toBe(201);
  }
  const module = await t.get('/v1/rating/modules/hashmap');
  expect((await t.put('/v1/rating/modules/hashmap', { ...module.body, enabled: true })).status).toBe(200);
});
afterAll(() => t?.close());

function quote(count: number, qty: string, explain: boolean): Record<string, unknown> {
  return { usage: { compute: Array.from({ length: count }, () => ({ vol: { qty }, groupby: { flavor: 'm1.nano' } })) }, explain };
}

describe('the answer of a v2 quote', () => {
  it('is refused with 413 naming TARIFF_QUOTE_ANSWER_GROWTH when 1e-99 quantities make it grow past 5x', async () => {
    const response = await t.post(Q2, quote(5000, '1e-99', true));
    expect(response.status, response.text.slice(0, 300)).toBe(413);
    expect(response.body.faultstring).toMatch(
      /^The quote's answer would be about \d+ bytes, more than \d+ \(TARIFF_QUOTE_ANSWER_GROWTH × the request's \d+ bytes\)/,
    );
    expectFault(response, 413, response.body.faultstring);
  });

  it('is refused with 413 naming TARIFF_QUOTE_ANSWER_LIMIT_MB past the absolute bound', async () => {
    const response = await t.post(Q2, quote(100_000, '1', true));
    expect(response.status, response.text.slice(0, 300)).toBe(413);
    expect(response.body.faultstring).toContain('(TARIFF_QUOTE_ANSWER_LIMIT_MB)');
  });

  it('passes with short quantities and no explain, streamed past 1 MiB, and a small quote never meets the bound', async () => {
    const large = await t.post(Q2, quote(30_000, '1', false));
    expect(large.status, large.text.slice(0, 300)).toBe(200);
    expect(large.text.length).toBeGreaterThan(1024 * 1024);
    expect(large.body.usage.compute).toHaveLength(30_000);
    expect(large.body.total).toBe('99000');
    const small = await t.post(Q2, quote(10, '1e-99', true));
    expect(small.status).toBe(200);
    expect(small.body.usage.compute[0].rating.price).toBe(`0.${'0'.repeat(98)}33`);
  });
});
