/**
 * Exact text on MariaDB / MySQL (issue 11): rating tables made before this migration use
 * `utf8mb4_bin`, whose PAD SPACE rule makes `'trail'` equal `'trail '` (in lookups and in unique
 * indexes), and a CloudKitty 23 database used as it is keeps CloudKitty's case-insensitive
 * `utf8mb3_general_ci`. Every rating table whose text is not yet in the dialect's exact
 * collation (binary, NO PAD) is converted; nothing else changes. Converting to a stricter
 * equality cannot create duplicates. SQLite and PostgreSQL already compare exactly: nothing to do.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './context.js';
import { RATING_TABLES } from '../adoption/layout.js';

/** Converts the rating tables' text to the exact collation where it is not already. */
export async function up(db: Kysely<unknown>, context: MigrationContext): Promise<void> {
  const exact = context.traits.exactTextCollation;
  if (exact === undefined) return;
  const collation = await exact.choose(db);
  for (const table of await exact.tablesNotIn(db, RATING_TABLES, collation)) {
    await sql`alter table ${sql.table(table)} ${sql.raw(exact.convertTable(collation))}`.execute(db);
  }
}
