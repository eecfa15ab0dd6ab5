/**
 * MariaDB / MySQL through mysql2: DATETIME and DECIMAL come back as text, UTC session time zone,
 * utf8mb4, and connection faults are reported instead of ending the process.
 */
import { Kysely, MysqlDialect } from 'kysely';
import { createPool } from 'mysql2';
import { redactUrl, type OpenedDatabase, type PoolSettings } from './opening.js';
import type { TariffTables } from '../tables.js';
import { countingConnections } from './connection-counts.js';

/** mysql2 keeps its free connections in a field it does not document; read with care. */
function freeConnections(pool: object): number {
  const free = (pool as { _freeConnections?: { length?: unknown } })._freeConnections?.length;
  return typeof free === 'number' ? free : 0;
}

/** Opens a connection pool to the MySQL or MariaDB database at `url` (`mysql://` or `mariadb://`). */
export function openMysql(url: string, settings: PoolSettings): OpenedDatabase {
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
  // A connection lost while free in the pool is reported. One lost while lent fails the query
  // using it, which reports it (the HTTP shell, transaction.ts): its 'error' is only heard, as an
  // unheard 'error' event would end the process.
  const lent = new WeakSet<object>();
  pool.on('acquire', (connection) => lent.add(connection));
  pool.on('release', (connection) => lent.delete(connection));
  pool.on('connection', (connection) =>
    connection.on('error', (error: Error) => {
      if (!lent.has(connection)) settings.onPoolError(error);
    }),
  );
  const { dialect, counts } = countingConnections(new MysqlDialect({ pool }));
  const db = new Kysely<TariffTables>({ dialect });
  return { db, description: redactUrl(url), pool: () => ({ inUse: counts.inUse, idle: freeConnections(pool), waiting: counts.waiting }) };
}
