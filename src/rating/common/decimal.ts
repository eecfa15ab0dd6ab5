/**
 * Exact decimals for costs and levels. Values travel as strings end to end: JSON in, decimal.js
 * for checks and arithmetic, fixed-scale text in the database (TEXT on SQLite, which has no exact
 * NUMERIC; `NUMERIC(p,s)` elsewhere) and on the wire.
 */
import { Decimal } from 'decimal.js';
import { invalidInput } from '../../kernel/errors.js';

/**
 * decimal.js constructor for Tariff: 80 significant digits and half-even rounding, as Python's
 * `decimal` context rounds. A private clone, so the global `Decimal` stays untouched.
 */
export const ExactDecimal = Decimal.clone({ precision: 80, rounding: Decimal.ROUND_HALF_EVEN });
export type ExactDecimal = Decimal;

/** An SQL `NUMERIC(precision, scale)` column. */
export interface DecimalColumn {
  /** Total significant digits the column holds. */
  readonly precision: number;
  /** Fraction digits; API output always shows exactly this many. */
  readonly scale: number;
  /** Whether negative values are allowed (costs may be discounts; levels may not). */
  readonly signed: boolean;
}

/** `cost` of mappings and thresholds: `NUMERIC(40,28)`, per unit of quantity per period. */
export const COST_COLUMN: DecimalColumn = { precision: 40, scale: 28, signed: true };
/** `level` of thresholds: `NUMERIC(20,8)`, a quantity or field value, never negative. */
export const LEVEL_COLUMN: DecimalColumn = { precision: 20, scale: 8, signed: false };

/** 10^digits, computed once per column width (a price list parses tens of thousands of decimals). */
const integerLimits = new Map<number, Decimal>();
function integerLimit(digits: number): Decimal {
  let limit = integerLimits.get(digits);
  if (limit === undefined) integerLimits.set(digits, (limit = new ExactDecimal(10).pow(digits)));
  return limit;
}

const DECIMAL_SYNTAX = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const LONGEST_DECIMAL_TEXT = 128;

/**
 * Parses a client decimal (JSON number or numeric string) for a column.
 *
 * A JSON number is taken by its shortest decimal text, so `0.1` is exactly one tenth
 * (fix: CloudKitty on SQLite stored the binary float). More fraction digits than the scale are
 * rounded half-even (api.md §1). A text with more significant digits than the column's whole
 * precision (40 for a cost, 20 for a level) is over-precise and refused (the issue's bad-input
 * list): rounding it would silently drop digits the client meant.
 *
 * @returns the value as fixed-scale text, e.g. `"0.1000000000000000000000000000"` for a cost.
 * @throws BadRequestError (400, WSME `Invalid input` wording) when the value is not a finite
 *   number, has more than `precision - scale` integer digits once rounded, has more significant
 *   digits than `precision`, or is negative for an unsigned column.
 */
export function parseDecimal(value: unknown, column: DecimalColumn, attribute: string): string {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalidInput(attribute, value, 'Value must be a finite decimal number.');
    text = String(value);
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    throw invalidInput(attribute, value, 'Value must be a decimal number or a numeric string.');
  }
  if (text.length > LONGEST_DECIMAL_TEXT || !DECIMAL_SYNTAX.test(text)) {
    throw invalidInput(attribute, value, 'Value must be a finite decimal number.');
  }
  const fixed = plainFixed(text, column);
  if (fixed !== undefined) return fixed;
  const decimal = new ExactDecimal(text);
  const rounded = decimal.toDecimalPlaces(column.scale);
  const integerDigits = column.precision - column.scale;
  if (rounded.abs().gte(integerLimit(integerDigits))) {
    throw invalidInput(attribute, value, `Too many integer digits: at most ${integerDigits}.`);
  }
  if (decimal.precision() > column.precision) {
    throw invalidInput(attribute, value, `Too many significant digits: at most ${column.precision}.`);
  }
  if (!column.signed && rounded.isNegative() && !rounded.isZero()) {
    throw invalidInput(attribute, value, 'Value must not be negative.');
  }
  return formatFixed(rounded, column.scale);
}

const PLAIN_DECIMAL = /^(-?)(\d+)(?:\.(\d*))?$/;

/**
 * {@link parseDecimal}'s answer for the common case, by text alone (no decimal.js objects: a price
 * list parses tens of thousands of costs): a plain decimal, no exponent, with at most `scale`
 * fraction digits (nothing to round), within the column's integer digits and precision, and not
 * negative where the column is unsigned. Anything else: undefined, for the exact path.
 */
function plainFixed(text: string, column: DecimalColumn): string | undefined {
  const match = PLAIN_DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign, integerText, fraction = ''] = match;
  if (fraction.length > column.scale) return undefined;
  const integer = integerText.replace(/^0+/, '');
  if (integer.length > column.precision - column.scale) return undefined;
  const significant = (integer + fraction).replace(/^0+/, '').replace(/0+$/, '');
  if (significant.length > column.precision) return undefined;
  const zero = significant === '';
  if (sign === '-' && !zero && !column.signed) return undefined;
  const body = `${integer || '0'}${column.scale > 0 ? `.${fraction.padEnd(column.scale, '0')}` : ''}`;
  return sign === '-' && !zero ? `-${body}` : body;
}

/**
 * Normalises a decimal read from the database (a string from every driver) to the column's
 * fixed-scale text. Already normalised text is returned as it is.
 */
export function normalizeDecimal(text: string, column: DecimalColumn): string {
  const dot = text.indexOf('.');
  if (dot > 0 && text.length - dot - 1 === column.scale && !text.startsWith('-0.') && !/[eE]/.test(text)) {
    return text;
  }
  return formatFixed(new ExactDecimal(text), column.scale);
}

/** Fixed-point text with `scale` fraction digits; zero is never written `-0`. */
export function formatFixed(value: Decimal, scale: number): string {
  return value.isZero() ? new ExactDecimal(0).toFixed(scale) : value.toFixed(scale, Decimal.ROUND_HALF_EVEN);
}
