/**
 * `POST /v2/rating/price_list/simulation` (docs/price-list.md §4): the draft alone (the server
 * reads CloudKitty's usage), or the draft and a usage file as `multipart/form-data`, the file
 * streamed from disk; the answer asked for as NDJSON and read line by line, so that progress shows
 * while the server works and only a complete result is ever returned.
 */
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { IncomingHttpHeaders } from 'node:http';
import type { Connection } from './connection.js';
import type { DocumentFile } from './document-file.js';
import { ClientError } from './errors.js';
import { refusal } from './faults.js';
import { multipartBody } from './multipart.js';
import { readSimulationLine, type SimulationProgress, type SimulationResult } from './simulation.js';
import { streamingExchange, type StreamedBody } from './streaming-http.js';

const PATH = '/v2/rating/price_list/simulation';
const TIMEOUT_SETTING = 'TARIFF_CLIENT_TIMEOUT_SECONDS';

/** A usage file to send: CloudKitty dataframes, one per line, gzip or not. */
export interface UsageFile {
  path: string;
  size: number;
  /** `application/gzip` when the file starts with gzip's magic bytes, else `application/x-ndjson`. */
  contentType: 'application/gzip' | 'application/x-ndjson';
}

/** The query of a simulation. */
export interface SimulationOptions {
  begin: string;
  end: string;
  effectiveAt?: string;
  top?: number;
  /** Absent: the server reads the usage from CloudKitty. */
  usage?: UsageFile;
}

/** What the simulation reports while it runs. */
export interface SimulationEvents {
  /** A progress line of the server's. */
  onProgress?: (progress: SimulationProgress) => void;
  /** Bytes of the request sent so far, of `total`. */
  onUpload?: (sent: number, total: number) => void;
  /** The whole request has been sent. */
  onSent?: () => void;
}

/** `?begin=…&end=…&effective_at=…&top=…`, with only the parameters given. */
export function simulationQuery(options: SimulationOptions): string {
  const query = new URLSearchParams({ begin: options.begin, end: options.end });
  if (options.effectiveAt !== undefined) query.set('effective_at', options.effectiveAt);
  if (options.top !== undefined) query.set('top', String(options.top));
  return `?${query.toString()}`;
}

/**
 * Looks at the usage file: its size (the request's length) and whether it is gzip.
 *
 * @throws ClientError when it cannot be read or is not a file.
 */
export async function openUsageFile(path: string): Promise<UsageFile> {
  try {
    const { size } = await stat(path);
    const handle = await open(path, 'r');
    try {
      const magic = Buffer.alloc(2);
      const { bytesRead } = await handle.read(magic, 0, 2, 0);
      const gzip = bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
      return { path, size, contentType: gzip ? 'application/gzip' : 'application/x-ndjson' };
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
    throw new ClientError(`Cannot read the usage file ${path}: ${reason}.`);
  }
}

/** The request's body and type: the draft as it is, or the draft and the usage file as two parts. */
function requestBody(draft: DocumentFile, usage: UsageFile | undefined): { contentType: string; body: Buffer | StreamedBody } {
  if (usage === undefined) return { contentType: draft.contentType, body: draft.bytes };
  const draftName =
    draft.displayName === '<stdin>' ? (draft.contentType === 'application/json' ? 'price-list.json' : 'price-list.yaml') : basename(draft.displayName);
  const multipart = multipartBody([
    { name: 'price_list', fileName: draftName, contentType: draft.contentType, bytes: draft.bytes },
    { name: 'usage', fileName: basename(usage.path), contentType: usage.contentType, path: usage.path, size: usage.size },
  ]);
  return { contentType: multipart.contentType, body: multipart };
}

/** The error for a refused simulation: the statuses of its own (413, 503, 504), else as the other price-list requests. */
function simulationRefusal(status: number, text: string, headers: IncomingHttpHeaders, context: { fileName: string; url: string }): ClientError {
  let faultstring = text.trim().slice(0, 500);
  try {
    const fault = JSON.parse(text) as { faultstring?: unknown } | null;
    if (typeof fault?.faultstring === 'string') faultstring = fault.faultstring;
  } catch {
    // not JSON: the text as it is
  }
  switch (status) {
    case 413:
      return new ClientError(
        `The simulation is larger than the server accepts (413; TARIFF_SIMULATION_MAX_POINTS, TARIFF_SIMULATION_UPLOAD_LIMIT_MB): ${faultstring}`,
      );
    case 503: {
      const retry = headers['retry-after'];
      return new ClientError(
        `The server is busy with other simulations (503; TARIFF_SIMULATIONS)${typeof retry === 'string' ? `: try again in ${retry} s` : ''}. ${faultstring}`,
      );
    }
    case 504:
      return new ClientError(`The simulation took longer than the server allows (504; TARIFF_SIMULATION_TIMEOUT): ${faultstring}`);
    default:
      return refusal(status, text, context);
  }
}

/**
 * Runs a simulation of `draft` and returns its result once the server has sent all of it.
 *
 * @throws ClientError when the server refuses (the draft's problems, 403, 413, 503, …), when an
 *   `error` line ends the stream, when the answer breaks off or ends without a result, or on
 *   silence past `TARIFF_CLIENT_TIMEOUT_SECONDS`. No partial result is ever returned.
 */
export async function simulate(
  connection: Connection,
  draft: DocumentFile,
  options: SimulationOptions,
  events: SimulationEvents = {},
): Promise<SimulationResult> {
  const url = `${connection.baseUrl}${PATH}${simulationQuery(options)}`;
  const { contentType, body } = requestBody(draft, options.usage);
  const total = Buffer.isBuffer(body) ? body.length : body.length;
  let result: SimulationResult | undefined;
  let linesAfterResult = 0;
  const answer = await streamingExchange({
    method: 'POST',
    url,
    headers: { ...connection.authHeaders, 'content-type': contentType, accept: 'application/x-ndjson' },
    body,
    idleTimeoutMs: connection.timeoutMs,
    timeoutSetting: TIMEOUT_SETTING,
    maxLineBytes: connection.maxAnswerBytes,
    onLine: (text) => {
      if (result !== undefined) {
        linesAfterResult += 1;
        return;
      }
      const line = readSimulationLine(text, draft.displayName, url);
      if (line.kind === 'progress') events.onProgress?.(line.progress);
      else result = line.result;
    },
    onBodyProgress: (sent) => events.onUpload?.(sent, total),
    onSent: events.onSent,
  });
  if (answer.status !== 200) throw simulationRefusal(answer.status, answer.text, answer.headers, { fileName: draft.displayName, url });
  if (result === undefined)
    throw new ClientError(`The server's answer ended without the simulation's result (the server stopped, or the connection was cut): no result.`);
  if (linesAfterResult > 0)
    throw new ClientError(`The server's answer went on after the simulation's result (${linesAfterResult} more lines): not a result to trust.`);
  return result;
}
