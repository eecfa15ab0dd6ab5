/**
 * Recognises what a database holds before Tariff migrates it: nothing yet, Tariff's own tables,
 * or CloudKitty's rating tables at a layout Tariff knows. Anything else is refused before a
 * single statement changes it.
 */
import { sql } from 'kysely';
import type { Database } from '../connection.js';
import { RATING_MODULE_LAYOUTS, RATING_TABLES, type ModuleLayout, type RatingModuleLayouts } from './layout.js';

/** Raised when a database holds tables Tariff does not recognise or a half-finished upgrade. */
export class UnrecognisedDatabaseError extends Error {}

/** Where one CloudKitty rating module's tables are. */
export interface ModuleState {
  layouts: RatingModuleLayouts;
  /** `before`: CloudKitty 17-22, to upgrade in place; `versioned`: CloudKitty 23's, used as it is. */
  at: 'before' | 'versioned';
}

/**
 * What {@link inspectDatabase} found:
 * - `new`: no rating tables and no Tariff bookkeeping (Tariff creates everything);
 * - `tariff`: Tariff's migration table is there (Tariff made or already adopted it);
 * - `cloudkitty`: CloudKitty's rating tables, every module at a known layout.
 */
export type DatabaseState = { kind: 'new' } | { kind: 'tariff' } | { kind: 'cloudkitty'; modules: ModuleState[] };

/** Table name → column names, for the tables of the connection's own schema. */
type TableColumns = Map<string, string[]>;

/** Reads the tables and their columns (PostgreSQL: of the current schema only). */
function readTableColumns(database: Database): Promise<TableColumns> {
  return database.traits.tableColumns(database.db);
}

function describeColumns(columns: readonly string[]): string {
  return [...columns].sort().join(', ');
}

function sameColumns(found: readonly string[], expected: readonly string[]): boolean {
  return found.length === expected.length && expected.every((column) => found.includes(column));
}

/** The layout whose tables match exactly, or a mid-way error naming the first difference. */
function matchLayout(layouts: RatingModuleLayouts, layout: ModuleLayout, tables: TableColumns): void {
  for (const [table, expected] of Object.entries(layout.tables)) {
    const found = tables.get(table) ?? [];
    if (!sameColumns(found, expected)) {
      throw new UnrecognisedDatabaseError(
        `${layouts.versionTable} says revision ${layout.revision} (${layout.releases}) but table ${table} has columns [${describeColumns(found)}], ` +
          `not [${describeColumns(expected)}]: the database looks half-upgraded. Restore it from the backup taken before the upgrade; nothing was changed.`,
      );
    }
  }
}

async function moduleRevision(database: Database, layouts: RatingModuleLayouts): Promise<string[]> {
  const { rows } = await sql<{ version_num: string }>`select version_num from ${sql.table(layouts.versionTable)}`.execute(database.db);
  return rows.map((row) => row.version_num);
}

async function inspectModule(database: Database, layouts: RatingModuleLayouts, tables: TableColumns): Promise<ModuleState> {
  const moduleTables = Object.keys(layouts.before.tables);
  const missing = moduleTables.filter((table) => !tables.has(table));
  if (missing.length > 0) {
    throw new UnrecognisedDatabaseError(
      `The database has CloudKitty rating tables but not ${missing.join(', ')}: Tariff does not recognise it and changed nothing.`,
    );
  }
  if (!tables.has(layouts.versionTable)) {
    throw new UnrecognisedDatabaseError(
      `The database has ${moduleTables.join(', ')} but no ${layouts.versionTable} (CloudKitty's ${layouts.module} migration table): Tariff does not recognise it and changed nothing.`,
    );
  }
  const revisions = await moduleRevision(database, layouts);
  const known = [layouts.before, layouts.versioned];
  const layout = revisions.length === 1 ? known.find((candidate) => candidate.revision === revisions[0]) : undefined;
  if (!layout) {
    throw new UnrecognisedDatabaseError(
      `${layouts.versionTable} is at revision [${revisions.join(', ')}], which Tariff does not know ` +
        `(it knows ${known.map((candidate) => `${candidate.revision}: ${candidate.releases}`).join('; ')}); nothing was changed.`,
    );
  }
  matchLayout(layouts, layout, tables);
  return { layouts, at: layout === layouts.before ? 'before' : 'versioned' };
}

/**
 * Tells what the database holds, reading only.
 *
 * @throws UnrecognisedDatabaseError for rating tables without CloudKitty's migration tables, an
 *   unknown alembic revision, columns that match no known layout (a half-finished upgrade), or
 *   CloudKitty 17-22 tables on a dialect without in-place upgrade SQL (SQLite: CloudKitty on
 *   SQLite is a test setup; not adopted).
 */
export async function inspectDatabase(database: Database): Promise<DatabaseState> {
  const columns = await readTableColumns(database);
  if (columns.has('tariff_migration')) return { kind: 'tariff' };
  if (!RATING_TABLES.some((table) => columns.has(table))) return { kind: 'new' };
  const modules: ModuleState[] = [];
  for (const layouts of RATING_MODULE_LAYOUTS) modules.push(await inspectModule(database, layouts, columns));
  if (database.traits.cloudKittyUpgrade === undefined && modules.some((module) => module.at === 'before')) {
    throw new UnrecognisedDatabaseError(
      `Adopting a CloudKitty ${database.traits.displayName} database is not supported (CloudKitty runs on MariaDB or PostgreSQL in production); nothing was changed.`,
    );
  }
  return { kind: 'cloudkitty', modules };
}
