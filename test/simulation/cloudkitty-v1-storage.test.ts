/**
 * Issue 27: a simulation pointed at the real CloudKitty 17 on its v1 SQL storage. CloudKitty 17
 * serves no `/v2` route on that storage (api/app.py: "v1 storage is used, disabling v2 API"):
 * `GET /v2/dataframes` answers 404 `text/html` for every window, which is not CloudKitty's "no
 * usage in this window" (404 JSON `{"message": "No resource found for provided filters."}`). A
 * simulation must not read that as a month without usage and answer totals of 0: it has read
 * nothing (price-list.md §4: a result only for a simulation that read every point).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_HEADERS } from '../helpers/headers.js';
import { startServerProcess, type ServerProcess } from '../helpers/server.js';
import { cloudKittyAvailable, startCloudKitty, type CloudKitty } from '../adoption/cloudkitty.js';
import { cloudKittyDatabase, MONTH } from './cloudkitty-usage.js';

describe.skipIf(!cloudKittyAvailable())('simulating on a CloudKitty 17 whose storage is the v1 SQL storage', () => {
  let directory: string;
  let database: Awaited<ReturnType<typeof cloudKittyDatabase>>;
  let ck: CloudKitty;
  let server: ServerProcess;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-simulation-v1-'));
    database = await cloudKittyDatabase();
    ck = await startCloudKitty(database.url);
    server = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`, { TARIFF_CLOUDKITTY_API_URL: ck.url, TARIFF_SIMULATION_WINDOW: '86400' });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await ck?.stop();
    await database?.drop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('CloudKitty answers its missing /v2 with an HTML 404, not its JSON "no usage" 404', async () => {
    const response = await fetch(`${ck.url}/v2/dataframes?begin=2026-09-01T00:00:00Z&end=2026-09-02T00:00:00Z`, { headers: { 'x-roles': 'admin' } });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('the simulation fails naming CloudKitty instead of answering a month without usage', async () => {
    const response = await fetch(`${server.url}/v2/rating/price_list/simulation?${new URLSearchParams(MONTH)}`, {
      method: 'POST',
      headers: { ...TEST_HEADERS, accept: 'application/json' },
      body: JSON.stringify({ services: {} }),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    expect(response.status, text.slice(0, 2000)).toBe(502);
    expect(JSON.parse(text).faultstring).toMatch(/CloudKitty/);
  });
});
