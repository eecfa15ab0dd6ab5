/**
 * A large JSON body (1 MiB and more) is read in slices (`src/http/large-json-body.ts`, issue 24,
 * finding 4), with the same faults as a small body read at once: generated faults (broken JSON,
 * NUL or a lone surrogate in text, a `__proto__` key, nesting past `TARIFF_JSON_MAX_DEPTH`) placed
 * anywhere in a 1.2 MiB v2 quote get the fault the synchronous path's own functions give, a
 * bad query string still comes before a body fault, and numbers keep their source text.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkInputText } from '../../src/http/input-text.js';
import { H, startTestApp, type TestApp } from '../helpers/app.js';

const Q2 = '/v2/rating/quote';
const SEED = 2404;
const MAX_DEPTH = 32;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** The text of a point of a large quote. */
function pointText(index: number, metadata = `{"name":"vm-${index}","size":1.5}`): string {
  return `{"vol":{"unit":"instance","qty":"1"},"groupby":{"flavor":"m1.nano"},"metadata":${metadata}}`;
}

/** A v2 quote of 1.2 MiB whose point `at` is `point` (text). */
function quoteWith(at: number, point: string): string {
  const points: string[] = [];
  for (let index = 0; index < 12_000; index += 1) points.push(index === at ? point : pointText(index));
  return `{"usage":{"compute":[${points.join(',')}]}}`;
}

/** The fault the synchronous path gives `text`: JSON.parse's error, or the input-text check's. */
function expectedFault(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return `Request is not in valid JSON format: ${(error as Error).message}`;
  }
  try {
    checkInputText(parsed, 'body', MAX_DEPTH);
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
}

const FAULTS: Record<string, (index: number) => string> = {
  truncated: (index) => pointText(index).slice(0, -3),
  trailingComma: (index) => `${pointText(index)},`,
  stray: (index) => `${pointText(index)} x`,
  nul: (index) => pointText(index, `{"name":"vm\\u0000${index}"}`),
  loneSurrogate: (index) => pointText(index, `{"name\\ud800":"x"}`),
  proto: (index) => pointText(index, `{"__proto__":{"size":2}}`),
  deep: (index) => pointText(index, `{"deep":${'['.repeat(40)}${']'.repeat(40)}}`),
};

describe('a large JSON body', () => {
  it('gets the synchronous path’s fault for generated faults anywhere in it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(FAULTS)), fc.integer({ min: 0, max: 11_999 }), async (fault, at) => {
        const text = quoteWith(at, FAULTS[fault](at));
        expect(text.length).toBeGreaterThan(1024 * 1024);
        const expected = expectedFault(text);
        expect(expected).toBeDefined();
        const answer = await t.post(Q2, text);
        expect(answer.status, answer.text).toBe(400);
        expect(answer.body.faultstring).toBe(expected);
      }),
      { seed: SEED, numRuns: 30 },
    );
  }, 120_000);

  it('still answers a bad query string before a fault in the body', async () => {
    const answer = await t.post(`${Q2}?x=%FF`, quoteWith(5, FAULTS.nul(5)));
    expect(answer.status).toBe(400);
    expect(answer.body.faultstring).toBe("Invalid input in query: '%FF' is not valid percent-encoded UTF-8.");
  });

  it('is priced whole, numbers compared with their text, read in place or losslessly', async () => {
    const service = await t.post(`${H}/services`, { name: 'compute' });
    const field = await t.post(`${H}/fields`, { name: 'size', service_id: service.body.service_id });
    expect((await t.post(`${H}/mappings`, { field_id: field.body.field_id, value: '2.0', cost: '10', type: 'flat' })).status).toBe(201);
    const module = await t.get('/v1/rating/modules/hashmap');
    expect((await t.put('/v1/rating/modules/hashmap', { ...module.body, enabled: true })).status).toBe(200);
    // `2.0` matches the mapping `2.0`, `2` does not (Python's str()); `2.0` beside a `2` needs the lossless parse.
    for (const [metadata, price] of [
      ['{"size":2.0}', '10'],
      ['{"size":2.0,"other":2}', '10'],
      ['{"size":2,"other":2.0}', '0'],
    ] as const) {
      const answer = await t.post(Q2, quoteWith(7, pointText(7, metadata)));
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.usage.compute).toHaveLength(12_000);
      expect(answer.body.usage.compute[7].rating.price, metadata).toBe(price);
      expect(answer.body.total).toBe(price);
    }
  });
});
