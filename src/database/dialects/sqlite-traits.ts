/** SQLite's facts (`node:sqlite`): the embedded database, one writer at a time. */
import { sql } from 'kysely';
import { columnsByTable, type CloudKittyLayout, type DialectTraits, type TableColumn } from './traits.js';

/** Constraint violations, by the names of their extended result codes (sqlite-result-codes.ts). */
const CONSTRAINT_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY', 'SQLITE_CONSTRAINT_FOREIGNKEY']);
/** Another process holds the lock past the 5 s busy timeout. */
const BUSY_CODES = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED']);

/**
 * CloudKitty compat: CloudKitty on SQLite is a test setup (master's dbsync does not finish on an
 * empty SQLite file); Tariff gives it the names CloudKitty's models declare, SQLite's types, and
 * `map_type` as text checked against CloudKitty's two values. Columns are never altered here.
 */
const cloudKittyLayout: CloudKittyLayout = {
  mapTypeColumn: 'varchar(4)',
  createMapTypeEnum: undefined,
  mapTypeCheck: "map_type IN ('flat', 'rate')",
  costNullable: false,
  scriptChecksumNullable: false,
  mappingsConstraintPrefix: 'hashmap_mappings',
  mappingsIdSequence: undefined,
  scriptIdUniqueName: 'pyscripts_scripts_script_id_key',
  nowDefault: 'CURRENT_TIMESTAMP',
  changes: undefined,
};

/**
 * SQLite's facts: decimals are TEXT (its NUMERIC is a float), text compares exactly by its BINARY
 * collation already, and a write transaction takes the database-wide lock when it begins.
 */
export const sqliteTraits: DialectTraits = {
  displayName: 'SQLite',

  columnTypes: {
    decimal: () => 'text',
    dateTime: 'text',
    blob: 'blob',
    boolean: 'boolean',
    generatedId: { type: 'integer', autoIncrement: true },
  },
  tableOptions: () => undefined,
  partialIndexes: true,
  indexesForeignKeys: false,
  quoteIdentifier: (name) => `"${name.replaceAll('"', '""')}"`,
  currentSchema: async () => undefined,
  async tableColumns(db, table) {
    const { rows } = await sql<TableColumn>`
      select m.name as table_name, p.name as column_name from sqlite_master m join pragma_table_info(m.name) p
      where m.type = 'table' and (${table ?? null} is null or m.name = ${table ?? null}) order by m.name, p.cid`.execute(db);
    return columnsByTable(rows);
  },

  writeTransaction: { kind: 'begin-immediate' },
  readSnapshot: { kind: 'begin-deferred' },
  transactionalDdl: true,
  migrationLockAcrossProcesses: false,
  boundsStatementsOnServer: false,
  bindBoolean: (value) => Number(value),

  exactTextCollation: undefined,
  cloudKittyUpgrade: undefined,
  cloudKittyLayout,

  // A writer waits for the lock instead of deadlocking (BEGIN IMMEDIATE): no lost races.
  isLostRace: () => false,
  isConstraintViolation: (error) => CONSTRAINT_CODES.has(error.code ?? ''),
  isUnavailable: (error) => BUSY_CODES.has(error.code ?? ''),
  isTimeout: (error) => BUSY_CODES.has(error.code ?? ''),
  exhaustedResource(error) {
    if (error.code === 'SQLITE_FULL') return 'storage';
    if (error.code === 'SQLITE_NOMEM') return 'other';
    return undefined;
  },
};
