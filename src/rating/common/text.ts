/**
 * How Tariff compares text, the same on every database (docs/operators/migrating.md: "Comparing text"):
 * - names and values (service, field and group names, mapping values and names, script names,
 *   tenant and user ids) are equal only when they are the same code points: no case folding, no
 *   trailing-space padding, no Unicode normalization. The databases compare them (SQLite's
 *   BINARY collation, PostgreSQL's deterministic collations, MySQL's binary NO PAD collation);
 *   they are ordered by code point ({@link compareCodePoints}).
 * - the `description` list filter is a case-insensitive substring test done here, not in SQL
 *   ({@link containsIgnoringCase}), because each database lowercases differently (SQLite only
 *   ASCII, PostgreSQL by its locale, MySQL by its collation's Unicode version).
 */

/** GREEK CAPITAL LETTER SIGMA: the one letter whose default lowercase depends on its neighbours. */
const CAPITAL_SIGMA = /\u03A3/g;

/**
 * Unicode's default lowercase mapping of each code point on its own: `String.prototype.toLowerCase`
 * without its one context rule (Σ at the end of a word becomes ς), so that a substring
 * lowercases the same as in its text. Locale-independent: `I` is `i` and `İ` is `i̇` (i and
 * U+0307) everywhere, Turkish included; `ß` stays `ß` and `ẞ` becomes `ß`; no normalization
 * (precomposed `é` and `e` + U+0301 differ).
 */
export function lowercaseEachCodePoint(text: string): string {
  return text.replace(CAPITAL_SIGMA, 'σ').toLowerCase();
}

/**
 * Whether `text` contains `fragment`, both lowercased by {@link lowercaseEachCodePoint}: `école`
 * finds `ÉCOLE`, `STRASSE` finds `strasse` but `ss` does not find `ß`, `i` finds `İ` (whose
 * lowercase is `i̇`) but not `ı`. The empty fragment is in every text.
 */
export function containsIgnoringCase(text: string, fragment: string): boolean {
  return lowercaseEachCodePoint(text).includes(lowercaseEachCodePoint(fragment));
}

/**
 * Orders two strings by Unicode code point (as SQLite's BINARY, MySQL's binary collations and
 * PostgreSQL's `C` collation do), not by UTF-16 code unit as `<` does: U+FF5E sorts before
 * U+1F600.
 */
export function compareCodePoints(left: string, right: string): number {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index += 1) {
    const a = left.charCodeAt(index);
    const b = right.charCodeAt(index);
    if (a === b) continue;
    // A surrogate starts a code point above U+FFFF, greater than any single code unit.
    const aSurrogate = a >= 0xd800 && a <= 0xdfff;
    const bSurrogate = b >= 0xd800 && b <= 0xdfff;
    if (aSurrogate !== bSurrogate) return aSurrogate ? 1 : -1;
    return a - b;
  }
  return left.length - right.length;
}
