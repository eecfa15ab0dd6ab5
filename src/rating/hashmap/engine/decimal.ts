/**
 * Rating arithmetic: decimal.js with Python's default `decimal` context (28 significant digits,
 * half-even), so prices match CloudKitty's to the last digit.
 */
import { Decimal } from 'decimal.js';

/** The decimal constructor of the rating engines. */
export const RatingDecimal = Decimal.clone({ precision: 28, rounding: Decimal.ROUND_HALF_EVEN });

/** Decimal text without exponent and without trailing fraction zeros (`0.02`, `2.757`, `0`). */
export function priceText(value: Decimal): string {
  const text = value.toFixed();
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}
