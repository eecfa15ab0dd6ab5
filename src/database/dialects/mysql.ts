/**
 * MariaDB / MySQL through mysql2: DATETIME and DECIMAL come back as text, UTC session time zone,
 * utf8mb4, and connection faults are reported instead of ending the process.
 */
import { Kysely, MysqlDialect, sql } from 'kysely';
import { createPool } from 'mysql2';
import { redactUrl, type Database, type PoolSettings } from '../connection.js';
import type { TariffTables } from '../tables.js';
import type { DialectTraits } from './traits.js';

/** Server errnos that mean no room is left: ER_DISK_FULL, ER_RECORD_FILE_FULL (InnoDB: the table space cannot grow). */
const STORAGE_FULL_ERRNOS = new Set([1021, 1114]);
/** Write errors that mean a full disk when their OS error is ENOSPC (28): EE_WRITE, ER_ERROR_ON_WRITE, ER_GET_ERRNO, ER_TEMP_FILE_WRITE_FAILURE. */
const WRITE_ERRNOS = new Set([3, 1026, 1030, 1878]);
const NO_SPACE = /No space left on device|Errcode: 28\b|error 28\b/i;
/** ER_OUTOFMEMORY, ER_OUT_OF_SORTMEMORY, ER_OUT_OF_RESOURCES. */
const OUT_OF_RESOURCES_ERRNOS = new Set([1037, 1038, 1041]);

/**
 * Binary collations without trailing-space padding, preferred first: MariaDB's, MySQL 8's. The
 * `utf8mb4_bin` both default to is PAD SPACE (`'trail'` equals `'trail '`, also in unique
 * indexes).
 */
const EXACT_COLLATIONS = ['utf8mb4_nopad_bin', 'utf8mb4_0900_bin'] as const;

/** MariaDB's and MySQL's facts. */
export const mysqlTraits: DialectTraits = {
  exhaustedResource(error) {
    const { errno } = error;
    if (errno === undefined) return undefined;
    if (STORAGE_FULL_ERRNOS.has(errno) || (WRITE_ERRNOS.has(errno) && NO_SPACE.test(error.message ?? ''))) return 'storage';
    if (OUT_OF_RESOURCES_ERRNOS.has(errno)) return 'other';
    return undefined;
  },
  async exactTextCollation(db) {
    const { rows } = await sql<{ name: string }>`
      select collation_name as name from information_schema.collations where collation_name in (${sql.join([...EXACT_COLLATIONS])})`.execute(db);
    const found = EXACT_COLLATIONS.find((collation) => rows.some((row) => row.name === collation));
    if (!found) throw new Error(`the server offers neither ${EXACT_COLLATIONS.join(' nor ')} (Tariff needs MariaDB 10.2 or later, or MySQL 8)`);
    return found;
  },
};

/** Opens a connection pool to the MySQL or MariaDB database at `url` (`mysql://` or `mariadb://`). */
export function openMysql(url: string, settings: PoolSettings): Database {
  const pool = createPool({
    uri: url.replace(/^mariadb:/, 'mysql:'),
    connectionLimit: settings.poolSize,
    dateStrings: true,
    decimalNumbers: false,
    supportBigNumbers: true,
    bigNumberStrings: true,
    timezone: 'Z',
    charset: 'utf8mb4',
    connectTimeout: settings.timeoutMs,
    enableKeepAlive: true,
  });
  pool.on('connection', (connection) => connection.on('error', settings.onPoolError));
  const db = new Kysely<TariffTables>({ dialect: new MysqlDialect({ pool }) });
  return { db, dialect: 'mysql', traits: mysqlTraits, description: redactUrl(url), writes: { count: 0 }, close: () => db.destroy() };
}
