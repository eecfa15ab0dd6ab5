/**
 * JSON numbers as CloudKitty's Python reads them (rating.md §5): Tariff's text of a JSON number
 * (`pythonNumberText`) must be Python's `str(json.loads(text))`, its refusals
 * (`pythonNumberFault`) exactly the numbers Python reads as infinity or cannot read, and a
 * double's exact value (`exactDoubleText`) Python's `Decimal(float)`. Checked against Debian's
 * `/usr/bin/python3`, all texts in one process (JSON lines in, JSON lines out).
 * `TARIFF_FUZZ_SEED` (default 11) fixes the generated texts.
 */
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exactDoubleText, pythonFloatText, pythonNumberFault, pythonNumberText } from '../../src/rating/common/python-number.js';

const SEED = Number(process.env.TARIFF_FUZZ_SEED ?? 11);
const RUNS = 5000;

/** What Python says of each text: `str(json.loads(text))`, or the error; for floats, `Decimal(value)` as digits and exponent. */
const PYTHON_PROGRAM = String.raw`
import json, sys, math
from decimal import Decimal
for line in sys.stdin:
    text = json.loads(line)
    try:
        value = json.loads(text)
    except ValueError as error:
        print(json.dumps({"error": type(error).__name__}))
        continue
    answer = {"text": str(value), "float": isinstance(value, float)}
    if isinstance(value, float) and math.isfinite(value):
        sign, digits, exponent = Decimal(value).as_tuple()
        answer["exact"] = ("-" if sign else "") + "".join(map(str, digits)) + "e" + str(exponent)
    print(json.dumps(answer))
`;

interface PythonAnswer {
  text?: string;
  float?: boolean;
  exact?: string;
  error?: string;
}

/** Python's answers for `texts`, in order (one python3 process). */
function askPython(texts: readonly string[]): PythonAnswer[] {
  const result = spawnSync('/usr/bin/python3', ['-c', PYTHON_PROGRAM], {
    input: texts.map((text) => JSON.stringify(text)).join('\n') + '\n',
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`python3 failed: ${result.stderr}`);
  return result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as PythonAnswer);
}

/** `-?digits(e±n)?` as sign, digits without trailing zeros, and exponent (zero: `0e0`). */
function normalised(text: string): string {
  const match = /^(-?)(\d+)(?:e([+-]?\d+))?$/.exec(text);
  if (!match) throw new Error(`not exact decimal text: ${text}`);
  const digits = match[2].replace(/^0+/, '');
  if (digits === '') return '0e0';
  const trimmed = digits.replace(/0+$/, '');
  return `${match[1]}${trimmed}e${Number(match[3] ?? 0) + digits.length - trimmed.length}`;
}

const sign = fc.constantFrom('', '', '-');
const integerPart = fc.oneof(
  fc.constant('0'),
  fc.stringMatching(/^[1-9][0-9]{0,5}$/),
  fc.stringMatching(/^[1-9][0-9]{14,17}$/),
  fc.stringMatching(/^[1-9][0-9]{18,60}$/),
  fc.integer({ min: 1, max: 25 }).map((length) => '9'.repeat(length)),
  fc.integer({ min: 0, max: 25 }).map((zeros) => `1${'0'.repeat(zeros)}`),
);
const fractionPart = fc.oneof(
  fc.stringMatching(/^[0-9]{1,6}$/),
  fc.stringMatching(/^[0-9]{1,30}$/),
  fc.integer({ min: 1, max: 25 }).map((length) => '0'.repeat(length)),
  fc.integer({ min: 1, max: 25 }).map((length) => '9'.repeat(length)),
  fc.integer({ min: 0, max: 20 }).map((zeros) => `${'0'.repeat(zeros)}1`),
);
const exponentPart = fc
  .tuple(
    fc.constantFrom('e', 'E'),
    fc.constantFrom('', '+', '-'),
    fc.oneof(
      fc.integer({ min: 0, max: 25 }),
      fc.integer({ min: 280, max: 340 }),
      fc.integer({ min: 0, max: 99999 }),
      fc.constantFrom(4, 5, 15, 16, 17, 307, 308, 309, 323, 324, 325),
    ),
    fc.constantFrom('', '', '0', '00'),
  )
  .map(([letter, exponentSign, value, padding]) => `${letter}${exponentSign}${padding}${value}`);

