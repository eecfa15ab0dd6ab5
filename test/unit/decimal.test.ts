import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../src/kernel/errors.js';
import { COST_COLUMN, ExactDecimal, LEVEL_COLUMN, formatFixed, normalizeDecimal, parseDecimal } from '../../src/rating/common/decimal.js';

/** The 400 message parseDecimal throws, or null when it does not throw. */
function failure(value: unknown, column = COST_COLUMN, attribute = 'cost'): string | null {
  try {
    parseDecimal(value, column, attribute);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).status).toBe(400);
    return (error as Error).message;
  }
}

const ZERO_COST = '0.0000000000000000000000000000';

describe('parseDecimal: costs (NUMERIC(40,28))', () => {
  it('takes a JSON number by its shortest decimal text (0.1 is exactly one tenth)', () => {
    expect(parseDecimal(0.1, COST_COLUMN, 'cost')).toBe('0.1000000000000000000000000000');
    expect(parseDecimal(0.2, COST_COLUMN, 'cost')).toBe('0.2000000000000000000000000000');
    expect(parseDecimal(1.5, COST_COLUMN, 'cost')).toBe('1.5000000000000000000000000000');
    expect(parseDecimal(2, COST_COLUMN, 'cost')).toBe('2.0000000000000000000000000000');
    expect(parseDecimal(0, COST_COLUMN, 'cost')).toBe(ZERO_COST);
    expect(parseDecimal(1e-7, COST_COLUMN, 'cost')).toBe('0.0000001000000000000000000000');
    expect(parseDecimal(123456789012, COST_COLUMN, 'cost')).toBe('123456789012.0000000000000000000000000000');
  });

  it('accepts numeric strings: plain, signed, exponent, leading dot, trailing dot, surrounding blanks', () => {
    expect(parseDecimal('0.1', COST_COLUMN, 'cost')).toBe('0.1000000000000000000000000000');
    expect(parseDecimal('1e-3', COST_COLUMN, 'cost')).toBe('0.0010000000000000000000000000');
    expect(parseDecimal('1E3', COST_COLUMN, 'cost')).toBe('1000.0000000000000000000000000000');
    expect(parseDecimal('2.5e+2', COST_COLUMN, 'cost')).toBe('250.0000000000000000000000000000');
    expect(parseDecimal('+3', COST_COLUMN, 'cost')).toBe('3.0000000000000000000000000000');
    expect(parseDecimal('.5', COST_COLUMN, 'cost')).toBe('0.5000000000000000000000000000');
    expect(parseDecimal('5.', COST_COLUMN, 'cost')).toBe('5.0000000000000000000000000000');
    expect(parseDecimal('  7.25 ', COST_COLUMN, 'cost')).toBe('7.2500000000000000000000000000');
    expect(parseDecimal('00012.50', COST_COLUMN, 'cost')).toBe('12.5000000000000000000000000000');
  });

  it('echoes its own output unchanged (the client sends the GET cost back on PUT)', () => {
    const text = '0.1234567890123456789012345678';
    expect(parseDecimal(text, COST_COLUMN, 'cost')).toBe(text);
    expect(parseDecimal('-999999999999.9999999999999999999999999999', COST_COLUMN, 'cost')).toBe('-999999999999.9999999999999999999999999999');
  });

  it('allows negative costs (discounts) and never writes -0', () => {
    expect(parseDecimal(-0.5, COST_COLUMN, 'cost')).toBe('-0.5000000000000000000000000000');
    expect(parseDecimal('-1e-3', COST_COLUMN, 'cost')).toBe('-0.0010000000000000000000000000');
    expect(parseDecimal('-0', COST_COLUMN, 'cost')).toBe(ZERO_COST);
    expect(parseDecimal(-0, COST_COLUMN, 'cost')).toBe(ZERO_COST);
    // Rounds to zero: still not "-0".
    expect(parseDecimal('-0.00000000000000000000000000001', COST_COLUMN, 'cost')).toBe(ZERO_COST);
  });

  it('rounds more fraction digits than the scale half-even', () => {
    // 29th fraction digit 5, exact tie: to the even 28th digit.
    expect(parseDecimal('0.00000000000000000000000000005', COST_COLUMN, 'cost')).toBe(ZERO_COST);
    expect(parseDecimal('0.00000000000000000000000000015', COST_COLUMN, 'cost')).toBe('0.0000000000000000000000000002');
    expect(parseDecimal('0.00000000000000000000000000025', COST_COLUMN, 'cost')).toBe('0.0000000000000000000000000002');
    expect(parseDecimal('0.00000000000000000000000000035', COST_COLUMN, 'cost')).toBe('0.0000000000000000000000000004');
    expect(parseDecimal('-0.00000000000000000000000000025', COST_COLUMN, 'cost')).toBe('-0.0000000000000000000000000002');
    // Not a tie: to the nearest.
    expect(parseDecimal('0.000000000000000000000000000251', COST_COLUMN, 'cost')).toBe('0.0000000000000000000000000003');
    expect(parseDecimal('0.00000000000000000000000000024999', COST_COLUMN, 'cost')).toBe('0.0000000000000000000000000002');
  });

  it('refuses a value with more significant digits than the column holds (over-precise)', () => {
    expect(failure('1.0000000000000000000000000000000000000001')).toBe(
      "Invalid input for field/attribute cost. Value: '1.0000000000000000000000000000000000000001'. Too many significant digits: at most 40.",
    );
    expect(failure('0.33333333333333333333333333333333333333333')).toMatch(/Too many significant digits: at most 40\.$/);
    expect(() => parseDecimal('0.123456789012345678901', LEVEL_COLUMN, 'level')).toThrow(/Too many significant digits: at most 20\./);
    // Within the precision: rounded.
    expect(parseDecimal('0.333333333333333333333333333333333', COST_COLUMN, 'cost')).toBe('0.3333333333333333333333333333');
    expect(parseDecimal('1e-1000000', COST_COLUMN, 'cost')).toBe(ZERO_COST);
  });

  it('holds 12 integer digits and refuses a 13th', () => {
    expect(parseDecimal('999999999999', COST_COLUMN, 'cost')).toBe('999999999999.0000000000000000000000000000');
    expect(parseDecimal('-999999999999', COST_COLUMN, 'cost')).toBe('-999999999999.0000000000000000000000000000');
    const message = "Invalid input for field/attribute cost. Value: '1000000000000'. Too many integer digits: at most 12.";
    expect(failure('1000000000000')).toBe(message);
    expect(failure(1e12)).toBe(message);
    expect(failure('-1000000000000')).toBe("Invalid input for field/attribute cost. Value: '-1000000000000'. Too many integer digits: at most 12.");
    expect(failure('1e12')).toBe("Invalid input for field/attribute cost. Value: '1e12'. Too many integer digits: at most 12.");
    expect(failure('1e400')).toBe("Invalid input for field/attribute cost. Value: '1e400'. Too many integer digits: at most 12.");
  });

  it('refuses a value that rounds up past the integer-digit limit', () => {
    expect(failure('999999999999.99999999999999999999999999999')).toBe(
      "Invalid input for field/attribute cost. Value: '999999999999.99999999999999999999999999999'. Too many integer digits: at most 12.",
    );
  });

  it('refuses NaN, Infinity and non-numbers with the attribute and value in the message', () => {
    // JSON cannot carry NaN or Infinity numbers; only the reason matters here.
    expect(failure(Number.NaN)).toMatch(/^Invalid input for field\/attribute cost\. Value: '.*'\. Value must be a finite decimal number\.$/);
    expect(failure(Number.POSITIVE_INFINITY)).toMatch(/^Invalid input for field\/attribute cost\. Value: '.*'\. Value must be a finite decimal number\.$/);
    expect(failure('NaN')).toBe("Invalid input for field/attribute cost. Value: 'NaN'. Value must be a finite decimal number.");
    expect(failure('Infinity')).toBe("Invalid input for field/attribute cost. Value: 'Infinity'. Value must be a finite decimal number.");
    expect(failure('-Infinity')).toBe("Invalid input for field/attribute cost. Value: '-Infinity'. Value must be a finite decimal number.");
    expect(failure('abc')).toBe("Invalid input for field/attribute cost. Value: 'abc'. Value must be a finite decimal number.");
    expect(failure('')).toBe("Invalid input for field/attribute cost. Value: ''. Value must be a finite decimal number.");
    expect(failure('1,5')).toBe("Invalid input for field/attribute cost. Value: '1,5'. Value must be a finite decimal number.");
    expect(failure('0x10')).toBe("Invalid input for field/attribute cost. Value: '0x10'. Value must be a finite decimal number.");
    expect(failure('1e')).toBe("Invalid input for field/attribute cost. Value: '1e'. Value must be a finite decimal number.");
    expect(failure('.')).toBe("Invalid input for field/attribute cost. Value: '.'. Value must be a finite decimal number.");
    expect(failure(true)).toBe("Invalid input for field/attribute cost. Value: 'True'. Value must be a decimal number or a numeric string.");
    expect(failure(null)).toBe("Invalid input for field/attribute cost. Value: 'None'. Value must be a decimal number or a numeric string.");
    expect(failure([1])).toBe("Invalid input for field/attribute cost. Value: '[1]'. Value must be a decimal number or a numeric string.");
  });

  it('refuses absurdly long text without parsing it', () => {
    const long = `1.${'0'.repeat(200)}`;
    expect(failure(long)).toBe(`Invalid input for field/attribute cost. Value: '${long.slice(0, 80)}...'. Value must be a finite decimal number.`);
  });
});

