/**
 * Python's `decimal` in its default context, by the book, for tests: exact BigInt arithmetic, then
 * 28 significant digits half-even. Slow and obviously right: the reference `Exact` is checked
 * against.
 */

/** A decimal as `coefficient × 10^exponent`. */
export interface ReferenceDecimal {
  coefficient: bigint;
  exponent: number;
}

/** The reference operations; every result is rounded as Python's default context rounds. */
export const pythonDecimal = {
  parse(text: string): ReferenceDecimal {
    const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text)!;
    const fraction = match[3] ?? '';
    const coefficient = BigInt(`${match[2]}${fraction}` || '0');
    return pythonDecimal.round(match[1] === '-' ? -coefficient : coefficient, Number(match[4] ?? 0) - fraction.length);
  },
  round(coefficient: bigint, exponent: number): ReferenceDecimal {
    const negative = coefficient < 0n;
    let magnitude = negative ? -coefficient : coefficient;
    const drop = magnitude.toString().length - 28;
    if (drop > 0) {
      const divisor = 10n ** BigInt(drop);
      const remainder = magnitude % divisor;
      magnitude /= divisor;
      if (remainder * 2n > divisor || (remainder * 2n === divisor && magnitude % 2n === 1n)) magnitude += 1n;
      exponent += drop;
    }
    return { coefficient: negative ? -magnitude : magnitude, exponent };
  },
  plus(left: ReferenceDecimal, right: ReferenceDecimal) {
    const exponent = Math.min(left.exponent, right.exponent);
    const scaled = (value: ReferenceDecimal) => value.coefficient * 10n ** BigInt(value.exponent - exponent);
    return pythonDecimal.round(scaled(left) + scaled(right), exponent);
  },
  times(left: ReferenceDecimal, right: ReferenceDecimal) {
    return pythonDecimal.round(left.coefficient * right.coefficient, left.exponent + right.exponent);
  },
  /** Plain text of the value, as Exact prints it. */
  text(value: ReferenceDecimal): string {
    if (value.coefficient === 0n) return '0';
    const negative = value.coefficient < 0n;
    let digits = (negative ? -value.coefficient : value.coefficient).toString();
    let text: string;
    if (value.exponent >= 0) {
      text = digits + '0'.repeat(value.exponent);
    } else {
      if (digits.length + value.exponent <= 0) digits = '0'.repeat(1 - digits.length - value.exponent) + digits;
      const split = digits.length + value.exponent;
      text = `${digits.slice(0, split)}.${digits.slice(split)}`.replace(/0+$/, '').replace(/\.$/, '');
    }
    return negative ? `-${text}` : text;
  },
};
