/**
 * `modules_state`, CloudKitty's table of rating module states (name, state, priority), created
 * only when missing: on a database adopted from CloudKitty it is CloudKitty's own table, used as
 * it is. CloudKitty compat: as CloudKitty's migrations leave it (no default state; migration
 * 0005 drops the default earlier Tariff databases have).
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './context.js';

/** Creates `modules_state` unless it exists. */
export async function up(db: Kysely<unknown>, context: MigrationContext): Promise<void> {
  await db.schema
    .createTable('modules_state')
    .ifNotExists()
    .addColumn('name', 'varchar(255)', (column) => column.notNull())
    .addColumn('state', sql.raw(context.traits.columnTypes.boolean), (column) => column.notNull())
    .addColumn('priority', 'integer')
    .addPrimaryKeyConstraint('modules_state_pkey', ['name'])
    .execute();
}