describe('parseDecimal: levels (NUMERIC(20,8), unsigned)', () => {
  it('formats with 8 fraction digits', () => {
    expect(parseDecimal('10', LEVEL_COLUMN, 'level')).toBe('10.00000000');
    expect(parseDecimal(2, LEVEL_COLUMN, 'level')).toBe('2.00000000');
    expect(parseDecimal('0.5', LEVEL_COLUMN, 'level')).toBe('0.50000000');
    expect(parseDecimal('999999999999.99999999', LEVEL_COLUMN, 'level')).toBe('999999999999.99999999');
  });

  it('rounds half-even at the 8th fraction digit', () => {
    expect(parseDecimal('1.123456785', LEVEL_COLUMN, 'level')).toBe('1.12345678');
    expect(parseDecimal('1.123456775', LEVEL_COLUMN, 'level')).toBe('1.12345678');
    expect(parseDecimal('1.123456795', LEVEL_COLUMN, 'level')).toBe('1.12345680');
    expect(parseDecimal('0.1234567890123456789', LEVEL_COLUMN, 'level')).toBe('0.12345679');
  });

  it('refuses a negative level, naming the attribute', () => {
    expect(failure('-1', LEVEL_COLUMN, 'level')).toBe("Invalid input for field/attribute level. Value: '-1'. Value must not be negative.");
    expect(failure(-0.5, LEVEL_COLUMN, 'level')).toBe("Invalid input for field/attribute level. Value: '-0.5'. Value must not be negative.");
    expect(parseDecimal('-0', LEVEL_COLUMN, 'level')).toBe('0.00000000');
  });

  it('holds 12 integer digits', () => {
    expect(failure('1000000000000', LEVEL_COLUMN, 'level')).toBe(
      "Invalid input for field/attribute level. Value: '1000000000000'. Too many integer digits: at most 12.",
    );
  });
});

