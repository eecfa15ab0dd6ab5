/** How the pages write the API's values: decimals without trailing zeros, a dash for none, counts with their noun. */
import { plainDecimal } from './decimal-text.js';

/**
 * A decimal as the API sends it (`cost` with 28 fraction digits, `level` with 8) without its
 * trailing zeros: `1.5000000000` → `1.5`, `2.000` → `2`; `—` for none.
 */
export function formatDecimal(value: string | null): string {
  return value === null ? '—' : plainDecimal(value);
}

/** A text the API may leave unset (tenant, description, value): `—` for none or empty. */
export function orDash(value: string | null | undefined): string {
  return value === null || value === undefined || value === '' ? '—' : value;
}

/** A count with its noun, thousands separated: `1 rule`, `10,000 rules`. */
export function countOf(count: number, noun: string): string {
  return `${count.toLocaleString('en')} ${noun}${count === 1 ? '' : 's'}`;
}
