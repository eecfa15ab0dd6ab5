/** PostgreSQL's facts (node-postgres). */
import { sql } from 'kysely';
import type { CloudKittyUpgradeSql, DialectTraits } from './traits.js';

/** SQLSTATE 53100 disk_full; the rest of class 53 (insufficient resources) is memory or server limits. */
const DISK_FULL = '53100';
const INSUFFICIENT_RESOURCES_CLASS = '53';
/** SQLSTATEs serialization_failure, deadlock_detected. */
const LOST_RACE_CODES = new Set(['40001', '40P01']);
/** SQLSTATEs unique_violation, foreign_key_violation. */
const CONSTRAINT_CODES = new Set(['23505', '23503']);
/** SQLSTATEs admin_shutdown, crash_shutdown, cannot_connect_now, and class 08 (connection exceptions). */
const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']);
/** node-postgres's and pg-pool's messages for a connection that dropped or never came. */
const UNAVAILABLE_MESSAGES = /Connection terminated|not queryable|Query read timeout|timeout exceeded when trying to connect/i;

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
  nowUtc: "(now() at time zone 'utc')",
  async currentSchema(db) {
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
    return rows[0]?.schema;
  },

  writeTransaction: { kind: 'isolation-level', level: 'read committed' },
  transactionalDdl: true,
  migrationLockAcrossProcesses: true,
  bindBoolean: (value) => value,

  exactTextCollation: undefined,
  cloudKittyUpgrade,

  isLostRace: (error) => LOST_RACE_CODES.has(error.code ?? ''),
  isConstraintViolation: (error) => CONSTRAINT_CODES.has(error.code ?? ''),
  isUnavailable: (error) => UNAVAILABLE_CODES.has(error.code ?? '') || UNAVAILABLE_MESSAGES.test(error.message ?? ''),
  exhaustedResource(error) {
    if (error.code === DISK_FULL) return 'storage';
    if (error.code?.length === 5 && error.code.startsWith(INSUFFICIENT_RESOURCES_CLASS)) return 'other';
    return undefined;
  },
};
