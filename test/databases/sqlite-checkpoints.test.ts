/**
 * The embedded database's log is copied into its file by a worker thread, not by the connection
 * that commits (src/database/dialects/sqlite-checkpoints.ts; fix, issue 26: a 140,000-rule apply's
 * checkpoint held the event loop 0.35 s idle, 1.7 s under load). On the compiled module (dist/),
 * which the server runs: right after a large commit the file has not grown (the committing
 * connection did not checkpoint); within seconds it has (a worker thread did, started when the
 * log passed 4 MB); a close waits for a checkpoint under way, so the server's connection
 * checkpoints last and removes the log.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import type { Checkpointer } from '../../src/database/dialects/sqlite-checkpoints.js';

type CheckpointModule = { checkpointInWorker: (connection: DatabaseSync, file: string) => Checkpointer | undefined };
const directory = mkdtempSync(join(tmpdir(), 'tariff-checkpoints-'));

afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('checkpoints of the SQLite log', () => {
  it('are the worker’s: a large commit leaves the file as it was, the worker copies the log within seconds, a close removes it', async () => {
    const { checkpointInWorker } = (await import(new URL('../../dist/database/dialects/sqlite-checkpoints.js', import.meta.url).href)) as CheckpointModule;
    const file = join(directory, 'tariff.db');
    const connection = new DatabaseSync(file);
    connection.exec('PRAGMA journal_mode = WAL');
    connection.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
    const checkpointer = checkpointInWorker(connection, file);
    expect(checkpointer).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const before = statSync(file).size;

    // About 8 MB in one transaction: 2,000 pages, twice SQLite's own checkpoint threshold.
    const insert = connection.prepare('INSERT INTO rows (text) VALUES (?)');
    connection.exec('BEGIN');
    for (let index = 0; index < 20_000; index += 1) insert.run(`${index}`.padEnd(400, 'x'));
    connection.exec('COMMIT');
    expect(statSync(file).size, 'the committing connection copied the log itself').toBe(before);
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(8_000_000);

    await expect.poll(() => statSync(file).size, { timeout: 10_000, interval: 100 }).toBeGreaterThan(before + 8_000_000);

    checkpointer!.stop();
    connection.close();
    expect(existsSync(`${file}-wal`), 'the last connection to close checkpoints and removes the log').toBe(false);
    const reopened = new DatabaseSync(file, { readOnly: true });
    expect(reopened.prepare('SELECT count(*) AS count FROM rows').get()).toEqual({ count: 20_000 });
    reopened.close();
  }, 60_000);
});
