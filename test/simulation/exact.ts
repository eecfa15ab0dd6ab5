/**
 * Exact decimal arithmetic on scaled BigInts, for expected results computed without Tariff's own
 * decimal code: a value is `units × 10^-scale`. Enough for sums and products of decimal text.
 */
export class Exact {
  private constructor(
    readonly units: bigint,
    readonly scale: number,
  ) {}

  static readonly ZERO = new Exact(0n, 0);

  /** Reads decimal text (`-12.50`, `1e-3`, `2.5E+2`). */
  static of(text: string): Exact {
    const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
    if (!match || (match[2] === '' && (match[3] ?? '') === '')) throw new Error(`not a decimal: '${text}'`);
    const [, sign, whole, fraction = '', exponent = '0'] = match;
    let units = BigInt(`${whole}${fraction}` || '0');
    let scale = fraction.length - Number(exponent);
    if (scale < 0) {
      units *= 10n ** BigInt(-scale);
      scale = 0;
    }
    return new Exact(sign === '-' ? -units : units, scale);
  }

  private aligned(other: Exact): [bigint, bigint, number] {
    const scale = Math.max(this.scale, other.scale);
    return [this.units * 10n ** BigInt(scale - this.scale), other.units * 10n ** BigInt(scale - other.scale), scale];
  }

  plus(other: Exact | string): Exact {
    const [a, b, scale] = this.aligned(typeof other === 'string' ? Exact.of(other) : other);
    return new Exact(a + b, scale);
  }

  minus(other: Exact | string): Exact {
    const [a, b, scale] = this.aligned(typeof other === 'string' ? Exact.of(other) : other);
    return new Exact(a - b, scale);
  }

  times(other: Exact | string): Exact {
    const factor = typeof other === 'string' ? Exact.of(other) : other;
    return new Exact(this.units * factor.units, this.scale + factor.scale);
  }

  equals(other: Exact | string): boolean {
    const [a, b] = this.aligned(typeof other === 'string' ? Exact.of(other) : other);
    return a === b;
  }

  /**
   * `this / other` rounded half-even to `digits` significant digits, as Python's `decimal` does in
   * a context of that precision.
   */
  dividedBy(other: Exact | string, digits = 28): Exact {
    const divisor = typeof other === 'string' ? Exact.of(other) : other;
    if (divisor.units === 0n) throw new Error('division by zero');
    if (this.units === 0n) return Exact.ZERO;
    const negative = this.units < 0n !== divisor.units < 0n;
    const numerator = (this.units < 0n ? -this.units : this.units) * 10n ** BigInt(divisor.scale);
    const denominator = (divisor.units < 0n ? -divisor.units : divisor.units) * 10n ** BigInt(this.scale);
    const length = (value: bigint) => value.toString().length;
    // The quotient scaled by 10^shift has `digits` digits before rounding.
    let shift = digits - 1 - (length(numerator) - length(denominator));
    const scaled = (by: number): [bigint, bigint, bigint] => {
      const [n, d] = by >= 0 ? [numerator * 10n ** BigInt(by), denominator] : [numerator, denominator * 10n ** BigInt(-by)];
      return [n / d, n % d, d];
    };
    let [quotient, remainder, d] = scaled(shift);
    while (length(quotient) > digits) [quotient, remainder, d] = scaled(--shift);
    while (length(quotient) < digits) [quotient, remainder, d] = scaled(++shift);
    if (2n * remainder > d || (2n * remainder === d && quotient % 2n === 1n)) quotient += 1n;
    const units = negative ? -quotient : quotient;
    return shift >= 0 ? new Exact(units, shift) : new Exact(units * 10n ** BigInt(-shift), 0);
  }

  isZero(): boolean {
    return this.units === 0n;
  }

  /** Plain text, no exponent, no trailing zeros (`0.05`, `1234.5`, `-3`, `0`). */
  toString(): string {
    let units = this.units;
    let scale = this.scale;
    while (scale > 0 && units % 10n === 0n) {
      units /= 10n;
      scale -= 1;
    }
    const negative = units < 0n;
    const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
    const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
    return negative ? `-${text}` : text;
  }
}

/** The sum of decimal texts. */
export function sum(values: Iterable<Exact | string>): Exact {
  let total = Exact.ZERO;
  for (const value of values) total = total.plus(value);
  return total;
}
