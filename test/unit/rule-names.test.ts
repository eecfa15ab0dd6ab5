/** hashmap/validation.ts: default mapping names, 32 random hex digits from a pool of random bytes. */
import { describe, expect, it } from 'vitest';
import { generatedRuleName } from '../../src/rating/hashmap/validation.js';

describe('generatedRuleName', () => {
  it('gives 32 hex digits, all different, across refills of the pool', () => {
    const names = Array.from({ length: 10_000 }, () => generatedRuleName());
    for (const name of names) expect(name).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(names).size).toBe(names.length);
  });
});
