/**
 * Issue 11, item 7 on MariaDB: rating tables made before migration 0004 (`utf8mb4_bin`, PAD
 * SPACE) or left by CloudKitty 23 (`utf8mb3_general_ci`, case-insensitive) are converted to the
 * exact NO PAD binary collation, rows kept; afterwards `trail`, `trail ` and `TRAIL` are three
 * names, in the unique indexes too. (SQLite and PostgreSQL compare exactly already: migration
 * 0004 does nothing there; test/http/text-comparison.test.ts runs on all three.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/database/connection.js';
import { migrateToLatest } from '../../src/database/migrate.js';
import { ratingModules } from '../../src/application.js';
import { hashmapTables } from '../../src/rating/hashmap/tables.js';
import { RATING_TABLES } from '../../src/database/adoption/layout.js';
import { databaseIs } from '../helpers/database-kind.js';
import { createScratchDatabase, type ScratchDatabase } from '../helpers/databases.js';

describe.runIf(databaseIs('mysql'))('migration 0004 converts older MariaDB rating tables to exact text', () => {
  let directory: string;
  let scratch: ScratchDatabase;
  let database: Database;

  const insertGroup = (name: string) => hashmapTables(database.db).insertInto('hashmap_groups').values({ group_id: randomUUID(), name }).execute();
  const insertService = (name: string) => hashmapTables(database.db).insertInto('hashmap_services').values({ service_id: randomUUID(), name }).execute();

  async function collations(): Promise<string[]> {
    const { rows } = await sql<{ collation: string }>`
      select distinct collation_name as collation from information_schema.columns
      where table_schema = database() and table_name in (${sql.join([...RATING_TABLES])}) and collation_name is not null
      union
      select distinct table_collation as collation from information_schema.tables
      where table_schema = database() and table_name in (${sql.join([...RATING_TABLES])})`.execute(database.db);
    return [...new Set(rows.map((row) => row.collation))].sort();
  }

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-exact-text-'));
    scratch = await createScratchDatabase(directory);
    database = openDatabase(scratch.url);
    await migrateToLatest(database, ratingModules().migrations());
    // What Tariff created before 0004, and what CloudKitty 23's migrations leave on two tables.
    for (const table of RATING_TABLES) await sql`alter table ${sql.table(table)} convert to character set utf8mb4 collate utf8mb4_bin`.execute(database.db);
    for (const table of ['hashmap_groups', 'pyscripts_scripts']) {
      await sql`alter table ${sql.table(table)} convert to character set utf8mb3 collate utf8mb3_general_ci`.execute(database.db);
    }
    await sql`delete from tariff_migration where name = '0004_exact_text'`.execute(database.db);
  });

  afterAll(async () => {
    await database?.close();
    await scratch?.drop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('before: PAD SPACE and case folding make "trail " and "TRAIL" clash with "trail"', async () => {
    expect(await collations()).toEqual(['utf8mb3_general_ci', 'utf8mb4_bin']);
    await insertGroup('trail');
    await expect(insertGroup('trail ')).rejects.toThrow(/Duplicate entry/);
    await expect(insertGroup('TRAIL')).rejects.toThrow(/Duplicate entry/);
    await insertService('trail');
    await expect(insertService('trail ')).rejects.toThrow(/Duplicate entry/);
  });

  it('after: every text column is utf8mb4_nopad_bin, the rows are kept, the three names coexist', async () => {
    const applied = await migrateToLatest(database, ratingModules().migrations());
    expect(applied.map((result) => [result.migrationName, result.status])).toEqual([['0004_exact_text', 'Success']]);
    expect(await collations()).toEqual(['utf8mb4_nopad_bin']);
    const groups = await hashmapTables(database.db).selectFrom('hashmap_groups').select('name').execute();
    expect(groups.map((group) => group.name)).toEqual(['trail']);
    await insertGroup('trail ');
    await insertGroup('TRAIL');
    await expect(insertGroup('trail ')).rejects.toThrow(/Duplicate entry/);
    await insertService('trail ');
    const found = await hashmapTables(database.db).selectFrom('hashmap_groups').select('name').where('name', '=', 'trail').execute();
    expect(found.map((group) => group.name)).toEqual(['trail']);
  });

  it('runs once: a second start finds nothing to convert', async () => {
    expect(await migrateToLatest(database, ratingModules().migrations())).toEqual([]);
  });
});
