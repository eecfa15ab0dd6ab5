/**
 * What a dialect's opener receives and returns, shared by connection.ts and the openers in this
 * folder (kept apart from connection.ts so neither imports the other).
 */
import type { Kysely } from 'kysely';
import type { TariffTables } from '../tables.js';
import type { PoolStatistics } from '../../kernel/metrics.js';

/** Options of `openDatabase`. */
export interface DatabaseOptions {
  /** Connection pool size for PostgreSQL and MySQL (default 10). */
  poolSize?: number;
  /** Milliseconds to wait for a connection or a statement before failing (default 5,000). */
  timeoutMs?: number;
  /**
   * Where connections lost while idle in the pool are reported, once each (a dropped server must
   * not end the process); one lost while lent fails the query using it, which reports it.
   */
  onPoolError?: (error: Error) => void;
}

/** {@link DatabaseOptions} with every default filled in, as the dialect modules get them. */
export type PoolSettings = Required<DatabaseOptions>;

/** What a dialect module's opener hands back: the Kysely handle and where it points, without credentials. */
export interface OpenedDatabase {
  db: Kysely<TariffTables>;
  description: string;
  /** The pool's connections at this moment, for `GET /metrics`. */
  pool: () => PoolStatistics;
}

/**
 * The database cannot be opened at all (a file that is not a database, or a damaged one); the
 * message names the database and the problem, for one line on stderr.
 */
export class DatabaseOpenError extends Error {}
