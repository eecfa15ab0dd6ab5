/**
 * Giving memory back after a bulk operation. A price list of 10,000 rules leaves about 80 MB of
 * garbage behind it; V8 collects its old generation lazily, so repeated exports and applies
 * stacked that garbage up to 450 MB of RSS before a collection (measured, bench/price-list.js).
 * A full collection right after such an operation (an operator's, a few a day) keeps the process
 * near its live size: 267 MB at the peak instead of 477 MB on the same run.
 *
 * fix, issue 24: the collection followed every price-list answer whose request merely *declared*
 * a large body, before authentication or limits refused it: 100 header-only requests cost 4 s of
 * CPU. Now only bulk work actually done counts ({@link BulkCollector}), and collections are at
 * most one per interval.
 */

/** Bodies or answers at least this large count as bulk (a 1,000-rule price list is about 100 KB). */
export const BULK_BYTES = 100 * 1024;

/**
 * Runs a full garbage collection when the process was started with `--expose-gc` (`bin/tariff.js`
 * does), after the current I/O callbacks; does nothing otherwise. A collection of the live heap
 * takes some tens of milliseconds on the event loop: call it only after bulk work, never per
 * request.
 */
export function collectGarbageSoon(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (typeof collect === 'function') setImmediate(collect);
}

/**
 * Full collections after bulk work, at most one per interval: the first at once, those asked for
 * within the interval after it folded into one at the interval's end (so a burst of applies costs
 * one collection per interval, and the last one's garbage is still given back).
 */
export class BulkCollector {
  private last = -Infinity;
  private pending: NodeJS.Timeout | undefined;

  /**
   * @param intervalMs - least time between two collections (`TARIFF_BULK_COLLECTION_INTERVAL`).
   * @param collect - runs one collection (default {@link collectGarbageSoon}); tests count calls.
   */
  constructor(
    private readonly intervalMs: number,
    private readonly collect: () => void = collectGarbageSoon,
  ) {}

  /**
   * Asks for a collection after bulk work of `bytes` (what it read and wrote) was done and
   * answered; nothing under {@link BULK_BYTES}.
   */
  afterBulkWork(bytes: number): void {
    if (bytes < BULK_BYTES || this.pending !== undefined) return;
    const wait = this.last + this.intervalMs - Date.now();
    if (wait <= 0) {
      this.run();
      return;
    }
    this.pending = setTimeout(() => this.run(), wait);
    this.pending.unref();
  }

  /** Drops a collection still waiting (the server is closing). */
  close(): void {
    clearTimeout(this.pending);
    this.pending = undefined;
  }

  private run(): void {
    this.pending = undefined;
    this.last = Date.now();
    this.collect();
  }
}
