/**
 * Exact decimals for the rating hot path: an integer coefficient times a power of ten, with
 * Python's default `decimal` context (every sum and product rounded to 28 significant digits,
 * half-even), so prices match CloudKitty's to the last digit. This does only what the engine
 * needs: parse, add, multiply, compare, print. `Exact` is immutable; `ExactAccumulator` is its
 * mutable twin, for loops that add and multiply many times without an allocation per operation.
 *
 * Rounding depends on the value only (the exact result rounded to 28 significant digits), never
 * on how its coefficient is written (trailing zeros): values are what must match, and do.
 *
 * The coefficient has one of two forms, chosen by its size alone (a value has exactly one form):
 * - safe: |c| ≤ 2^53 − 1, a JS number. Sums, products and comparisons whose exact integer result
 *   is again safe are done in numbers: integer arithmetic on doubles is exact while the true
 *   result is a safe integer, and a true result beyond always comes out at least 2^53 in
 *   magnitude (rounding is monotonic and 2^53 is a double), so `|result| ≤ 2^53 − 1` tells
 *   exactly when the number result is the exact one. Such a result has at most 16 digits, so the
 *   context never rounds it either;
 * - large: anything else, a BigInt, rounded to 28 significant digits after each operation.
 */

/** Significant digits kept by every operation (Python's default context). */
const PRECISION = 28;
const POWERS: bigint[] = [1n];
function power(exponent: number): bigint {
  for (let index = POWERS.length; index <= exponent; index += 1) POWERS.push(POWERS[index - 1] * 10n);
  return POWERS[exponent];
}
const LIMIT = power(PRECISION);

/** The largest integer a double holds exactly together with all smaller ones (2^53 − 1). */
const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** 10^0 … 10^15 as numbers (exact): 10^16 times any non-zero coefficient is beyond {@link MAX_SAFE}. */
const NUMBER_POWERS = Array.from({ length: 16 }, (_, index) => 10 ** index);
/** 10^0 … 10^22, all exact doubles (for {@link Exact.toApproximateNumber}). */
const EXACT_DOUBLE_POWERS = Array.from({ length: 23 }, (_, index) => 10 ** index);

const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** How a decimal is held (see the module header), by `Exact` and `ExactAccumulator` alike. */
interface Representation {
  /** The coefficient in the safe form; NaN in the large form. */
  readonly safe: number;
  /** The coefficient in the large form; null in the safe form. */
  readonly large: bigint | null;
  readonly exponent: number;
}

/** The number of decimal digits of a positive BigInt. */
function digitCount(magnitude: bigint): number {
  const approximate = Number(magnitude);
  if (!Number.isFinite(approximate)) return magnitude.toString().length;
  // log10 of the nearest double is off by at most one digit near a power of ten: corrected exactly.
  let digits = Math.floor(Math.log10(approximate)) + 1;
  if (magnitude >= power(digits)) digits += 1;
  else if (magnitude < power(digits - 1)) digits -= 1;
  return digits;
}

function bigCoefficient(value: Representation): bigint {
  return value.large ?? BigInt(value.safe);
}

/**
 * `left + sign × right` in numbers when both terms, scaled to the lower exponent, and the result
 * are safe; NaN otherwise (a large operand's NaN `safe` carries through), and the caller then
 * goes to BigInt. The result's exponent is the lower one.
 */
function safeSum(left: Representation, right: Representation, sign: 1 | -1): number {
  const shift = left.exponent - right.exponent;
  if (shift > 15 || shift < -15) return Number.NaN;
  const scaledLeft = shift > 0 ? left.safe * NUMBER_POWERS[shift] : left.safe;
  const scaledRight = shift < 0 ? right.safe * NUMBER_POWERS[-shift] : right.safe;
  if (!(scaledLeft <= MAX_SAFE && scaledLeft >= -MAX_SAFE && scaledRight <= MAX_SAFE && scaledRight >= -MAX_SAFE)) return Number.NaN;
  const sum = scaledLeft + sign * scaledRight;
  return sum <= MAX_SAFE && sum >= -MAX_SAFE ? sum : Number.NaN;
}

/** Exponent distance beyond which a sum's smaller term may be a sticky unit (see {@link stickyBelow}). */
const STICKY_DISTANCE = 2 * PRECISION + 4;

/**
 * The smaller term of a sum, `small × 10^smallExponent`, as a unit of its sign at least two digits below
 * the rounding digit of the larger term `large × 10^largeExponent` when every digit of it lies
 * lower still; the term as it is otherwise. Such a term cannot change the rounded sum's digits,
 * only the rounding, which depends on its sign alone: the sum rounds the same with the unit.
 */
