/**
 * After bulk price-list work (an export or apply of 100 KB or more, done and answered with 2xx)
 * the server runs a full garbage collection (kernel/memory.ts), at most one per
 * `TARIFF_BULK_COLLECTION_INTERVAL`; after a small one, a refused one, or a request that only
 * declared a large body (fix, issue 24: 100 header-only requests cost 4 s of CPU), it does not.
 * Collections are counted by replacing the `gc` that `--expose-gc` gives.
 */
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { testDatabaseKind } from '../helpers/databases.js';
import { PRICE_LIST, apply, type PriceListDocument } from './price-list.js';

const holder = globalThis as { gc?: () => void };
const original = holder.gc;
let t: TestApp;
let collect: ReturnType<typeof vi.fn<() => void>>;

/** `count` field mappings: about 60 bytes of JSON each. */
function document(count: number): PriceListDocument {
  const mappings = Array.from({ length: count }, (_, index) => ({ value: `flavor-${index}`, cost: `0.${index + 1}`, name: `m${index}` }));
  return { groups: [], services: { compute: { fields: { flavor: { mappings } } } } };
}

/** Sends a request that declares a 70 MB body and sends none; resolves with what the server answered when it closes. */
function headerOnly(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('connect', () => {
      socket.write(`POST ${PRICE_LIST} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 70000000\r\n\r\n`);
      setTimeout(() => socket.destroy(), 2000);
    });
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe(`memory after bulk price-list requests on ${testDatabaseKind()}`, () => {
  beforeAll(async () => {
    // A short interval, so that the interval's end is seen here.
    t = await startTestApp({ config: { quoteBodyLimitBytes: 1024 * 1024, bulkCollectionIntervalMs: 5000 } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    holder.gc = original;
    await t?.close();
  });
  afterEach(() => {
    holder.gc = original;
  });

  it('collects after refused or header-only requests never, after a 10,000-rule apply and export once per interval', { timeout: 120_000 }, async () => {
    collect = vi.fn<() => void>();
    holder.gc = collect;
    // Small work, refused work, declared work: no collection.
    expect((await apply(t, document(10), { dry_run: true })).status).toBe(200);
    expect((await t.get(PRICE_LIST)).status).toBe(200);
    const refused = document(3000);
    refused.services.compute.fields.flavor.mappings[5].cost = 'abc';
    expect((await apply(t, refused, { dry_run: true })).status).toBe(400);
    expect((await apply(t, document(20_000))).status).toBe(413);
    const port = (t.app.server.address() as { port: number }).port;
    const answers = await Promise.all(Array.from({ length: 100 }, () => headerOnly(port)));
    for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    await sleep(100);
    expect(collect).not.toHaveBeenCalled();

    // A 10,000-rule apply (about 600 KB), done: one collection at once.
    const big = document(10_000);
    expect(JSON.stringify(big).length).toBeGreaterThan(100 * 1024);
    expect((await apply(t, big)).status).toBe(200);
    await sleep(50);
    expect(collect).toHaveBeenCalledTimes(1);

    // Its export and another apply within the interval: one collection, at the interval's end.
    const exported = await t.get(PRICE_LIST);
    expect(exported.text.length).toBeGreaterThan(100 * 1024);
    expect((await apply(t, big, { dry_run: true })).status).toBe(200);
    await sleep(50);
    expect(collect).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(collect).toHaveBeenCalledTimes(2), { timeout: 20_000, interval: 100 });
    await sleep(6000);
    expect(collect).toHaveBeenCalledTimes(2);
  });
});
