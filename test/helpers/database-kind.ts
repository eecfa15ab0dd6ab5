/**
 * What a test's database branches depend on, for the database of the run (`TARIFF_TEST_DATABASE`,
 * databases.ts): the facts a test runs or is skipped on ({@link databaseHas}, {@link databaseIs}),
 * and a value for each kind of database ({@link perDatabase}, {@link perServer}): SQL text, an
 * expected error, a driver's calls. Every table names every kind: a new kind of database fails to
 * compile wherever its value is missing.
 */
import { testDatabaseKind } from './databases.js';

/** A kind of database the tests run on. */
export type DatabaseKind = ReturnType<typeof testDatabaseKind>;

/** One value for each kind of database. */
export type PerDatabase<Value> = { readonly [Kind in DatabaseKind]: Value };

/** The facts about a kind of database that tests depend on. */
interface DatabaseFacts {
  /**
   * A server of its own (PostgreSQL, MariaDB), reached through a pool of connections: it can stop
   * and start again, drop the database under a running Tariff, end a connection, hold a row lock,
   * end a statement or a wait at the database timeout, and serve several processes. SQLite is a
   * file opened in the process, through one connection.
   */
  readonly server: boolean;
  /**
   * CloudKitty runs on it in production (PostgreSQL, MariaDB): Tariff adopts its databases,
   * shares them with its processor, and makes its whole layout there. CloudKitty on SQLite is a
   * test setup (master's dbsync does not finish on an empty file).
   */
  readonly cloudKittyProduction: boolean;
}

/** A fact a test can depend on. */
export type DatabaseFact = keyof DatabaseFacts;

const FACTS = {
  sqlite: { server: false, cloudKittyProduction: false },
  postgres: { server: true, cloudKittyProduction: true },
  mysql: { server: true, cloudKittyProduction: true },
} as const satisfies PerDatabase<DatabaseFacts>;

/** A kind of database that is a server of its own (see {@link DatabaseFacts.server}). */
export type ServerDatabaseKind = { [Kind in DatabaseKind]: (typeof FACTS)[Kind]['server'] extends true ? Kind : never }[DatabaseKind];

/** One value for each kind of database server. */
export type PerServer<Value> = { readonly [Kind in ServerDatabaseKind]: Value };

/** Whether the run's database has `fact`: for `describe.runIf`, `it.skipIf` and the like. */
export function databaseHas(fact: DatabaseFact): boolean {
  return FACTS[testDatabaseKind()][fact];
}

/** Whether the run's database is one of `kinds`: for what only one dialect has (SQLite's pragmas, MariaDB's collations). */
export function databaseIs(...kinds: DatabaseKind[]): boolean {
  return kinds.includes(testDatabaseKind());
}

/** The value for the run's database. */
export function perDatabase<Value>(values: PerDatabase<Value>): Value {
  return values[testDatabaseKind()];
}

/**
 * The run's database server.
 *
 * @throws Error on SQLite, which has none: call it only in tests skipped there (`databaseHas('server')`).
 */
export function databaseServerKind(): ServerDatabaseKind {
  const kind = testDatabaseKind();
  if (!isServer(kind)) throw new Error(`a ${kind} database has no server: this test is for databases with one (databaseHas('server'))`);
  return kind;
}

/**
 * The value for the run's database server.
 *
 * @throws Error on SQLite (see {@link databaseServerKind}).
 */
export function perServer<Value>(values: PerServer<Value>): Value {
  return values[databaseServerKind()];
}

function isServer(kind: DatabaseKind): kind is ServerDatabaseKind {
  return FACTS[kind].server;
}
