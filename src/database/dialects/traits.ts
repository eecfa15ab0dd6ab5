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

/** The parts of a driver error that identify it, as node:sqlite (its result code's name, see sqlite-result-codes.ts), node-postgres and mysql2 report them. */
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
 * How a read that must see one state of the database begins (an export, a load of the rating
 * snapshot: several tables and the configuration version, as of one moment):
 * - `begin-deferred`: `BEGIN` on one connection (SQLite: the snapshot of the first read holds
 *   until the end, and no write lock is taken);
 * - `isolation-level`: Kysely's transaction at REPEATABLE READ, READ ONLY (PostgreSQL: one
 *   snapshot taken by the first statement; MariaDB/MySQL InnoDB: one consistent snapshot taken by
 *   the first read, which is always the configuration revision, and held to the end).
 */
export type ReadSnapshotStart = { kind: 'begin-deferred' } | { kind: 'isolation-level'; level: 'repeatable read'; accessMode: 'read only' };

/**
 * How the rating tables' text is made to compare exactly, code point by code point, with no
 * trailing-space padding and no case folding (docs/operators/migrating.md: "Comparing text"), where the database's own
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
  /**
   * CloudKitty compat: what its Python driver stores for a zone-aware datetime in a naive
   * `DateTime` column (migration `8a591f85865f` sets old mappings' start to an aware UTC
   * 1970-01-01). `'wall time'`: psycopg2 sends it as a `timestamptz`, which PostgreSQL stores as
   * the session zone's wall time; `'utc fields'`: pymysql drops the offset and stores its UTC fields.
   */
  readonly storesAwareDateTimeAs: 'wall time' | 'utc fields';
}

/** A PRIMARY KEY, UNIQUE or FOREIGN KEY constraint as the catalog lists it. */
export interface CatalogConstraint {
  name: string;
  kind: 'primary' | 'unique' | 'foreign';
  /** The constrained columns, in the constraint's order. */
  columns: string[];
  /** For a foreign key: the referenced table. */
  references?: string;
}

/** A column's wanted definition, for {@link CloudKittyLayoutChanges.alterColumn}. */
export interface ColumnDefinition {
  type: string;
  nullable: boolean;
  /** An SQL default expression; `undefined` for none. */
  default?: string;
}

/**
 * What migration `0005_cloudkitty_layout` needs to bring an earlier Tariff database's rating
 * tables to CloudKitty's layout in place.
 */
export interface CloudKittyLayoutChanges {
  /**
   * The `ALTER TABLE` clauses giving `column` the definition `wanted` (its values converted:
   * PostgreSQL casts to the new type). A default the old type cannot cast is dropped first.
   */
  alterColumn(column: string, wanted: ColumnDefinition): string[];
  /** The PRIMARY KEY, UNIQUE and FOREIGN KEY constraints of `table`. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handle of any schema: migrations and adoption work on tables not typed here
  constraintsOf(db: Kysely<any>, table: string): Promise<CatalogConstraint[]>;
  /**
   * The statements renaming a constraint of `table` (`ALTER TABLE ... RENAME CONSTRAINT` /
   * `RENAME INDEX`), or `undefined` where it cannot be renamed and is dropped and added again
   * (MySQL's foreign keys). A primary key's name is never changed where the database ignores it.
   */
  renameConstraint(table: string, constraint: CatalogConstraint, to: string): string[] | undefined;
  /** The `ALTER TABLE` clause dropping `constraint`. */
  dropConstraint(constraint: CatalogConstraint): string;
  /** Whether the database keeps primary key names (PostgreSQL); MySQL calls every one `PRIMARY`. */
  readonly namesPrimaryKeys: boolean;
  /** The statement renaming the sequence of an `id` column, or `undefined` where ids have none. */
  renameIdSequence(table: string, to: string): string | undefined;
}

/**
 * CloudKitty compat: how CloudKitty master's migrations (4595e098) leave its tables on this
 * dialect, where that differs between dialects (docs/operators/migrating.md: "CloudKitty's layout").
 */
