/**
 * One write = one transaction, and configuration writes one at a time across every Tariff process
 * sharing the database: each write transaction first increments `tariff_config_version.version`,
 * which takes that row's write lock until commit. The checks made inside the transaction (names,
 * overlaps, levels) therefore see every write committed before and none that could slip in
 * between check and insert. Transactions that lose a deadlock, a serialization check or a Galera
 * certification are retried; unreachable databases give 503.
 *
 * SQLite starts with `BEGIN IMMEDIATE` (the database-wide write lock); PostgreSQL and MySQL use
 * READ COMMITTED, so every statement after the lock sees the writes committed before it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import type { Database } from './connection.js';
import type { TariffTables } from './tables.js';
import { classifyDatabaseError } from './errors.js';

/** A Kysely handle bound to one open transaction. */
export type Transaction = Kysely<TariffTables>;

/** Attempts of a transaction that loses a deadlock or serialization check. */
const ATTEMPTS = 8;

async function bumpConfigVersion(transaction: Transaction): Promise<void> {
  await transaction
    .updateTable('tariff_config_version')
    .set((eb) => ({ version: eb('version', '+', 1) }))
    .where('name', '=', 'rating')
    .execute();
}

async function runOnce<T>(database: Database, work: (transaction: Transaction) => Promise<T>): Promise<T> {
  if (database.dialect !== 'sqlite') {
    return database.db
      .transaction()
      .setIsolationLevel('read committed')
      .execute(async (transaction) => {
        await bumpConfigVersion(transaction);
        return work(transaction);
      });
  }
  return database.db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    try {
      await bumpConfigVersion(connection);
      const result = await work(connection);
      await sql`commit`.execute(connection);
      return result;
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => undefined);
      throw error;
    }
  });
}

/**
 * Runs `work` in one configuration write transaction: committed when it resolves, rolled back
 * when it throws. Domain errors are rethrown unchanged; a lost deadlock or serialization check is
 * retried (up to 8 attempts, with jitter); database faults become typed errors (see
 * `classifyDatabaseError`).
 */
export async function inWriteTransaction<T>(database: Database, work: (transaction: Transaction) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await runOnce(database, work);
    } catch (error) {
      const classified = classifyDatabaseError(error);
      if (classified === 'retry' && attempt < ATTEMPTS) {
        await sleep(Math.random() * 5 * attempt);
        continue;
      }
      throw classified === 'retry' || classified === undefined ? error : classified;
    }
  }
}
