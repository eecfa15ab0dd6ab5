/**
 * Issue 11, item 1: decimals with far exponents. `Exact` must compute what Python's decimal
 * computes when exponents lie hundreds of digits apart (the sticky-unit sums and leading-digit
 * comparisons), and must do so without ever building a power of ten of the exponent's size, which
 * is shown by exponents no machine could build a power of (10^(10^12)): those operations finish.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Exact } from '../../src/rating/common/exact.js';
import { QuoteDecimalError, readQuoteDecimal } from '../../src/rating/common/quote-decimal.js';
import { pythonDecimal } from '../helpers/python-decimal.js';

const SEED = 20261124;

/** Decimal text with 1-40 significant digits (runs of 9s and 0s, ties at the cut) and an exponent in ±400. */
const farDecimal = fc
  .tuple(
    fc.boolean(),
    fc.oneof(
      fc.stringMatching(/^[1-9][0-9]{0,39}$/),
      fc.integer({ min: 1, max: 40 }).map((length) => '9'.repeat(length)),
      fc.integer({ min: 0, max: 39 }).map((zeros) => `1${'0'.repeat(zeros)}`),
      fc.stringMatching(/^[1-9][0-9]{26}5$/),
    ),
    fc.integer({ min: -400, max: 400 }),
  )
  .map(([negative, digits, exponent]) => `${negative ? '-' : ''}${digits}e${exponent}`);

const MINUS_ONE = Exact.from('-1');

describe('Exact with far exponents, against the BigInt reference of Python decimal', () => {
  it('adds, subtracts, multiplies and compares values up to 800 digits apart as Python does', () => {
    fc.assert(
      fc.property(farDecimal, farDecimal, (leftText, rightText) => {
        const [left, right] = [Exact.from(leftText), Exact.from(rightText)];
        const [leftReference, rightReference] = [pythonDecimal.parse(leftText), pythonDecimal.parse(rightText)];
        const negated = { coefficient: -rightReference.coefficient, exponent: rightReference.exponent };
        expect(left.plus(right).toString()).toBe(pythonDecimal.text(pythonDecimal.plus(leftReference, rightReference)));
        expect(left.plus(right.times(MINUS_ONE)).toString()).toBe(pythonDecimal.text(pythonDecimal.plus(leftReference, negated)));
        expect(left.times(right).toString()).toBe(pythonDecimal.text(pythonDecimal.times(leftReference, rightReference)));
        const difference = pythonDecimal.plus(leftReference, negated).coefficient;
        expect(left.compare(right)).toBe(difference < 0n ? -1 : difference > 0n ? 1 : 0);
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });

  it('parses text of any length in one pass, rounding once with what follows the 29th digit', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{1,3000}$/), fc.integer({ min: 0, max: 3000 }), (digits, point) => {
        const cut = Math.min(point, digits.length);
        const text = `${digits.slice(0, cut) || '0'}.${digits.slice(cut)}`;
        expect(Exact.from(text).toString()).toBe(pythonDecimal.text(pythonDecimal.parse(text)));
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('compares, adds and parses values whose powers of ten could never be built', () => {
    const huge = Exact.from('1e1000000000000');
    const tiny = Exact.from('-1e-1000000000000');
    expect(huge.compare(Exact.from('200'))).toBe(1);
    expect(Exact.from('200').compare(huge)).toBe(-1);
    expect(tiny.compare(Exact.ZERO)).toBe(-1);
    expect(Exact.from('2e1000000000000').compare(huge)).toBe(1);
    expect(Exact.from('-3e1000000000000').compare(Exact.from('-2e1000000000000'))).toBe(-1);
    expect(Exact.from('1').plus(tiny).toString()).toBe('1');
    expect(Exact.from('1e-300000').compare(Exact.from('1e-300001'))).toBe(1);
    expect(Exact.from(`1${'0'.repeat(200000)}`).adjusted()).toBe(200000);
    expect(Exact.from(`0.${'0'.repeat(200000)}7`).compare(Exact.ZERO)).toBe(1);
    // An exponent beyond any double still orders: 1e(10^400) > every level.
    expect(Exact.from(`1e${'9'.repeat(400)}`).compare(Exact.from('99999999999.99999999'))).toBe(1);
    expect(Exact.from(`0e${'9'.repeat(400)}`).isZero()).toBe(true);
  });
});

describe('quote decimals (TARIFF_DECIMAL_MAX_EXPONENT)', () => {
  it('accepts exactly the zeros and the magnitudes in [1e-n, 1e+n)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: -100000, max: 100000 }),
        fc.stringMatching(/^[1-9][0-9]{0,30}$/),
        (bound, exponent, digits) => {
          const text = `${digits}e${exponent}`;
          const leading = exponent + digits.length - 1;
          // Rounding to 28 digits may carry into the next power of ten.
          const rounded = pythonDecimal.parse(text);
          const roundedLeading = rounded.exponent + rounded.coefficient.toString().length - 1;
          const inRange = roundedLeading < bound && roundedLeading >= -bound;
          if (inRange) expect(readQuoteDecimal(text, bound).adjusted()).toBe(roundedLeading);
          else expect(() => readQuoteDecimal(text, bound)).toThrow(QuoteDecimalError);
          expect(leading - roundedLeading).toBeGreaterThanOrEqual(-1);
          expect(readQuoteDecimal(`0e${exponent}`, bound).isZero()).toBe(true);
        },
      ),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it('refuses what is not a finite decimal', () => {
    for (const value of ['', 'NaN', 'Infinity', '-Infinity', '1e', 'e5', '0x10', '1,5', '١', true, null, {}, [], Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => readQuoteDecimal(value, 100), String(value)).toThrow(QuoteDecimalError);
    }
    expect(readQuoteDecimal(1e99, 100).toString()).toBe(`1${'0'.repeat(99)}`);
    expect(() => readQuoteDecimal(1e100, 100)).toThrow(/1e-100 and 1e100/);
    expect(() => readQuoteDecimal('1e-101', 100)).toThrow(QuoteDecimalError);
  });
});
