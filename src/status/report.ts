/**
 * oslo.upgradecheck's output (`UpgradeCommands.check`), which `cloudkitty-status upgrade check`
 * prints: a PrettyTable titled "Upgrade Check Results" with one `Check: / Result: / Details:` cell
 * per check, details wrapped by Python's `textwrap.wrap(details, 60, subsequent_indent='  ')`; or,
 * with `--json`, `{"name": ..., "checks": [{"check", "result", "details"}]}` as `json.dumps` writes it.
 */
import { wrapText } from '../auth/policy/textwrap.js';

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

/** oslo.upgradecheck compat: `Success`, `Warning`, `Failure`. */
function codeName(code: CheckCode): string {
  return CheckCode[code];
}

/** The PrettyTable (`hrules=ALL`, left-aligned) oslo.upgradecheck prints, ending in a newline. */
export function reportTable(results: readonly CheckResult[]): string {
  const cells = results.map((result) => [
    `Check: ${result.name}`,
    `Result: ${codeName(result.code)}`,
    `Details: ${result.details === null ? 'None' : wrapText(result.details, 60, { subsequent: '  ' }).join('\n')}`.split('\n'),
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
