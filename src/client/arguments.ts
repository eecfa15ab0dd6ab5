/**
 * The arguments of `tariff price-list export|diff|apply|simulate` and their usage text. A usage error is a
 * {@link ClientError} with exit code 1 (diff's exit code 2 means "there are changes").
 */
import { parseArgs } from 'node:util';
import { ClientError } from './errors.js';

/** Usage of the price-list commands (also part of `tariff --help`). */
export const PRICE_LIST_USAGE = `  price-list export [--at T] [--format yaml|json]
                        print the price list in force at T (default now) and scheduled after it
  price-list diff FILE [--at T] [--unversioned-now] [--if-revision N]
                        print what applying FILE at T would change; exit 0: no changes, 2: changes
  price-list apply FILE [--at T] [--yes] [--unversioned-now] [--if-revision N]
                        print the plan, ask, then apply it unless the configuration changed meanwhile
  price-list simulate FILE --from T --to T [--effective-at T] [--usage USAGE] [--top N]
      [--format table|json|csv]
                        price the usage of [--from, --to) with the rules in force and as if FILE
                        had been applied at --effective-at (default --from): the money that moves,
                        by project and service (csv: every project x service). Changes nothing.
                        USAGE: CloudKitty dataframes, one a line (JSON Lines, gzip or not), sent
                        from disk; without it the server reads CloudKitty's stored usage
                        FILE: .json is sent as JSON, anything else as YAML; '-' reads stdin
                        --url URL (or TARIFF_URL): the server; else the 'rating' endpoint of the
                        Keystone catalog (OS_AUTH_URL, OS_USERNAME, OS_PASSWORD, OS_PROJECT_NAME, ...)`;

/** Common to every price-list command. */
interface Common {
  /** `--url`: the server's base URL. */
  url?: string;
}

/** `export`. */
export interface ExportCommand extends Common {
  name: 'export';
  at?: string;
  format: 'yaml' | 'json';
}

/** `diff` and `apply`: a document sent to the server. */
export interface DocumentCommand extends Common {
  name: 'diff' | 'apply';
  file: string;
  /** `--at`: the effective time (`effective_at`). */
  at?: string;
  unversionedNow: boolean;
  ifRevision?: number;
  /** apply: `--yes`, no question asked. */
  yes: boolean;
}

/** `simulate`: a draft priced on stored usage (docs/price-list.md §4). */
export interface SimulateCommand extends Common {
  name: 'simulate';
  /** The draft price list. */
  file: string;
  /** `--from`: the query's `begin`. */
  from: string;
  /** `--to`: the query's `end`. */
  to: string;
  /** `--effective-at`: when the draft takes over (the server's default: `begin`). */
  effectiveAt?: string;
  /** `--usage`: a JSON Lines file (gzip or not) sent with the draft; absent, the server reads CloudKitty's. */
  usage?: string;
  /** `--top`: how many projects and services the movers list. */
  top?: number;
  format: 'table' | 'json' | 'csv';
}

/** A parsed price-list command, or a request for the usage. */
export type PriceListCommand = ExportCommand | DocumentCommand | SimulateCommand | { name: 'help' };

const OPTIONS = {
  url: { type: 'string' },
  at: { type: 'string' },
  format: { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
  'unversioned-now': { type: 'boolean' },
  'if-revision': { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  'effective-at': { type: 'string' },
  usage: { type: 'string' },
  top: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Which options each command takes. */
const ALLOWED: Record<'export' | 'diff' | 'apply' | 'simulate', readonly (keyof typeof OPTIONS)[]> = {
  export: ['url', 'at', 'format', 'help'],
  diff: ['url', 'at', 'unversioned-now', 'if-revision', 'help'],
  apply: ['url', 'at', 'yes', 'unversioned-now', 'if-revision', 'help'],
  simulate: ['url', 'from', 'to', 'effective-at', 'usage', 'top', 'format', 'help'],
};

/** The simulate formats. */
const SIMULATE_FORMATS = ['table', 'json', 'csv'] as const;

function usageError(message: string): ClientError {
  return new ClientError(`${message}\nusage:\n${PRICE_LIST_USAGE}`);
}

function revisionNumber(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]{1,15}$/.test(text)) throw usageError(`--if-revision takes a revision number, not '${text}'.`);
  return Number(text);
}

type Parsed = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>;
type ParsedValues = Parsed['values'];

/** `--top`: a count from 1 (the server bounds it further). */
function topCount(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]{1,9}$/.test(text) || Number(text) < 1) throw usageError(`--top takes a count from 1, not '${text}'.`);
  return Number(text);
}

/** `simulate FILE --from T --to T …`. */
function simulateCommand(values: ParsedValues, operands: string[]): SimulateCommand {
  if (operands.length !== 1)
    throw usageError(operands.length === 0 ? "price-list simulate needs a FILE, the draft ('-' for stdin)." : 'price-list simulate takes one FILE.');
  const missing = (['from', 'to'] as const).filter((option) => values[option] === undefined);
  if (missing.length > 0) throw usageError(`price-list simulate needs ${missing.map((option) => `--${option}`).join(' and ')}.`);
  // The usage part is sent with its length, read from the file as it goes: a file, not a pipe.
  if (values.usage === '-') throw usageError('--usage takes a file (JSON Lines, gzip or not), not stdin.');
  const format = values.format ?? 'table';
  if (!(SIMULATE_FORMATS as readonly string[]).includes(format)) throw usageError(`--format is table, json or csv, not '${format}'.`);
  return {
    name: 'simulate',
    url: values.url,
    file: operands[0],
    from: values.from!,
    to: values.to!,
    effectiveAt: values['effective-at'],
    usage: values.usage,
    top: topCount(values.top),
    format: format as SimulateCommand['format'],
  };
}

/**
 * Parses the arguments after `price-list`.
 *
 * @throws ClientError (exit code 1) on an unknown command or option, or a missing or extra argument.
 */
export function parsePriceListArguments(args: string[]): PriceListCommand {
  let parsed: Parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw usageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [name, ...operands] = positionals;
  if (values.help || name === 'help' || name === undefined) return { name: 'help' };
  if (name !== 'export' && name !== 'diff' && name !== 'apply' && name !== 'simulate') throw usageError(`Unknown price-list command '${name}'.`);
  const misplaced = Object.keys(values).filter((option) => !ALLOWED[name].includes(option as keyof typeof OPTIONS));
  if (misplaced.length > 0) throw usageError(`price-list ${name} takes no ${misplaced.map((option) => `--${option}`).join(', ')}.`);
  if (name === 'export') {
    if (operands.length > 0) throw usageError(`price-list export takes no FILE ('${operands[0]}').`);
    const format = values.format ?? 'yaml';
    if (format !== 'yaml' && format !== 'json') throw usageError(`--format is yaml or json, not '${format}'.`);
    return { name, url: values.url, at: values.at, format };
  }
  if (name === 'simulate') return simulateCommand(values, operands);
  if (operands.length !== 1)
    throw usageError(operands.length === 0 ? `price-list ${name} needs a FILE ('-' for stdin).` : `price-list ${name} takes one FILE.`);
  return {
    name,
    url: values.url,
    file: operands[0],
    at: values.at,
    unversionedNow: values['unversioned-now'] ?? false,
    ifRevision: revisionNumber(values['if-revision']),
    yes: values.yes ?? false,
  };
}
