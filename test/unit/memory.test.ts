/** kernel/memory.ts: a full collection after bulk work, only where the process exposes one, at most one per interval. */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BULK_BYTES, BulkCollector, collectGarbageSoon } from '../../src/kernel/memory.js';

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

describe('BulkCollector', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('collects after bulk work only, at most once per interval, folding the rest into one at its end', () => {
    vi.useFakeTimers();
    const collect = vi.fn();
    const collector = new BulkCollector(10_000, collect);
    collector.afterBulkWork(BULK_BYTES - 1);
    expect(collect).not.toHaveBeenCalled();
    collector.afterBulkWork(BULK_BYTES);
    expect(collect).toHaveBeenCalledTimes(1);
    // A burst within the interval: one collection, at its end.
    for (let index = 0; index < 50; index += 1) collector.afterBulkWork(10 * BULK_BYTES);
    vi.advanceTimersByTime(9_999);
    expect(collect).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(collect).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(60_000);
    expect(collect).toHaveBeenCalledTimes(2);
    // After a quiet interval: at once again.
    collector.afterBulkWork(BULK_BYTES);
    expect(collect).toHaveBeenCalledTimes(3);
    collector.afterBulkWork(BULK_BYTES);
    collector.close();
    vi.advanceTimersByTime(60_000);
    expect(collect).toHaveBeenCalledTimes(3);
  });
});
