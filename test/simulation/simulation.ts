/**
 * What the simulation tests share (docs/price-list.md §4): usage files made of CloudKitty v2
 * dataframes, the multipart body that uploads one with a draft, and the call.
 */
import { gzipSync } from 'node:zlib';
import type { TestApp, TestResponse } from '../helpers/app.js';

export const SIMULATION = '/v2/rating/price_list/simulation';

/** An hour, in milliseconds: CloudKitty's default collection period. */
export const HOUR = 3_600_000;

/** The start of the hour one day from now (epoch ms): usage after the live rules' start, which is their apply time. */
export const TOMORROW = Date.parse(new Date(Date.now() + 86_400_000).toISOString().slice(0, 13) + ':00:00Z');

/** ISO 8601 UTC text with an explicit offset, whole seconds (as CloudKitty writes periods). */
export function isoTime(time: number): string {
  return new Date(time).toISOString().replace('.000Z', '+00:00');
}

/** A stored point as CloudKitty's v2 API answers it. */
export interface UsagePoint {
  vol: { unit: string; qty: string | number };
  rating: { price: string | number };
  groupby: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/** A stored dataframe as CloudKitty's v2 API answers it. */
export interface UsageDataframe {
  period: { begin: string; end: string };
  usage: Record<string, UsagePoint[]>;
}

/** A usage file's bytes: one dataframe a line, gzip when asked. */
export function usageFile(dataframes: readonly UsageDataframe[], gzip = false): Buffer {
  const text = dataframes.map((dataframe) => JSON.stringify(dataframe)).join('\n') + '\n';
  return gzip ? gzipSync(text) : Buffer.from(text);
}

/** A multipart body (its bytes and content type) with the draft and the usage file, as the CLI sends it. */
export async function uploadBody(draft: unknown, usage: Buffer): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  form.append('price_list', new Blob([typeof draft === 'string' ? draft : JSON.stringify(draft)], { type: 'application/json' }), 'draft.json');
  form.append('usage', new Blob([new Uint8Array(usage)], { type: 'application/octet-stream' }), 'usage.jsonl');
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { body: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type')! };
}

/** The query of a simulation. */
export function simulationPath(query: { begin: string; end: string; effective_at?: string; top?: number }): string {
  const parameters = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) parameters.set(name, String(value));
  return `${SIMULATION}?${parameters.toString()}`;
}

/** Simulates `draft` on the usage file through the test app; `accept` chooses the answer. */
export async function simulate(
  t: TestApp,
  draft: unknown,
  usage: Buffer,
  query: { begin: string; end: string; effective_at?: string; top?: number },
  accept = 'application/json',
): Promise<TestResponse> {
  const { body, contentType } = await uploadBody(draft, usage);
  return t.request('POST', simulationPath(query), body, { 'content-type': contentType, accept });
}