/** JSON number texts of every form. */
const jsonNumberText = fc.oneof(
  // integers, small and huge, -0
  fc.tuple(sign, integerPart).map(([minus, whole]) => `${minus}${whole}`),
  // fractions, leading and trailing zeros
  fc.tuple(sign, integerPart, fractionPart).map(([minus, whole, fraction]) => `${minus}${whole}.${fraction}`),
  // exponents, with or without a fraction
  fc
    .tuple(sign, integerPart, fc.option(fractionPart, { nil: undefined }), exponentPart)
    .map(([minus, whole, fraction, exponent]) => `${minus}${whole}${fraction === undefined ? '' : `.${fraction}`}${exponent}`),
  // near Python's switches to scientific form (1e16, 1e-4) and the double's limits
  fc
    .tuple(
      sign,
      fc.constantFrom(
        '1',
        '9.999999999999999',
        '9.9999999999999999',
        '1.0000000000000001',
        '5',
        '2.2250738585072014',
        '4.9',
        '1.7976931348623157',
        '1.7976931348623159',
      ),
      fc.constantFrom(-324, -323, -308, -307, -6, -5, -4, -3, 14, 15, 16, 17, 307, 308, 309),
    )
    .map(([minus, mantissa, exponent]) => `${minus}${mantissa}e${exponent}`),
  // doubles' own shortest texts, from their bits (subnormals included)
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => (Number.isInteger(value) ? value.toExponential() : String(value))),
);

describe("JSON numbers as Python's json reads them", () => {
  it('gives the examples of the contract', () => {
    const examples: [string, string][] = [
      ['2.0', '2.0'],
      ['1e16', '1e+16'],
      ['0.00001', '1e-05'],
      ['2', '2'],
      ['-0.0', '-0.0'],
      ['-0', '0'],
      ['1E400', 'inf'],
      ['-1e400', '-inf'],
      ['12345678901234567890', '12345678901234567890'],
      ['1.5e3', '1500.0'],
      ['100000000000000000000.0', '1e+20'],
      ['1.5e16', '1.5e+16'],
      ['0.0001', '0.0001'],
      ['1e-400', '0.0'],
      ['5e-324', '5e-324'],
      ['1e100', '1e+100'],
    ];
    for (const [text, expected] of examples) expect(pythonNumberText(text), text).toBe(expected);
    expect(pythonFloatText(Number.NaN)).toBe('nan');
    expect(normalised(exactDoubleText(0.1))).toBe('1000000000000000055511151231257827021181583404541015625e-55');
    expect(exactDoubleText(-0)).toBe('-0');
    expect(() => exactDoubleText(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });

  it(`matches python3's str(json.loads(text)), its errors and Decimal(float) on ${RUNS} generated texts`, () => {
    const texts = fc.sample(jsonNumberText, { seed: SEED, numRuns: RUNS });
    // Python's limit on integer digits, at and past it.
    texts.push(`1${'0'.repeat(4299)}`, `-${'9'.repeat(4300)}`, `1${'0'.repeat(4300)}`, `-${'9'.repeat(4301)}`);
    const answers = askPython(texts);
    expect(answers).toHaveLength(texts.length);
    const mismatches: string[] = [];
    texts.forEach((text, index) => {
      const answer = answers[index];
      const fault = pythonNumberFault(text);
      const shown = text.length > 60 ? `${text.slice(0, 60)}...` : text;
      if (answer.error !== undefined) {
        if (fault === undefined) mismatches.push(`${shown}: python3 ${answer.error}, Tariff takes it`);
        return;
      }
      const tariff = pythonNumberText(text);
      if (tariff !== answer.text) mismatches.push(`${shown}: python3 '${answer.text}', Tariff '${tariff}'`);
      const infinite = answer.text === 'inf' || answer.text === '-inf';
      if ((fault !== undefined) !== infinite) mismatches.push(`${shown}: python3 '${answer.text}', Tariff's fault: ${fault ?? 'none'}`);
      if (answer.exact !== undefined) {
        const exact = normalised(exactDoubleText(Number(text)));
        if (exact !== normalised(answer.exact)) mismatches.push(`${shown}: Decimal(float) ${answer.exact}, Tariff ${exact}`);
      }
    });
    expect(mismatches.slice(0, 20)).toEqual([]);
    // The generated texts reach every form.
    expect(answers.filter((answer) => answer.float === false).length).toBeGreaterThan(200);
    expect(answers.filter((answer) => answer.text?.includes('e-')).length).toBeGreaterThan(100);
    expect(answers.filter((answer) => answer.text?.includes('e+')).length).toBeGreaterThan(100);
    expect(answers.filter((answer) => answer.text === 'inf' || answer.text === '-inf').length).toBeGreaterThan(50);
    expect(answers.filter((answer) => answer.text === '0.0' || answer.text === '-0.0').length).toBeGreaterThan(10);
    expect(answers.filter((answer) => answer.error !== undefined)).toHaveLength(2);
  });
});
