/**
 * The simulation's answer (docs/price-list.md §4): the NDJSON lines the server streams — progress,
 * then one result or one error — and the result as the operator reads it: a summary and the top
 * movers as a table, the result as JSON, or the per project × service rows as CSV.
 */
import { ClientError } from './errors.js';
import { refusal } from './faults.js';
import { escapeControlCharacters } from './terminal-text.js';

/** The money members every row of the result has (exact decimal strings). */
export interface SimulationAmounts {
  points: number;
  changed_points: number;
  stored: string;
  current: string;
  draft: string;
  delta: string;
  /** `delta / current`; null when `current` is 0. */
  relative_delta: string | null;
}

/** A row of `projects`, `services`, `project_services` or `movers`. */
export interface SimulationRow extends SimulationAmounts {
  project_id?: string | null;
  service?: string;
}

/** The result of a simulation, as far as the client reads it; the rest is printed as sent (`--format json`). */
export interface SimulationResult {
  begin: string;
  end: string;
  effective_at: string;
  revision: number;
  usage: string;
  totals: SimulationAmounts & { distinct_points: number };
  projects: SimulationRow[];
  services: SimulationRow[];
  project_services: SimulationRow[];
  movers: { projects: SimulationRow[]; services: SimulationRow[] };
  rules: { module: string; name: string; points: number }[];
  reconciliation: { points: number; stored: string; current: string; difference: string; [member: string]: unknown };
}

/** A `{"progress": …}` line: how far the server is. */
export interface SimulationProgress {
  points: number;
  windows: number;
  windows_done: number;
  elapsed_ms: number;
}

/** One line of the stream, read. */
export type SimulationLine = { kind: 'progress'; progress: SimulationProgress } | { kind: 'result'; result: SimulationResult };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A count from the server, or 0 when it sent anything else (a progress line never carries text to the terminal). */
function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** The first characters of an unexpected answer, for a message. */
function excerpt(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** Checks the members the client reads; the server's other members are kept as they are. */
function checkedResult(value: unknown, line: string): SimulationResult {
  const result = value as Partial<SimulationResult> | undefined;
  const wellFormed =
    isObject(result) &&
    isObject(result.totals) &&
    Array.isArray(result.project_services) &&
    isObject(result.movers) &&
    Array.isArray(result.movers.projects) &&
    Array.isArray(result.movers.services) &&
    isObject(result.reconciliation);
  if (!wellFormed) throw new ClientError(`The server's result is not a simulation result: ${excerpt(line)}`);
  return result as SimulationResult;
}

/**
 * Reads one line of the NDJSON answer.
 *
 * @param fileName - the draft's name as printed, for a refused draft's problems.
 * @param url - the URL called, for the messages.
 * @throws ClientError for an `error` line (its faultstring; a refused draft's problems one per
 *   line), or a line that is not one of the contract's.
 */
export function readSimulationLine(line: string, fileName: string, url: string): SimulationLine {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new ClientError(`The server's answer is not a simulation stream (a line is not JSON): ${excerpt(line)}`);
  }
  if (isObject(parsed) && isObject(parsed.progress)) {
    const progress = parsed.progress;
    return {
      kind: 'progress',
      progress: {
        points: count(progress.points),
        windows: count(progress.windows),
        windows_done: count(progress.windows_done),
        elapsed_ms: count(progress.elapsed_ms),
      },
    };
  }
  if (isObject(parsed) && 'result' in parsed) return { kind: 'result', result: checkedResult(parsed.result, line) };
  if (isObject(parsed) && isObject(parsed.error)) {
    const error = parsed.error;
    // A refused draft's problems, should the server send them on a line: printed as for diff and apply.
    if (Array.isArray(error.problems) && error.problems.length > 0) return refusalOf(error, fileName, url);
    throw new ClientError(typeof error.faultstring === 'string' ? error.faultstring : `The simulation failed: ${excerpt(line)}`);
  }
  throw new ClientError(`The server's answer is not a simulation stream (an unknown line): ${excerpt(line)}`);
}

function refusalOf(error: Record<string, unknown>, fileName: string, url: string): never {
  throw refusal(typeof error.status === 'number' ? error.status : 400, JSON.stringify(error), { fileName, url });
}

/** A value of the result as text: strings as they are, numbers written, null and absent empty. */
export function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** `+5.39 %` for a relative delta of `0.0539…`; `n/a` when the server sent null (current is 0). */
export function percent(relative: unknown): string {
  if (relative === null || relative === undefined) return 'n/a';
  const value = Number(relative);
  if (typeof relative !== 'string' || !Number.isFinite(value)) return cell(relative);
  const shown = (value * 100).toFixed(2);
  return `${value > 0 ? '+' : ''}${shown === '-0.00' ? '0.00' : shown} %`;
}

/** A delta with its sign: `+66.6`, `-3`, `0`. */
export function signed(delta: unknown): string {
  const text = cell(delta);
  return /^[0-9]/.test(text) && /[1-9]/.test(text) ? `+${text}` : text;
}

/**
 * Columns laid out: each as wide as its widest cell, text left and numbers right, two spaces
 * apart. Cells are escaped first (terminal-text.ts), so that the widths are those shown.
 */
function aligned(header: string[], textRows: string[][], rightAligned: boolean[]): string[] {
  const rows = textRows.map((row) => row.map(escapeControlCharacters));
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) =>
    cells
      .map((text, column) => (rightAligned[column] ? text.padStart(widths[column]) : text.padEnd(widths[column])))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

