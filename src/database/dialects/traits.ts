/**
 * What differs between the databases beyond the SQL Kysely writes, one traits object per dialect
 * (`sqlite-traits.ts`, `postgres-traits.ts`, `mysql-traits.ts` in this folder, chosen in
 * `dialect.ts`), so that code elsewhere asks the traits instead of asking which database it runs
 * on. Adding a dialect means one more object of this shape; the compiler names every missing fact.
 */
import type { Kysely } from 'kysely';

/** The SQL dialects Tariff runs on, each with its traits object (chosen in `dialect.ts`). */
export const DIALECT_NAMES = ['sqlite', 'postgres', 'mysql'] as const;

/** One of {@link DIALECT_NAMES}. */
export type DialectName = (typeof DIALECT_NAMES)[number];

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

/**
 * Column types of Tariff's tables, as SQL type names for `CREATE TABLE` / `ALTER TABLE ... ADD`.
 * Text columns are `varchar(n)` on every dialect and are not listed.
 */
export interface ColumnTypes {
  /** An exact decimal of `precision` digits, `scale` of them after the point (SQLite: text, its NUMERIC is a float). */
  decimal(precision: number, scale: number): string;
  /** A naive UTC date and time, read back as `YYYY-MM-DD HH:MM:SS` text. */
  readonly dateTime: string;
  /** Bytes of any length (compressed scripts; CloudKitty's 64 KiB `BLOB` is too small). */
  readonly blob: string;
  /** A boolean column; see {@link DialectTraits.bindBoolean} for the values it is written with. */
  readonly boolean: string;
  /**
   * The integer `id` primary key the database generates: its type, and whether the column needs
   * `AUTOINCREMENT` / `AUTO_INCREMENT` (PostgreSQL's `serial` generates by itself).
   */
  readonly generatedId: { type: string; autoIncrement: boolean };
}

/**
 * How a configuration write transaction begins (transaction.ts):
 * - `begin-immediate`: `BEGIN IMMEDIATE` on one connection, taking the database-wide write lock
 *   at once (SQLite: a deferred transaction that reads first fails with SQLITE_BUSY when it tries
 *   to write after another writer);
 * - `isolation-level`: Kysely's transaction at this isolation level (READ COMMITTED: every
 *   statement after the configuration lock sees the writes committed before it).
 */
export type WriteTransactionStart = { kind: 'begin-immediate' } | { kind: 'isolation-level'; level: 'read committed' };

/**
 * How the rating tables' text is made to compare exactly, code point by code point, with no
 * trailing-space padding and no case folding (README: "Comparing text"), where the database's own
 * comparison does not already.
 */
export interface ExactTextCollation {
  /**
   * The collation this server offers for it.
   *
   * @throws Error when the server offers none (the message names what Tariff needs).
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handle of any schema: migrations and adoption work on tables not typed here
  choose(db: Kysely<any>): Promise<string>;
  /** The `ALTER TABLE` clause converting a table's text columns and its default to `collation`. */
  convertTable(collation: string): string;
  /** Those of `tables` with a text column, or a table default, in another collation than `collation`, in the order given. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handle of any schema: migrations and adoption work on tables not typed here
  tablesNotIn(db: Kysely<any>, tables: readonly string[], collation: string): Promise<string[]>;
}

/**
 * SQL the in-place upgrade of CloudKitty 17-22 rating tables needs (adoption/upgrade.ts), as
 * clauses and expressions to splice into its statements.
 */
export interface CloudKittyUpgradeSql {
  /** A random 32-character hexadecimal text, evaluated per row of an UPDATE (CloudKitty: `uuid4().hex`). */
  readonly randomHexPerRow: string;
  /** The `ALTER TABLE` clause making a filled column of type `type` NOT NULL. */
  requireColumn(column: string, type: string): string;
  /** The `ALTER TABLE` clause dropping the unique constraint (MySQL: unique index) `name`. */
  dropUniqueConstraint(name: string): string;
  /** Names of the unique constraints (MySQL: unique indexes) of `table` on exactly `columns`, in that order. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handle of any schema: migrations and adoption work on tables not typed here
  uniqueConstraintsOn(db: Kysely<any>, table: string, columns: readonly string[]): Promise<string[]>;
  /**
   * The `ALTER TABLE` clause giving CloudKitty's `pyscripts_scripts.data` Tariff's size, or
   * `undefined` where CloudKitty's type already holds any script (PostgreSQL's `bytea`).
   */
  readonly widenScriptData: string | undefined;
}

/** The dialect-specific facts Tariff relies on. */
export interface DialectTraits {
  /** The database's name in messages: `SQLite`, `PostgreSQL`, `MariaDB/MySQL`. */
  readonly displayName: string;

