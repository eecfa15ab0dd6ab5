/**
 * Stored usage read from CloudKitty's `GET /v2/dataframes` for a simulation (docs/price-list.md §4),
 * against answers as CloudKitty 17 gives them (fetch stubbed): an empty window is CloudKitty's JSON
 * 404 and reads as nothing; a 404 page of a CloudKitty that serves no v2 API (its v1 storage) is a
 * fault naming CloudKitty, not an empty window that would make a simulation of nothing.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TariffError } from '../../src/kernel/errors.js';
import { readCloudKittyUsage, type CloudKittyUsageSource } from '../../src/rating/simulation/cloudkitty-usage.js';
import type { StoredDataframe } from '../../src/rating/simulation/stored-dataframe.js';

const SOURCE: CloudKittyUsageSource = { url: 'http://cloudkitty.test', windowMs: 3_600_000, pagePoints: 1000, timeoutMs: 5000, maxDecimalExponent: 100 };
const BEGIN = new Date('2026-12-01T00:00:00Z');
const END = new Date('2026-12-01T02:00:00Z');

/** What CloudKitty 17 answers for an empty window (werkzeug NotFound through its v2 error handler). */
const EMPTY_WINDOW = { status: 404, type: 'application/json', text: '{"message": "No resource found for provided filters."}' };
/** What CloudKitty 17 on its v1 storage answers for every /v2 path (Flask's own 404 page). */
const NO_V2_API = {
  status: 404,
  type: 'text/html; charset=utf-8',
  text: '<!doctype html>\n<html lang=en>\n<title>404 Not Found</title>\n<h1>Not Found</h1>\n<p>The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.</p>\n',
};
const ONE_POINT = {
  status: 200,
  type: 'application/json',
  text: JSON.stringify({
    total: 1,
    dataframes: [
      {
        period: { begin: '2026-12-01T01:00:00+00:00', end: '2026-12-01T02:00:00+00:00' },
        usage: { instance: [{ vol: { unit: 'instance', qty: 1.0 }, rating: { price: 0.5 }, groupby: { project_id: 'p1' }, metadata: {} }] },
      },
    ],
  }),
};

/** What keystonemiddleware answers for a revoked or expired token. */
const UNAUTHORIZED = {
  status: 401,
  type: 'application/json',
  text: '{"error": {"code": 401, "title": "Unauthorized", "message": "The request you have made requires authentication."}}',
};

/** Stubs fetch with one answer per call, in order; the URLs asked for (and the tokens sent, in `tokens`). */
function answers(...list: { status: number; type: string; text: string }[]): string[] & { tokens?: (string | null)[] } {
  const asked: string[] & { tokens?: (string | null)[] } = [];
  asked.tokens = [];
  vi.stubGlobal('fetch', async (url: string, init: { headers: Record<string, string> }) => {
    asked.push(url);
    asked.tokens!.push(init.headers['x-auth-token'] ?? null);
    const next = list.shift();
    if (!next) throw new Error(`no answer left for ${url}`);
    return new Response(next.text, { status: next.status, headers: { 'content-type': next.type } });
  });
  return asked;
}

async function read(source = SOURCE): Promise<StoredDataframe[]> {
  const frames: StoredDataframe[] = [];
  for await (const frame of readCloudKittyUsage(source, BEGIN, END, new AbortController().signal, { windows: 0, windowsDone: 0 })) frames.push(frame);
  return frames;
}

describe("reading CloudKitty's stored usage", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("reads CloudKitty's JSON 404 as an empty window and goes on to the next", async () => {
    const asked = answers(EMPTY_WINDOW, ONE_POINT);
    const frames = await read();
    expect(frames.map((frame) => frame.begin.toISOString())).toEqual(['2026-12-01T01:00:00.000Z']);
    expect(asked).toHaveLength(2);
    expect(asked[0]).toContain('/v2/dataframes?begin=2026-12-01T00%3A00%3A00%2B00%3A00&end=2026-12-01T01%3A00%3A00%2B00%3A00&offset=0&limit=1000');
  });

  it('refuses the 404 page of a CloudKitty without a v2 API (its v1 storage) with a 502 naming CloudKitty, not an empty simulation', async () => {
    answers(NO_V2_API, ONE_POINT);
    const error = await read().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(TariffError);
    expect((error as TariffError).status).toBe(502);
    expect((error as TariffError).message).toMatch(
      /^Reading stored usage from CloudKitty failed: GET \/v2\/dataframes\?\S+ answered 404 without CloudKitty's JSON fault: it serves no v2 API there/,
    );
    expect((error as TariffError).message).toContain('v1 storage');
  });

  it("asks for a new service token once when CloudKitty refuses Tariff's (revoked or expired), and fails with CloudKitty's 401 when the new one is refused too", async () => {
    const stale: (string | undefined)[] = [];
    let issued = 0;
    const serviceToken = async (refused?: string) => {
      stale.push(refused);
      if (refused !== undefined) issued += 1;
      return `token-${issued}`;
    };
    const asked = answers(UNAUTHORIZED, EMPTY_WINDOW, ONE_POINT);
    const frames = await read({ ...SOURCE, serviceToken });
    expect(frames).toHaveLength(1);
    expect(asked.tokens).toEqual(['token-0', 'token-1', 'token-1']);
    expect(stale).toEqual([undefined, 'token-0', undefined]);

    answers(UNAUTHORIZED, UNAUTHORIZED);
    const error = await read({ ...SOURCE, serviceToken }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect((error as TariffError).status).toBe(502);
    expect((error as TariffError).message).toMatch(/^Reading stored usage from CloudKitty failed: GET \/v2\/dataframes\?\S+ answered 401: /);
  });
});
