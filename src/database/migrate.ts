/**
 * Applies Tariff's migrations (on start and by `tariff db upgrade`): its own, below, and the
 * rating modules' (their tables), which the caller passes in (database/ knows no module).
 * Bookkeeping lives in
 * `tariff_migration` / `tariff_migration_lock`, names that cannot clash with CloudKitty's tables.
 * A database created by CloudKitty is recognised first (adoption/): CloudKitty 23's layout is used
 * as it is; CloudKitty 17-22's is upgraded in place by `tariff db upgrade` only, never by `serve`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Migrator, type Migration, type MigrationResult } from 'kysely';
import type { Database } from './connection.js';
import type { MigrationContext } from './migrations/context.js';
import * as configVersion from './migrations/0002_config_version.js';
import * as modulesState from './migrations/0003_modules_state.js';
import * as exactText from './migrations/0004_exact_text.js';
import * as cloudKittyLayout from './migrations/0005_cloudkitty_layout.js';
import * as timeZone from './migrations/0006_time_zone.js';
import * as changes from './migrations/0007_changes.js';
import * as changeDetails from './migrations/0008_change_details.js';
import { inspectDatabase, UnrecognisedDatabaseError, type DatabaseState } from './adoption/inspect.js';
import { applyCloudKittyUpgrade, planCloudKittyUpgrade, type UpgradeStep } from './adoption/upgrade.js';
import { refuseOtherTimeZone, type StoredTimeZone } from './time-zone-record.js';
import { newDatabaseContents } from './cloudkitty-layout.js';

/** One migration: brings the database forward (there is no way back: restore a backup). */
export interface TariffMigration {
  up(db: Parameters<Migration['up']>[0], context: MigrationContext): Promise<void>;
}

/**
 * Tariff's own migrations. Pending migrations, these and the modules', are applied in name
 * order; one that sorts before those already applied still runs (a module added later).
 * `0001_rating_tables` is the hashmap module's now (it created the pyscripts table too).
 */
const MIGRATIONS: Record<string, TariffMigration> = {
  '0002_config_version': configVersion,
  '0003_modules_state': modulesState,
  '0004_exact_text': exactText,
  '0005_cloudkitty_layout': cloudKittyLayout,
  '0006_time_zone': timeZone,
  '0007_changes': changes,
  '0008_change_details': changeDetails,
};

/** Thrown when a migration fails; the database is left at the last migration that succeeded. */
export class MigrationError extends Error {}

/**
 * Tariff's migrations and the modules', by name.
 *
 * @throws MigrationError when a module's migration has the name of one of Tariff's.
 */
function allMigrations(moduleMigrations: Readonly<Record<string, TariffMigration>>): Record<string, TariffMigration> {
  const clash = Object.keys(moduleMigrations).find((name) => name in MIGRATIONS);
  if (clash !== undefined) throw new MigrationError(`A rating module's migration is named ${clash}, as one of Tariff's own`);
  return { ...MIGRATIONS, ...moduleMigrations };
}

function migratorFor(database: Database, moduleMigrations: Readonly<Record<string, TariffMigration>>, timeZone: StoredTimeZone): Migrator {
  const context: MigrationContext = { traits: database.traits, timeZoneToRecord: timeZone.zone };
  const migrations: Record<string, Migration> = {};
  for (const [name, migration] of Object.entries(allMigrations(moduleMigrations))) {
    migrations[name] = { up: (db) => migration.up(db, context) };
  }
  return new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'tariff_migration',
    migrationLockTableName: 'tariff_migration_lock',
    // Each module's migrations are a sequence of their own: a module registered later brings
    // migrations whose names sort before ones already applied.
    allowUnorderedMigrations: true,
  });
}

/** The state, refusing what cannot be used: an unrecognised database, or (unless `upgrading`) CloudKitty 17-22 tables. */
async function usableState(database: Database, upgrading: boolean): Promise<DatabaseState> {
  let state: DatabaseState;
  try {
    state = await inspectDatabase(database);
  } catch (error) {
    if (error instanceof UnrecognisedDatabaseError) throw new MigrationError(error.message);
    throw error;
  }
  const outdated = state.kind === 'cloudkitty' ? state.modules.filter((module) => module.at === 'before') : [];
  if (!upgrading && outdated.length > 0) {
    throw new MigrationError(
      `${database.description} holds CloudKitty rating tables at ${outdated[0].layouts.before.releases}'s layout ` +
        `(${outdated.map((module) => `${module.layouts.versionTable} ${module.layouts.before.revision}`).join(', ')}). ` +
        "Stop CloudKitty, back the database up and run 'tariff db upgrade' (docs/operators/migrating.md); nothing was changed.",
    );
  }
  return state;
}

