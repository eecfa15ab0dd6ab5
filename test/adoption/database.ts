/**
 * Direct reads of a PostgreSQL or MySQL database for the adoption tests: what is stored, not what
 * the API says.
 */
import { createConnection } from 'mysql2/promise';
import pg from 'pg';

/** Runs one statement on the database at `url` (postgres:// or mysql://); returns the rows. */
export async function selectRows(url: string, statement: string): Promise<Record<string, unknown>[]> {
  if (url.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(statement)).rows;
    } finally {
      await client.end();
    }
  }
  const connection = await createConnection(url);
  try {
    const [rows] = await connection.query(statement);
    return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
  } finally {
    await connection.end();
  }
}

/** The rating tables CloudKitty and Tariff share. */
export const RATING_TABLES = ['hashmap_services', 'hashmap_fields', 'hashmap_groups', 'hashmap_mappings', 'hashmap_thresholds', 'pyscripts_scripts'];

/** Rows per rating table. */
export async function rowCounts(url: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of RATING_TABLES) counts[table] = Number((await selectRows(url, `select count(*) as count from ${table}`))[0].count);
  return counts;
}

/** A table's column names, sorted. */
export async function columnsOf(url: string, table: string): Promise<string[]> {
  const schema = url.startsWith('postgres') ? 'current_schema()' : 'database()';
  const rows = await selectRows(url, `select column_name as name from information_schema.columns where table_schema = ${schema} and table_name = '${table}'`);
  return rows.map((row) => String(row.name)).sort();
}
