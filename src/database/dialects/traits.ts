/**
 * What differs between the databases beyond the SQL Kysely writes, one traits object per dialect
 * (`sqliteTraits`, `postgresTraits`, `mysqlTraits` in this folder), so that code elsewhere asks
 * the traits instead of asking which database it runs on.
 */
import type { Kysely } from 'kysely';

/** The parts of a driver error that identify it, as better-sqlite3, node-postgres and mysql2 report them. */
export interface DriverError {
  code?: string;
  errno?: number;
  message?: string;
}

/**
 * A server resource a statement failed for lack of: `storage` (disk, file system, table space or
 * database file full), or `other` (memory, server-side limits).
 */
export type ExhaustedResource = 'storage' | 'other';

/** The dialect-specific facts Tariff relies on. */
export interface DialectTraits {
  /** Which resource ran out, when the error says one did; `undefined` for any other error. */
  exhaustedResource(error: DriverError): ExhaustedResource | undefined;
  /**
   * The collation the rating tables' text columns need so that text compares exactly, code point
   * by code point, with no trailing-space padding and no case folding (README: "Comparing
   * text"); `undefined` when the database's own comparison already does (SQLite's BINARY,
   * PostgreSQL's deterministic collations).
   *
   * @throws Error when the server offers no such collation.
   */
  exactTextCollation(db: Kysely<any>): Promise<string | undefined>;
}
