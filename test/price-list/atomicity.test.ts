/**
 * docs/price-list.md §3: an apply is one transaction. A server process applying a document of
 * 20,000 mappings logs `price list: writing` inside the transaction, just before its first write;
 * it is killed (SIGKILL) the moment that line appears. Restarted on the same database, the export
 * is exactly what it was before the apply: nothing of it was written, nor any of its audit trail
 * (api.md §9). Then the same apply, left to finish, writes it all, with one change per rule.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, testDatabaseKind, type ScratchDatabase } from '../helpers/databases.js';
import { startServerProcess, type ServerProcess } from '../helpers/server.js';
import { applyPath, applyTo, content, exportedFrom, type PriceListDocument } from './price-list.js';

const MAPPINGS = 20_000;

/** The audit trail's total (GET /v2/rating/changes), with `query`'s filters. */
async function changesOf(server: ServerProcess, query = ''): Promise<{ total: number }> {
  const response = await fetch(`${server.url}/v2/rating/changes?limit=1&${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as { total: number };
}

const small: PriceListDocument = {
  groups: ['discounts'],
  services: { compute: { fields: { flavor: { mappings: [{ value: 'm1.small', cost: '1', name: 'small' }] } } } },
};

/** 20,000 field mappings over 20 fields, plus the small document's rule changed. */
function large(): PriceListDocument {
  const fields: Record<string, { mappings: PriceListDocument[] }> = { flavor: { mappings: [{ value: 'm1.small', cost: '2', name: 'small' }] } };
  for (let index = 0; index < MAPPINGS; index += 1) {
    const field = `field${String(index % 20).padStart(2, '0')}`;
    (fields[field] ??= { mappings: [] }).mappings.push({ value: `v${index}`, type: index % 2 ? 'rate' : 'flat', cost: `0.${index}`, group: 'discounts' });
  }
  return { groups: ['discounts'], services: { compute: { fields } } };
}

describe(`an apply killed inside its transaction on ${testDatabaseKind()}`, () => {
  let directory: string;
  let scratch: ScratchDatabase;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-price-list-kill-'));
    scratch = await createScratchDatabase(directory);
  });
  afterAll(async () => {
    await server?.stop();
    await scratch?.drop();
    rmSync(directory, { recursive: true, force: true });
  });

  /** A server that logs at info (the `price list: writing` line). */
  const start = () => startServerProcess(scratch.url, { TARIFF_LOG_LEVEL: 'info', TARIFF_DB_TIMEOUT: '60' });

  it('writes nothing when killed at the first write; writes everything when left to finish', { timeout: 240_000 }, async () => {
    server = await start();
    const first = await applyTo(server, small);
    expect(first.status).toBe(200);
    const before = await exportedFrom(server);
    expect(before.revision).toBe(first.body.revision);
    const changesBefore = (await changesOf(server)).total;
    // The first apply: its entry, its group, service, field and mapping.
    expect((await changesOf(server, `revision=${first.body.revision}`)).total).toBe(5);

    // Kill the process on the line, before anything else it does after it.
    const victim = server;
    let seen: (line: Record<string, unknown>) => void;
    const writing = new Promise<Record<string, unknown>>((resolve) => (seen = resolve));
    let pending = '';
    victim.child.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (!line.includes('price list: writing')) continue;
        const parsed = JSON.parse(line);
        if (parsed.msg !== 'price list: writing') continue;
        victim.child.kill('SIGKILL');
        seen(parsed);
      }
    });
    const body = JSON.stringify(large());
    const answer = fetch(`${victim.url}${applyPath()}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
      (response) => ({ status: response.status }),
      (error: Error) => ({ error: error.message }),
    );
    const line = await writing;
    expect(line.counts).toEqual({ added: MAPPINGS, replaced: 1, ended: 0, deleted: 0, updated: 0, created: 20 });
    await victim.kill();
    expect(victim.child.signalCode).toBe('SIGKILL');
    // The client never had an answer: the connection died with the process.
    expect(await answer).toEqual({ error: 'fetch failed' });

    server = await start();
    const after = await exportedFrom(server);
    expect(after.revision).toBe(before.revision);
    expect(content(after)).toEqual(content(before));
    // Nor anything of its audit trail (api.md §9): the trail holds the first apply and its rule changes only.
    const trail = await changesOf(server);
    expect(trail.total).toBe(changesBefore);
    expect((await changesOf(server, `revision=${before.revision + 1}`)).total).toBe(0);

    // The same document, left alone, is written whole.
    const done = await applyTo(server, body);
    expect(done.status).toBe(200);
    expect(done.body.revision).toBe(before.revision + 1);
    const written = await exportedFrom(server);
    const mappings = Object.values(written.services.compute.fields as Record<string, { mappings: unknown[] }>).flatMap((field) => field.mappings);
    expect(mappings).toHaveLength(MAPPINGS + 1);
    // Its audit trail too: the apply's entry and one change per rule and field it made.
    expect((await changesOf(server, `revision=${done.body.revision}`)).total).toBe(1 + MAPPINGS + 1 + 20);
  });
});
