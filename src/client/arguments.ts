/**
 * The arguments of `tariff price-list export|diff|apply` and their usage text. A usage error is a
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

/** A parsed price-list command, or a request for the usage. */
export type PriceListCommand = ExportCommand | DocumentCommand | { name: 'help' };

const OPTIONS = {
  url: { type: 'string' },
  at: { type: 'string' },
  format: { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
  'unversioned-now': { type: 'boolean' },
  'if-revision': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Which options each command takes. */
const ALLOWED: Record<'export' | 'diff' | 'apply', readonly (keyof typeof OPTIONS)[]> = {
  export: ['url', 'at', 'format', 'help'],
  diff: ['url', 'at', 'unversioned-now', 'if-revision', 'help'],
  apply: ['url', 'at', 'yes', 'unversioned-now', 'if-revision', 'help'],
};

function usageError(message: string): ClientError {
  return new ClientError(`${message}\nusage:\n${PRICE_LIST_USAGE}`);
}

function revisionNumber(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]{1,15}$/.test(text)) throw usageError(`--if-revision takes a revision number, not '${text}'.`);
  return Number(text);
}

/**
 * Parses the arguments after `price-list`.
 *
 * @throws ClientError (exit code 1) on an unknown command or option, or a missing or extra argument.
 */
export function parsePriceListArguments(args: string[]): PriceListCommand {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw usageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [name, ...operands] = positionals;
  if (values.help || name === 'help' || name === undefined) return { name: 'help' };
  if (name !== 'export' && name !== 'diff' && name !== 'apply') throw usageError(`Unknown price-list command '${name}'.`);
  const misplaced = Object.keys(values).filter((option) => !ALLOWED[name].includes(option as keyof typeof OPTIONS));
  if (misplaced.length > 0) throw usageError(`price-list ${name} takes no ${misplaced.map((option) => `--${option}`).join(', ')}.`);
  if (name === 'export') {
    if (operands.length > 0) throw usageError(`price-list export takes no FILE ('${operands[0]}').`);
    const format = values.format ?? 'yaml';
    if (format !== 'yaml' && format !== 'json') throw usageError(`--format is yaml or json, not '${format}'.`);
    return { name, url: values.url, at: values.at, format };
  }
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
