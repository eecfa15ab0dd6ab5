/**
 * `Exact.from`'s fast reader of plain decimal text (digits, a point, a minus sign; at most 15
 * significant digits) must give exactly what the general reader gives: the same value in the
 * same form (coefficient without trailing zeros), for any text, including the ones it hands over
 * (an exponent, a plus sign, blanks, more digits) and the ones both refuse.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Exact } from '../../src/rating/common/exact.js';
import { pythonDecimal } from '../helpers/python-decimal.js';

const SEED = 20261128;

/** The form a value is held in: what the two readers must agree on, field by field. */
const form = (value: Exact) => ({ safe: Object.is(value.safe, -0) ? '-0' : value.safe, large: value.large, exponent: value.exponent });

/** Plain decimal text with leading and trailing zeros, a point anywhere or none, 0-20 digits. */
const plainText = fc
  .tuple(fc.boolean(), fc.stringMatching(/^[0-9]{0,20}$/), fc.option(fc.integer({ min: 0, max: 20 })), fc.constantFrom('', '0', '00', '000'))
  .map(([negative, digits, point, zeros]) => {
    const all = digits + zeros;
    const text = point === null ? all : `${all.slice(0, Math.min(point, all.length))}.${all.slice(Math.min(point, all.length))}`;
    return `${negative ? '-' : ''}${text}`;
  });

describe('Exact.from on plain decimal text', () => {
  it('gives the same value in the same form as the general reader, or refuses what it refuses', () => {
    fc.assert(
      fc.property(plainText, (text) => {
        // An exponent of zero sends the same value through the general reader.
        let general: Exact | RangeError;
        try {
          general = Exact.from(`${text}e0`);
        } catch (error) {
          general = error as RangeError;
        }
        if (general instanceof RangeError) {
          expect(() => Exact.from(text)).toThrow(RangeError);
          return;
        }
        const fast = Exact.from(text);
        expect(form(fast)).toEqual(form(general));
        expect(fast.toString()).toBe(pythonDecimal.text(pythonDecimal.parse(text)));
      }),
      { seed: SEED, numRuns: 5000 },
    );
  });

  it('reads what it hands over as before: signs, blanks, exponents, numbers, 16 digits and more', () => {
    expect(Exact.from('+1.50').toString()).toBe('1.5');
    expect(Exact.from(' 2.0 ').toString()).toBe('2');
    expect(Exact.from('1e-3').toString()).toBe('0.001');
    expect(Exact.from(0.25).toString()).toBe('0.25');
    expect(Exact.from(1e21).toString()).toBe('1000000000000000000000');
    expect(Exact.from('1234567890123456').safe).toBe(1234567890123456);
    expect(Exact.from('12345678901234567').large).toBe(12345678901234567n);
    expect(Exact.from('123456789012345').safe).toBe(123456789012345);
    for (const refused of ['', '.', '-', '1.2.3', '1-', '0x10', '١']) expect(() => Exact.from(refused), refused).toThrow(RangeError);
  });
});
