/**
 * MariaDB / MySQL through mysql2: DATETIME and DECIMAL come back as text, UTC session time zone,
 * utf8mb4, connection faults are reported instead of ending the process, and `TARIFF_DB_TIMEOUT`
 * bounds the connect, the wait for a pooled connection, row lock waits and statements.
 */
import { Kysely, MysqlDialect } from 'kysely';
import { createPool } from 'mysql2';
import { maskUrlCredentials } from '../../kernel/url-credentials.js';
import type { OpenedDatabase, PoolSettings } from './opening.js';
import type { TariffTables } from '../tables.js';
import { countingConnections } from './connection-counts.js';

/** mysql2 keeps its free connections in a field it does not document; read with care. */
function freeConnections(pool: object): number {
  const free = (pool as { _freeConnections?: { length?: unknown } })._freeConnections?.length;
  return typeof free === 'number' ? free : 0;
}

/** A pooled connection as the pool's 'connection' event hands it over (mysql2's callback API). */
interface NewConnection {
  query(statement: string, callback: (error: Error | null) => void): unknown;
  /** The server's greeting; undocumented, read with care. */
  _handshakePacket?: { serverVersion?: unknown } | null;
}

/**
 * The statement bounding one session's waits by `timeoutMs` (`TARIFF_DB_TIMEOUT`): a row lock wait
 * (innodb_lock_wait_timeout, whole seconds, at least 1) on both servers; every statement on
 * MariaDB (max_statement_time, fractional seconds), SELECTs only on MySQL (max_execution_time,
 * milliseconds; MySQL has no limit for other statements).
 */
function sessionTimeouts(timeoutMs: number, serverVersion: string): string {
  const lockWait = lockWaitSetting(timeoutMs);
  if (/mariadb/i.test(serverVersion)) return `SET SESSION ${lockWait}, max_statement_time = ${Math.max(0.001, timeoutMs / 1000)}`;
  return `SET SESSION ${lockWait}, max_execution_time = ${Math.max(1, Math.round(timeoutMs))}`;
}

/** The row lock wait bounded by `timeoutMs`: innodb_lock_wait_timeout in whole seconds, at least 1. */
function lockWaitSetting(timeoutMs: number): string {
  return `innodb_lock_wait_timeout = ${Math.max(1, Math.round(timeoutMs / 1000))}`;
}

/**
 * Sets the session's timeouts on a new pooled connection. mysql2 emits 'connection' before it
 * lends the connection, and runs a connection's statements in order: the SET runs before the
 * first query of the borrower. A server that refuses it (a variable it does not know) still
 * serves: the lock wait alone is set then, and a refusal of that too is ignored.
 */
function setSessionTimeouts(connection: NewConnection, timeoutMs: number): void {
  const version = connection._handshakePacket?.serverVersion;
  connection.query(sessionTimeouts(timeoutMs, typeof version === 'string' ? version : ''), (error) => {
    if (error) connection.query(`SET SESSION ${lockWaitSetting(timeoutMs)}`, () => undefined);
  });
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
  pool.on('connection', (connection) => {
    connection.on('error', (error: Error) => {
      if (!lent.has(connection)) settings.onPoolError(error);
    });
    setSessionTimeouts(connection, settings.timeoutMs);
  });
  // mysql2's pool lets a query wait for a free connection without end: the wait is bounded here.
  const { dialect, counts } = countingConnections(new MysqlDialect({ pool }), { acquireTimeoutMs: settings.timeoutMs });
  const db = new Kysely<TariffTables>({ dialect });
  return { db, description: maskUrlCredentials(url), pool: () => ({ inUse: counts.inUse, idle: freeConnections(pool), waiting: counts.waiting }) };
}
