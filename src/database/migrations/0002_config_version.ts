/**
 * `tariff_config_version`: one row per configuration domain (`rating`) whose `version` every
 * configuration write increments first. The update takes the row's write lock, so writes from
 * all Tariff processes sharing the database run one at a time (also under Galera, where two nodes
 * updating the row fail certification and one retries); the counter also tells other processes
 * that the configuration changed.
 */
import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.js';

/** Creates the table and the `rating` row. */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema
    .createTable('tariff_config_version')
    .addColumn('name', 'varchar(64)', (column) => column.primaryKey())
    .addColumn('version', 'bigint', (column) => column.notNull().defaultTo(0))
    .execute();
  await (db as Kysely<{ tariff_config_version: { name: string; version: number } }>)
    .insertInto('tariff_config_version')
    .values({ name: 'rating', version: 0 })
    .execute();
}
