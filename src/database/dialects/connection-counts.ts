/**
 * Counts the connections Kysely holds and waits for, for the pool gauges of `GET /metrics`: a
 * dialect whose driver is wrapped so that acquiring and releasing a connection update two numbers.
 * It works alike for SQLite's one connection (behind Kysely's mutex) and for the pools of
 * PostgreSQL and MySQL.
 */
import type { DatabaseConnection, Dialect, Driver } from 'kysely';

/** Connections lent out and acquisitions waiting, at this moment. */
export interface ConnectionCounts {
  inUse: number;
  waiting: number;
}

/**
 * `dialect` with its driver counting into the returned `counts`.
 *
 * @returns the dialect to hand to Kysely, and the counts it keeps.
 */
export function countingConnections(dialect: Dialect): { dialect: Dialect; counts: ConnectionCounts } {
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
          return driver.acquireConnection().then(acquired, gaveUp);
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
