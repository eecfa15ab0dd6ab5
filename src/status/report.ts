/**
 * oslo.upgradecheck's output (`UpgradeCommands.check`), which `cloudkitty-status upgrade check`
 * prints: a PrettyTable titled "Upgrade Check Results" with one `Check: / Result: / Details:` cell
 * per check, details wrapped by Python's `textwrap.wrap(details, 60, subsequent_indent='  ')`; or,
 * with `--json`, `{"name": ..., "checks": [{"check", "result", "details"}]}` as `json.dumps` writes it.
 */

/** oslo.upgradecheck's `Code`: the exit code of the command is the highest of its checks'. */
export enum CheckCode {
  Success = 0,
  Warning = 1,
  Failure = 2,
}

/** One check's outcome; `details` is null for a success with nothing to say (oslo prints `None`). */
export interface CheckResult {
  name: string;
  code: CheckCode;
  details: string | null;
}

/** oslo.upgradecheck compat: the table's title and the JSON's `name`. */
const TITLE = 'Upgrade Check Results';

/**
 * Python's textwrap word chunks (`TextWrapper.wordsep_re`, Python 3.11): whitespace runs, em-dashes
 * between words, and words split after a hyphen between letters (`break_on_hyphens`). Python's
 * `\w` is Unicode: letters, numbers and `_`.
 */
const WORDSEP = (() => {
  const space = '[\\t\\n\\x0b\\x0c\\r ]';
  const noSpace = '[^\\t\\n\\x0b\\x0c\\r ]';
  const wordPunctuation = '[\\p{L}\\p{N}_!"\'&.,?]';
  const letter = '[\\p{L}_]';
  const word = '[\\p{L}\\p{N}_]';
  return new RegExp(
    `(${space}+|(?<=${wordPunctuation})-{2,}(?=${word})|${noSpace}+?(?:-(?:(?<=${letter}{2}-)|(?<=${letter}-${letter}-))(?=${letter}-?${letter})|(?=${space}|$)|(?<=${wordPunctuation})(?=-{2,}${word})))`,
    'u',
  );
})();

/** Python's `str.expandtabs()`: a tab moves to the next multiple of 8 columns, counted from the last line break. */
function expandTabs(text: string): string {
  let column = 0;
  let expanded = '';
  for (const character of text) {
    if (character === '\t') {
      const spaces = 8 - (column % 8);
      expanded += ' '.repeat(spaces);
      column += spaces;
    } else {
      expanded += character;
      column = character === '\n' || character === '\r' ? 0 : column + 1;
    }
  }
  return expanded;
}

/**
 * Python's `textwrap.wrap(text, width, subsequent_indent=indent)` with its defaults (whitespace
 * made spaces, whitespace dropped at line ends, long words broken, preferably after a hyphen).
 */
export function wrapText(text: string, width: number, indent: string): string[] {
  const chunks = expandTabs(text)
    .replace(/[\t\n\v\f\r]/g, ' ')
    .split(WORDSEP)
    .filter((chunk) => chunk !== '')
    .reverse();
  const lines: string[] = [];
  while (chunks.length > 0) {
    const lineIndent = lines.length > 0 ? indent : '';
    const room = width - lineIndent.length;
    if (lines.length > 0 && chunks[chunks.length - 1].trim() === '') chunks.pop();
    const line: string[] = [];
    let length = 0;
    while (chunks.length > 0 && length + chunks[chunks.length - 1].length <= room) {
      const chunk = chunks.pop()!;
      line.push(chunk);
      length += chunk.length;
    }
    if (chunks.length > 0 && chunks[chunks.length - 1].length > room) {
      const left = room < 1 ? 1 : room - length;
      const chunk = chunks[chunks.length - 1];
      let end = left;
      const hyphen = chunk.lastIndexOf('-', left - 1);
      if (hyphen > 0 && /[^-]/.test(chunk.slice(0, hyphen))) end = hyphen + 1;
      line.push(chunk.slice(0, end));
      chunks[chunks.length - 1] = chunk.slice(end);
    }
    if (line.length > 0 && line[line.length - 1].trim() === '') line.pop();
    if (line.length > 0) lines.push(lineIndent + line.join(''));
  }
  return lines;
}

/** oslo.upgradecheck compat: `Success`, `Warning`, `Failure`. */
function codeName(code: CheckCode): string {
  return CheckCode[code];
}

/** The PrettyTable (`hrules=ALL`, left-aligned) oslo.upgradecheck prints, ending in a newline. */
export function reportTable(results: readonly CheckResult[]): string {
  const cells = results.map((result) => [
    `Check: ${result.name}`,
    `Result: ${codeName(result.code)}`,
    `Details: ${result.details === null ? 'None' : wrapText(result.details, 60, '  ').join('\n')}`.split('\n'),
  ]);
  const rows = cells.map((cell) => cell.flat());
  const width = Math.max(TITLE.length, ...rows.flat().map((line) => line.length));
  const rule = `+${'-'.repeat(width + 2)}+`;
  const row = (line: string) => `| ${line.padEnd(width)} |`;
  return [rule, row(TITLE), rule, ...rows.flatMap((lines) => [...lines.map(row), rule])].join('\n') + '\n';
}

/** Python's `json.dumps` of a string (`ensure_ascii`: every non-ASCII character as `\uXXXX`). */
function pythonJsonString(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\uffff]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The `--json` line oslo.upgradecheck prints: Python's `json.dumps` spacing, `details` null when none. */
export function reportJson(results: readonly CheckResult[]): string {
  const checks = results.map(
    (result) =>
      `{"check": ${pythonJsonString(result.name)}, "result": ${result.code}, "details": ${result.details === null ? 'null' : pythonJsonString(result.details)}}`,
  );
  return `{"name": ${pythonJsonString(TITLE)}, "checks": [${checks.join(', ')}]}\n`;
}

/** The command's exit code: the highest code of the checks (0 with none). */
export function exitCode(results: readonly CheckResult[]): number {
  return Math.max(CheckCode.Success, ...results.map((result) => result.code));
}
