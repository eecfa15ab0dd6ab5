/**
 * `tariff_changes`: Tariff's audit trail of configuration writes (issue 15, api.md §9). One row
 * per acknowledged write, inserted in the write's own transaction (database/change-journal.ts),
 * so a change that committed is always there and one that rolled back never is. `change_id` is
 * generated under the configuration lock, so it grows in commit order: the listing's order.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './context.js';
import { CHANGES_TABLE } from '../change-journal.js';

/** Whether the table is there already (Tariff's bookkeeping dropped and migrated again). */
async function changesTableExists(db: Kysely<unknown>, context: MigrationContext): Promise<boolean> {
  return (await context.traits.tableColumns(db, CHANGES_TABLE)).has(CHANGES_TABLE);
}

/**
 * Creates the table and its index by kind (newest first). A table already there is kept with its
 * rows.
 */
export async function up(db: Kysely<unknown>, context: MigrationContext): Promise<void> {
  if (await changesTableExists(db, context)) return;
  const { traits } = context;
  const { type, autoIncrement } = traits.columnTypes.generatedId;
  // MariaDB/MySQL: utf8mb4, as the rating tables (a user id may be any Unicode text).
  const options = traits.tableOptions(await traits.exactTextCollation?.choose(db));
  let table = db.schema
    .createTable(CHANGES_TABLE)
    .addColumn('change_id', sql.raw(type), (column) => (autoIncrement ? column.primaryKey().autoIncrement() : column.primaryKey()))
    .addColumn('at', sql.raw(traits.columnTypes.dateTime), (column) => column.notNull())
    .addColumn('user_id', 'varchar(255)', (column) => column.notNull())
    .addColumn('project_id', 'varchar(255)')
    .addColumn('request_id', 'varchar(64)', (column) => column.notNull())
    .addColumn('route', 'varchar(255)', (column) => column.notNull())
    .addColumn('kind', 'varchar(32)', (column) => column.notNull())
    .addColumn('object_id', 'varchar(255)', (column) => column.notNull())
    .addColumn('action', 'varchar(16)', (column) => column.notNull())
    .addColumn('before', 'text')
    .addColumn('after', 'text');
  if (options !== undefined) table = table.modifyEnd(sql.raw(options));
  await table.execute();
  // One index beside the key: every index is one more page each write dirties (the audit may cost
  // configuration writes 10 % at most, issue 15). `at` grows with `change_id`, so a `since` page
  // reads the newest rows by the key and stops.
  await db.schema.createIndex('ix_tariff_changes_kind').on(CHANGES_TABLE).columns(['kind', 'change_id']).execute();
}
