/** How the console writes the API's decimals: digit for digit, never through a binary number. */

/**
 * A decimal as the API sends it (`cost` with 28 fraction digits, `level` with 8) without the
 * trailing zeros of its fraction: `1.5000000000` → `1.5`, `10.00000000` → `10`; any other text
 * (no fraction, not a decimal) as it is.
 */
export function plainDecimal(text: string): string {
  if (!/^-?\d+\.\d+$/.test(text)) return text;
  return text.replace(/0+$/, '').replace(/\.$/, '');
}

/**
 * A ratio's decimal text (`0.05394896719319562575941676792`, `-1.5e-7`) as a percentage rounded
 * half away from zero to `digits` fraction digits, worked out on its digits (never a binary
 * number): `5.39 %`, `-0.00 %` is written `0.00 %`; any other text as it is.
 */
export function percentText(ratio: string, digits = 2): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(ratio);
  if (match === null) return ratio;
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  let all = whole + fraction;
  // Where the decimal point falls in `all` once the ratio is a percentage (times 100).
  let point = whole.length + Number(exponent) + 2;
  if (point < 0) {
    all = '0'.repeat(-point) + all;
    point = 0;
  }
  const keep = point + digits;
  all = all.padEnd(keep + 1, '0');
  let scaled = BigInt(all.slice(0, keep) || '0');
  if (all[keep] >= '5') scaled += 1n;
  const text = scaled.toString().padStart(digits + 1, '0');
  const split = text.length - digits;
  const magnitude = digits === 0 ? text : `${text.slice(0, split)}.${text.slice(split)}`;
  return `${scaled === 0n ? '' : sign}${magnitude} %`;
}
