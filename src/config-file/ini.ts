/**
 * oslo.config's INI dialect, as `cloudkitty.conf` is written: `[section]` headers, `key = value`
 * or `key: value`, comments `#` / `;` at the start of a line, indented continuation lines, and
 * options repeated in one file (the last one counts for a single-valued option).
 *
 * Why a parser of its own: npm's INI readers (`ini`, `js-ini`, `config-ini-parser`) strip inline
 * `;` and `#` comments (oslo keeps them: `password = a#b` is `a#b`), give no line numbers, and
 * have no continuation lines or oslo's quote rule; oslo's own parser (`oslo_config/iniparser.py`)
 * is some 80 lines, and this follows it line for line, with its error wording.
 */
import { ConfigurationError } from '../config.js';

/** Where a value was written: a file and a 1-based line. */
export interface Origin {
  file: string;
  line: number;
}

/** One `key = value` of a file. */
export interface IniOption extends Origin {
  /**
   * The section as oslo.config looks it up: `DEFAULT` kept, any other name lowercased
   * (`[Database]` is `database`).
   */
  section: string;
  /** The key, with `-` read as `_` (oslo.config accepts an option's name and its `dest`). */
  key: string;
  /** The value: trimmed, one pair of matching outer quotes removed, continuation lines joined with `\n`. */
  value: string;
}

/**
 * A configuration file Tariff cannot use. The message is one line: `<file>:<line>: <problem>`
 * (or `<file>: <problem>` when no line is at fault), for `tariff: ...` on stderr.
 */
export class ConfigFileError extends ConfigurationError {
  constructor(
    readonly origin: { file: string; line?: number },
    readonly problem: string,
  ) {
    super(`${origin.file}${origin.line === undefined ? '' : `:${origin.line}`}: ${problem}`);
  }
}

/** A line's text for a message: at most 80 characters, quoted. */
function quoted(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}

/** oslo.config compat (`_normalize_group_name`): `DEFAULT` as it is, other section names lowercased. */
export function normalizeSection(name: string): string {
  return name === 'DEFAULT' ? name : name.toLowerCase();
}

/** oslo's `_split_key_value`: the first `=` or `:` splits, whichever comes first. */
function splitAssignment(text: string, origin: Origin): { key: string; value: string } {
  const colon = text.indexOf(':');
  const equal = text.indexOf('=');
  if (colon < 0 && equal < 0) throw new ConfigFileError(origin, `no ':' or '=' in ${quoted(text)}: expected 'key = value', '[section]' or a comment`);
  const at = colon < 0 || (equal >= 0 && equal < colon) ? equal : colon;
  const key = text.slice(0, at).trim();
  let value = text.slice(at + 1).trim();
  if (value.length >= 2 && value[0] === value[value.length - 1] && (value[0] === '"' || value[0] === "'")) value = value.slice(1, -1);
  else if (value.length === 1 && (value === '"' || value === "'")) value = '';
  if (key === '') throw new ConfigFileError(origin, `the key is empty in ${quoted(text)}`);
  return { key, value };
}

/**
 * Reads a configuration file's text the way oslo.config's parser does.
 *
 * @param text - the file's content (UTF-8 decoded; a leading BOM is ignored).
 * @param file - the path to name in errors and origins.
 * @returns every assignment, in file order (a repeated key appears each time).
 * @throws ConfigFileError naming the line: no `=` or `:`, an empty key, a continuation line with
 *   nothing to continue, a `[section` without `]`, `[]`, or an assignment before any section.
 */
export function parseIni(text: string, file: string): IniOption[] {
  const options: IniOption[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  let section: string | undefined;
  let pending: { key: string; values: string[]; line: number } | undefined;
  const flush = () => {
    if (pending === undefined) return;
    if (section === undefined) {
      throw new ConfigFileError({ file, line: pending.line }, `'${pending.key}' is set before any [section] (put it under [DEFAULT])`);
    }
    options.push({ file, line: pending.line, section, key: pending.key.replace(/-/g, '_'), value: pending.values.join('\n') });
    pending = undefined;
  };
  lines.forEach((raw, index) => {
    const origin = { file, line: index + 1 };
    const line = raw.trimEnd();
    if (line === '') {
      flush();
      return;
    }
    if (line.startsWith(' ') || line.startsWith('\t')) {
      if (pending === undefined) throw new ConfigFileError(origin, `an indented line continues no option: ${quoted(line.trimStart())}`);
      pending.values.push(line.trimStart());
      return;
    }
    flush();
    if (line.startsWith('[')) {
      if (!line.endsWith(']')) throw new ConfigFileError(origin, `a section header must end with ']': ${quoted(line)}`);
      if (line.length <= 2) throw new ConfigFileError(origin, 'the section name is empty: []');
      section = normalizeSection(line.slice(1, -1));
    } else if (!line.startsWith('#') && !line.startsWith(';')) {
      const { key, value } = splitAssignment(line, origin);
      pending = { key, values: [value], line: origin.line };
    }
  });
  flush();
  return options;
}
