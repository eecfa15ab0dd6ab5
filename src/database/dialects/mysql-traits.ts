/** MariaDB's and MySQL's facts (mysql2). */
import { sql } from 'kysely';
import {
  columnsByTable,
  type CatalogConstraint,
  type CloudKittyLayout,
  type CloudKittyUpgradeSql,
  type DialectTraits,
  type ExactTextCollation,
  type TableColumn,
} from './traits.js';

/** Server errnos that mean no room is left: ER_DISK_FULL, ER_RECORD_FILE_FULL (InnoDB: the table space cannot grow). */
const STORAGE_FULL_ERRNOS = new Set([1021, 1114]);
/** Write errors that mean a full disk when their OS error is ENOSPC (28): EE_WRITE, ER_ERROR_ON_WRITE, ER_GET_ERRNO, ER_TEMP_FILE_WRITE_FAILURE. */
const WRITE_ERRNOS = new Set([3, 1026, 1030, 1878]);
const NO_SPACE = /No space left on device|Errcode: 28\b|error 28\b/i;
/** ER_OUTOFMEMORY, ER_OUT_OF_SORTMEMORY, ER_OUT_OF_RESOURCES. */
const OUT_OF_RESOURCES_ERRNOS = new Set([1037, 1038, 1041]);
/** ER_LOCK_DEADLOCK (Galera reports a failed certification as a deadlock too). */
const LOST_RACE_ERRNOS = new Set([1213]);
/**
 * Waits past `TARIFF_DB_TIMEOUT` (the session limits mysql.ts sets on every connection): 1205
 * ER_LOCK_WAIT_TIMEOUT (innodb_lock_wait_timeout), 1969 ER_STATEMENT_TIMEOUT (MariaDB's
 * max_statement_time), 3024 ER_QUERY_TIMEOUT (MySQL's max_execution_time). A 503, not retried.
 */
const TIMEOUT_ERRNOS = new Set([1205, 1969, 3024]);
/** Duplicate keys and missing parents. */
const CONSTRAINT_CODES = new Set(['ER_DUP_ENTRY', 'ER_NO_REFERENCED_ROW_2', 'ER_NO_REFERENCED_ROW']);
/**
 * mysql2's codes for a dropped or refused connection, and for a database gone under a running
 * server (fix, issue 24: each was a 500): a new connection to it is refused with ER_BAD_DB_ERROR
 * (1049), and the connections open on it stay open, every table missing (ER_NO_SUCH_TABLE, 1146;
 * Tariff's tables exist from the migrations on, so a missing one means the database or its
 * schema was removed).
 */
const UNAVAILABLE_CODES = new Set(['PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT', 'ER_CON_COUNT_ERROR', 'ER_BAD_DB_ERROR', 'ER_NO_SUCH_TABLE']);
/** mysql2's messages for a connection that dropped. */
const UNAVAILABLE_MESSAGES = /Can't add new command when connection is in closed state|Connection lost/i;

/** Tariff's blob type: CloudKitty's `BLOB` holds 64 KiB. */
const BLOB = 'longblob';

/**
 * Binary collations without trailing-space padding, preferred first: MariaDB's, MySQL 8's. The
 * `utf8mb4_bin` both default to is PAD SPACE (`'trail'` equals `'trail '`, also in unique
 * indexes).
 */
const EXACT_COLLATIONS = ['utf8mb4_nopad_bin', 'utf8mb4_0900_bin'] as const;

