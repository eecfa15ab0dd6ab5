/**
 * `prettyJsonParts` (src/http/streamed-answer.ts): a price-list export streamed in parts is the
 * text `JSON.stringify(value, null, 2)` makes, whatever the value and the depth it is cut to.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prettyJsonParts } from '../../src/http/streamed-answer.js';

/** JSON values, with members JSON leaves out (undefined) and integer-like names that JSON orders first. */
const values = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 1 }),
    fc.constant(undefined),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(fc.string(), fc.nat().map(String), fc.constantFrom('__proto__', 'constructor')), tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('prettyJsonParts', () => {
  it('joins to JSON.stringify(value, null, 2) at every depth', () => {
    fc.assert(
      fc.property(
        values.filter((value) => value !== undefined),
        fc.integer({ min: 0, max: 6 }),
        (value, depth) => {
          expect([...prettyJsonParts(value, depth)].join('')).toBe(JSON.stringify(value, null, 2));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('cuts a large document into many small parts', () => {
    const document = { services: Object.fromEntries(Array.from({ length: 100 }, (_, index) => [`s${index}`, { mappings: [{ cost: '1' }] }])) };
    const parts = [...prettyJsonParts(document, 4)];
    expect(parts.length).toBeGreaterThan(300);
    expect(Math.max(...parts.map((part) => part.length))).toBeLessThan(100);
  });
});
