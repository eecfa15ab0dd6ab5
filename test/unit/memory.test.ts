/** kernel/memory.ts: a full collection after bulk work, only where the process exposes one. */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { collectGarbageSoon } from '../../src/kernel/memory.js';

const holder = globalThis as { gc?: () => void };
const original = holder.gc;

afterEach(() => {
  holder.gc = original;
});

describe('collectGarbageSoon', () => {
  it('runs the exposed collector once, after the current callbacks', async () => {
    const collect = vi.fn();
    holder.gc = collect;
    collectGarbageSoon();
    expect(collect).not.toHaveBeenCalled();
    await nextTurn();
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('does nothing without --expose-gc', async () => {
    delete holder.gc;
    expect(() => collectGarbageSoon()).not.toThrow();
    await nextTurn();
  });
});
