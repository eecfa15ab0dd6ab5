/**
 * docs/price-list.md §2: `if_revision` makes an apply conditional on the export it came from. Two
 * server processes on one database each get a different document built from the same export,
 * both with `if_revision=N`, sent at the same time: one is applied (200), the other refused (409),
 * and the stored configuration is exactly the winner's document. Several rounds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, testDatabaseKind, type ScratchDatabase } from '../helpers/databases.js';
import { startServerProcess, type ServerProcess } from '../helpers/server.js';
import { applyTo, content, exportedFrom, type PriceListDocument } from './price-list.js';

const ROUNDS = 4;

const start: PriceListDocument = {
  groups: ['shared'],
  services: {
    compute: {
      fields: {
        flavor: {
          mappings: [
            { value: 'm1.large', cost: '4', name: 'large' },
            { value: 'm1.small', cost: '1', name: 'small' },
          ],
        },
      },
    },
  },
};

/** A variant of an export: one cost changed, one mapping added, one group added (all in export order). */
function variant(base: PriceListDocument, side: 'a' | 'b', round: number): PriceListDocument {
  const document = structuredClone(content(base));
  const mappings = document.services.compute.fields.flavor.mappings as PriceListDocument[];
  mappings.find((mapping) => mapping.name === 'small')!.cost = `${round}.${side === 'a' ? 1 : 2}`;
  mappings.push({ value: `z-${round}-${side}`, cost: '7', name: `z-${round}-${side}` });
  document.groups = [...document.groups, `${side}-${round}`].sort();
  return document;
}

describe(`two conditional applies at once on ${testDatabaseKind()}`, () => {
  let directory: string;
  let scratch: ScratchDatabase;
  let servers: ServerProcess[] = [];

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-price-list-race-'));
    scratch = await createScratchDatabase(directory);
    servers = await Promise.all([startServerProcess(scratch.url), startServerProcess(scratch.url)]);
    expect((await applyTo(servers[0], start)).status).toBe(200);
  }, 90_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await scratch?.drop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('applies exactly one and refuses the other with 409', { timeout: 120_000 }, async () => {
    for (let round = 1; round <= ROUNDS; round += 1) {
      const base = await exportedFrom(servers[round % 2]);
      const documents = { a: variant(base, 'a', round), b: variant(base, 'b', round) };
      const [a, b] = await Promise.all([
        applyTo(servers[0], documents.a, { if_revision: base.revision }),
        applyTo(servers[1], documents.b, { if_revision: base.revision }),
      ]);
      expect([a.status, b.status].sort(), JSON.stringify([a.body, b.body])).toEqual([200, 409]);
      const [winner, loser] = a.status === 200 ? [a, b] : [b, a];
      const won = a.status === 200 ? documents.a : documents.b;
      expect(winner.body.revision).toBe(base.revision + 1);
      expect(winner.body.counts).toEqual({ added: 1, replaced: 1, ended: 0, deleted: 0, updated: 0, created: 1 });
      expect(loser.body).toEqual({
        faultcode: 'Client',
        faultstring: `The configuration changed since revision ${base.revision}: it is at revision ${base.revision + 1}. Export it again and review the diff.`,
        debuginfo: null,
      });
      for (const server of servers) {
        const stored = await exportedFrom(server);
        expect(stored.revision).toBe(base.revision + 1);
        expect(content(stored)).toEqual(won);
      }
    }
  });
});
