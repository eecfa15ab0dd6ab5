/**
 * Exact decimals for the rating hot path: a BigInt coefficient times a power of ten, with
 * Python's default `decimal` context (every sum and product rounded to 28 significant digits,
 * half-even), so prices match CloudKitty's to the last digit. decimal.js took most of the
 * engine's time (bench/engine.js profile); this does only what the engine needs: parse, add,
 * multiply, compare, print.
 */

/** Significant digits kept by every operation (Python's default context). */
const PRECISION = 28;
const POWERS: bigint[] = [1n];
function power(exponent: number): bigint {
  for (let index = POWERS.length; index <= exponent; index += 1) POWERS.push(POWERS[index - 1] * 10n);
  return POWERS[exponent];
}
const LIMIT = power(PRECISION);
const NEGATIVE_LIMIT = -LIMIT;

const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** An exact decimal: `coefficient × 10^exponent`. Immutable. */
export class Exact {
  private constructor(
    readonly coefficient: bigint,
    readonly exponent: number,
  ) {}

  static readonly ZERO = new Exact(0n, 0);
  static readonly ONE = new Exact(1n, 0);

  /**
   * Parses decimal text (`12`, `-0.5`, `1e-3`) or a finite JS number (by its shortest text).
   *
   * @throws RangeError for anything else.
   */
  static from(value: string | number): Exact {
    const text = typeof value === 'number' ? String(value) : value.trim();
    const match = DECIMAL_TEXT.exec(text);
    if (!match || (match[2] === '' && (match[3] ?? '') === '')) throw new RangeError(`not a decimal number: '${text}'`);
    const [, sign, whole, fraction = '', exponent = '0'] = match;
    let digits = BigInt(`${whole}${fraction}` || '0');
    let scale = Number(exponent) - fraction.length;
    // Trailing zeros carry no value (costs arrive as `0.0100000000000000000000000000`): without
    // them products stay short and need no rounding; the results are the same numbers.
    while (digits !== 0n && digits % 10n === 0n) {
      digits /= 10n;
      scale += 1;
    }
    return Exact.rounded(sign === '-' ? -digits : digits, scale);
  }

  /** `coefficient × 10^exponent` rounded to 28 significant digits, half-even. */
  private static rounded(coefficient: bigint, exponent: number): Exact {
    if (coefficient < LIMIT && coefficient > NEGATIVE_LIMIT) return new Exact(coefficient, exponent);
    const magnitude = coefficient < 0n ? -coefficient : coefficient;
    const drop = magnitude.toString().length - PRECISION;
    const divisor = power(drop);
    let quotient = magnitude / divisor;
    const remainder = magnitude % divisor;
    const twice = remainder * 2n;
    if (twice > divisor || (twice === divisor && quotient % 2n === 1n)) quotient += 1n;
    return new Exact(coefficient < 0n ? -quotient : quotient, exponent + drop);
  }

  plus(other: Exact): Exact {
    if (other.coefficient === 0n) return this;
    if (this.coefficient === 0n) return other;
    if (this.exponent === other.exponent) return Exact.rounded(this.coefficient + other.coefficient, this.exponent);
    if (this.exponent > other.exponent) {
      return Exact.rounded(this.coefficient * power(this.exponent - other.exponent) + other.coefficient, other.exponent);
    }
    return Exact.rounded(this.coefficient + other.coefficient * power(other.exponent - this.exponent), this.exponent);
  }

  times(other: Exact): Exact {
    return Exact.rounded(this.coefficient * other.coefficient, this.exponent + other.exponent);
  }

  /** -1, 0 or 1 as this is less than, equal to or greater than `other`. */
  compare(other: Exact): number {
    let left = this.coefficient;
    let right = other.coefficient;
    if (this.exponent > other.exponent) left *= power(this.exponent - other.exponent);
    else if (other.exponent > this.exponent) right *= power(other.exponent - this.exponent);
    return left < right ? -1 : left > right ? 1 : 0;
  }

  eq(other: Exact): boolean {
    return this.compare(other) === 0;
  }

  isNegative(): boolean {
    return this.coefficient < 0n;
  }

  isZero(): boolean {
    return this.coefficient === 0n;
  }

  gt(other: Exact): boolean {
    return this.compare(other) > 0;
  }

  lt(other: Exact): boolean {
    return this.compare(other) < 0;
  }

  /** Plain decimal text without exponent and without trailing fraction zeros (`0.02`, `2.757`, `0`). */
  toString(): string {
    if (this.coefficient === 0n) return '0';
    const negative = this.coefficient < 0n;
    let digits = (negative ? -this.coefficient : this.coefficient).toString();
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
