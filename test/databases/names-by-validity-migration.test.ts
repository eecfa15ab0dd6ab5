/**
 * Migrations `hashmap_0002_names_by_validity` and `pyscripts_0002_names_by_validity` (api.md §6: a
 * rule's name is shared by its versions), on every database: a new database has no partial unique
 * name index; one made by an earlier Tariff (PostgreSQL and SQLite had `uniq_*_live_name`, MySQL
 * never) loses them, and afterwards versions of a mapping or script share its name.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/database/connection.js';
import { migrateToLatest } from '../../src/database/migrate.js';
import { ratingModules } from '../../src/application.js';
import { perDatabase } from '../helpers/database-kind.js';
import { createScratchDatabase, type ScratchDatabase } from '../helpers/databases.js';
import { H, P, startTestApp } from '../helpers/app.js';

const MIGRATIONS = ['hashmap_0002_names_by_validity', 'pyscripts_0002_names_by_validity'];
const LIVE_NAME_INDEXES = ['uniq_hashmap_mappings_live_name', 'uniq_pyscripts_scripts_live_name'];
/** Whether an earlier Tariff made {@link LIVE_NAME_INDEXES}: partial indexes, which PostgreSQL and SQLite have and MariaDB has not. */
const EARLIER_TARIFF_MADE_LIVE_NAME_INDEXES = perDatabase({ sqlite: true, postgres: true, mysql: false });

let directory: string;
let scratch: ScratchDatabase;
let database: Database;

/** The names of the rating tables' indexes. */
async function indexNames(): Promise<string[]> {
  const query = perDatabase({
    sqlite: sql<{ name: string }>`select name from sqlite_master where type = 'index'`,
    postgres: sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema()`,
    mysql: sql<{ name: string }>`select distinct index_name as name from information_schema.statistics where table_schema = database()`,
  });
  return (await query.execute(database.db)).rows.map((row) => row.name);
}

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'tariff-names-by-validity-'));
  scratch = await createScratchDatabase(directory);
  database = openDatabase(scratch.url);
});

afterAll(async () => {
  await database?.close();
  await scratch?.drop();
  rmSync(directory, { recursive: true, force: true });
});

describe('the partial unique name indexes', () => {
  it('are not in a new database', async () => {
    const applied = await migrateToLatest(database, ratingModules().migrations());
    expect(applied.map((result) => result.migrationName)).toEqual(expect.arrayContaining(MIGRATIONS));
    const names = await indexNames();
    expect(names).toContain('ix_hashmap_mappings_name');
    expect(names.filter((name) => LIVE_NAME_INDEXES.includes(name))).toEqual([]);
  });

  it('are dropped from a database an earlier Tariff made, where the database had them', async () => {
    if (EARLIER_TARIFF_MADE_LIVE_NAME_INDEXES) {
      // What the earlier migrations (and `tariff db upgrade`) created on PostgreSQL and SQLite.
      await sql`create unique index uniq_hashmap_mappings_live_name on hashmap_mappings (name) where deleted is null`.execute(database.db);
      await sql`create unique index uniq_pyscripts_scripts_live_name on pyscripts_scripts (name) where deleted is null`.execute(database.db);
      expect((await indexNames()).filter((name) => LIVE_NAME_INDEXES.includes(name)).sort()).toEqual(LIVE_NAME_INDEXES);
    }
    await sql`delete from tariff_migration where name in (${sql.join(MIGRATIONS)})`.execute(database.db);
    const applied = await migrateToLatest(database, ratingModules().migrations());
    expect(applied.map((result) => [result.migrationName, result.status])).toEqual(MIGRATIONS.map((name) => [name, 'Success']));
    expect((await indexNames()).filter((name) => LIVE_NAME_INDEXES.includes(name))).toEqual([]);
  });

  it('are gone: versions of a mapping and of a script share the name; intersecting ones still clash', async () => {
    const t = await startTestApp({ databaseUrl: scratch.url });
    try {
      const service = await t.post(`${H}/services/`, { name: 'compute' });
      expect(service.status, service.text).toBe(201);
      const mapping = (start: string, end: string | null) =>
        t.post(`${H}/mappings/`, { service_id: service.body.service_id, cost: 1, name: 'tier', start, end });
      const first = await mapping('2099-01-01T00:00:00', '2099-06-01T00:00:00');
      expect(first.status, first.text).toBe(201);
      expect((await mapping('2099-06-01T00:00:00', null)).status).toBe(201);
      expect((await mapping('2099-05-01T00:00:00', '2099-07-01T00:00:00')).status).toBe(409);
      const script = (start: string, end: string | null) => t.post(`${P}/scripts/`, { name: 'policy', data: '', start, end });
      expect((await script('2099-01-01T00:00:00', '2099-06-01T00:00:00')).status).toBe(201);
      expect((await script('2099-06-01T00:00:00', null)).status).toBe(201);
      expect((await script('2099-05-01T00:00:00', '2099-07-01T00:00:00')).status).toBe(409);
    } finally {
      await t.close();
    }
  });
});
