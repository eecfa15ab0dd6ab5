/** What a migration needs to know besides the Kysely handle: the dialect and its column types. */
import { sql } from 'kysely';
import type { DialectName } from '../connection.js';
import type { DialectTraits } from '../dialects/traits.js';

/** Passed to every migration. */
export interface MigrationContext {
  dialect: DialectName;
  traits: DialectTraits;
}

/** Column types per dialect. SQLite keeps decimals as TEXT (its NUMERIC is a float). */
export function columnTypes(dialect: DialectName) {
  const sqlite = dialect === 'sqlite';
  return {
    cost: sql.raw(sqlite ? 'text' : 'numeric(40, 28)'),
    level: sql.raw(sqlite ? 'text' : 'numeric(20, 8)'),
    dateTime: sql.raw(sqlite ? 'text' : dialect === 'postgres' ? 'timestamp' : 'datetime'),
    blob: sql.raw(sqlite ? 'blob' : dialect === 'postgres' ? 'bytea' : 'longblob'),
  } as const;
}
