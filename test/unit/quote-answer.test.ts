/**
 * The v2 quote's answer (issue 24, findings 3 and 5): streamed in pieces, it is byte for byte the
 * `JSON.stringify` of the whole answer as Tariff wrote it before (generated dataframes: service
 * names that are integers, `__proto__`, unicode, explain entries, 1e-99 quantities), and its size
 * estimate is never below the real size.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Exact } from '../../src/rating/common/exact.js';
import { dataframeToJson, type PricedPoint, type RatingDataframe } from '../../src/rating/contract/dataframe.js';
import { answerStream, answerText, estimateAnswerBytes } from '../../src/rating/quote/answer.js';

const decimal = fc.oneof(
  fc.constantFrom('0', '1', '1e-99', '12345678901234567890.123456789', '-2.5', '1E+40'),
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map(String),
);

const point = fc.record({
  quantity: decimal,
  price: decimal,
  unit: fc.option(fc.string(), { nil: undefined }),
  groupby: fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null))),
  explain: fc.array(fc.record({ module: fc.constant('hashmap'), rule_id: fc.uuid(), amount: decimal }), { maxLength: 3 }),
});

const dataframe = fc.record({
  services: fc.array(fc.tuple(fc.oneof(fc.string(), fc.constantFrom('1024', '2', '__proto__', 'constructor', 'é☃')), fc.array(point, { maxLength: 40 })), {
    maxLength: 5,
  }),
  total: decimal,
  explain: fc.boolean(),
});

async function collect(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

describe('the streamed v2 answer', () => {
  it('is the JSON.stringify of the whole answer, as before (generated)', async () => {
    await fc.assert(
      fc.asyncProperty(dataframe, async ({ services, total, explain }) => {
        const map = new Map<string, PricedPoint[]>();
        for (const [name, points] of services) {
          map.set(
            name,
            points.map((given) => ({
              point: { vol: { unit: given.unit, qty: given.quantity }, rating: { price: '0' }, groupby: given.groupby },
              quantity: Exact.from(given.quantity),
              price: Exact.from(given.price),
              explain: given.explain,
            })),
          );
        }
        const frame: RatingDataframe = { period: { begin: '2026-01-01T00:00:00+00:00', end: '2026-01-01T01:00:00+00:00' }, services: map };
        const priced = { total: Exact.from(total), dataframe: frame };
        // What the route sent before: the whole answer, one JSON.stringify.
        const before = JSON.stringify({ total: priced.total.toString(), period: frame.period, usage: dataframeToJson(frame, explain).usage });
        expect(await collect(answerStream(priced, explain))).toBe(before);
        expect(answerText(priced, explain)).toBe(before);
        expect(estimateAnswerBytes(0, frame)).toBeGreaterThanOrEqual(
          Buffer.byteLength(before) - JSON.stringify(frame.period).length - 64 - sizeOfPassedThrough(frame),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('comes in pieces when large, each made as it is read', async () => {
    const points: PricedPoint[] = Array.from({ length: 20_000 }, (_, index) => ({
      point: { vol: { qty: '1e-99' }, groupby: { index } },
      quantity: Exact.from('1e-99'),
      price: Exact.from('1.5e-99'),
    }));
    const priced = { total: Exact.from('3e-95'), dataframe: { period: { begin: 'a', end: 'b' }, services: new Map([['compute', points]]) } };
    let pieces = 0;
    let text = '';
    for await (const chunk of answerStream(priced, false)) {
      pieces += 1;
      text += (chunk as Buffer).toString('utf8');
    }
    expect(pieces).toBeGreaterThan(10);
    expect(text).toBe(answerText(priced, false));
  });
});

/** The JSON size of what the request carried and passes through (the estimate counts it as the request's bytes). */
function sizeOfPassedThrough(frame: RatingDataframe): number {
  let bytes = 0;
  for (const [name, points] of frame.services) {
    bytes += Buffer.byteLength(JSON.stringify(name)) + 4;
    for (const working of points)
      bytes += Buffer.byteLength(JSON.stringify({ ...working.point, vol: { ...working.point.vol, qty: '' }, rating: { price: '' } }));
  }
  return bytes;
}
