/**
 * Applies Tariff's migrations (on start and by `tariff db upgrade`). Bookkeeping lives in
 * `tariff_migration` / `tariff_migration_lock`, names that cannot clash with CloudKitty's tables.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Migrator, type Migration, type MigrationResult } from 'kysely';
import type { Database } from './connection.js';
import type { MigrationContext } from './migrations/context.js';
import * as ratingTables from './migrations/0001_rating_tables.js';
import * as configVersion from './migrations/0002_config_version.js';
import * as modulesState from './migrations/0003_modules_state.js';

interface TariffMigration {
  up(db: Parameters<Migration['up']>[0], context: MigrationContext): Promise<void>;
}

/** Every migration, in order; names sort in application order. */
const MIGRATIONS: Record<string, TariffMigration> = {
  '0001_rating_tables': ratingTables,
  '0002_config_version': configVersion,
  '0003_modules_state': modulesState,
};

/** Thrown when a migration fails; the database is left at the last migration that succeeded. */
export class MigrationError extends Error {}

/**
 * Brings the database to the newest layout.
 *
 * @returns the migrations applied now (empty when the database was up to date).
 * @throws MigrationError naming the failed migration.
 */
export async function migrateToLatest(database: Database): Promise<MigrationResult[]> {
  const context: MigrationContext = { dialect: database.dialect };
  const migrations: Record<string, Migration> = {};
  for (const [name, migration] of Object.entries(MIGRATIONS)) {
    migrations[name] = { up: (db) => migration.up(db, context) };
  }
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'tariff_migration',
    migrationLockTableName: 'tariff_migration_lock',
  });
  let { error, results = [] } = await migrator.migrateToLatest();
  // Kysely takes no migration lock on SQLite (it assumes one connection): when two processes
  // start on a new file at once, the one that loses the race fails on a table the other just
  // created. Its second look finds the migrations applied.
  for (let attempt = 1; error && database.dialect === 'sqlite' && attempt <= 3; attempt += 1) {
    await sleep(100 * attempt);
    ({ error, results = [] } = await migrator.migrateToLatest());
  }
  if (error) {
    const failed = results.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationError(`Migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return results;
}