/** How the table names a row's project: its id, or `(no project)` for the usage without one. */
function projectName(row: SimulationRow): string {
  return row.project_id === null || row.project_id === undefined ? '(no project)' : cell(row.project_id);
}

const MOVER_COLUMNS = ['POINTS', 'CHANGED', 'CURRENT', 'DRAFT', 'DELTA', 'RELATIVE'];

/** Amounts padded on the right so that, right-aligned, their decimal points line up (`12.5 ` over `110.55`); other text as it is. */
export function decimalAligned(amounts: string[]): string[] {
  const fraction = (text: string) => (/^[+-]?[0-9]+(\.[0-9]+)?$/.test(text) ? (text.split('.')[1]?.length ?? -1) + 1 : undefined);
  const widest = Math.max(0, ...amounts.map((text) => fraction(text) ?? 0));
  return amounts.map((text) => {
    const width = fraction(text);
    return width === undefined ? text : text + ' '.repeat(widest - width);
  });
}

/** Each column of `rows` listed in `columns` passed through {@link decimalAligned}. */
function alignDecimals(rows: string[][], columns: number[]): string[][] {
  const aligned = columns.map((column) => decimalAligned(rows.map((row) => row[column])));
  return rows.map((row, index) => row.map((text, column) => (columns.includes(column) ? aligned[columns.indexOf(column)][index] : text)));
}

/** The table of one list of movers, or a line saying it is empty. */
function moversTable(title: string, first: string, rows: SimulationRow[], name: (row: SimulationRow) => string): string[] {
  if (rows.length === 0) return [`${title}: none.`];
  const cells = rows.map((row) => [
    name(row),
    cell(row.points),
    cell(row.changed_points),
    cell(row.current),
    cell(row.draft),
    signed(row.delta),
    percent(row.relative_delta),
  ]);
  return [`${title}:`, ...aligned([first, ...MOVER_COLUMNS], alignDecimals(cells, [3, 4, 5]), [false, true, true, true, true, true, true])];
}

/**
 * The result as `--format table` prints it: the period, the summary, then the projects and the
 * services that move most, every text of the server's escaped (terminal-text.ts).
 */
export function formatSimulationTable(result: SimulationResult): string[] {
  const { totals, reconciliation } = result;
  const summary = aligned(
    ['', ''],
    [
      ['Points', `${cell(totals.points)} (${cell(totals.distinct_points)} distinct), ${cell(totals.changed_points)} priced differently by the draft`],
      ['Current', cell(totals.current)],
      ['Draft', cell(totals.draft)],
      ['Delta', `${signed(totals.delta)} (${percent(totals.relative_delta)})`],
      [
        'Reconciliation',
        `${cell(reconciliation.points)} points whose stored price differs from the current rules' (difference ${cell(reconciliation.difference)}: stored ${cell(reconciliation.stored)}, current ${cell(reconciliation.current)})`,
      ],
    ],
    [false, false],
  ).slice(1);
  return [
    escapeControlCharacters(
      `Simulation of ${cell(result.begin)} to ${cell(result.end)}, the draft effective ${cell(result.effective_at)} (against revision ${cell(result.revision)}, usage from ${cell(result.usage)}):`,
    ),
    ...summary,
    '',
    ...moversTable('Projects that move most', 'PROJECT', result.movers.projects, projectName),
    '',
    ...moversTable('Services that move most', 'SERVICE', result.movers.services, (row) => cell(row.service)),
  ];
}

/** The CSV columns, as the server's `text/csv` answer names them. */
export const CSV_COLUMNS = ['project_id', 'service', 'points', 'changed_points', 'stored', 'current', 'draft', 'delta', 'relative_delta'] as const;

/**
 * A CSV field as the server's `text/csv` answer writes it (src/rating/simulation/routes.ts): quoted
 * when it holds a comma, a quote or a line break (RFC 4180), and text that a spreadsheet would
 * read as a formula (`=`, `+`, `-`, `@`, tab, CR first, but not a negative number) prefixed with `'`.
 */
function csvField(value: unknown): string {
  let text = cell(value);
  if (/^[=+\-@\t\r]/.test(text) && !/^-?[0-9]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * The result's `project_services` as CSV, a header line first; null (no project, no relative
 * delta) is an empty field. With the default `\r\n`, the bytes the server answers to
 * `Accept: text/csv` for the same result.
 *
 * @param lineEnd - `\r\n` (RFC 4180, the server's), or `\n` for a terminal.
 */
export function formatSimulationCsv(result: SimulationResult, lineEnd: '\r\n' | '\n' = '\r\n'): string {
  const rows = result.project_services.map((row) => CSV_COLUMNS.map((column) => csvField(row[column])).join(','));
  return [CSV_COLUMNS.join(','), ...rows].map((line) => `${line}${lineEnd}`).join('');
}

/**
 * The characters terminal-text.ts escapes, written as JSON's `\uXXXX`: the JSON means the same and
 * no longer drives a terminal (JSON.stringify escapes C0 controls itself, not DEL, C1 or bidi).
 */
const JSON_UNESCAPED_CONTROL = /[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The result as `--format json` prints it: indented, every control character a `\uXXXX` escape. */
export function formatSimulationJson(result: SimulationResult): string {
  const text = JSON.stringify(result, null, 2).replace(JSON_UNESCAPED_CONTROL, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `${text}\n`;
}
