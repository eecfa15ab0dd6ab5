/**
 * Backing up the embedded database as docs/operators/operating.md says: SQLite's online backup
 * (`sqlite3 -cmd ".timeout 5000" tariff.db ".backup FILE"`, Debian's sqlite3) taken while a real Tariff process keeps
 * writing is a consistent database (`PRAGMA integrity_check` prints ok), and restored as the page
 * says (stop, the old file and its -wal/-shm moved away, the backup copied in, start) it serves
 * every rule answered before the backup and none written after it.
 */
import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callServer, startServerProcess, type ServerProcess } from '../helpers/server.js';

/** Debian's sqlite3 command, which the page tells operators to use. */
const SQLITE3 = '/usr/bin/sqlite3';
const SQLITE3_AVAILABLE = existsSync(SQLITE3);
if (!SQLITE3_AVAILABLE) console.warn(`test/operations/backup.test.ts skipped: ${SQLITE3} is missing (install Debian's sqlite3 to run it)`);

const SERVICES = '/v1/rating/module_config/hashmap/services';

/** Names of the hashmap services `server` serves, sorted. */
async function serviceNames(server: ServerProcess): Promise<string[]> {
  const answer = await callServer(server, 'GET', SERVICES);
  expect(answer.status).toBe(200);
  return (answer.body as { services: { name: string }[] }).services.map((service) => service.name).sort();
}

/** Creates a hashmap service named `name`, requiring a 201. */
async function createService(server: ServerProcess, name: string): Promise<void> {
  const answer = await callServer(server, 'POST', SERVICES, { name });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
}

describe.skipIf(!SQLITE3_AVAILABLE)('backing up the embedded database (docs/operators/operating.md)', () => {
  let directory: string;
  let server: ServerProcess | undefined;

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-backup-'));
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('takes a consistent copy while the server writes, and a restored copy serves exactly what was answered before it', async () => {
    const database = join(directory, 'tariff.db');
    const backup = join(directory, 'tariff-backup.db');
    const original = await startServerProcess(`sqlite:${database}`);
    server = original;
    const before = ['instance', 'volume.size', 'network.bw.out'];
    for (const name of before) await createService(original, name);

    // Writes keep coming while the backup runs; each is answered before or after the copy.
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) await createService(original, `during-${written++}`);
    })();
    await promisify(execFile)(SQLITE3, ['-cmd', '.timeout 5000', database, `.backup ${backup}`]);
    writing = false;
    await writer;
    expect(written).toBeGreaterThan(0);
    await createService(server, 'after');

    expect(execFileSync(SQLITE3, [backup, 'PRAGMA integrity_check'], { encoding: 'utf8' }).trim()).toBe('ok');

    // Restore: stop, move the file aside, remove its -wal and -shm, copy the backup in, start.
    expect(await server.stop()).toBe(0);
    server = undefined;
    renameSync(database, join(directory, 'tariff.db.old'));
    rmSync(`${database}-wal`, { force: true });
    rmSync(`${database}-shm`, { force: true });
    copyFileSync(backup, database);
    server = await startServerProcess(`sqlite:${database}`);

    const restored = await serviceNames(server);
    for (const name of before) expect(restored).toContain(name);
    expect(restored).not.toContain('after');
    // Of the writes made during the copy, the restored file holds a prefix: the copy is one instant.
    const during = restored.filter((name) => name.startsWith('during-')).map((name) => Number(name.slice('during-'.length)));
    expect(during.sort((a, b) => a - b)).toEqual(during.map((_, index) => index));
    // And the server writes to it as to any database.
    await createService(server, 'after-restore');
    expect(await serviceNames(server)).toContain('after-restore');
  }, 120_000);
});