  /** Column types for the migrations. */
  readonly columnTypes: ColumnTypes;
  /**
   * What follows `CREATE TABLE (...)` for a rating table, given the exact-text collation (see
   * {@link exactTextCollation}); `undefined` for nothing.
   */
  tableOptions(exactCollation: string | undefined): string | undefined;
  /** Whether `CREATE UNIQUE INDEX ... WHERE` (a partial index) exists; without it a rule is kept by the write transaction alone. */
  readonly partialIndexes: boolean;
  /** Whether a foreign key gets an index by itself (InnoDB); elsewhere the migrations create one. */
  readonly indexesForeignKeys: boolean;
  /** `name` as a quoted identifier for hand-written SQL. */
  quoteIdentifier: (name: string) => string;
  /** The SQL expression for the current time, naive UTC, for a {@link ColumnTypes.dateTime} column. */
  readonly nowUtc: string;
  /**
   * The schema whose tables introspection must keep (PostgreSQL lists every schema the user can
   * see); `undefined` where introspection lists the connection's own database only.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handle of any schema: migrations and adoption work on tables not typed here
  currentSchema(db: Kysely<any>): Promise<string | undefined>;

  /** How a configuration write transaction begins. */
  readonly writeTransaction: WriteTransactionStart;
  /** Whether DDL statements can be rolled back with their transaction (MySQL commits each one implicitly). */
  readonly transactionalDdl: boolean;
  /**
   * Whether Kysely's migration lock keeps two processes from migrating at once; not on SQLite,
   * where Kysely assumes a single connection (migrate.ts then retries a lost race).
   */
  readonly migrationLockAcrossProcesses: boolean;
  /** The value a boolean column is written with (SQLite: 0/1, its driver binds no JS booleans). Drivers read back a boolean or 0/1. */
  bindBoolean(value: boolean): boolean | number;

  /**
   * How text is made to compare exactly; `undefined` where the database's own comparison already
   * does (SQLite's BINARY, PostgreSQL's deterministic collations).
   */
  readonly exactTextCollation: ExactTextCollation | undefined;
  /**
   * The SQL for upgrading CloudKitty 17-22 tables in place; `undefined` where Tariff refuses to
   * (SQLite: CloudKitty on SQLite is a test setup, and SQLite cannot alter columns).
   */
  readonly cloudKittyUpgrade: CloudKittyUpgradeSql | undefined;

  /** Whether the error is a lost race worth retrying the transaction for: a deadlock, a serialization failure, a Galera certification failure. */
  isLostRace(error: DriverError): boolean;
  /** Whether the error is a unique or foreign-key violation (a concurrent write won a race the checks could not see). */
  isConstraintViolation(error: DriverError): boolean;
  /** Whether the error says the database cannot be reached or is busy past its timeout (beyond the network errors of every driver). */
  isUnavailable(error: DriverError): boolean;
  /** Which resource ran out, when the error says one did; `undefined` for any other error. */
  exhaustedResource(error: DriverError): ExhaustedResource | undefined;
}

/** The exact-text collation chosen on one server, with the `ALTER TABLE` clause converting a table to it. */
export interface ExactTextConversion {
  /** The collation's name, e.g. `utf8mb4_nopad_bin`. */
  readonly collation: string;
  /** The `ALTER TABLE` clause converting a table to it. */
  readonly convertTable: string;
}

/**
 * Chooses the exact-text collation of `traits` on `db`.
 *
 * @returns `undefined` where the database compares text exactly already.
 * @throws Error when the server offers no such collation.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handle of any schema: migrations and adoption work on tables not typed here
export async function exactTextConversion(traits: DialectTraits, db: Kysely<any>): Promise<ExactTextConversion | undefined> {
  const exact = traits.exactTextCollation;
  if (exact === undefined) return undefined;
  const collation = await exact.choose(db);
  return { collation, convertTable: exact.convertTable(collation) };
}
