/** Shared bits of the sandbox tests: dataframes and error capture. */
import type { JsonDataframe, JsonPoint } from '../../src/rating/pyscripts/sandbox/index.js';

/** A point of rating.md §1 with price 0. */
export function point(qty: string, groupby: Record<string, unknown>, metadata: Record<string, unknown> = {}): JsonPoint {
  return { vol: { unit: 'instance', qty }, rating: { price: '0' }, groupby, metadata };
}

/** A dataframe over January 2026 (UTC). */
export function frame(usage: JsonDataframe['usage']): JsonDataframe {
  return { period: { begin: '2026-01-01T00:00:00+00:00', end: '2026-01-01T01:00:00+00:00' }, usage };
}

/** A one-point dataframe, for scripts that only need a `data`. */
export const SMALL = frame({ compute: [point('1', { flavor: 'm1.nano' })] });

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the promise to reject, but it resolved');
}

/** Prices of a service's points, in order. */
export function prices(dataframe: JsonDataframe, service: string): string[] {
  return (dataframe.usage[service] ?? []).map((p) => p.rating.price);
}
