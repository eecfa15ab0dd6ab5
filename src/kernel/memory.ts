/**
 * Giving memory back after a bulk operation. A price list of 10,000 rules leaves about 80 MB of
 * garbage behind it; V8 collects its old generation lazily, so repeated exports and applies
 * stacked that garbage up to 450 MB of RSS before a collection (measured, bench/price-list.js).
 * A full collection right after such an operation (an operator's, a few a day) keeps the process
 * near its live size: 267 MB at the peak instead of 477 MB on the same run.
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