/**
 * Brings the database to the newest layout, as `tariff serve` does on start.
 *
 * @param moduleMigrations - the registered rating modules' migrations (their tables).
 * @returns the migrations applied now (empty when the database was up to date).
 * @throws MigrationError naming the failed migration, or refusing a database Tariff does not
 *   recognise or one with CloudKitty 17-22 tables (those need `tariff db upgrade`);
 *   TimeZoneMismatchError, before any change, when its naive datetimes are in another zone than
 *   the database handle's (`TARIFF_CLOUDKITTY_TIMEZONE`).
 */
export async function migrateToLatest(database: Database, moduleMigrations: Readonly<Record<string, TariffMigration>>): Promise<MigrationResult[]> {
  const state = await usableState(database, false);
  const timeZone = await refuseOtherTimeZone(database, state);
  return runMigrations(database, moduleMigrations, timeZone);
}

/** What `tariff db upgrade` did, or with `dryRun` would do. */
export interface UpgradeReport {
  /** What the database held before. */
  state: DatabaseState;
  /** The in-place upgrade of CloudKitty 17-22 rating tables (empty when none was needed). */
  adoption: UpgradeStep[];
  /** Tariff's own migrations, applied (or pending with `dryRun`). */
  migrations: string[];
  /** The zone whose wall time the naive datetime columns hold (recorded, or to be recorded). */
  timeZone: StoredTimeZone;
  /** For a new database: what the migrations create, in words (empty otherwise). */
  creates: string[];
}

/**
 * `tariff db upgrade`: upgrades CloudKitty 17-22 rating tables in place (see adoption/upgrade.ts),
 * then applies Tariff's migrations and `moduleMigrations` (the registered rating modules'). With
 * `dryRun` it only reads and reports.
 *
 * @throws MigrationError refusing an unrecognised or half-upgraded database (left untouched), or
 *   naming the statement or migration that failed; TimeZoneMismatchError (also with `dryRun`),
 *   before any change, when its naive datetimes are in another zone than the configured one.
 */
export async function upgradeDatabase(
  database: Database,
  moduleMigrations: Readonly<Record<string, TariffMigration>>,
  options: { dryRun?: boolean } = {},
): Promise<UpgradeReport> {
  const state = await usableState(database, true);
  const timeZone = await refuseOtherTimeZone(database, state);
  const adoption = state.kind === 'cloudkitty' ? await planCloudKittyUpgrade(database, state.modules) : [];
  if (options.dryRun) {
    const known = state.kind === 'tariff' ? await migratorFor(database, moduleMigrations, timeZone).getMigrations() : [];
    const applied = new Set(known.filter((migration) => migration.executedAt).map((migration) => migration.name));
    return {
      state,
      adoption,
      timeZone,
      creates: state.kind === 'new' ? newDatabaseContents() : [],
      migrations: Object.keys(allMigrations(moduleMigrations))
        .sort()
        .filter((name) => !applied.has(name)),
    };
  }
  if (adoption.length > 0) {
    try {
      await applyCloudKittyUpgrade(database, adoption);
    } catch (error) {
      const transactional = database.traits.transactionalDdl ? 'nothing was changed' : 'the database may be half-upgraded: restore it from the backup';
      throw new MigrationError(`Upgrading CloudKitty's rating tables failed (${transactional}): ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const results = await runMigrations(database, moduleMigrations, timeZone);
  return { state, adoption, timeZone, creates: state.kind === 'new' ? newDatabaseContents() : [], migrations: results.map((result) => result.migrationName) };
}

async function runMigrations(
  database: Database,
  moduleMigrations: Readonly<Record<string, TariffMigration>>,
  timeZone: StoredTimeZone,
): Promise<MigrationResult[]> {
  const migrator = migratorFor(database, moduleMigrations, timeZone);
  let { error, results = [] } = await migrator.migrateToLatest();
  // Kysely takes no migration lock on SQLite (it assumes one connection): when two processes
  // start on a new file at once, the one that loses the race fails on a table the other just
  // created. Its second look finds the migrations applied.
  for (let attempt = 1; error && !database.traits.migrationLockAcrossProcesses && attempt <= 3; attempt += 1) {
    await sleep(100 * attempt);
    ({ error, results = [] } = await migrator.migrateToLatest());
  }
  if (error) {
    const failed = results.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationError(`Migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return results;
}
