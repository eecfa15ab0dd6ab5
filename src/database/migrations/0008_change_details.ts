/**
 * `tariff_changes` gains what a price-list apply records of each rule it changes (issue 26,
 * api.md §9): `revision`, the configuration revision the apply made (on the apply's own entry and
 * on each of its rule changes; null for other writes), and `name`, where the rule is in the
 * document's terms (`services[compute].fields[flavor].mappings[value=m1.large]`; null for other
 * writes). Two indexes serve the listing's `object_id` and `revision` filters, newest first.
 */
import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.js';
import { CHANGES_TABLE } from '../change-journal.js';

/** The indexes of the filters: each reads its rows by the key, newest first, and stops. */
const INDEXES = {
  ix_tariff_changes_object: ['object_id', 'change_id'],
  ix_tariff_changes_revision: ['revision', 'change_id'],
} as const;

/** The table's column names (a table already migrated keeps its columns: Tariff's bookkeeping dropped and migrated again). */
async function columnNames(db: Kysely<unknown>, context: MigrationContext): Promise<Set<string>> {
  return new Set((await context.traits.tableColumns(db, CHANGES_TABLE)).get(CHANGES_TABLE));
}

/** Adds `revision` and `name`, and the indexes of `object_id` and `revision`; columns already there are kept. */
export async function up(db: Kysely<unknown>, context: MigrationContext): Promise<void> {
  const columns = await columnNames(db, context);
  if (columns.has('revision')) return;
  await db.schema.alterTable(CHANGES_TABLE).addColumn('revision', 'bigint').execute();
  // A rule's place in the document: three names of up to 255 characters and its value, start and tenant.
  await db.schema.alterTable(CHANGES_TABLE).addColumn('name', 'text').execute();
  for (const [name, indexed] of Object.entries(INDEXES)) {
    await db.schema
      .createIndex(name)
      .on(CHANGES_TABLE)
      .columns([...indexed])
      .execute();
  }
}
