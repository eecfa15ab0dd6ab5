/**
 * After a bulk price-list request (body or answer of 100 KB or more) the server runs a full
 * garbage collection (kernel/memory.ts); after a small one, or any other route, it does not.
 */
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

describe(`memory after bulk price-list requests on ${testDatabaseKind()}`, () => {
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    holder.gc = original;
    await t?.close();
  });
  afterEach(() => {
    holder.gc = original;
  });

  it('collects after a 3,000-rule apply and export, not after small ones', async () => {
    collect = vi.fn<() => void>();
    holder.gc = collect;
    expect((await apply(t, document(10), { dry_run: true })).status).toBe(200);
    expect((await t.get(PRICE_LIST)).status).toBe(200);
    await sleep(20);
    expect(collect).not.toHaveBeenCalled();

    const big = document(3000);
    expect(JSON.stringify(big).length).toBeGreaterThan(100 * 1024);
    expect((await apply(t, big)).status).toBe(200);
    await sleep(20);
    expect(collect).toHaveBeenCalledTimes(1);

    const exported = await t.get(PRICE_LIST);
    expect(exported.text.length).toBeGreaterThan(100 * 1024);
    await sleep(20);
    expect(collect).toHaveBeenCalledTimes(2);
  });
});
