/**
 * What the JSON.parse of each Node that Tariff runs on makes of an escaped quote in a key read
 * after an escaped backslash at the same place. Node 24's V8 (24.21.0, the newest 24) gives the
 * earlier key again: a body with such keys is misread there, which is why docs/operators/install.md
 * recommends Node 26, and why test/unit/json-in-slices.test.ts leaves such keys out on Node 24.
 * When a Node 24 release fixes it, the Node 24 case fails: then say so in those places.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const MAJOR = Number(process.versions.node.split('.')[0]);

/**
 * The keys a fresh process of this Node reads from `{"k\\":1}` (key k\) and then `{"k\"":1}`
 * (key k"): fresh, because whether V8 misreads depends on what it parsed before.
 */
function keysAfterEachOther(): string[] {
  const program = `const first = JSON.parse('{"k\\\\\\\\":1}'); const second = JSON.parse('{"k\\\\"":1}');
console.log(JSON.stringify([...Object.keys(first), ...Object.keys(second)]));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', program], { encoding: 'utf8' })) as string[];
}

describe('an escaped quote in a key after an escaped backslash', () => {
  it.runIf(MAJOR >= 26)('is read right on Node 26', () => {
    expect(keysAfterEachOther()).toEqual(['k\\', 'k"']);
  });

  it.runIf(MAJOR === 24)('is misread on Node 24: its V8 gives the earlier key again', () => {
    expect(keysAfterEachOther()).toEqual(['k\\', 'k\\']);
  });
});
