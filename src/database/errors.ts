/**
 * What a database driver's error means for the client: a lost race to retry, a unique
 * constraint (409), an unreachable database or one out of space (503), or a real server fault
 * (left as it is → 500).
 */
import { ConflictError, TariffError } from '../kernel/errors.js';
import { dialectNamed } from './dialects/dialect.js';
import { DIALECT_NAMES, type DialectTraits, type DriverError } from './dialects/traits.js';
import { CONNECTION_WAIT_TIMEOUT_CODE } from './dialects/connection-counts.js';

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
const EVERY_DIALECT: readonly DialectTraits[] = DIALECT_NAMES.map((name) => dialectNamed(name).traits);

/** Whether any dialect's `test` says yes. */
function anyDialect(test: (traits: DialectTraits) => boolean): boolean {
  return EVERY_DIALECT.some(test);
}

/** The error's code or errno, for the fault message. */
function errorCode(driver: DriverError): string {
  return driver.code ?? (driver.errno !== undefined ? `errno ${driver.errno}` : 'no code');
}

/** Node's network errors, which the networked drivers pass on (the dialects' own are in their traits). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE']);
const NETWORK_MESSAGES = /connection timeout|read ECONNRESET|socket hang up/i;

/**
 * Waits that ran out whatever the dialect: Node's connect timeout, and a pool's wait for a free
 * connection past `TARIFF_DB_TIMEOUT` (connection-counts.ts, for pools without a wait limit).
 */
const TIMEOUT_CODES = new Set(['ETIMEDOUT', CONNECTION_WAIT_TIMEOUT_CODE]);

/** Whether the database cannot be reached, or is busy past its timeout. */
function isUnavailable(driver: DriverError): boolean {
  return (
    NETWORK_CODES.has(driver.code ?? '') ||
    TIMEOUT_CODES.has(driver.code ?? '') ||
    NETWORK_MESSAGES.test(driver.message ?? '') ||
    anyDialect((traits) => traits.isUnavailable(driver))
  );
}

/**
 * What kind of database error `error` is, for `tariff_database_errors_total`: a wait that ran out
 * (`timeout`), a connection lost or refused (`lost_connection`), or neither (`undefined`: Tariff's
 * own errors, constraint races, server faults).
 */
export function databaseErrorKind(error: unknown): 'timeout' | 'lost_connection' | undefined {
  if (error instanceof TariffError || error === null || typeof error !== 'object') return undefined;
  const driver = error as DriverError;
  if (TIMEOUT_CODES.has(driver.code ?? '') || anyDialect((traits) => traits.isTimeout(driver))) return 'timeout';
  return isUnavailable(driver) ? 'lost_connection' : undefined;
}

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
  if (anyDialect((traits) => traits.isLostRace(driver) || traits.isConstraintViolation(driver))) {
    return context.lastAttempt ? new ConflictError('The request conflicts with a concurrent change; try again.') : 'retry';
  }
  if (isUnavailable(driver)) {
    return new DatabaseUnavailableError(code || (driver.message ?? 'connection failed'));
  }
  return undefined;
}
