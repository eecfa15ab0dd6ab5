/**
 * The decimals a quote prices with: quantities and prices a caller sends, and the ones a module
 * hands back (the PyScripts scripts' output). Each is read into an `Exact` and kept inside a bounded range, so that no value a caller
 * chooses makes the arithmetic or the answer grow with its exponent (fix, issue 11: a 48-byte
 * quote of `"qty": "1e100000000"` answered a 100 MB body).
 */
import { invalidInput } from '../../kernel/errors.js';
import { Exact } from './exact.js';

/** Decimal text as JSON carries it: a JSON number's shortest text, or a numeric string. */
const DECIMAL_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Why a value is not a quote decimal, for the caller's message. */
export class QuoteDecimalError extends Error {}

/**
 * Reads a quote decimal: a finite JSON number or numeric text whose magnitude, when it is not
 * zero, lies in [10^-maxExponent, 10^maxExponent) (`TARIFF_DECIMAL_MAX_EXPONENT`, default 100:
 * far beyond any real quantity or price, and small enough that prices print in a few hundred
 * characters). Parsing takes time linear in the text, whatever its exponent.
 *
 * CloudKitty compat: within the range the value is Python's `Decimal` of the same text, rounded
 * to 28 significant digits, so prices stay CloudKitty's.
 *
 * @param value - the JSON value (number or string).
 * @param maxExponent - the range's bound, a positive integer.
 * @returns the exact value.
 * @throws QuoteDecimalError naming what is wrong (not a number, or out of range with the bound).
 */
export function readQuoteDecimal(value: unknown, maxExponent: number): Exact {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : typeof value === 'string' ? value.trim() : '';
  if (!DECIMAL_TEXT.test(text)) throw new QuoteDecimalError('Value must be a finite decimal number.');
  const decimal = Exact.from(text);
  if (decimal.isZero()) return Exact.ZERO;
  const leading = decimal.adjusted();
  if (leading >= maxExponent || leading < -maxExponent) {
    throw new QuoteDecimalError(`Value must be 0 or between 1e-${maxExponent} and 1e${maxExponent} in magnitude (TARIFF_DECIMAL_MAX_EXPONENT).`);
  }
  return decimal;
}

/**
 * A decimal of the caller's request, by {@link readQuoteDecimal}.
 *
 * @param where - the attribute, for the message (`usage.compute[0].vol.qty`).
 * @throws BadRequestError (400, WSME `Invalid input` wording) naming the attribute.
 */
export function inputDecimal(value: unknown, where: string, maxExponent: number): Exact {
  try {
    return readQuoteDecimal(value, maxExponent);
  } catch (error) {
    if (error instanceof QuoteDecimalError) throw invalidInput(where, value, error.message);
    throw error;
  }
}
