/**
 * A large price list is read off the event loop (reading.ts; fix, issue 24: a refused 7 MB
 * document held `/healthcheck` 5.5 s, a 32 MB dry run 42 s): on a server process, while large
 * refused and accepted documents are read, `/healthcheck` answers within a second (a generous
 * bound; it answered in 5 s and more before). A large valid dry run and apply too: the worker's
 * answer comes back in pieces, the sections read and plan with turns of the event loop, and the
 * diff is streamed (before, a 140,000-rule dry run held `/healthcheck` about 1.5 s). Past
 * `TARIFF_PRICE_LIST_READS` an apply is refused at once with 503 and `Retry-After`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../helpers/server.js';

const PRICE_LIST = '/v2/rating/price_list';
let server: ServerProcess;

/** `count` field mappings; each cost `cost(index)`. */
function document(count: number, cost: (index: number) => string): string {
  const mappings = Array.from({ length: count }, (_, index) => ({ value: `flavor-${index}`, cost: cost(index), description: 'x'.repeat(40) }));
  return JSON.stringify({ services: { compute: { fields: { flavor: { mappings } } } } }, null, 1);
}

/** POSTs a dry run (or an apply); resolves with the status and `Retry-After`. */
async function dryRun(body: string, dry = true): Promise<{ status: number; retryAfter: string | null; text: string }> {
  const response = await fetch(`${server.url}${PRICE_LIST}?dry_run=${dry}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(300_000),
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), text: await response.text() };
}

/** Polls `/healthcheck` every 100 ms until `until` settles; returns the slowest answer in ms. */
async function slowestHealthcheck(until: Promise<unknown>): Promise<number> {
  let done = false;
  void until.finally(() => (done = true));
  let slowest = 0;
  while (!done) {
    const started = performance.now();
    const response = await fetch(`${server.url}/healthcheck`, { signal: AbortSignal.timeout(60_000) });
    await response.arrayBuffer();
    slowest = Math.max(slowest, performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return slowest;
}

describe('price lists read off the event loop', () => {
  beforeAll(async () => {
    const directory = mkdtempSync(join(tmpdir(), 'tariff-price-list-reads-'));
    server = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`, { TARIFF_PRICE_LIST_READS: '1' });
  });
  afterAll(() => server?.stop());

  it('answers /healthcheck within a second while a large refused document is read', { timeout: 300_000 }, async () => {
    // About 7 MB, every cost in error: parsed, checked and located (the 1,000 listed) in the worker.
    const body = document(60_000, () => 'abc');
    expect(body.length).toBeGreaterThan(6 * 1024 * 1024);
    const answer = dryRun(body);
    const slowest = await slowestHealthcheck(answer);
    const { status, text } = await answer;
    expect(status, text.slice(0, 300)).toBe(400);
    expect(JSON.parse(text).problems).toHaveLength(1000);
    expect(slowest).toBeLessThan(1000);
  });

  it('answers /healthcheck within a second during a large valid dry run and its apply, the diff whole', { timeout: 300_000 }, async () => {
    // About 15 MB, 140,000 named field mappings (names: no generated ones, so both diffs are alike).
    const count = 140_000;
    const mappings = Array.from({ length: count }, (_, index) => ({
      value: `v-${index}`,
      name: `m-${index}`,
      cost: `0.${index + 1}`,
      description: 'x'.repeat(40),
    }));
    const body = JSON.stringify({ services: { bulk: { fields: { flavor: { mappings } } } } });
    expect(body.length).toBeGreaterThan(14 * 1024 * 1024);
    for (const dry of [true, false]) {
      const answer = dryRun(body, dry);
      const slowest = await slowestHealthcheck(answer);
      const { status, text } = await answer;
      expect(status, text.slice(0, 300)).toBe(200);
      const diff = JSON.parse(text);
      expect(diff.dry_run).toBe(dry);
      expect(diff.counts).toEqual({ added: count, replaced: 0, ended: 0, deleted: 0, updated: 0, created: 2 });
      expect(diff.changes).toHaveLength(count + 2);
      // The streamed text is JSON.stringify's, member for member.
      expect(text).toBe(JSON.stringify(diff));
      const last = diff.changes.find((change: { after?: { value?: string } }) => change.after?.value === `v-${count - 2}`);
      expect(last.after).toMatchObject({ field: 'flavor', name: `m-${count - 2}`, cost: `0.${count - 1}` });
      expect(slowest, dry ? 'dry run' : 'apply').toBeLessThan(1000);
    }
  });

  it('refuses a second read at once with 503 and Retry-After, past TARIFF_PRICE_LIST_READS=1', { timeout: 300_000 }, async () => {
    const first = dryRun(document(60_000, () => 'abc'));
    // The first is read in its worker for seconds; the second arrives meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const second = await dryRun(document(10, (index) => `0.${index + 1}`));
    expect(second.status, second.text).toBe(503);
    expect(second.retryAfter).toBe('5');
    expect(JSON.parse(second.text)).toEqual({
      faultcode: 'Server',
      faultstring: 'Price lists are busy: 1 are being read in this process, the most TARIFF_PRICE_LIST_READS allows; try again in 5 s.',
      debuginfo: null,
    });
    expect((await first).status).toBe(400);
    // Once it is done, the next one is read.
    expect((await dryRun(document(10, (index) => `0.${index + 1}`))).status).toBe(200);
  });
});
