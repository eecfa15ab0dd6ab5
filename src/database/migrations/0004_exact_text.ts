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

/** Rating tables with a text column, or a table default, in another collation than `collation`. */
async function tablesToConvert(db: Kysely<unknown>, collation: string): Promise<string[]> {
  const tables = [...RATING_TABLES];
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.columns
    where table_schema = database() and table_name in (${sql.join(tables)}) and collation_name is not null and collation_name <> ${collation}
    union
    select table_name as name from information_schema.tables
    where table_schema = database() and table_name in (${sql.join(tables)}) and table_collation <> ${collation}`.execute(db);
  const found = new Set(rows.map((row) => row.name));
  return tables.filter((table) => found.has(table));
}

/** Converts the rating tables' text to the exact collation where it is not already. */
export async function up(db: Kysely<unknown>, context: MigrationContext): Promise<void> {
  const collation = await context.traits.exactTextCollation(db);
  if (collation === undefined) return;
  for (const table of await tablesToConvert(db, collation)) {
    await sql`alter table ${sql.table(table)} convert to character set utf8mb4 collate ${sql.raw(collation)}`.execute(db);
  }
}
