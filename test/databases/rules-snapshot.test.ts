/**
 * One rules snapshot per load (issue 24, finding 1): two Tariff processes on one database; one
 * applies a generated sequence of price lists back to back (a service mapping of cost `c` and a
 * threshold of cost `10 c`: a one-unit quote costs `11 c`), the other quotes all the while, some
 * quotes forcing a reload first (`reload_modules`). Every quote total must be the price under
 * exactly one applied price list (`11 c`), never a mix of two (`c + 10 c'`, which no multiple of
 * 11 is for distinct costs from 1 to 9). Before the fix, the mappings and the thresholds were read
 * by separate statements on separate pooled connections: 5–17 % of quotes mixed two applies on
 * PostgreSQL and MariaDB. Runs on each database of the run (SQLite reads one connection anyway).
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseKind } from '../helpers/databases.js';
import { useScratchServers } from '../helpers/scratch-servers.js';
import { callServer, type ServerProcess } from '../helpers/server.js';
import { applyTo, QUOTE, type PriceListDocument } from '../price-list/price-list.js';

/** Concurrent quote loops on the quoting process; all but the first force a reload before each quote. */
const QUOTERS = 3;

/** The price list of cost `cost`: a one-unit `compute` quote costs `11 × cost`. */
function priceList(cost: number): PriceListDocument {
  return {
    modules: { hashmap: { enabled: true, priority: 1 } },
    services: {
      compute: {
        mappings: [{ type: 'flat', cost: String(cost) }],
        thresholds: [{ level: '0', type: 'flat', cost: String(10 * cost) }],
      },
    },
  };
}

const ONE_UNIT = { usage: { compute: [{ vol: { unit: 'instance', qty: '1' } }] } };

describe(`one rules snapshot per load, two processes on one ${testDatabaseKind()} database`, () => {
  const running = useScratchServers('rules-snapshot', 2);
  const applier = (): ServerProcess => running.servers[0];
  const quoter = (): ServerProcess => running.servers[1];
  /** The cost of the price list applied last. */
  let current = 1;

  beforeAll(async () => {
    const first = await applyTo(applier(), priceList(current));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
  }, 90_000);

  /** Quotes until `done()`; returns the totals. The loops other than the first reload the rules before each quote. */
  async function quoteUntil(done: () => boolean, reload: boolean): Promise<string[]> {
    const totals: string[] = [];
    while (!done()) {
      if (reload) expect((await callServer(quoter(), 'GET', '/v1/rating/reload_modules')).status).toBe(204);
      const answer = await callServer(quoter(), 'POST', QUOTE, ONE_UNIT);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      totals.push(String(answer.body.total));
    }
    return totals;
  }

  it('prices every quote under exactly one applied price list while another process applies', { timeout: 120_000 }, async () => {
    let quotes = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 8, maxLength: 16 }), async (costs) => {
        const prices = new Set([String(11 * current)]);
        let applying = true;
        const applies = (async () => {
          try {
            for (const cost of costs) {
              if (cost === current) continue;
              const answer = await applyTo(applier(), priceList(cost));
              expect(answer.status, JSON.stringify(answer.body)).toBe(200);
              current = cost;
              prices.add(String(11 * cost));
            }
          } finally {
            applying = false;
          }
        })();
        const loops = Array.from({ length: QUOTERS }, (_, index) => quoteUntil(() => !applying, index > 0));
        const [, ...totals] = await Promise.all([applies, ...loops]);
        const all = totals.flat();
        quotes += all.length;
        const mixed = all.filter((total) => !prices.has(total));
        expect(mixed, `${mixed.length} of ${all.length} quotes mixed two price lists (applied: ${[...prices].join(', ')})`).toEqual([]);
      }),
      { numRuns: 4, endOnFailure: true },
    );
    // Enough quotes overlapped the applies for a mix to have shown (it did in 5–17 % before the fix).
    expect(quotes).toBeGreaterThan(100);
  });
});
