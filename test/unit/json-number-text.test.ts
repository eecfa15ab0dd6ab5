/**
 * Quote bodies read with their numbers' source text (`src/http/json-number-text.ts`): the cheap
 * way (JSON.parse, then texts taken from the number tokens, `keepNumberTextInPlace`) must give
 * exactly what the lossless parse gives, or hand over to it, whatever numbers the body mixes
 * (same values written differently, number-like text inside strings, quantities beside desc
 * values). `TARIFF_FUZZ_SEED` (default 11) fixes the generated bodies.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasNumberText, keepNumberTextInPlace, parseKeepingNumberText } from '../../src/http/json-number-text.js';
import { JsonNumberText } from '../../src/kernel/json-number.js';

const SEED = Number(process.env.TARIFF_FUZZ_SEED ?? 11);
const UNDER = new Set(['metadata', 'groupby']);

const NUMBERS = [
  '2',
  '2.0',
  '20e-1',
  '1.5',
  '1.50',
  '15E-1',
  '1e16',
  '10000000000000000',
  '-0',
  '-0.0',
  '0.0',
  '0',
  '1e400',
  '12345678901234567890',
  '0.00001',
  '7',
  '3.25',
];
const number = fc.constantFrom(...NUMBERS);
const scalar = fc.oneof(number, fc.constantFrom('"x:2.0}"', '"1.5"', '"a,1e16]"', 'true', 'null'));
const members = fc.dictionary(fc.constantFrom('size', 'n', 'm'), scalar, { maxKeys: 3 });
const point = fc.tuple(number, members, members).map(
  ([qty, metadata, groupby]) =>
    `{"vol": {"qty": ${qty}}, "metadata": {${Object.entries(metadata)
      .map(([key, value]) => `"${key}": ${value}`)
      .join(', ')}}, "groupby": {${Object.entries(groupby)
      .map(([key, value]) => `"${key}":${value}`)
      .join(',')}}}`,
);
const body = fc.array(point, { minLength: 1, maxLength: 4 }).map((points) => `{"usage": {"compute": [${points.join(', ')}]}}`);

/** The value with every number shown with its kind and text (`-0` kept apart from `0`). */
function shown(value: unknown): unknown {
  if (value instanceof JsonNumberText) return `text:${value.text}`;
  if (typeof value === 'number') return `number:${Object.is(value, -0) ? '-0' : String(value)}`;
  if (Array.isArray(value)) return value.map(shown);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, shown(member)]));
  return value;
}

describe('numbers read with their source text', () => {
  it('are the same read in place or losslessly, on 2,000 generated bodies', () => {
    let inPlace = 0;
    fc.assert(
      fc.property(body, (text) => {
        const parsed: unknown = JSON.parse(text);
        const kept = keepNumberTextInPlace(text, parsed, UNDER);
        if (kept) inPlace += 1;
        const cheap = kept ? parsed : parseKeepingNumberText(text, UNDER);
        const lossless = parseKeepingNumberText(text, UNDER);
        expect(shown(cheap)).toEqual(shown(lossless));
        // The route looks for refused numbers whenever a body holds any.
        if (JSON.stringify(shown(lossless)).includes('"text:')) expect(hasNumberText(cheap)).toBe(true);
      }),
      { seed: SEED, numRuns: 2000 },
    );
    // Both ways are exercised.
    expect(inPlace).toBeGreaterThan(100);
    expect(inPlace).toBeLessThan(1900);
  });

  it('keep the text only directly in the named members; quantities and deeper values are plain numbers', () => {
    const text = '{"usage": {"c": [{"vol": {"qty": 2.0}, "metadata": {"a": 2.0, "b": {"c": 2.0}, "d": [2.0]}, "groupby": {"e": 1e16}}]}}';
    expect(shown(parseKeepingNumberText(text, UNDER))).toEqual({
      usage: { c: [{ vol: { qty: 'number:2' }, metadata: { a: 'text:2.0', b: { c: 'number:2' }, d: ['number:2'] }, groupby: { e: 'text:1e16' } }] },
    });
  });
});
