/**
 * JSON numbers as CloudKitty sees them: Python's `json` module reads a number without `.` or
 * exponent as an `int` (unbounded) and any other as a `float` (a double), and the hashmap
 * compares a field mapping's `value` with `str()` of that (rating.md §5). These functions give
 * that text, and the exact value a field threshold compares, from the number's JSON source text.
 */

/** Python's default limit on the digits of an integer read from text (`sys.get_int_max_str_digits()`). */
export const PYTHON_INTEGER_DIGITS_LIMIT = 4300;

/** A JSON integer literal: no `.`, no exponent. */
const INTEGER_TEXT = /^-?\d+$/;

/**
 * Whether a JSON number's source text is an integer literal (Python `int`), not a float literal.
 *
 * @param text - a JSON number's source text (`2`, `-0`, `2.0`, `1e3`).
 */
export function isIntegerText(text: string): boolean {
  return INTEGER_TEXT.test(text);
}

/**
 * Python's `str(json.loads(text))` for a JSON number's source text.
 *
 * - Integer literals (`2`, `-17`, `12345678901234567890`): the exact integer, leading zeros
 *   dropped, `-0` → `0`.
 * - Float literals (with `.` or an exponent): Python's `repr(float)`: the shortest digits that
 *   read back as the same double (the digits of JS `Number.prototype.toString`), written
 *   positionally with at least one digit after the point when the leading digit's exponent is
 *   in [-4, 16) (`2.0`, `1500.0`, `0.0001`), otherwise in scientific form with a signed exponent
 *   of at least two digits and no `.0` on a one-digit mantissa (`1e-05`, `1e+16`, `1.5e+16`).
 *   Past the largest double: `inf` / `-inf`; below the smallest: `0.0` / `-0.0`.
 *
 * CloudKitty compat: this is the text CloudKitty compares with a field mapping's `value`
 * (`str(cmp_value) == mapping_value`), so `2.0` matches a mapping `'2.0'`, not `'2'`.
 *
 * @param text - a JSON number's source text (the JSON grammar; not checked here).
 * @returns Python's text; `inf` / `-inf` for a float literal out of the double's range (see
 *   {@link pythonNumberFault}: Tariff refuses those in a quote).
 */
export function pythonNumberText(text: string): string {
  if (isIntegerText(text)) return pythonIntegerText(text);
  return pythonFloatText(Number(text));
}

/** Python's `str(int)` of an integer literal: no leading zeros, no `-0`. */
function pythonIntegerText(text: string): string {
  const negative = text.startsWith('-');
  const digits = (negative ? text.slice(1) : text).replace(/^0+(?=\d)/, '');
  return negative && digits !== '0' ? `-${digits}` : digits;
}

/**
 * Python's `repr(float)` (which is its `str()`) of a double.
 *
 * @param value - any JS number (NaN gives `nan`, which no JSON text produces).
 */
export function pythonFloatText(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  // `toExponential()` without digits gives the shortest round-trip digits: `d.ddde±x`.
  const [mantissa, exponentText] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace(/^-/, '').replace('.', '');
  if (exponent < -4 || exponent >= 16) {
    const scientificMantissa = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
    const magnitude = String(Math.abs(exponent)).padStart(2, '0');
    return `${sign}${scientificMantissa}e${exponent < 0 ? '-' : '+'}${magnitude}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}.${fraction === '' ? '0' : fraction}`;
}

/**
 * Why Tariff refuses a JSON number in a quote's desc (metadata, groupby), or undefined when it
 * takes it.
 *
 * - A float literal beyond the largest double (`1e400`, `-1E400`): fix: Python reads it as
 *   `inf`, which CloudKitty would compare as the text `'inf'` and as an infinite level; Tariff
 *   refuses it rather than price with it.
 * - An integer literal of more than {@link PYTHON_INTEGER_DIGITS_LIMIT} digits: CloudKitty compat:
 *   Python's `json` raises `ValueError` on it, so CloudKitty cannot read the request either.
 *
 * @param text - a JSON number's source text.
 */
export function pythonNumberFault(text: string): string | undefined {
  if (isIntegerText(text)) {
    const digits = text.length - (text.startsWith('-') ? 1 : 0);
    return digits > PYTHON_INTEGER_DIGITS_LIMIT ? `Integer must have at most ${PYTHON_INTEGER_DIGITS_LIMIT} digits (Python's limit).` : undefined;
  }
  return Number.isFinite(Number(text))
    ? undefined
    : 'Number must be within the range of a double (magnitude below about 1.8e308): Python reads it as infinity.';
}

const DOUBLE_BITS = new DataView(new ArrayBuffer(8));

/**
 * The exact decimal value of a finite double, as decimal text (`0.1` → `1000000000000000055511151231257827021181583404541015625e-55`):
 * Python's `Decimal(float)`, what CloudKitty compares a float desc value with a threshold level.
 *
 * @param value - a finite JS number.
 * @returns `digits` or `-digitse-n` text that `compareTextWithLevel` reads.
 * @throws RangeError for NaN or an infinity.
 */
export function exactDoubleText(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  if (Number.isSafeInteger(value)) return Object.is(value, -0) ? '-0' : String(value);
  DOUBLE_BITS.setFloat64(0, value);
  const high = DOUBLE_BITS.getUint32(0);
  const low = DOUBLE_BITS.getUint32(4);
  const sign = high >>> 31 === 1 ? '-' : '';
  const biasedExponent = (high >>> 20) & 0x7ff;
  let significand = (BigInt(high & 0xfffff) << 32n) | BigInt(low);
  // value = significand × 2^power (subnormals have no implicit leading bit).
  let power = biasedExponent === 0 ? -1074 : biasedExponent - 1075;
  if (biasedExponent !== 0) significand |= 1n << 52n;
  if (power >= 0) return `${sign}${(significand << BigInt(power)).toString()}`;
  // m × 2^-k = m × 5^k × 10^-k.
  power = -power;
  return `${sign}${(significand * 5n ** BigInt(power)).toString()}e-${power}`;
}
