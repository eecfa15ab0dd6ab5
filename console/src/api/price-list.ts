/**
 * The price list through Tariff's own API (docs/price-list.md §2): the export as text, a
 * document's dry run or apply, the diff it answers, and the problems of a refused document.
 */
import { ApiError, callText } from './client.js';

/** The two document formats the API reads and writes. */
export type DocumentFormat = 'yaml' | 'json';

/** The media type of each format (src/rating/price-list/routes.ts accepts these). */
export const MEDIA_TYPES: Record<DocumentFormat, string> = { yaml: 'application/yaml', json: 'application/json' };

/** The endpoint. */
const PRICE_LIST = '/v2/rating/price_list';

/**
 * A document's format: from its file name when it has a known extension, else JSON when its text
 * starts as a JSON object does (`{` then a quoted key or `}`), else YAML.
 */
export function detectFormat(text: string, fileName?: string): DocumentFormat {
  const extension = fileName?.toLowerCase().match(/\.([a-z]+)$/)?.[1];
  if (extension === 'json') return 'json';
  if (extension === 'yaml' || extension === 'yml') return 'yaml';
  return /^\s*\{\s*("|\})/.test(text) ? 'json' : 'yaml';
}

/**
 * The configuration in force now and scheduled after it, as a document's text.
 *
 * @throws ApiError when refused (403 without `rating:module_config`).
 */
export function exportPriceList(format: DocumentFormat): Promise<string> {
  return callText('GET', PRICE_LIST, undefined, { accept: MEDIA_TYPES[format] });
}

/** One change of a diff: a rule (or service, field, group, module state) and its attributes before and after. */
export interface PriceListChange {
  action: 'added' | 'replaced' | 'ended' | 'deleted' | 'updated' | 'created';
  resource: string;
  /** Where the rule is in the document's terms: `services[compute].fields[flavor].mappings[value=m1.large]`. */
  path: string;
  /** The stored attributes (API names, plus `service`, `field` and `group` names). */
  before?: Record<string, unknown>;
  /** The attributes it will have (or has, after an apply). */
  after?: Record<string, unknown>;
}

/** The server's answer to a dry run or an apply. */
export interface PriceListDiff {
  /** The revision after the apply; for a dry run, the current one (the apply's `if_revision`). */
  revision: number;
  dry_run: boolean;
  /** When the changed rules switch, ISO text. */
  effective_at: string;
  counts: Record<string, number>;
  changes: PriceListChange[];
}

/** One problem of a refused document, with its line and column where the text tells them. */
export interface PriceListProblem {
  path: string;
  line?: number;
  column?: number;
  message: string;
}

/** How a document is sent. */
export interface SubmitOptions {
  /** Only compute the diff: nothing is written. */
  dryRun: boolean;
  /** When the changes take effect, ISO text; undefined: the time of the request. */
  effectiveAt: string | undefined;
  /** Change thresholds and module states at once even with a later `effectiveAt` (they are not versioned). */
  unversionedNow: boolean;
  /** Refuse (409) unless the configuration is still at this revision. */
  ifRevision?: number;
}

/**
 * Sends a document for a dry run or an apply.
 *
 * @throws ApiError: 400 with `problems` for a malformed document ({@link problemsOf}), 400 for a
 *   past `effectiveAt` or unversioned changes at a later one, 409 when the revision changed.
 */
export async function submitPriceList(text: string, format: DocumentFormat, options: SubmitOptions): Promise<PriceListDiff> {
  const query = new URLSearchParams();
  if (options.dryRun) query.set('dry_run', 'true');
  if (options.effectiveAt !== undefined) query.set('effective_at', options.effectiveAt);
  if (options.unversionedNow) query.set('unversioned_now', 'true');
  if (options.ifRevision !== undefined) query.set('if_revision', String(options.ifRevision));
  const answer = await callText('POST', `${PRICE_LIST}?${query.toString()}`, text, { accept: 'application/json', 'content-type': MEDIA_TYPES[format] });
  return JSON.parse(answer) as PriceListDiff;
}

/** The problems a refusal lists, or undefined when it is another fault. */
export function problemsOf(error: unknown): PriceListProblem[] | undefined {
  if (!(error instanceof ApiError) || error.status !== 400) return undefined;
  const problems = error.fault?.problems;
  return Array.isArray(problems) ? (problems as PriceListProblem[]) : undefined;
}

/** Whether a refusal is the one for thresholds or module states changed before a later effective time. */
export function refusesUnversionedChanges(error: unknown): boolean {
  return error instanceof ApiError && error.status === 400 && error.message.includes('unversioned_now=true');
}
