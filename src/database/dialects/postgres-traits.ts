/** PostgreSQL's facts (node-postgres). */
import { sql } from 'kysely';
import { columnsByTable, type CatalogConstraint, type CloudKittyLayout, type CloudKittyUpgradeSql, type DialectTraits, type TableColumn } from './traits.js';

/** SQLSTATE 53100 disk_full; the rest of class 53 (insufficient resources) is memory or server limits. */
const DISK_FULL = '53100';
const INSUFFICIENT_RESOURCES_CLASS = '53';
/** SQLSTATEs serialization_failure, deadlock_detected. */
const LOST_RACE_CODES = new Set(['40001', '40P01']);
/** SQLSTATEs unique_violation, foreign_key_violation. */
const CONSTRAINT_CODES = new Set(['23505', '23503']);
/**
 * SQLSTATEs admin_shutdown, crash_shutdown, cannot_connect_now, database_dropped, class 08
 * (connection exceptions), and invalid_catalog_name: the database does not exist (fix, issue 24:
 * a database dropped under a running server, `DROP DATABASE ... WITH (FORCE)`, ends its
 * connections with 57P01 and refuses every new one with 3D000, which was a 500).
 */
const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '57P04', '08000', '08001', '08003', '08006', '3D000']);
/** node-postgres's and pg-pool's messages for a connection that dropped or never came. */
const UNAVAILABLE_MESSAGES = /Connection terminated|not queryable|Query read timeout|timeout exceeded when trying to connect/i;

/** SQLSTATE query_canceled: what `statement_timeout` raises. */
const QUERY_CANCELED = '57014';
/** node-postgres's and pg-pool's messages for a statement or a connection attempt past its time. */
const TIMEOUT_MESSAGES = /Query read timeout|timeout exceeded when trying to connect|connection timeout/i;

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** fix: CloudKitty drops the script name constraint by MySQL's name; here constraints are looked up by their columns. */
const cloudKittyUpgrade: CloudKittyUpgradeSql = {
  randomHexPerRow: 'md5(random()::text || clock_timestamp()::text || id::text)',
  requireColumn: (column) => `ALTER COLUMN ${quoteIdentifier(column)} SET NOT NULL`,
  dropUniqueConstraint: (name) => `DROP CONSTRAINT ${quoteIdentifier(name)}`,
  async uniqueConstraintsOn(db, table, columns) {
    const { rows } = await sql<{ name: string; columns: string }>`
      select c.conname as name, string_agg(a.attname, ',' order by k.position) as columns
      from pg_constraint c
      cross join lateral unnest(c.conkey) with ordinality as k(attnum, position)
      join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum
      where c.conrelid = ${table}::regclass and c.contype = 'u'
      group by c.conname`.execute(db);
    return rows.filter((row) => row.columns === columns.join(',')).map((row) => row.name);
  },
  widenScriptData: undefined,
  storesAwareDateTimeAs: 'wall time',
};

const CONSTRAINT_KINDS: Record<string, CatalogConstraint['kind']> = { p: 'primary', u: 'unique', f: 'foreign' };

/**
 * CloudKitty compat: master's migrations on PostgreSQL keep the names `hashmap_mappings` had as
 * `hashmap_maps` (its sequence, mapping constraints), make `map_type` the enum type
 * `enum_map_type` and leave costs NOT NULL.
 */
