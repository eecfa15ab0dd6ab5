/**
 * Counts the connections Kysely holds and waits for, for the pool gauges of `GET /metrics`: a
 * dialect whose driver is wrapped so that acquiring and releasing a connection update two numbers.
 * It works alike for SQLite's one connection (behind Kysely's mutex) and for the pools of
 * PostgreSQL and MySQL.
 */
import type { DatabaseConnection, Dialect, Driver } from 'kysely';

/** The code of {@link ConnectionWaitTimeoutError}, which errors.ts classifies as a timeout (503). */
export const CONNECTION_WAIT_TIMEOUT_CODE = 'TARIFF_CONNECTION_WAIT_TIMEOUT';

/** A query waited for a connection from the pool longer than the database timeout. */
export class ConnectionWaitTimeoutError extends Error {
  readonly code = CONNECTION_WAIT_TIMEOUT_CODE;
  constructor(timeoutMs: number) {
    super(`timeout exceeded when waiting for a database connection (${timeoutMs} ms)`);
  }
}

/** Connections lent out and acquisitions waiting, at this moment. */
export interface ConnectionCounts {
  inUse: number;
  waiting: number;
}

/**
 * `dialect` with its driver counting into the returned `counts`.
 *
 * @param options.acquireTimeoutMs - for a pool that waits for a free connection without end
 *   (mysql2's): how long an acquisition may wait before it fails with a
 *   {@link ConnectionWaitTimeoutError}. A connection that arrives after its waiter gave up goes
 *   back to the pool at once. Without it, the driver's own wait applies (node-postgres has one).
 * @returns the dialect to hand to Kysely, and the counts it keeps.
 */
export function countingConnections(dialect: Dialect, options: { acquireTimeoutMs?: number } = {}): { dialect: Dialect; counts: ConnectionCounts } {
  const { acquireTimeoutMs } = options;
  const counts: ConnectionCounts = { inUse: 0, waiting: 0 };
  const acquired = (connection: DatabaseConnection): DatabaseConnection => {
    counts.waiting -= 1;
    counts.inUse += 1;
    return connection;
  };
  const gaveUp = (error: unknown): never => {
    counts.waiting -= 1;
    throw error;
  };
  const counting: Dialect = {
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver(): Driver {
      const driver = dialect.createDriver();
      return {
        init: () => driver.init(),
        acquireConnection() {
          counts.waiting += 1;
          if (acquireTimeoutMs === undefined) return driver.acquireConnection().then(acquired, gaveUp);
          return new Promise<DatabaseConnection>((resolve, reject) => {
            let waiting = true;
            const timer = setTimeout(() => {
              waiting = false;
              counts.waiting -= 1;
              reject(new ConnectionWaitTimeoutError(acquireTimeoutMs));
            }, acquireTimeoutMs);
            driver.acquireConnection().then(
              (connection) => {
                clearTimeout(timer);
                // Too late: nobody will use or release it, so it goes back to the pool now.
                if (!waiting) return void driver.releaseConnection(connection).catch(() => undefined);
                waiting = false;
                resolve(acquired(connection));
              },
              (error: Error) => {
                clearTimeout(timer);
                if (!waiting) return;
                waiting = false;
                counts.waiting -= 1;
                reject(error);
              },
            );
          });
        },
        releaseConnection(connection) {
          counts.inUse -= 1;
          return driver.releaseConnection(connection);
        },
        beginTransaction: (connection, settings) => driver.beginTransaction(connection, settings),
        commitTransaction: (connection) => driver.commitTransaction(connection),
        rollbackTransaction: (connection) => driver.rollbackTransaction(connection),
        savepoint: driver.savepoint?.bind(driver),
        rollbackToSavepoint: driver.rollbackToSavepoint?.bind(driver),
        releaseSavepoint: driver.releaseSavepoint?.bind(driver),
        destroy: () => driver.destroy(),
      };
    },
  };
  return { dialect: counting, counts };
}
