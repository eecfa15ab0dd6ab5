/**
 * The rule cache across processes (rating.md §3): two server processes on one database, a write
 * through one changes the other's quotes within about 1.5 s, in both directions. (The quotes
 * themselves: test/http/quote.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { H } from '../helpers/app.js';
import { testDatabaseKind } from '../helpers/databases.js';
import { useScratchServers } from '../helpers/scratch-servers.js';
import { callServer, type ServerProcess } from '../helpers/server.js';

const Q2 = '/v2/rating/quote';

const point = (qty: string, groupby: Record<string, unknown> = {}) => ({ vol: { unit: 'instance', qty }, rating: { price: '0' }, groupby, metadata: {} });

describe(`two server processes on one ${testDatabaseKind()} database`, () => {
  const made = useScratchServers('quote', 2);

  async function created(server: ServerProcess, path: string, body: unknown): Promise<any> {
    const answer = await callServer(server, 'POST', path, body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    return answer.body;
  }

  async function totalOn(server: ServerProcess, body: unknown): Promise<string> {
    const answer = await callServer(server, 'POST', Q2, body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.total;
  }

  /** Polls `server` until its quote total is `expected`; returns the milliseconds it took. */
  async function seenWithin(server: ServerProcess, body: unknown, expected: string, since: number, limitMs: number): Promise<number> {
    for (;;) {
      const total = await totalOn(server, body);
      const elapsed = performance.now() - since;
      if (total === expected) return elapsed;
      if (elapsed > limitMs) throw new Error(`still ${total} (expected ${expected}) after ${Math.round(elapsed)} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it("a mapping created through A changes B's quote within ~1.5 s", async () => {
    const [a, b] = made.servers;
    const usage = { usage: { compute: [point('2', { flavor: 'm1.nano' })] } };
    // Both processes have loaded (and cached) the empty rule set.
    expect(await totalOn(a, usage)).toBe('0');
    expect(await totalOn(b, usage)).toBe('0');

    const put = await callServer(a, 'PUT', '/v2/rating/modules/hashmap', { enabled: true });
    expect(put.status).toBe(204);
    const service = await created(a, `${H}/services/`, { name: 'compute' });
    const field = await created(a, `${H}/fields/`, { service_id: service.service_id, name: 'flavor' });
    await created(a, `${H}/mappings/`, { service_id: service.service_id, cost: '0.5' });
    let since = performance.now();
    expect(await totalOn(a, usage)).toBe('1');
    await seenWithin(b, usage, '1', since, 1500);

    // Prime B's cache again, then write a field mapping through A.
    for (let i = 0; i < 3; i += 1) expect(await totalOn(b, usage)).toBe('1');
    await created(a, `${H}/mappings/`, { field_id: field.field_id, value: 'm1.nano', cost: '3', group_id: null });
    since = performance.now();
    // Both flats are in _DEFAULT_: the most expensive wins (3 × 2).
    expect(await totalOn(a, usage)).toBe('6');
    await seenWithin(b, usage, '6', since, 1500);

    // A module change through A: B stops pricing.
    expect((await callServer(a, 'PUT', '/v1/rating/modules/hashmap', { enabled: false })).status).toBe(200);
    since = performance.now();
    expect(await totalOn(a, usage)).toBe('0');
    await seenWithin(b, usage, '0', since, 1500);

    // And the other way round: a write through B reaches A.
    expect((await callServer(b, 'PUT', '/v2/rating/modules/hashmap', { enabled: true })).status).toBe(204);
    since = performance.now();
    expect(await totalOn(b, usage)).toBe('6');
    await seenWithin(a, usage, '6', since, 1500);
  }, 60_000);
});