function stickyBelow(large: bigint, largeExponent: number, small: bigint, smallExponent: number): [bigint, number] {
  if (small === 0n || large === 0n) return [small, smallExponent];
  const stickyExponent = largeExponent + digitCount(large < 0n ? -large : large) - PRECISION - 3;
  const smallTop = smallExponent + digitCount(small < 0n ? -small : small);
  if (smallTop > stickyExponent) return [small, smallExponent];
  return [small < 0n ? -1n : 1n, stickyExponent];
}

/**
 * The exponent of a non-zero value's leading digit (Python's `Decimal.adjusted()`): 2 for 123,
 * -3 for 0.00123; 0 for zero.
 */
function adjustedExponent(value: Representation): number {
  if (value.safe === 0) return 0;
  const coefficient = value.large ?? value.safe;
  const magnitude = typeof coefficient === 'bigint' ? (coefficient < 0n ? -coefficient : coefficient) : BigInt(Math.abs(coefficient));
  return value.exponent + digitCount(magnitude) - 1;
}

/** Exponents of parsed text are clamped to ±10^15: far beyond any range the engine computes in, still ordered. */
const LARGEST_EXPONENT = 1e15;

/**
 * The significant digits of decimal text (`whole` and `fraction` digits, the point between them)
 * as a coefficient and exponent, rounded to {@link PRECISION} digits, in time linear in the text:
 * leading and trailing zeros are dropped as text and digits past the 29th are reduced to a sticky
 * unit before any BigInt is built.
 */
function significantDigits(whole: string, fraction: string, exponent: number): { digits: string; exponent: number } {
  let digits = `${whole}${fraction}`;
  let scale = exponent - fraction.length;
  let first = 0;
  while (first < digits.length && digits.charCodeAt(first) === 48) first += 1;
  let end = digits.length;
  while (end > first && digits.charCodeAt(end - 1) === 48) end -= 1;
  scale += digits.length - end;
  digits = digits.slice(first, end);
  const kept = PRECISION + 1;
  if (digits.length > kept + 1) {
    // The 29 leading digits and a sticky 1 for the (non-zero: trailing zeros are gone) rest.
    scale += digits.length - kept - 1;
    digits = `${digits.slice(0, kept)}1`;
  }
  return digits === '' ? { digits: '0', exponent: 0 } : { digits, exponent: scale };
}

/**
 * A mutable exact decimal with the arithmetic of {@link Exact} (28 significant digits, half-even
 * after every operation), for sums and products in a loop: no allocation while values are safe.
 */
export class ExactAccumulator implements Representation {
  safe = 0;
  large: bigint | null = null;
  exponent = 0;

  /** Takes `value`'s value. */
  set(value: Representation): this {
    this.safe = value.safe;
    this.large = value.large;
    this.exponent = value.exponent;
    return this;
  }

  isZero(): boolean {
    // A zero is always safe (and -0 === 0).
    return this.safe === 0;
  }

  /** The current value, as an `Exact`. */
  toExact(): Exact {
    return Exact.of(this);
  }

  /** this × value, rounded. */
  multiply(value: Representation): this {
    if (value === Exact.ONE) return this;
    if (this.large === null && value.large === null) {
      const product = this.safe * value.safe;
      if (product <= MAX_SAFE && product >= -MAX_SAFE) {
        this.safe = product;
        this.exponent += value.exponent;
        return this;
      }
    }
    return this.setBig(bigCoefficient(this) * bigCoefficient(value), this.exponent + value.exponent);
  }

  /** this + value, rounded. */
  add(value: Representation): this {
    if (value.safe === 0) return this;
    if (this.safe === 0) return this.set(value);
    const sum = safeSum(this, value, 1);
    if (sum === sum) {
      this.safe = sum;
      if (value.exponent < this.exponent) this.exponent = value.exponent;
      return this;
    }
    let left = bigCoefficient(this);
    let right = bigCoefficient(value);
    let leftExponent = this.exponent;
    let rightExponent = value.exponent;
    // fix (issue 11): a term entirely below the rounding digit of the other only decides the
    // rounding; it is replaced by a sticky unit just below that digit, so the cost of a sum never
    // grows with the distance between the exponents (1 + 1e-300000 built 10^300000 before).
    if (leftExponent - rightExponent > STICKY_DISTANCE) [right, rightExponent] = stickyBelow(left, leftExponent, right, rightExponent);
    else if (rightExponent - leftExponent > STICKY_DISTANCE) [left, leftExponent] = stickyBelow(right, rightExponent, left, leftExponent);
    return this.setSum(left, leftExponent, right, rightExponent);
  }

  /** Takes `left × 10^leftExponent + right × 10^rightExponent`, rounded. */
  private setSum(left: bigint, leftExponent: number, right: bigint, rightExponent: number): this {
    const shift = leftExponent - rightExponent;
    if (shift === 0) return this.setBig(left + right, leftExponent);
    if (shift > 0) return this.setBig(left * power(shift) + right, rightExponent);
    return this.setBig(left + right * power(-shift), leftExponent);
  }