export interface CloudKittyLayout {
  /** The type of `map_type` (PostgreSQL: the enum type `enum_map_type`, MySQL: `enum('flat','rate')`). */
  readonly mapTypeColumn: string;
  /** The statement creating the enum type {@link mapTypeColumn} names, before the tables; `undefined` where the column declares its values. */
  readonly createMapTypeEnum: string | undefined;
  /** A CHECK clause limiting `map_type` (SQLite's stand-in for an enum), or `undefined`. */
  readonly mapTypeCheck: string | undefined;
  /** Whether `hashmap_mappings.cost` and `hashmap_thresholds.cost` are nullable (MySQL: yes; PostgreSQL keeps NOT NULL). */
  readonly costNullable: boolean;
  /** Whether `pyscripts_scripts.checksum` is nullable (MySQL: yes, lost when CloudKitty widened it to sha512). */
  readonly scriptChecksumNullable: boolean;
  /** What names `hashmap_mappings`' own constraints start with: PostgreSQL keeps the table's old name `hashmap_maps`. */
  readonly mappingsConstraintPrefix: string;
  /** The sequence of `hashmap_mappings.id` where ids come from one (PostgreSQL: `hashmap_maps_id_seq`). */
  readonly mappingsIdSequence: string | undefined;
  /** The name of the unique constraint on `pyscripts_scripts.script_id` (PostgreSQL's default, MySQL's). */
  readonly scriptIdUniqueName: string;
  /** The default of `created_at` and `start` (CloudKitty: the server's now()). */
  readonly nowDefault: string;
  /** How an earlier Tariff database is changed to this layout; `undefined` where columns cannot be altered (SQLite: tables are only added). */
  readonly changes: CloudKittyLayoutChanges | undefined;
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
  /**
   * Whether `CREATE UNIQUE INDEX ... WHERE` (a partial index) exists: earlier Tariff versions made
   * the `uniq_*_live_name` indexes only there, which migrations `*_0002_names_by_validity` drop.
   */
  readonly partialIndexes: boolean;
  /** Whether a foreign key gets an index by itself (InnoDB); elsewhere the migrations create one. */
  readonly indexesForeignKeys: boolean;
  /** `name` as a quoted identifier for hand-written SQL. */
  quoteIdentifier: (name: string) => string;
  /**
   * The schema whose tables introspection must keep (PostgreSQL lists every schema the user can
   * see); `undefined` where introspection lists the connection's own database only.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handle of any schema: migrations and adoption work on tables not typed here
  currentSchema(db: Kysely<any>): Promise<string | undefined>;
  /**
   * The column names, in order, of the connection's own base tables (PostgreSQL: of its current
   * schema; MariaDB: of its database), by table name; `table` narrows the answer to that table
   * (absent when it does not exist). Fix: Kysely's introspection reads every table's columns
   * joined with `information_schema.tables`, and MariaDB 10.11 crashed in that query's on-disk
   * temporary table (`ha_maria::drop_table`) while the suite's processes migrated at once.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handle of any schema: migrations and adoption work on tables not typed here
  tableColumns(db: Kysely<any>, table?: string): Promise<Map<string, string[]>>;

  /** How a configuration write transaction begins. */
  readonly writeTransaction: WriteTransactionStart;
  /** How a read of one consistent state begins (an export). */
  readonly readSnapshot: ReadSnapshotStart;
  /** Whether DDL statements can be rolled back with their transaction (MySQL commits each one implicitly). */
  readonly transactionalDdl: boolean;
  /**
   * Whether Kysely's migration lock keeps two processes from migrating at once; not on SQLite,
   * where Kysely assumes a single connection (migrate.ts then retries a lost race).
   */
  readonly migrationLockAcrossProcesses: boolean;
  /**
   * Whether the server itself ends a statement at `TARIFF_DB_TIMEOUT` (PostgreSQL's
   * `statement_timeout`, MariaDB's `max_statement_time`): migrations then run on a connection of
   * their own with the start-up's bound (server.ts).
   */
  readonly boundsStatementsOnServer: boolean;
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
  /** CloudKitty's own layout of its tables on this dialect, which Tariff creates. */
  readonly cloudKittyLayout: CloudKittyLayout;

  /** Whether the error is a lost race worth retrying the transaction for: a deadlock, a serialization failure, a Galera certification failure. */
  isLostRace(error: DriverError): boolean;
  /** Whether the error is a unique or foreign-key violation (a concurrent write won a race the checks could not see). */
  isConstraintViolation(error: DriverError): boolean;
  /** Whether the error says the database cannot be reached or is busy past its timeout (beyond the network errors of every driver). */
  isUnavailable(error: DriverError): boolean;
  /**
   * Whether the error is a wait that ran out (a lock held past the busy timeout, a statement or a
   * connection attempt past `TARIFF_DB_TIMEOUT`) rather than a connection lost or refused; for the
   * `timeout` kind of `tariff_database_errors_total`.
   */
  isTimeout(error: DriverError): boolean;
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

/** One row of a {@link DialectTraits.tableColumns} read: a table's column. */
export interface TableColumn {
  table_name: string;
  column_name: string;
}

/** Rows in table and column order, grouped by table (for {@link DialectTraits.tableColumns}). */
export function columnsByTable(rows: readonly TableColumn[]): Map<string, string[]> {
  const tables = new Map<string, string[]>();
  for (const { table_name: table, column_name: column } of rows) {
    const columns = tables.get(table);
    if (columns) columns.push(column);
    else tables.set(table, [column]);
  }
  return tables;
}