describe('normalizeDecimal', () => {
  it('returns already normalised text as it is', () => {
    expect(normalizeDecimal('0.1000000000000000000000000000', COST_COLUMN)).toBe('0.1000000000000000000000000000');
    expect(normalizeDecimal('-2.5000000000000000000000000000', COST_COLUMN)).toBe('-2.5000000000000000000000000000');
    expect(normalizeDecimal('10.00000000', LEVEL_COLUMN)).toBe('10.00000000');
  });

  it('pads or rounds driver text to the scale', () => {
    expect(normalizeDecimal('0.1', COST_COLUMN)).toBe('0.1000000000000000000000000000');
    expect(normalizeDecimal('2', COST_COLUMN)).toBe('2.0000000000000000000000000000');
    expect(normalizeDecimal('1e-3', COST_COLUMN)).toBe('0.0010000000000000000000000000');
    expect(normalizeDecimal('1.5', LEVEL_COLUMN)).toBe('1.50000000');
    expect(normalizeDecimal('1.123456785', LEVEL_COLUMN)).toBe('1.12345678');
  });

  it('never returns -0', () => {
    expect(normalizeDecimal('-0.0000000000000000000000000000', COST_COLUMN)).toBe(ZERO_COST);
    expect(normalizeDecimal('-0', LEVEL_COLUMN)).toBe('0.00000000');
  });
});

describe('formatFixed', () => {
  it('writes exactly `scale` fraction digits, half-even, without -0', () => {
    expect(formatFixed(new ExactDecimal('2.5'), 0)).toBe('2');
    expect(formatFixed(new ExactDecimal('3.5'), 0)).toBe('4');
    expect(formatFixed(new ExactDecimal('-0'), 2)).toBe('0.00');
    expect(formatFixed(new ExactDecimal('1'), 3)).toBe('1.000');
  });
});

describe('parseDecimal, plain decimals read by text alone', () => {
  const plain = fc
    .tuple(fc.constantFrom('', '-'), fc.stringMatching(/^\d{1,22}$/), fc.option(fc.stringMatching(/^\d{0,30}$/), { nil: undefined }))
    .map(([sign, integer, fraction]) => `${sign}${integer}${fraction === undefined ? '' : `.${fraction}`}`);

  it('gives what the exact decimal arithmetic gives, refusals included', () => {
    fc.assert(
      fc.property(plain, fc.constantFrom(COST_COLUMN, LEVEL_COLUMN), (text, column) => {
        let expected: string;
        try {
          const decimal = new ExactDecimal(text);
          const rounded = decimal.toDecimalPlaces(column.scale);
          const tooLarge = rounded.abs().gte(new ExactDecimal(10).pow(column.precision - column.scale));
          const negative = !column.signed && rounded.isNegative() && !rounded.isZero();
          expected = tooLarge || decimal.precision() > column.precision || negative ? 'refused' : formatFixed(rounded, column.scale);
        } catch {
          expected = 'refused';
        }
        let actual: string;
        try {
          actual = parseDecimal(text, column, 'cost');
        } catch {
          actual = 'refused';
        }
        expect(actual).toBe(expected);
      }),
      { numRuns: 5000 },
    );
  });
});
