/**
 * A value cut into pieces and put back together (value-pieces.ts; issue 24, finding 4: the
 * reading worker's answer reaches the main thread a bounded piece per turn of its event loop):
 * generated JSON-like values, with integer-like and `__proto__` names, `undefined` members and
 * holes, deep and wide, come back deeply equal with the same key order and array lengths, and no
 * piece carries more than its budget of values below the containers it fills.
 */
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ValueAssembly, valuePieces, type ValuePiece } from '../../src/rating/price-list/value-pieces.js';

/** Values below `value`, itself included. */
function size(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 1;
  return 1 + Object.values(value).reduce<number>((sum, member) => sum + size(member), 0);
}

/** Values a piece carries (before assembly fills the empty containers it carries). */
function pieceSize(piece: ValuePiece): number {
  return 'root' in piece ? size(piece.root) : piece.members.reduce((sum, [, member]) => sum + size(member), 0);
}

/** Through structured clone, as a worker's message goes; with each piece's size. */
function roundTrip(value: unknown, budget: number): { value: unknown; sizes: number[] } {
  const pieces = [...valuePieces(value, budget)].map((piece) => structuredClone(piece));
  const sizes = pieces.map(pieceSize);
  const assembly = new ValueAssembly();
  for (const piece of pieces) assembly.add(piece);
  return { value: assembly.value, sizes };
}

/** The keys of every container, in order, and array lengths: what deep equality may not compare. */
function shape(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return typeof value;
  if (Array.isArray(value)) return { length: value.length, members: Array.from({ length: value.length }, (_, index) => shape(value[index])) };
  return Object.keys(value).map((key) => [key, shape((value as Record<string, unknown>)[key])]);
}

const key = fc.oneof(fc.string(), fc.constantFrom('1024', '0', '2.0', '__proto__', 'constructor', 'é☃'));
const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.string(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined)),
    fc.array(tie('tree'), { maxLength: 12 }),
    fc.sparseArray(tie('tree'), { maxLength: 12 }),
    fc.dictionary(key, tie('tree'), { maxKeys: 12 }),
  ),
}));

describe('a value in pieces', () => {
  it('comes back deeply equal, keys in order, whatever the budget', () => {
    fc.assert(
      fc.property(tree, fc.integer({ min: 1, max: 40 }), (value, budget) => {
        const back = roundTrip(structuredClone(value), budget).value;
        // node:util's, not toStrictEqual: a member named `constructor` is not the object's class.
        expect(isDeepStrictEqual(back, structuredClone(value))).toBe(true);
        expect(shape(back)).toEqual(shape(value));
      }),
      { numRuns: 500 },
    );
  });

  it('cuts a large price-list-like value into pieces of the budget', () => {
    const mappings = Array.from({ length: 30_000 }, (_, index) => ({ value: `flavor-${index}`, cost: `0.${index + 1}`, description: undefined }));
    const value = {
      kind: 'read',
      value: { services: { compute: { fields: { flavor: { mappings } } } } },
      lossyNumberTexts: [],
      problems: { found: [], omitted: 0 },
    };
    const { value: back, sizes } = roundTrip(value, 1000);
    expect(isDeepStrictEqual(back, value)).toBe(true);
    expect(sizes.length).toBeGreaterThan(100);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(1000);
  });
});
