/**
 * The simulation's table of distinct points (src/rating/simulation/point-key.ts): two `groupby`
 * or `metadata` objects get the same text only when a module could not price them differently:
 * the same members with the same values, numbers by their source text (`2.0` is not `2`), whatever
 * text a tenant chose (quotes, backslashes, separators, lengths that look like prefixes). Two
 * points are taken for the same resource without a key (`sameResource`) only when they are.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonNumberText } from '../../src/kernel/json-number.js';
import { descKey, sameResource } from '../../src/rating/simulation/point-key.js';
import type { StoredPoint } from '../../src/rating/simulation/stored-dataframe.js';

/** A desc's identity as a module reads it: names, kinds and texts of values. */
function identity(desc: Record<string, unknown>): string {
  return JSON.stringify(
    Object.entries(desc).map(([name, value]) => [
      name,
      value instanceof JsonNumberText
        ? ['n', value.text]
        : ['v', JSON.stringify(value, (_key, inner: unknown) => (inner instanceof JsonNumberText ? `#n${inner.text}` : inner))],
    ]),
  );
}

// A tiny alphabet of the characters the texts are made of, so that different descs often come close.
const text = fc.string({ unit: fc.constantFrom('a', 'n', 'j', 's', '2', '"', ':', '1', '#', '{'), maxLength: 3 });
const numberText = fc.constantFrom('2', '2.0', '12', '1', '21');
const nested = fc.dictionary(
  text,
  fc.oneof(
    text,
    numberText.map((source) => new JsonNumberText(source)),
  ),
  { maxKeys: 2 },
);
const value = fc.oneof(
  text,
  numberText.map((source) => new JsonNumberText(source)),
  fc.constantFrom(null, true, 2, 12),
  nested,
);
const desc = fc.dictionary(text, value, { maxKeys: 3 });

/**
 * Reads a desc's text back (what it must allow for the text to be the same only for descs alike):
 * JSON for plain members; after `#`, `<length>:<name><length>:<kind><text>` per member.
 */
function decode(key: string): string {
  if (!key.startsWith('#')) return identity(JSON.parse(key) as Record<string, unknown>);
  const entries: [string, [string, string]][] = [];
  let at = 1;
  const counted = () => {
    const colon = key.indexOf(':', at);
    const length = Number(key.slice(at, colon));
    const read = key.slice(colon + 1, colon + 1 + length);
    at = colon + 1 + length;
    return read;
  };
  while (at < key.length) {
    const name = counted();
    const value = counted();
    entries.push([name, value.startsWith('n') ? ['n', value.slice(1)] : ['v', JSON.stringify(JSON.parse(value.slice(1)), (_key, inner: unknown) => inner)]]);
  }
  return JSON.stringify(entries);
}

describe('the text of a desc', () => {
  it('reads back as the desc it was made of (so two descs share it only when alike)', () => {
    fc.assert(
      fc.property(desc, (made) => {
        const original = identity(made);
        // Nested number texts are kept in the text; JSON.parse reads them back as numbers: compare without them.
        if (original.includes('#n')) return;
        expect(decode(descKey(made))).toBe(original);
      }),
      { numRuns: 5000 },
    );
  });

  it('is the same for two descs only when their members and values are', () => {
    fc.assert(
      fc.property(desc, desc, (first, second) => {
        if (descKey(first) === descKey(second)) expect(identity(first)).toBe(identity(second));
      }),
      { numRuns: 20000 },
    );
  });

  it('tells a number from its text and from another text of the same value, and a nested one too', () => {
    const keys = [
      { v: '2' },
      { v: new JsonNumberText('2') },
      { v: new JsonNumberText('2.0') },
      { v: { w: new JsonNumberText('2') } },
      { v: { w: new JsonNumberText('2.0') } },
    ].map(descKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('gives two descs written alike the same text', () => {
    expect(descKey({ flavor: 'm1.small', vcpus: new JsonNumberText('2') })).toBe(descKey({ flavor: 'm1.small', vcpus: new JsonNumberText('2') }));
  });
});

describe('two points of the same resource', () => {
  /** A desc's identity in any member order, a nested value (its own object each time) never alike. */
  const sorted = (made: Record<string, unknown>) =>
    Object.values(made).some((value) => typeof value === 'object' && value !== null && !(value instanceof JsonNumberText))
      ? Symbol('nested')
      : identity(Object.fromEntries(Object.entries(made).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
  const point = fc.record({ unit: fc.constantFrom('', 'GiB', 'h'), groupby: desc, metadata: desc });
  // A copy written in another member order, its numbers and nested values as new objects.
  const rewritten = (made: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(made)
        .reverse()
        .map(([name, value]) => [
          name,
          value instanceof JsonNumberText ? new JsonNumberText(value.text) : typeof value === 'object' && value !== null ? { ...value } : value,
        ]),
    );

  /** A copy of `made` changed one way: rewritten only, a member dropped, one added, a number's text changed. */
  const changed = (made: Record<string, unknown>, how: number, name: string): Record<string, unknown> => {
    const copy = rewritten(made);
    const names = Object.keys(copy);
    if (how === 1 && names.length > 0) delete copy[names[0]];
    if (how === 2 && !(name in copy)) copy[name] = '2';
    if (how === 3) for (const [member, value] of Object.entries(copy)) if (value instanceof JsonNumberText) copy[member] = new JsonNumberText(`${value.text}0`);
    return copy;
  };

  it('are told apart from other points exactly as their members in any order are', () => {
    fc.assert(
      fc.property(point, point, fc.integer({ min: 0, max: 4 }), fc.boolean(), text, (first, other, how, inGroupby, name) => {
        // A copy of the first changed in one of its descs, or another point altogether.
        const second =
          how === 4
            ? other
            : {
                ...first,
                groupby: inGroupby ? changed(first.groupby, how, name) : rewritten(first.groupby),
                metadata: inGroupby ? rewritten(first.metadata) : changed(first.metadata, how, name),
              };
        const alike = first.unit === second.unit && sorted(first.groupby) === sorted(second.groupby) && sorted(first.metadata) === sorted(second.metadata);
        const [a, b] = [first, second].map((made): StoredPoint => ({ ...made, qty: '1', price: '0' }));
        expect(sameResource(a, b)).toBe(alike);
      }),
      { numRuns: 20000 },
    );
  });
});