  /** Takes `coefficient × 10^exponent` rounded to 28 significant digits, half-even. */
  setBig(coefficient: bigint, exponent: number): this {
    // Number() of a BigInt is within the safe range exactly when the BigInt is (see the header).
    const approximate = Number(coefficient);
    if (approximate <= MAX_SAFE && approximate >= -MAX_SAFE) {
      this.safe = approximate;
      this.large = null;
      this.exponent = exponent;
      return this;
    }
    const negative = coefficient < 0n;
    let magnitude = negative ? -coefficient : coefficient;
    if (magnitude >= LIMIT) {
      const drop = digitCount(magnitude) - PRECISION;
      const divisor = power(drop);
      const dropped = magnitude % divisor;
      magnitude /= divisor;
      exponent += drop;
      const twice = dropped * 2n;
      if (twice > divisor || (twice === divisor && magnitude % 2n === 1n)) magnitude += 1n;
    }
    this.safe = Number.NaN;
    this.large = negative ? -magnitude : magnitude;
    this.exponent = exponent;
    return this;
  }
}

/** The accumulator behind `Exact`'s own operations on large values. */
const scratch = new ExactAccumulator();

/** An exact decimal: `coefficient × 10^exponent`. Immutable. */
export class Exact implements Representation {
  // Declared, not initialised: the constructor alone creates the fields (one object shape, no
  // `undefined` first), which keeps the hot path's allocations cheap.
  /** The coefficient in the safe form; NaN in the large form (see the module header). */
  declare readonly safe: number;
  /** The coefficient in the large form; null in the safe form. */
  declare readonly large: bigint | null;
  declare readonly exponent: number;

  private constructor(safe: number, large: bigint | null, exponent: number) {
    this.safe = safe;
    this.large = large;
    this.exponent = exponent;
  }

  static readonly ZERO = new Exact(0, null, 0);
  static readonly ONE = new Exact(1, null, 0);

  /** The current value of an accumulator. */
  static of(value: ExactAccumulator): Exact {
    return new Exact(value.safe, value.large, value.exponent);
  }

  /** The integer coefficient (`value = coefficient × 10^exponent`). */
  get coefficient(): bigint {
    return bigCoefficient(this);
  }

  /**
   * Parses decimal text (`12`, `-0.5`, `1e-3`) or a finite JS number (by its shortest text),
   * rounded to 28 significant digits.
   *
   * @throws RangeError for anything else.
   */
  static from(value: string | number): Exact {
    const text = typeof value === 'number' ? String(value) : value;
    return Exact.readPlain(text) ?? Exact.parse(text.trim());
  }

  /**
   * {@link from}'s fast reader, without a regular expression or a string built: plain decimal text
   * (an optional `-`, digits, at most one point, no exponent, no blank) of at most 15 significant
   * digits, the form nearly every quantity, price and cost comes in. Undefined for anything else,
   * which {@link parse} reads (or refuses). The same value and form as {@link parse} gives: the
   * coefficient without trailing zeros.
   */
  private static readPlain(text: string): Exact | undefined {
    const length = text.length;
    let index = 0;
    let negative = false;
    if (length > 0 && text.charCodeAt(0) === 45) {
      negative = true;
      index = 1;
    }
    let coefficient = 0;
    let significant = 0;
    /** Zeros after the last non-zero digit, not yet in the coefficient. */
    let zeros = 0;
    let fractionDigits = 0;
    let digits = 0;
    let point = false;
    for (; index < length; index += 1) {
      const code = text.charCodeAt(index);
      if (code === 46 && !point) {
        point = true;
        continue;
      }
      const digit = code - 48;
      if (digit < 0 || digit > 9) return undefined;
      digits += 1;
      if (point) fractionDigits += 1;
      if (digit === 0) {
        if (coefficient !== 0) zeros += 1;
        continue;
      }
      significant += zeros + 1;
      if (significant > 15) return undefined;
      coefficient = coefficient * NUMBER_POWERS[zeros + 1] + digit;
      zeros = 0;
    }
    if (digits === 0) return undefined;
    if (coefficient === 0) return new Exact(negative ? -0 : 0, null, 0);
    return new Exact(negative ? -coefficient : coefficient, null, zeros - fractionDigits);
  }

