/**
 * Python's `textwrap.wrap` with its default options (the only wrapping oslo.policy's sample
 * generator does), so `tariff policy sample` breaks comment lines where
 * `oslopolicy-sample-generator` does.
 *
 * Python compat (3.11's `textwrap.TextWrapper`): whitespace characters become spaces, chunks are
 * split by `wordsep_re` (words, runs of blanks, hyphenated words after each hyphen between
 * letters, em-dashes), whitespace is dropped at line ends and at the start of every line but the
 * first, and a chunk longer than a line is cut (at its last hyphen within the line when there is
 * one). Tabs are expanded to the next multiple of 8 columns first. `\w` is Unicode-aware
 * as Python's; Python's narrower notion of "letter" for a few marks is not copied.
 */

const WHITESPACE = '\\t\\n\\x0b\\x0c\\r ';
const WORD = '[\\p{L}\\p{N}\\p{Mn}\\p{Pc}]';
const LETTER = '[\\p{L}\\p{Mn}\\p{Pc}]';
const WORD_PUNCT = `(?:${WORD}|[!"'&.,?])`;

/** Python compat: `TextWrapper.wordsep_re`, with a capture group so that `split` keeps the separators. */
const WORD_SEPARATOR = new RegExp(
  `([${WHITESPACE}]+` +
    `|(?<=${WORD_PUNCT})-{2,}(?=${WORD})` +
    `|[^${WHITESPACE}]+?(?:-(?:(?<=${LETTER}{2}-)|(?<=${LETTER}-${LETTER}-))(?=${LETTER}-?${LETTER})|(?=[${WHITESPACE}]|$)|(?<=${WORD_PUNCT})(?=-{2,}${WORD})))`,
  'u',
);

/** Python's `str.strip() == ''` for the chunks wrap sees (whitespace already turned into blanks). */
const isBlank = (chunk: string) => chunk.trim() === '';

/**
 * `textwrap.wrap(text, width, initial_indent=…, subsequent_indent=…)`: the lines, without line breaks.
 *
 * @param width Line length including the indent, in UTF-16 code units (Python counts code points;
 *   the same for the Basic Multilingual Plane).
 * @throws RangeError when `width` is not positive (Python: ValueError).
 */
export function wrapText(text: string, width: number, indents: { initial?: string; subsequent?: string } = {}): string[] {
  if (width <= 0) throw new RangeError(`invalid width ${width} (must be > 0)`);
  const munged = expandTabs(text).replace(/[\n\v\f\r]/g, ' ');
  const chunks = munged.split(WORD_SEPARATOR).filter((chunk) => chunk !== '');
  chunks.reverse();
  const lines: string[] = [];
  while (chunks.length > 0) {
    const indent = lines.length > 0 ? (indents.subsequent ?? '') : (indents.initial ?? '');
    const room = width - indent.length;
    if (lines.length > 0 && isBlank(chunks[chunks.length - 1])) chunks.pop();
    const line: string[] = [];
    let length = 0;
    while (chunks.length > 0 && length + chunks[chunks.length - 1].length <= room) {
      const chunk = chunks.pop()!;
      line.push(chunk);
      length += chunk.length;
    }
    if (chunks.length > 0 && chunks[chunks.length - 1].length > room) cutLongWord(chunks, line, length, room);
    if (line.length > 0 && isBlank(line[line.length - 1])) line.pop();
    if (line.length > 0) lines.push(indent + line.join(''));
  }
  return lines;
}

/** Python compat: `TextWrapper._handle_long_word` with `break_long_words` and `break_on_hyphens`. */
function cutLongWord(reversedChunks: string[], line: string[], length: number, room: number): void {
  const spaceLeft = room < 1 ? 1 : room - length;
  const chunk = reversedChunks[reversedChunks.length - 1];
  let end = spaceLeft;
  if (chunk.length > spaceLeft) {
    const hyphen = chunk.lastIndexOf('-', spaceLeft - 1);
    if (hyphen > 0 && /[^-]/.test(chunk.slice(0, hyphen))) end = hyphen + 1;
  }
  line.push(chunk.slice(0, end));
  reversedChunks[reversedChunks.length - 1] = chunk.slice(end);
}

/** Python's `str.expandtabs(8)`: each tab up to the next multiple of 8 columns, counted from the last line break. */
function expandTabs(text: string): string {
  let column = 0;
  let result = '';
  for (const character of text) {
    if (character === '\t') {
      const blanks = 8 - (column % 8);
      result += ' '.repeat(blanks);
      column += blanks;
    } else {
      result += character;
      column = character === '\n' || character === '\r' ? 0 : column + 1;
    }
  }
  return result;
}
