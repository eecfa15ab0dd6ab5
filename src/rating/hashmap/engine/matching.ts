/**
 * How a point's values meet the rules (rating.md §5 steps 3-4): the text form a field mapping is
 * compared with, and how many threshold levels a quantity or a numeric desc value reaches.
 */
import { Exact } from '../../common/exact.js';
import { JsonNumberText } from '../../../kernel/json-number.js';
import { exactDoubleText, isIntegerText, pythonFloatText, pythonNumberText } from '../../common/python-number.js';
import type { PlannedLevels } from './types.js';

/** Numeric text as the engine accepts it for field thresholds (surrounding blanks allowed). */
const NUMERIC_TEXT = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/**
 * Python's `str()` of a desc value as CloudKitty sees it: strings as they are, `true` → `True`,
 * `null` → `None`, a number read with its source text as Python's `json` reads it (`2.0` →
 * `2.0`, `1e16` → `1e+16`, `2` → `2`: `pythonNumberText`), a plain number as the integer or
 * float its shortest JSON text would be.
 *
 * CloudKitty compat: a quote's metadata and groupby numbers arrive as {@link JsonNumberText}, so
 * `2.0` matches a mapping `'2.0'` and not `'2'` (fix: Tariff wrote JS's `String()`, `'2'`).
 */
export function pythonText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (value instanceof JsonNumberText) return pythonNumberText(value.text);
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) < 1e21 ? String(value) : pythonFloatText(value);
  return String(value);
}

/** The levels, distinct and ascending, with their nearest doubles. */
export function plannedLevels(levels: readonly Exact[]): PlannedLevels {
  const sorted = [...levels].sort((left, right) => left.compare(right));
  const exact = sorted.filter((level, index) => index === 0 || !level.eq(sorted[index - 1]));
  return { exact, approximations: Float64Array.from(exact, (level) => level.toApproximateNumber()) };
}

/**
 * How many of `levels` a desc value reaches (value ≥ level), or 0 when the value is not numeric
 * (fix: CloudKitty aborted the whole rating run on a non-numeric value for a field with
 * thresholds).
 *
 * CloudKitty compat: the value is compared exactly, as Python compares `Decimal(value)` with the
 * level: numeric text and integers by their digits; a float (a number with a fraction or an
 * exponent in the JSON text, or a plain JS number) by its double's exact binary value, so `0.3`
 * (0.29999999999999998889…) does not reach a level of 0.3. An infinite number reaches nothing
 * (quotes refuse them before pricing).
 */
export function levelsReachedByValue(levels: PlannedLevels, value: unknown): number {
  if (value instanceof JsonNumberText) {
    if (!Number.isFinite(value.value)) return 0;
    return levelsReached(levels, value.value, undefined, isIntegerText(value.text) ? value.text : value.value);
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return 0;
    return levelsReached(levels, value, undefined, value);
  }
  if (typeof value === 'string' && NUMERIC_TEXT.test(value)) {
    // A text of at most 20 characters has at most 20 significant digits, which ECMAScript's
    // StringToNumber converts to the nearest double.
    return levelsReached(levels, value.length <= 20 ? Number(value) : Number.NaN, undefined, value);
  }
  return 0;
}

/** How many of `levels` a quantity reaches (quantity ≥ level). */
export function levelsReachedByQuantity(levels: PlannedLevels, quantity: Exact): number {
  return levels.exact.length === 0 ? 0 : levelsReached(levels, quantity.toApproximateNumber(), quantity, undefined);
}

/**
 * How many of the distinct ascending `levels` a value reaches, by bisection. Nearest doubles
 * decide when they differ (rounding to nearest is monotonic, so a strict order of the doubles is
 * the order of the decimals); equal or untrusted (NaN) ones fall back to the exact decimals.
 *
 * @param approximation - the value's nearest double, or NaN.
 * @param exact - the value's exact decimal (a quantity), or undefined to compare `source`.
 * @param source - numeric text (compared digit by digit) or a finite double (compared by its
 *   exact binary value).
 */
function levelsReached(levels: PlannedLevels, approximation: number, exact: Exact | undefined, source: string | number | undefined): number {
  const approximations = levels.approximations;
  let low = 0;
  let high = approximations.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const level = approximations[middle];
    let reached: boolean;
    if (approximation > level) {
      reached = true;
    } else if (approximation < level) {
      reached = false;
    } else if (exact !== undefined) {
      reached = exact.compare(levels.exact[middle]) >= 0;
    } else {
      // A double's exact value is computed only on such ties (equal nearest doubles).
      if (typeof source === 'number') source = exactDoubleText(source);
      reached = compareTextWithLevel(source ?? '0', levels.exact[middle]) >= 0;
    }
    if (reached) low = middle + 1;
    else high = middle;
  }
  return low;
}

const DECIMAL_PARTS = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/;

/**
 * Compares numeric desc text with a level exactly, digit by digit, whatever its length or
 * exponent: -1, 0 or 1.
 *
 * CloudKitty compat: Python compares `Decimal(text)` unrounded, so `999.99…9` (40 nines) stays
 * below a level of 1000 (rounding it to 28 digits first made it reach the level). Linear in the
 * text; no power of ten is built (fix, issue 11).
 *
 * @param text - text that matched {@link NUMERIC_TEXT}.
 */
export function compareTextWithLevel(text: string, level: Exact): number {
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = DECIMAL_PARTS.exec(text) ?? [];
  const levelSign = level.sign();
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits === '') return -levelSign;
  const trimmed = digits.replace(/0+$/, '');
  const exponent = Math.max(-1e15, Math.min(1e15, Number(exponentText))) - fraction.length + (digits.length - trimmed.length);
  digits = trimmed;
  const valueSign = sign === '-' ? -1 : 1;
  if (valueSign !== levelSign) return valueSign < levelSign ? -1 : 1;
  const levelCoefficient = level.coefficient;
  const levelDigits = (levelCoefficient < 0n ? -levelCoefficient : levelCoefficient).toString();
  const leading = exponent + digits.length - 1;
  const levelLeading = level.adjusted();
  if (leading !== levelLeading) return (leading < levelLeading ? -1 : 1) * valueSign;
  const width = Math.max(digits.length, levelDigits.length);
  const left = digits.padEnd(width, '0');
  const right = levelDigits.padEnd(width, '0');
  return (left < right ? -1 : left > right ? 1 : 0) * valueSign;
}
