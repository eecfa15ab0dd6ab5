/**
 * The one place that maps a dialect name to its traits and its driver: an exhaustive `switch`,
 * so a new name in `DIALECT_NAMES` does not compile until it has both.
 */
import type { OpenedDatabase, PoolSettings } from './opening.js';
import { openMysql } from './mysql.js';
import { mysqlTraits } from './mysql-traits.js';
import { openPostgres } from './postgres.js';
import { postgresTraits } from './postgres-traits.js';
import { openSqlite } from './sqlite.js';
import { sqliteTraits } from './sqlite-traits.js';
import type { DialectName, DialectTraits } from './traits.js';

/** A dialect: its facts and how a database of it is opened. */
export interface Dialect {
  readonly traits: DialectTraits;
  /**
   * Opens the database at `location` (SQLite: the file path or `:memory:`; otherwise the whole
   * URL) with a pool of `settings`.
   *
   * @throws DatabaseOpenError (SQLite) naming a file that cannot be opened or is damaged.
   */
  open: (location: string, settings: PoolSettings) => OpenedDatabase;
}

/** Reached only with a name outside {@link DialectName}, which the compiler rules out. */
function unknownDialect(name: never): never {
  throw new Error(`unknown database dialect: ${String(name)}`);
}

/** The dialect named `name`. */
export function dialectNamed(name: DialectName): Dialect {
  switch (name) {
    case 'sqlite':
      return { traits: sqliteTraits, open: (location) => openSqlite(location) };
    case 'postgres':
      return { traits: postgresTraits, open: openPostgres };
    case 'mysql':
      return { traits: mysqlTraits, open: openMysql };
    default:
      return unknownDialect(name);
  }
}
