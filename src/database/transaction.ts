/**
 * One write = one transaction, and configuration writes serialized across every Tariff process
 * sharing the database: a write increments `tariff_config_version.version`, which takes that
 * row's write lock until commit, before it makes its checks (names, overlaps, levels). The checks
 * therefore see every write committed before and none can slip in between check and insert.
 * Reads that need no protection (resolving a parent's key) come before the lock, so it is held
 * for as few statements as possible. Transactions that lose a deadlock, a serialization check,
 * a Galera certification or a constraint race are retried; unreachable databases give 503.
 *
 * How a transaction begins is the dialect's (`DialectTraits.writeTransaction`): SQLite starts with
 * `BEGIN IMMEDIATE` (the database-wide write lock); PostgreSQL and MySQL use READ COMMITTED, so
 * every statement after the lock sees the writes committed before it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import type { Database } from './connection.js';
import type { TariffTables } from './tables.js';
import { classifyDatabaseError, databaseErrorKind } from './errors.js';
import type { ChangeJournal } from './change-journal.js';
import { ReusableStatement } from './reusable-query.js';

/** A Kysely handle bound to one open transaction. */
export type Transaction = Kysely<TariffTables>;

/** Attempts of a transaction that loses a deadlock or serialization check. */
const ATTEMPTS = 8;

/**
 * Takes the configuration write lock (once; later calls do nothing). A write calls it before its
 * checks; a write that never calls it takes it just before commit, still bumping the version.
 */
export type SerializeWrites = () => Promise<void>;

/** The version's increment, compiled once per database: every write runs it. */
const incrementVersion = new ReusableStatement((db: Transaction) =>
  db
    .updateTable('tariff_config_version')
    .set((eb) => ({ version: eb('version', '+', 1) }))
    .where('name', '=', 'rating'),
);

async function bumpConfigVersion(transaction: Transaction): Promise<void> {
  await incrementVersion.execute(transaction, {});
}

/**
 * Runs `work` with a {@link SerializeWrites} bound to `transaction`, locking before commit at the
 * latest; then, under the lock, inserts the change the work recorded in `journal`.
 */
async function withSerializedWrites<T>(transaction: Transaction, work: WriteWork<T>, journal: ChangeJournal): Promise<T> {
  let locked: Promise<void> | undefined;
  const serialize = () => (locked ??= bumpConfigVersion(transaction));
  journal.startAttempt();
  const result = await work(transaction, serialize);
  await serialize();
  await journal.writeIn(transaction);
  return result;
}

/** Runs `work` in a transaction begun with `BEGIN IMMEDIATE` on one connection. */
async function inImmediateTransaction<T>(database: Database, work: WriteWork<T>, journal: ChangeJournal): Promise<T> {
  return database.db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    try {
      const result = await withSerializedWrites(connection, work, journal);
      await sql`commit`.execute(connection);
      return result;
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => undefined);
      throw error;
    }
  });
}

/** Reached only with a start outside `WriteTransactionStart` (dialects/traits.ts), which the compiler rules out. */
function unknownStart(start: never): never {
  throw new Error(`unknown write transaction start: ${JSON.stringify(start)}`);
}

async function runOnce<T>(database: Database, work: WriteWork<T>, journal: ChangeJournal): Promise<T> {
  const start = database.traits.writeTransaction;
  switch (start.kind) {
    case 'isolation-level':
      return database.db
        .transaction()
        .setIsolationLevel(start.level)
        .execute((transaction) => withSerializedWrites(transaction, work, journal));
    case 'begin-immediate':
      return inImmediateTransaction(database, work, journal);
    default:
      return unknownStart(start);
  }
}

/** A write: runs in `transaction` and calls `serialize` before the checks that must not race. */
export type WriteWork<T> = (transaction: Transaction, serialize: SerializeWrites) => Promise<T>;

/**
 * Runs `work` in one configuration write transaction: committed when it resolves, rolled back
 * when it throws. Domain errors are rethrown unchanged; a lost deadlock or serialization check is
 * retried (up to 8 attempts, with jitter); database faults become typed errors (see
 * `classifyDatabaseError`).
 *
 * @param journal - the audit trail's (change-journal.ts): the change `work` records in it is
 *   inserted in the same transaction, under the configuration lock, and reported after the commit.
 */
export async function inWriteTransaction<T>(database: Database, journal: ChangeJournal, work: WriteWork<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const result = await runOnce(database, work, journal);
      database.writes.count += 1;
      journal.committed();
      return result;
    } catch (error) {
      const classified = classifyDatabaseError(error, { lastAttempt: attempt >= ATTEMPTS });
      if (classified === 'retry') {
        database.metrics?.databaseError('deadlock_retried');
        await sleep(Math.random() * 5 * attempt);
        continue;
      }
      // Counted here when it leaves as a fault of Tariff's; a raw error is counted where the HTTP shell sees it.
      const kind = classified && database.metrics ? databaseErrorKind(error) : undefined;
      if (kind) database.metrics?.databaseError(kind);
      throw classified ?? error;
    }
  }
}

/**
 * Runs `work` on one consistent state of the database (the dialect's `readSnapshot`): several
 * tables and the configuration version as of one moment, with no write lock taken. Read only:
 * PostgreSQL and MariaDB refuse a write in it. Every statement of `work` must go through its
 * `transaction` (one connection), and the first should be the revision ({@link readRevision}), so
 * that the revision is the one of what is read (InnoDB takes its snapshot at the first read).
 * Errors are the driver's, unclassified (the HTTP shell classifies them: 503 for an outage).
 */
export async function inReadSnapshot<T>(database: Database, work: (transaction: Transaction) => Promise<T>): Promise<T> {
  const start = database.traits.readSnapshot;
  if (start.kind === 'isolation-level') return database.db.transaction().setIsolationLevel(start.level).setAccessMode(start.accessMode).execute(work);
  return database.db.connection().execute(async (connection) => {
    await sql`begin`.execute(connection);
    try {
      return await work(connection);
    } finally {
      await sql`rollback`.execute(connection).catch(() => undefined);
    }
  });
}

/** The configuration's revision: the write counter every configuration write increments. */
export async function readRevision(db: Transaction): Promise<number> {
  const row = await db.selectFrom('tariff_config_version').select('version').where('name', '=', 'rating').executeTakeFirst();
  return Number(row?.version ?? 0);
}
