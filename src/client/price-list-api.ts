/**
 * The server's price-list endpoints (docs/price-list.md §2): `GET /v2/rating/price_list` (the
 * export, YAML or JSON by `Accept`) and `POST /v2/rating/price_list` (a dry run or an apply).
 */
import type { Connection } from './connection.js';
import { parseDiff, type PriceListDiff } from './diff.js';
import type { DocumentFile } from './document-file.js';
import { refusal } from './faults.js';
import { exchange } from './http.js';

const PATH = '/v2/rating/price_list';
const TIMEOUT_SETTING = 'TARIFF_CLIENT_TIMEOUT_SECONDS';

/** The query of a POST. */
export interface ApplyOptions {
  dryRun: boolean;
  effectiveAt?: string;
  ifRevision?: number;
  unversionedNow: boolean;
}

/** `?dry_run=true&effective_at=…`, with only the parameters given. */
export function applyQuery(options: ApplyOptions): string {
  const query = new URLSearchParams({ dry_run: String(options.dryRun) });
  if (options.effectiveAt !== undefined) query.set('effective_at', options.effectiveAt);
  if (options.ifRevision !== undefined) query.set('if_revision', String(options.ifRevision));
  if (options.unversionedNow) query.set('unversioned_now', 'true');
  return `?${query.toString()}`;
}

/**
 * The document in force at `at` (default the server's now), as the server writes it.
 *
 * @throws ClientError when the server refuses or cannot be reached.
 */
export async function exportPriceList(connection: Connection, format: 'yaml' | 'json', at?: string): Promise<string> {
  const url = `${connection.baseUrl}${PATH}${at === undefined ? '' : `?at=${encodeURIComponent(at)}`}`;
  const answer = await exchange({
    method: 'GET',
    url,
    headers: { ...connection.authHeaders, accept: format === 'yaml' ? 'application/yaml' : 'application/json' },
    timeoutMs: connection.timeoutMs,
    maxAnswerBytes: connection.maxAnswerBytes,
    timeoutSetting: TIMEOUT_SETTING,
  });
  if (answer.status !== 200) throw refusal(answer.status, answer.text, { url });
  return answer.text;
}

/**
 * POSTs the document: the server's diff, written unless `dryRun`.
 *
 * @param onSent - called once the body is sent (the wait for the server begins).
 * @throws ClientError with the document's problems (400), or the refusal's reason.
 */
export async function postPriceList(connection: Connection, document: DocumentFile, options: ApplyOptions, onSent?: () => void): Promise<PriceListDiff> {
  const url = `${connection.baseUrl}${PATH}${applyQuery(options)}`;
  const answer = await exchange({
    method: 'POST',
    url,
    headers: { ...connection.authHeaders, 'content-type': document.contentType, accept: 'application/json' },
    body: document.bytes,
    timeoutMs: connection.timeoutMs,
    maxAnswerBytes: connection.maxAnswerBytes,
    timeoutSetting: TIMEOUT_SETTING,
    timeoutHint: options.dryRun ? undefined : "The server may still be applying it: check with 'tariff price-list diff' before applying again.",
    onSent,
  });
  if (answer.status !== 200) throw refusal(answer.status, answer.text, { fileName: document.displayName, url });
  return parseDiff(answer.text);
}
