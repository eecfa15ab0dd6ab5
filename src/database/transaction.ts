/**
 * One write = one transaction. On SQLite the transaction starts with `BEGIN IMMEDIATE`, taking the
 * write lock up front so that the checks made inside it (names, overlaps) cannot be invalidated
 * by another writer before the insert.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './connection.js';
import type { TariffTables } from './tables.js';

/** A Kysely handle bound to one open transaction. */
export type Transaction = Kysely<TariffTables>;

/**
 * Runs `work` in one transaction: committed when it resolves, rolled back when it throws (the
 * error is rethrown unchanged).
 */
export async function inWriteTransaction<T>(database: Database, work: (transaction: Transaction) => Promise<T>): Promise<T> {
  if (database.dialect !== 'sqlite') {
    return database.db.transaction().execute(work);
  }
  return database.db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    try {
      const result = await work(connection);
      await sql`commit`.execute(connection);
      return result;
    } catch (error) {
      await sql`rollback`.execute(connection);
      throw error;
    }
  });
}
