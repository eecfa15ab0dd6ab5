/**
 * Issue 11, item 8: `tariff serve` and `tariff db upgrade` on an SQLite file that is not a
 * database, is truncated, or has a damaged page stop with one line on stderr naming the file and
 * the problem, a non-zero exit code, and no stack trace (real processes, `bin/tariff.js`).
 */
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync, statSync, openSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/database/connection.js';
import { migrateToLatest } from '../../src/database/migrate.js';
import { ratingModules } from '../../src/application.js';
import { hashmapTables } from '../../src/rating/hashmap/tables.js';
import { databaseIs } from '../helpers/database-kind.js';
import { runTariff } from '../helpers/server.js';

const COMMANDS = [['serve'], ['db', 'upgrade'], ['db', 'upgrade', '--dry-run']];

/** A real Tariff database with a few thousand rows (many pages), closed cleanly (no WAL left). */
async function writeRealDatabase(file: string): Promise<void> {
  const database = openDatabase(`sqlite:${file}`);
  await migrateToLatest(database, ratingModules().migrations());
  await hashmapTables(database.db)
    .insertInto('hashmap_groups')
    .values(Array.from({ length: 3000 }, (_, index) => ({ group_id: randomUUID(), name: `group-${index}-${'x'.repeat(100)}` })))
    .execute();
  await database.close();
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Runs every command on `file`; each must print exactly one line matching `problem` and exit non-zero. */
async function expectOneLineRefusal(file: string, problem: RegExp): Promise<void> {
  for (const command of COMMANDS) {
    const run = await runTariff(`sqlite:${file}`, ...command);
    const where = `tariff ${command.join(' ')}: ${run.stderr}`;
    expect(run.code, where).not.toBe(0);
    expect(run.stderr, where).toMatch(new RegExp(`^tariff: cannot open the SQLite database ${escapeRegExp(file)}: ${problem.source}\\n$`));
    expect(run.stderr, where).not.toMatch(/\n\s+at /);
    expect(run.stdout, where).toBe('');
  }
}

describe.runIf(databaseIs('sqlite'))('a damaged SQLite file stops start-up with one line', () => {
  let directory: string;

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-corrupt-'));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('a file of garbage: file is not a database (SQLITE_NOTADB)', async () => {
    const file = join(directory, 'garbage.db');
    writeFileSync(file, 'this is not an SQLite database\n'.repeat(500));
    await expectOneLineRefusal(file, /file is not a database \(SQLITE_NOTADB\)/);
    expect(readFileSync(file, 'utf8')).toBe('this is not an SQLite database\n'.repeat(500));
  });

  it('a real database cut in half: database disk image is malformed', async () => {
    const file = join(directory, 'truncated.db');
    await writeRealDatabase(file);
    truncateSync(file, Math.floor(statSync(file).size / 2));
    await expectOneLineRefusal(file, /database disk image is malformed \((SQLITE_CORRUPT|PRAGMA quick_check: .+)\)/);
  });

  it('a real database with one page overwritten, same size: found by the integrity check', async () => {
    const file = join(directory, 'damaged.db');
    await writeRealDatabase(file);
    const pageSize = 4096;
    const pages = statSync(file).size / pageSize;
    const descriptor = openSync(file, 'r+');
    writeSync(descriptor, Buffer.alloc(pageSize, 0xa5), 0, pageSize, Math.floor(pages / 2) * pageSize);
    closeSync(descriptor);
    await expectOneLineRefusal(file, /database disk image is malformed \((SQLITE_CORRUPT|PRAGMA quick_check: .+)\)/);
  });

  it('a healthy database still opens (the check reads it, changes nothing)', async () => {
    const file = join(directory, 'healthy.db');
    await writeRealDatabase(file);
    const run = await runTariff(`sqlite:${file}`, 'db', 'upgrade');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('already up to date');
  });
});