  /** {@link from}'s general reader: any decimal text, by the regular expression. */
  private static parse(text: string): Exact {
    const match = DECIMAL_TEXT.exec(text);
    if (!match || (match[2] === '' && (match[3] ?? '') === '')) throw new RangeError(`not a decimal number: '${text}'`);
    const [, sign, whole, fraction = '', exponentText = '0'] = match;
    const exponent = Math.max(-LARGEST_EXPONENT, Math.min(LARGEST_EXPONENT, Number(exponentText)));
    const { digits, exponent: scale } = significantDigits(whole, fraction, exponent);
    // Trailing zeros are gone (costs arrive as `0.0100000000000000000000000000`): products stay
    // short and need no rounding; the results are the same numbers.
    if (digits.length <= 15) {
      const coefficient = Number(digits);
      return new Exact(sign === '-' ? -coefficient : coefficient, null, scale);
    }
    const coefficient = BigInt(digits);
    return Exact.of(scratch.setBig(sign === '-' ? -coefficient : coefficient, scale));
  }

  plus(other: Exact): Exact {
    if (other.safe === 0) return this;
    if (this.safe === 0) return other;
    const sum = safeSum(this, other, 1);
    if (sum === sum) return new Exact(sum, null, Math.min(this.exponent, other.exponent));
    return Exact.of(scratch.set(this).add(other));
  }

  times(other: Exact): Exact {
    if (other === Exact.ONE) return this;
    if (this === Exact.ONE) return other;
    if (this.large === null && other.large === null) {
      const product = this.safe * other.safe;
      if (product <= MAX_SAFE && product >= -MAX_SAFE) return new Exact(product, null, this.exponent + other.exponent);
    }
    return Exact.of(scratch.set(this).multiply(other));
  }

  /** -1, 0 or 1 as this is less than, equal to or greater than `other`. */
  compare(other: Exact): number {
    const difference = safeSum(this, other, -1);
    if (difference === difference) return difference < 0 ? -1 : difference > 0 ? 1 : 0;
    // Signs, then the leading digits' exponents decide without building powers of ten (fix, issue
    // 11: comparing 1e300000 with a level built 10^300000); only values of equal magnitude are
    // aligned, by at most their digit counts.
    const sign = this.sign();
    const otherSign = other.sign();
    if (sign !== otherSign) return sign < otherSign ? -1 : 1;
    if (sign === 0) return 0;
    const leading = adjustedExponent(this);
    const otherLeading = adjustedExponent(other);
    if (leading !== otherLeading) return (leading < otherLeading ? -1 : 1) * sign;
    let left = bigCoefficient(this);
    let right = bigCoefficient(other);
    if (this.exponent > other.exponent) left *= power(this.exponent - other.exponent);
    else if (other.exponent > this.exponent) right *= power(other.exponent - this.exponent);
    return left < right ? -1 : left > right ? 1 : 0;
  }

  eq(other: Exact): boolean {
    return this.compare(other) === 0;
  }

  /** -1, 0 or 1: the sign. */
  sign(): -1 | 0 | 1 {
    if (this.large !== null) return this.large < 0n ? -1 : 1;
    return this.safe < 0 ? -1 : this.safe > 0 ? 1 : 0;
  }

  /** The exponent of the leading digit (Python's `Decimal.adjusted()`): 2 for 123, -3 for 0.00123, 0 for zero. */
  adjusted(): number {
    return adjustedExponent(this);
  }

  isNegative(): boolean {
    return this.large === null ? this.safe < 0 : this.large < 0n;
  }

  isZero(): boolean {
    // A zero is always safe (and -0 === 0).
    return this.safe === 0;
  }

  /**
   * The double nearest to this value (round half even, as a correctly rounded decimal-to-double
   * conversion gives it), or NaN when it is not had exactly that way: for comparisons that only
   * trust a strict inequality between two such doubles (rounding to nearest is monotonic, so
   * a < b between the doubles implies the same between the decimals).
   */
  toApproximateNumber(): number {
    if (this.large !== null) return Number.NaN;
    // The coefficient and 10^k (k ≤ 22) are exact doubles, and IEEE division and multiplication
    // round their exact result correctly.
    if (this.exponent >= 0) return this.exponent <= 22 ? this.safe * EXACT_DOUBLE_POWERS[this.exponent] : Number.NaN;
    return this.exponent >= -22 ? this.safe / EXACT_DOUBLE_POWERS[-this.exponent] : Number.NaN;
  }

  /** Plain decimal text without exponent and without trailing fraction zeros (`0.02`, `2.757`, `0`). */
  toString(): string {
    if (this.isZero()) return '0';
    const negative = this.isNegative();
    let digits = this.large === null ? String(Math.abs(this.safe)) : (negative ? -this.large : this.large).toString();
    let text: string;
    if (this.exponent >= 0) {
      text = digits + '0'.repeat(this.exponent);
    } else {
      const point = digits.length + this.exponent;
      if (point <= 0) digits = '0'.repeat(1 - point) + digits;
      const split = digits.length + this.exponent;
      text = `${digits.slice(0, split)}.${digits.slice(split)}`.replace(/0+$/, '').replace(/\.$/, '');
    }
    return negative ? `-${text}` : text;
  }
}