const cloudKittyLayout: CloudKittyLayout = {
  mapTypeColumn: 'enum_map_type',
  createMapTypeEnum: "CREATE TYPE enum_map_type AS ENUM ('flat', 'rate')",
  mapTypeCheck: undefined,
  costNullable: false,
  scriptChecksumNullable: false,
  mappingsConstraintPrefix: 'hashmap_maps',
  mappingsIdSequence: 'hashmap_maps_id_seq',
  scriptIdUniqueName: 'pyscripts_scripts_script_id_key',
  nowDefault: 'now()',
  changes: {
    alterColumn(column, wanted) {
      const name = quoteIdentifier(column);
      return [
        `ALTER COLUMN ${name} DROP DEFAULT`,
        `ALTER COLUMN ${name} TYPE ${wanted.type} USING ${name}::text::${wanted.type}`,
        `ALTER COLUMN ${name} ${wanted.nullable ? 'DROP' : 'SET'} NOT NULL`,
        ...(wanted.default !== undefined ? [`ALTER COLUMN ${name} SET DEFAULT ${wanted.default}`] : []),
      ];
    },
    async constraintsOf(db, table) {
      const { rows } = await sql<{ name: string; kind: string; columns: string; references: string | null }>`
        select c.conname as name, c.contype as kind, string_agg(a.attname, ',' order by k.position) as columns,
          c.confrelid::regclass::text as references
        from pg_constraint c
        cross join lateral unnest(c.conkey) with ordinality as k(attnum, position)
        join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum
        where c.conrelid = ${table}::regclass and c.contype in ('p', 'u', 'f')
        group by c.conname, c.contype, c.confrelid`.execute(db);
      return rows.map((row) => ({
        name: row.name,
        kind: CONSTRAINT_KINDS[row.kind],
        columns: row.columns.split(','),
        ...(row.kind === 'f' && row.references !== null ? { references: row.references } : {}),
      }));
    },
    renameConstraint: (table, constraint, to) => [
      `ALTER TABLE ${quoteIdentifier(table)} RENAME CONSTRAINT ${quoteIdentifier(constraint.name)} TO ${quoteIdentifier(to)}`,
    ],
    dropConstraint: (constraint) => `DROP CONSTRAINT ${quoteIdentifier(constraint.name)}`,
    namesPrimaryKeys: true,
    renameIdSequence: (table, to) => `ALTER SEQUENCE ${quoteIdentifier(`${table}_id_seq`)} RENAME TO ${quoteIdentifier(to)}`,
  },
};

/**
 * PostgreSQL's facts: exact NUMERIC, transactional DDL, `=` on text exact under every
 * deterministic collation (the only kind a database default can be) and `varchar` never padded.
 */
export const postgresTraits: DialectTraits = {
  displayName: 'PostgreSQL',

  columnTypes: {
    decimal: (precision, scale) => `numeric(${precision}, ${scale})`,
    dateTime: 'timestamp',
    blob: 'bytea',
    boolean: 'boolean',
    generatedId: { type: 'serial', autoIncrement: false },
  },
  tableOptions: () => undefined,
  partialIndexes: true,
  indexesForeignKeys: false,
  quoteIdentifier,
  async currentSchema(db) {
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
    return rows[0]?.schema;
  },
  async tableColumns(db, table) {
    const { rows } = await sql<TableColumn>`
      select c.table_name, c.column_name from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
      where c.table_schema = current_schema() and (${table ?? null}::text is null or c.table_name = ${table ?? null})
      order by c.table_name, c.ordinal_position`.execute(db);
    return columnsByTable(rows);
  },

  writeTransaction: { kind: 'isolation-level', level: 'read committed' },
  readSnapshot: { kind: 'isolation-level', level: 'repeatable read', accessMode: 'read only' },
  transactionalDdl: true,
  migrationLockAcrossProcesses: true,
  boundsStatementsOnServer: true,
  bindBoolean: (value) => value,

  exactTextCollation: undefined,
  cloudKittyUpgrade,
  cloudKittyLayout,

  isLostRace: (error) => LOST_RACE_CODES.has(error.code ?? ''),
  isConstraintViolation: (error) => CONSTRAINT_CODES.has(error.code ?? ''),
  // A statement cancelled at `statement_timeout` is the database busy past its timeout, as node-postgres's own `query_timeout`, which it races.
  isUnavailable: (error) => UNAVAILABLE_CODES.has(error.code ?? '') || error.code === QUERY_CANCELED || UNAVAILABLE_MESSAGES.test(error.message ?? ''),
  isTimeout: (error) => error.code === QUERY_CANCELED || TIMEOUT_MESSAGES.test(error.message ?? ''),
  exhaustedResource(error) {
    if (error.code === DISK_FULL) return 'storage';
    if (error.code?.length === 5 && error.code.startsWith(INSUFFICIENT_RESOURCES_CLASS)) return 'other';
    return undefined;
  },
};
