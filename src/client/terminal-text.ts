/**
 * What the CLI prints that came from the server or a file (service and field names in a plan,
 * faultstrings, problems, an export on a terminal), with the characters that would drive the
 * operator's terminal escaped: an ESC or OSC 52 in a service name must not reach it raw (it can
 * rewrite the screen, set the window title, or write the clipboard).
 *
 * fix: issue 24, finding 14 — `tariff price-list diff` printed a service name holding ESC raw.
 */

/**
 * The characters escaped: C0 controls but `\t` and `\n` (layout), DEL, C1 controls, the line and
 * paragraph separators, and the bidirectional formatting characters that reorder what is shown
 * (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `\x1b` for a character below U+0100, `\u202e` above. */
function escaped(character: string): string {
  const code = character.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * The text with every control character written as its escape (`\x1b`, `\x9b`, `\u202e`); tabs
 * and line feeds are kept. Text without one is returned as it is.
 */
export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROL, escaped);
}

/** Where the CLI prints: stdout or stderr (a test's stream). */
export interface OutputStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/**
 * Writes text from the server or a file to `stream`, control characters escaped: the CLI's one
 * writer of such text.
 *
 * @param asSent - a document the operator may redirect to a file (`tariff price-list export`):
 *   escaped only when `stream` is a terminal, written byte for byte to a file or pipe.
 */
export function writeOutput(stream: OutputStream, text: string, asSent = false): void {
  stream.write(asSent && !stream.isTTY ? text : escapeControlCharacters(text));
}