function quoteIdentifier(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

const exactTextCollation: ExactTextCollation = {
  async choose(db) {
    const { rows } = await sql<{ name: string }>`
      select collation_name as name from information_schema.collations where collation_name in (${sql.join([...EXACT_COLLATIONS])})`.execute(db);
    const found = EXACT_COLLATIONS.find((collation) => rows.some((row) => row.name === collation));
    if (!found) throw new Error(`the server offers neither ${EXACT_COLLATIONS.join(' nor ')} (Tariff needs MariaDB 10.2 or later, or MySQL 8)`);
    return found;
  },
  convertTable: (collation) => `CONVERT TO CHARACTER SET utf8mb4 COLLATE ${collation}`,
  async tablesNotIn(db, tables, collation) {
    const { rows } = await sql<{ name: string }>`
      select table_name as name from information_schema.columns
      where table_schema = database() and table_name in (${sql.join([...tables])}) and collation_name is not null and collation_name <> ${collation}
      union
      select table_name as name from information_schema.tables
      where table_schema = database() and table_name in (${sql.join([...tables])}) and table_collation <> ${collation}`.execute(db);
    const found = new Set(rows.map((row) => row.name));
    return tables.filter((table) => found.has(table));
  },
};

const cloudKittyUpgrade: CloudKittyUpgradeSql = {
  randomHexPerRow: "REPLACE(UUID(), '-', '')",
  requireColumn: (column, type) => `MODIFY ${quoteIdentifier(column)} ${type} NOT NULL`,
  dropUniqueConstraint: (name) => `DROP INDEX ${quoteIdentifier(name)}`,
  async uniqueConstraintsOn(db, table, columns) {
    const { rows } = await sql<{ name: string; columns: string }>`
      select index_name as name, group_concat(column_name order by seq_in_index) as columns
      from information_schema.statistics
      where table_schema = database() and table_name = ${table} and non_unique = 0 and index_name <> 'PRIMARY'
      group by index_name`.execute(db);
    return rows.filter((row) => row.columns === columns.join(',')).map((row) => row.name);
  },
  widenScriptData: `MODIFY data ${BLOB} NOT NULL`,
  storesAwareDateTimeAs: 'utc fields',
};

const CONSTRAINT_KINDS: Record<string, CatalogConstraint['kind']> = { 'PRIMARY KEY': 'primary', UNIQUE: 'unique', 'FOREIGN KEY': 'foreign' };

/**
 * CloudKitty compat: master's migrations on MariaDB / MySQL declare `map_type` as
 * `enum('flat','rate')`, leave costs and the script checksum nullable and name the mapping
 * constraints after `hashmap_mappings`.
 */
const cloudKittyLayout: CloudKittyLayout = {
  mapTypeColumn: "enum('flat','rate')",
  createMapTypeEnum: undefined,
  mapTypeCheck: undefined,
  costNullable: true,
  scriptChecksumNullable: true,
  mappingsConstraintPrefix: 'hashmap_mappings',
  mappingsIdSequence: undefined,
  scriptIdUniqueName: 'script_id',
  nowDefault: 'current_timestamp()',
  changes: {
    alterColumn: (column, wanted) => [
      `MODIFY ${quoteIdentifier(column)} ${wanted.type} ${wanted.nullable ? 'NULL' : 'NOT NULL'}${wanted.default !== undefined ? ` DEFAULT ${wanted.default}` : ''}`,
    ],
    async constraintsOf(db, table) {
      const { rows } = await sql<{ name: string; kind: string; columns: string; references: string | null }>`
        select c.constraint_name as name, c.constraint_type as kind,
          group_concat(k.column_name order by k.ordinal_position) as columns, max(k.referenced_table_name) as \`references\`
        from information_schema.table_constraints c
        join information_schema.key_column_usage k
          on k.constraint_schema = c.constraint_schema and k.table_name = c.table_name and k.constraint_name = c.constraint_name
        where c.constraint_schema = database() and c.table_name = ${table} and c.constraint_type in ('PRIMARY KEY', 'UNIQUE', 'FOREIGN KEY')
        group by c.constraint_name, c.constraint_type`.execute(db);
      return rows.map((row) => ({
        name: row.name,
        kind: CONSTRAINT_KINDS[row.kind],
        columns: row.columns.split(','),
        ...(row.references !== null ? { references: row.references } : {}),
      }));
    },
    renameConstraint: (table, constraint, to) =>
      constraint.kind === 'unique'
        ? [`ALTER TABLE ${quoteIdentifier(table)} RENAME INDEX ${quoteIdentifier(constraint.name)} TO ${quoteIdentifier(to)}`]
        : undefined,
    dropConstraint: (constraint) =>
      constraint.kind === 'foreign' ? `DROP FOREIGN KEY ${quoteIdentifier(constraint.name)}` : `DROP INDEX ${quoteIdentifier(constraint.name)}`,
    namesPrimaryKeys: false,
    renameIdSequence: () => undefined,
  },
};

/**
 * MariaDB's and MySQL's facts: InnoDB tables in utf8mb4 with an exact collation (binary, NO
 * PAD), no partial indexes, and DDL that commits implicitly.
 */
export const mysqlTraits: DialectTraits = {
  displayName: 'MariaDB/MySQL',

  columnTypes: {
    decimal: (precision, scale) => `numeric(${precision}, ${scale})`,
    dateTime: 'datetime',
    blob: BLOB,
    boolean: 'boolean',
    generatedId: { type: 'integer', autoIncrement: true },
  },
  tableOptions: (exactCollation) => (exactCollation === undefined ? undefined : `engine=InnoDB default charset=utf8mb4 collate=${exactCollation}`),
  partialIndexes: false,
  indexesForeignKeys: true,
  quoteIdentifier,
  currentSchema: async () => undefined,
  // Two plain reads instead of one join of information_schema tables (see DialectTraits.tableColumns).
  async tableColumns(db, table) {
    const named = table === undefined ? sql`` : sql` and table_name = ${table}`;
    const { rows: tables } = await sql<{ table_name: string }>`
      select table_name as table_name from information_schema.tables where table_schema = database() and table_type = 'BASE TABLE'${named}`.execute(db);
    if (tables.length === 0) return new Map();
    const { rows } = await sql<TableColumn>`
      select table_name as table_name, column_name as column_name from information_schema.columns
      where table_schema = database()${named} order by table_name, ordinal_position`.execute(db);
    const baseTables = new Set(tables.map((row) => row.table_name));
    return columnsByTable(rows.filter((row) => baseTables.has(row.table_name)));
  },

  writeTransaction: { kind: 'isolation-level', level: 'read committed' },
  readSnapshot: { kind: 'isolation-level', level: 'repeatable read', accessMode: 'read only' },
  transactionalDdl: false,
  migrationLockAcrossProcesses: true,
  boundsStatementsOnServer: true,
  bindBoolean: (value) => value,

  exactTextCollation,
  cloudKittyUpgrade,
  cloudKittyLayout,

  isLostRace: (error) => error.errno !== undefined && LOST_RACE_ERRNOS.has(error.errno),
  isConstraintViolation: (error) => CONSTRAINT_CODES.has(error.code ?? ''),
  isUnavailable: (error) =>
    UNAVAILABLE_CODES.has(error.code ?? '') || UNAVAILABLE_MESSAGES.test(error.message ?? '') || (error.errno !== undefined && TIMEOUT_ERRNOS.has(error.errno)),
  isTimeout: (error) => error.code === 'PROTOCOL_SEQUENCE_TIMEOUT' || (error.errno !== undefined && TIMEOUT_ERRNOS.has(error.errno)),
  exhaustedResource(error) {
    const { errno } = error;
    if (errno === undefined) return undefined;
    if (STORAGE_FULL_ERRNOS.has(errno) || (WRITE_ERRNOS.has(errno) && NO_SPACE.test(error.message ?? ''))) return 'storage';
    if (OUT_OF_RESOURCES_ERRNOS.has(errno)) return 'other';
    return undefined;
  },
};
