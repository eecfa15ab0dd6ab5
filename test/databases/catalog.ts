/**
 * A database's catalog as the CloudKitty layout tests compare it: per table its columns (type,
 * nullability, default), constraints (name, kind, definition), indexes (name, definition), plus
 * enum types, sequences and the alembic version rows. Read from pg_catalog on PostgreSQL,
 * information_schema on MariaDB, sqlite_master on SQLite. Text collations are not read (a
 * deliberate difference, docs/operators/migrating.md: "CloudKitty's layout").
 */
import pg from 'pg';
import { createConnection } from 'mysql2/promise';
import { DatabaseSync } from 'node:sqlite';

/** One database's layout, every list sorted, so two catalogs compare with `toEqual`. */
export interface Catalog {
  tables: string[];
  /** `table.column` → `type | NULL or NOT NULL | default`. */
  columns: Record<string, string>;
  /** `table.name` → kind and definition. */
  constraints: Record<string, string>;
  /** `table.name` → definition (PostgreSQL / MariaDB). */
  indexes: Record<string, string>;
  /** Enum types with their labels (PostgreSQL). */
  enums: string[];
  sequences: string[];
  /** Version table → its rows. */
  versions: Record<string, string[]>;
}

const VERSION_TABLES = ['cloudkitty_alembic', 'hashmap_alembic', 'pyscripts_alembic'];

function sorted<T>(entries: [string, T][]): Record<string, T> {
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

async function postgresCatalog(url: string): Promise<Catalog> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const query = async (text: string) => (await client.query(text)).rows as Record<string, string>[];
    const tables = (await query(`select tablename as name from pg_tables where schemaname = current_schema()`)).map((row) => row.name).sort();
    const columns = await query(`
      select c.relname as t, a.attname as c, format_type(a.atttypid, a.atttypmod) as type, a.attnotnull::text as notnull,
        coalesce(pg_get_expr(d.adbin, d.adrelid), '') as def
      from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
      left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where n.nspname = current_schema() and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped`);
    const constraints = await query(`
      select c.relname as t, k.conname as name, k.contype as kind, pg_get_constraintdef(k.oid) as def
      from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema()`);
    const indexes = await query(`select tablename as t, indexname as name, indexdef as def from pg_indexes where schemaname = current_schema()`);
    const enums = await query(`
      select t.typname || ' (' || string_agg(e.enumlabel, ', ' order by e.enumsortorder) || ')' as name
      from pg_type t join pg_enum e on e.enumtypid = t.oid join pg_namespace n on n.oid = t.typnamespace
      where n.nspname = current_schema() group by t.typname`);
    const sequences = await query(`select sequencename as name from pg_sequences where schemaname = current_schema()`);
    const versions: Record<string, string[]> = {};
    for (const table of VERSION_TABLES.filter((name) => tables.includes(name))) {
      versions[table] = (await query(`select version_num from ${table}`)).map((row) => row.version_num).sort();
    }
    return {
      tables,
      columns: sorted(columns.map((row) => [`${row.t}.${row.c}`, `${row.type} | ${row.notnull === 'true' ? 'NOT NULL' : 'NULL'} | ${row.def}`])),
      constraints: sorted(constraints.map((row) => [`${row.t}.${row.name}`, `${row.kind} ${row.def}`])),
      indexes: sorted(indexes.map((row) => [`${row.t}.${row.name}`, row.def])),
      enums: enums.map((row) => row.name).sort(),
      sequences: sequences.map((row) => row.name).sort(),
      versions,
    };
  } finally {
    await client.end();
  }
}

async function mysqlCatalog(url: string): Promise<Catalog> {
  const connection = await createConnection(url);
  try {
    const query = async (text: string) => (await connection.query(text))[0] as Record<string, string | number | null>[];
    const tables = (await query(`select table_name as name from information_schema.tables where table_schema = database()`))
      .map((row) => String(row.name))
      .sort();
    const columns = await query(`
      select table_name as t, column_name as c, column_type as type, is_nullable as nullable, column_default as def
      from information_schema.columns where table_schema = database()`);
    const constraints = await query(`
      select c.table_name as t, c.constraint_name as name, c.constraint_type as kind,
        group_concat(k.column_name order by k.ordinal_position) as cols, max(k.referenced_table_name) as ref, max(r.delete_rule) as on_delete
      from information_schema.table_constraints c
      join information_schema.key_column_usage k
        on k.constraint_schema = c.constraint_schema and k.table_name = c.table_name and k.constraint_name = c.constraint_name
      left join information_schema.referential_constraints r on r.constraint_schema = c.constraint_schema and r.constraint_name = c.constraint_name
      where c.constraint_schema = database() group by c.table_name, c.constraint_name, c.constraint_type`);
    const indexes = await query(`
      select table_name as t, index_name as name, non_unique as non_unique, group_concat(column_name order by seq_in_index) as cols
      from information_schema.statistics where table_schema = database() group by table_name, index_name, non_unique`);
    const versions: Record<string, string[]> = {};
    for (const table of VERSION_TABLES.filter((name) => tables.includes(name))) {
      versions[table] = (await query(`select version_num from ${table}`)).map((row) => String(row.version_num)).sort();
    }
    return {
      tables,
      columns: sorted(columns.map((row) => [`${row.t}.${row.c}`, `${row.type} | ${row.nullable === 'YES' ? 'NULL' : 'NOT NULL'} | ${row.def ?? ''}`])),
      constraints: sorted(
        constraints.map((row) => [`${row.t}.${row.name}`, `${row.kind} (${row.cols})${row.ref ? ` → ${row.ref} on delete ${row.on_delete}` : ''}`]),
      ),
      indexes: sorted(indexes.map((row) => [`${row.t}.${row.name}`, `${Number(row.non_unique) === 0 ? 'unique ' : ''}(${row.cols})`])),
      enums: [],
      sequences: [],
      versions,
    };
  } finally {
    await connection.end();
  }
}

function sqliteCatalog(file: string): Catalog {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const tables = (db.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`).all() as { name: string }[])
      .map((row) => row.name)
      .sort();
    const columns: [string, string][] = [];
    for (const table of tables) {
      for (const column of db.prepare(`select * from pragma_table_info(?)`).all(table) as {
        name: string;
        type: string;
        notnull: number;
        dflt_value: string | null;
        pk: number;
      }[]) {
        columns.push([
          `${table}.${column.name}`,
          `${column.type.toLowerCase()} | ${column.notnull || column.pk ? 'NOT NULL' : 'NULL'} | ${column.dflt_value ?? ''}`,
        ]);
      }
    }
    const versions: Record<string, string[]> = {};
    for (const table of VERSION_TABLES.filter((name) => tables.includes(name))) {
      versions[table] = (db.prepare(`select version_num from ${table}`).all() as { version_num: string }[]).map((row) => row.version_num).sort();
    }
    return { tables, columns: sorted(columns), constraints: {}, indexes: {}, enums: [], sequences: [], versions };
  } finally {
    db.close();
  }
}

/** Reads the catalog of the database at `url` (Tariff's `postgres://`, `mysql://` or `sqlite:` URL). */
export function readCatalog(url: string): Promise<Catalog> {
  if (url.startsWith('postgres')) return postgresCatalog(url);
  if (url.startsWith('mysql')) return mysqlCatalog(url);
  return Promise.resolve(sqliteCatalog(url.replace(/^sqlite:/, '')));
}
