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
