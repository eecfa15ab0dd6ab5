/**
 * What a database driver's error means for the client: a lost race to retry, a unique
 * constraint (409), an unreachable database or one out of space (503), or a real server fault
 * (left as it is → 500).
 */
import { ConflictError, TariffError } from '../kernel/errors.js';
import { mysqlTraits } from './dialects/mysql.js';
import { postgresTraits } from './dialects/postgres.js';
import { sqliteTraits } from './dialects/sqlite.js';
import type { DialectTraits, DriverError } from './dialects/traits.js';

/** 503: the database cannot be reached; the request can be repeated later. */
export class DatabaseUnavailableError extends TariffError {
  constructor(detail: string) {
    super(503, `The database is unavailable: ${detail}. Try again later.`);
  }
}

/**
 * 503: the database has no room left for the change (disk, file system or table space full).
 * Nothing was written; reads still work, and the same write succeeds once space is freed.
 */
export class StorageFullError extends TariffError {
  constructor(detail: string) {
    super(503, `The database has no space left to store the change (${detail}); nothing was written. Reads still work; try again once space is freed.`);
  }
}

/**
 * Every dialect's traits: an error is classified without knowing which database raised it (the
 * drivers' codes do not overlap: SQLite's are `SQLITE_*` names, PostgreSQL's SQLSTATEs have no
 * errno, MySQL's errnos are positive).
 */
const EVERY_DIALECT: readonly DialectTraits[] = [sqliteTraits, postgresTraits, mysqlTraits];

/** The error's code or errno, for the fault message. */
function errorCode(driver: DriverError): string {
  return driver.code ?? (driver.errno !== undefined ? `errno ${driver.errno}` : 'no code');
}

/** PostgreSQL SQLSTATEs: serialization failure, deadlock. */
const POSTGRES_RETRY = new Set(['40001', '40P01']);
/** MySQL/MariaDB errnos: lock wait timeout, deadlock (also Galera certification failures). */
const MYSQL_RETRY = new Set([1205, 1213]);
/** Connection-level failures of every driver. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE',
  'PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT', 'ER_CON_COUNT_ERROR',
  '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006',
  'SQLITE_BUSY', 'SQLITE_LOCKED',
]);
const UNREACHABLE_MESSAGES = /Connection terminated|not queryable|Query read timeout|connection timeout|timeout exceeded when trying to connect|Can't add new command when connection is in closed state|Connection lost|read ECONNRESET|socket hang up/i;

/** Unique and foreign-key violations: a concurrent write won a race the checks could not see. */
const CONSTRAINT_CODES = new Set([
  '23505', '23503', 'ER_DUP_ENTRY', 'ER_NO_REFERENCED_ROW_2', 'ER_NO_REFERENCED_ROW',
  'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY', 'SQLITE_CONSTRAINT_FOREIGNKEY',
]);

/**
 * Classifies an error thrown inside a write transaction (or, without `lastAttempt`, a read).
 *
 * @param context.lastAttempt - whether the transaction may still be retried.
 * @returns `'retry'` for a lost deadlock/serialization race, or a constraint race (the retry's
 *   checks then answer with the exact 400/409); a {@link TariffError} to throw instead (409 for a
 *   constraint race on the last attempt, 503 when the database is unreachable, busy beyond its
 *   timeout, out of space ({@link StorageFullError}) or out of memory); or `undefined` to rethrow
 *   the error as it is (a real server fault).
 */
export function classifyDatabaseError(error: unknown, context: { lastAttempt: boolean } = { lastAttempt: true }): 'retry' | TariffError | undefined {
  if (error instanceof TariffError) return undefined;
  const driver = (error ?? {}) as DriverError;
  const code = driver.code ?? '';
  const exhausted = EVERY_DIALECT.map((traits) => traits.exhaustedResource(driver)).find((resource) => resource !== undefined);
  if (exhausted === 'storage') return new StorageFullError(errorCode(driver));
  if (exhausted === 'other') return new DatabaseUnavailableError(`the database server is out of resources (${errorCode(driver)})`);
  const race = POSTGRES_RETRY.has(code) || (driver.errno !== undefined && MYSQL_RETRY.has(driver.errno));
  if (race || CONSTRAINT_CODES.has(code)) {
    return context.lastAttempt ? new ConflictError('The request conflicts with a concurrent change; try again.') : 'retry';
  }
  if (UNREACHABLE_CODES.has(code) || UNREACHABLE_MESSAGES.test(driver.message ?? '')) {
    return new DatabaseUnavailableError(code || (driver.message ?? 'connection failed'));
  }
  return undefined;
}
