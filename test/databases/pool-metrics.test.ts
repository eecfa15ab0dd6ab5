/**
 * The database series of `GET /metrics` (issue 15) on the database of the run, with a real pool
 * of two connections: the pool gauges while idle, while both connections are lent and a third
 * query waits, and after (SQLite has one connection, lent to one query or transaction at a time).
 * On PostgreSQL and MariaDB, connections the server ends: one idle in the pool is counted once as
 * `lost_connection` by the pool; one lent to a query is counted by the query that fails on it (the
 * HTTP shell or the write transaction counts that), not again by the pool; either way the next
 * query gets a new connection. On PostgreSQL and MariaDB, the database timeout bounds the waits: a
 * write blocked on a row lock, and a query waiting for a connection of a full pool, are each a
 * `timeout` answered 503 (not a retried lost race), and the pool is whole again after. On MariaDB,
 * every pooled session's innodb_lock_wait_timeout and max_statement_time are the timeout's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { createConnection, type Connection as MysqlConnection } from 'mysql2/promise';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTariffApp, ratingModules } from '../../src/application.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database, type OpenOptions } from '../../src/database/connection.js';
import { migrateToLatest } from '../../src/database/migrate.js';
import type { TariffTables } from '../../src/database/tables.js';
import { TariffMetrics, type DatabaseErrorKind, type PoolStatistics } from '../../src/kernel/metrics.js';
import { classifyDatabaseError, DatabaseUnavailableError, databaseErrorKind } from '../../src/database/errors.js';
import { databaseHas, databaseIs, perDatabase, perServer } from '../helpers/database-kind.js';
import { createScratchDatabase, MYSQL_ADMIN_URL, POSTGRES_ADMIN_URL, testDatabaseKind, type ScratchDatabase } from '../helpers/databases.js';

const kind = testDatabaseKind();
/** PostgreSQL and MariaDB: a server that ends connections, holds row locks and bounds a pool's waits. */
const hasServer = databaseHas('server');
const isMariaDb = databaseIs('mysql');
const POOL_SIZE = 2;
/**
 * The pool of the run's database: how many connections it lends at once, and how many are open
 * before the first query. PostgreSQL and MariaDB open up to {@link POOL_SIZE} on demand; SQLite
 * has one connection, open from the start, lent to one query or transaction at a time.
 */
const POOL = perDatabase({
  sqlite: { connections: 1, openAtStart: 1 },
  postgres: { connections: POOL_SIZE, openAtStart: 0 },
  mysql: { connections: POOL_SIZE, openAtStart: 0 },
});
/** How long a test waits for the pool to reach a state it is driven to (at once, normally; longer on a loaded machine). */
const SETTLE = { timeout: 10_000, interval: 5 };
/**
 * How much longer than its database timeout a wait may take on a machine busy with other tests:
 * the load decides that, not the code. The bounds of the 300 ms waits stay under openDatabase's
 * default 5 s timeout, and every bound far under the server's own 50 s lock wait: the waits they
 * tell apart.
 */
const LOAD_MARGIN_MS = 4000;
/** How long a holder keeps asking for a connection the pool has to lend (see {@link holdConnection}). */
const LEND_LIMIT_MS = 15_000;

/** The value of one sample line (`name{labels} value`) of a Prometheus text, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** The three pool gauges, as a scrape reports them. */
async function poolGauges(metrics: TariffMetrics): Promise<PoolStatistics> {
  const text = await metrics.text();
  return {
    inUse: sample(text, 'tariff_database_pool_connections_in_use')!,
    idle: sample(text, 'tariff_database_pool_connections_idle')!,
    waiting: sample(text, 'tariff_database_pool_waiting')!,
  };
}

/** `tariff_database_errors_total` of each kind, as a scrape reports them. */
async function errorCounts(metrics: TariffMetrics): Promise<Record<DatabaseErrorKind, number | undefined>> {
  const text = await metrics.text();
  const count = (errorKind: DatabaseErrorKind) => sample(text, `tariff_database_errors_total{kind="${errorKind}"}`);
  return { timeout: count('timeout'), lost_connection: count('lost_connection'), deadlock_retried: count('deadlock_retried') };
}

/** The server's id of the connection `db` runs on: PostgreSQL's backend pid, MariaDB's connection id. */
async function serverConnectionId(db: Kysely<TariffTables>): Promise<number> {
  const query = perServer({ postgres: sql<{ id: number }>`select pg_backend_pid() as id`, mysql: sql<{ id: number }>`select connection_id() as id` });
  const { rows } = await query.execute(db);
  return Number(rows[0].id);
}

/** A connection of the test's own to the server, outside the pool: it ends the pool's connections. */
interface ServerSession {
  /** Ends the server's connection `id` (pg_terminate_backend, KILL). */
  kill(id: number): Promise<void>;
  /** What connection `id` does on the server: `gone` once it has ended. */
  state(id: number): Promise<'running' | 'idle' | 'gone'>;
  close(): Promise<void>;
}

function openServerSession(): Promise<ServerSession> {
  return perServer({ postgres: openPostgresSession, mysql: openMysqlSession })();
}

async function openPostgresSession(): Promise<ServerSession> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  return {
    async kill(id) {
      await client.query('select pg_terminate_backend($1)', [id]);
    },
    async state(id) {
      const { rows } = await client.query<{ state: string }>('select state from pg_stat_activity where pid = $1', [id]);
      return rows.length === 0 ? 'gone' : rows[0].state === 'active' ? 'running' : 'idle';
    },
    close: () => client.end(),
  };
}

async function openMysqlSession(): Promise<ServerSession> {
  const connection = await createConnection(MYSQL_ADMIN_URL);
  return {
    async kill(id) {
      await connection.query(`kill ${Number(id)}`);
    },
    async state(id) {
      const [rows] = await connection.query('select command from information_schema.processlist where id = ?', [id]);
      const found = rows as { command: string }[];
      return found.length === 0 ? 'gone' : found[0].command === 'Query' ? 'running' : 'idle';
    },
    close: () => connection.end(),
  };
}

/** A connection lent by the pool to a callback that keeps it until {@link release} is called. */
interface HeldConnection {
  /** Resolves once the pool has lent the connection; rejects when it could not be had. */
  lent: Promise<void>;
  release(): void;
  /** Resolves once the connection went back to the pool. */
  done: Promise<void>;
}

/**
 * Borrows a connection of `database` and keeps it until released. Call it when the pool has a
 * connection to lend, or room to open one: getting it may still time out on a loaded machine when
 * opening a connection takes longer than a short database timeout, and is then asked again, for
 * at most {@link LEND_LIMIT_MS} (a pool that really has none to lend still fails the test).
 */
function holdConnection(database: Database): HeldConnection {
  let lent!: () => void;
  let notLent!: (error: unknown) => void;
  let release!: () => void;
  let isLent = false;
  const lentPromise = new Promise<void>((resolve, reject) => ((lent = resolve), (notLent = reject)));
  const released = new Promise<void>((resolve) => (release = resolve));
  const deadline = Date.now() + LEND_LIMIT_MS;
  const done = (async () => {
    for (;;) {
      try {
        return await database.db.connection().execute(async (connection) => {
          await sql`select 1`.execute(connection);
          isLent = true;
          lent();
          await released;
        });
      } catch (error) {
        if (isLent || databaseErrorKind(error) !== 'timeout' || Date.now() > deadline) {
          notLent(error);
          throw error;
        }
      }
    }
  })();
  // A failure surfaces where the test awaits `lent` or `done`, not as an unhandled rejection of the other.
  lentPromise.catch(() => undefined);
  done.catch(() => undefined);
  return { lent: lentPromise, release, done };
}

describe(`the pool of a ${kind} database in GET /metrics`, () => {
  let directory: string;
  let scratch: ScratchDatabase;
  let database: Database | undefined;
  let metrics: TariffMetrics;
  /** What the pool reported through `onPoolError` (the server log's `database connection lost`). */
  let poolErrors: Error[];

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-pool-metrics-'));
    scratch = await createScratchDatabase(directory);
  });

  afterEach(async () => {
    await database?.close();
    database = undefined;
  });

  afterAll(async () => {
    await scratch?.drop();
    rmSync(directory, { recursive: true, force: true });
  });

  /** Opens the scratch database with a pool of two connections, reporting to new metrics. */
  function open(options: OpenOptions = {}): Database {
    metrics = new TariffMetrics();
    poolErrors = [];
    database = openDatabase(scratch.url, { poolSize: POOL_SIZE, metrics, onPoolError: (error) => poolErrors.push(error), ...options });
    return database;
  }

  it('reports an idle pool: nothing in use or waiting, only the connections opened so far idle', async () => {
    const opened = open();
    // PostgreSQL and MariaDB open connections on demand; SQLite's one connection is open from the start.
    expect(await poolGauges(metrics)).toEqual({ inUse: 0, idle: POOL.openAtStart, waiting: 0 });
    await sql`select 1`.execute(opened.db);
    expect(await poolGauges(metrics)).toEqual({ inUse: 0, idle: 1, waiting: 0 });
    expect(await errorCounts(metrics)).toEqual({ timeout: 0, lost_connection: 0, deadlock_retried: 0 });
  });

  it('reports the connections lent and the queries waiting for one, then the pool idle again', async () => {
    const opened = open();
    const first = holdConnection(opened);
    const second = holdConnection(opened);
    await first.lent;
    // SQLite lends its one connection to the first holder; the second waits with the query.
    if (POOL.connections > 1) await second.lent;
    const queued = sql<{ one: number }>`select 1 as one`.execute(opened.db);
    // Two holders and a query: as many lent as the pool has (SQLite: 1 lent, 2 waiting; the others: 2 lent, 1 waiting).
    const during = { inUse: POOL.connections, idle: 0, waiting: 3 - POOL.connections };
    await vi.waitFor(async () => expect(await poolGauges(metrics)).toEqual(during), SETTLE);
    // The queued query stays queued while both connections are held.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await poolGauges(metrics)).toEqual(during);

    first.release();
    await second.lent;
    second.release();
    await Promise.all([first.done, second.done]);
    expect(Number((await queued).rows[0].one)).toBe(1);
    expect(await poolGauges(metrics)).toEqual({ inUse: 0, idle: POOL.connections, waiting: 0 });
  });

  it.runIf(hasServer)('fails a query waiting for a connection past the timeout, takes it off the waiting gauge, and leaks no connection', async () => {
    const opened = open({ timeoutMs: 300 });
    const held = [holdConnection(opened), holdConnection(opened)];
    await Promise.all(held.map((connection) => connection.lent));
    const started = Date.now();
    const error: unknown = await sql`select 1`.execute(opened.db).then(
      () => new Error('the query got a connection of a full pool'),
      (failure: unknown) => failure,
    );
    const waited = Date.now() - started;
    expect(String(error)).toMatch(
      perServer({ postgres: /timeout exceeded when trying to connect/, mysql: /timeout exceeded when waiting for a database connection/ }),
    );
    expect(waited).toBeGreaterThanOrEqual(250);
    expect(waited).toBeLessThan(300 + LOAD_MARGIN_MS);
    // The HTTP shell answers it 503 and counts it a timeout.
    expect(databaseErrorKind(error)).toBe('timeout');
    expect(classifyDatabaseError(error)).toBeInstanceOf(DatabaseUnavailableError);
    expect(await poolGauges(metrics)).toEqual({ inUse: 2, idle: 0, waiting: 0 });
    // mysql2 still holds the waiter that gave up: the first connection released goes to it, and
    // straight back to the pool.
    for (const connection of held) connection.release();
    await Promise.all(held.map((connection) => connection.done));
    await vi.waitFor(async () => expect(await poolGauges(metrics)).toEqual({ inUse: 0, idle: 2, waiting: 0 }), SETTLE);
    // Both connections serve again, at once and together.
    const again = [holdConnection(opened), holdConnection(opened)];
    await Promise.all(again.map((connection) => connection.lent));
    expect(await poolGauges(metrics)).toEqual({ inUse: 2, idle: 0, waiting: 0 });
    for (const connection of again) connection.release();
    await Promise.all(again.map((connection) => connection.done));
    expect(await poolGauges(metrics)).toEqual({ inUse: 0, idle: 2, waiting: 0 });
  });

  describe.runIf(hasServer)('connections the server ends', () => {
    let server: ServerSession;
    beforeAll(async () => {
      server = await openServerSession();
    });
    afterAll(async () => {
      await server?.close();
    });

    it('counts an idle connection the server ends once as lost, and the next query opens a new one', async () => {
      const opened = open();
      const killed = await serverConnectionId(opened.db);
      expect(await poolGauges(metrics)).toEqual({ inUse: 0, idle: 1, waiting: 0 });
      await server.kill(killed);
      // The driver reports the loss (mysql2 after dropping the connection from the pool).
      await vi.waitFor(async () => expect((await errorCounts(metrics)).lost_connection).toBe(1), SETTLE);
      expect(await poolGauges(metrics)).toEqual({ inUse: 0, idle: 0, waiting: 0 });
      expect(await errorCounts(metrics)).toEqual({ timeout: 0, lost_connection: 1, deadlock_retried: 0 });
      expect(poolErrors).toHaveLength(1);

      const replacement = await serverConnectionId(opened.db);
      expect(replacement).not.toBe(killed);
      expect(await poolGauges(metrics)).toEqual({ inUse: 0, idle: 1, waiting: 0 });
      expect((await errorCounts(metrics)).lost_connection).toBe(1);
      expect(poolErrors).toHaveLength(1);
    });

    it.each(['running a query', 'between two statements'] as const)(
      'counts a connection the server ends while lent (%s) once, through the query that fails on it, and the pool lends a new one after',
      async (moment) => {
        const opened = open({ timeoutMs: 10_000 });
        const { id, error } = await opened.db.connection().execute(async (connection) => {
          const lentId = await serverConnectionId(connection);
          if (moment === 'running a query') {
            const query = perServer({ postgres: sql`select pg_sleep(5)`, mysql: sql`select sleep(5)` }).execute(connection);
            const outcome = query.then(
              () => new Error('the query outlived its connection'),
              (failure: unknown) => failure,
            );
            await vi.waitFor(async () => expect(await server.state(lentId)).toBe('running'), SETTLE);
            await server.kill(lentId);
            return { id: lentId, error: await outcome };
          }
          await server.kill(lentId);
          await vi.waitFor(async () => expect(await server.state(lentId)).toBe('gone'), SETTLE);
          return {
            id: lentId,
            error: await sql`select 1`.execute(connection).then(
              () => new Error('the query outlived its connection'),
              (failure: unknown) => failure,
            ),
          };
        });
        // The request whose query failed counts the loss (the HTTP shell, transaction.ts); the pool does not count it again.
        expect(databaseErrorKind(error), String(error)).toBe('lost_connection');
        const replacement = await serverConnectionId(opened.db);
        expect(replacement).not.toBe(id);
        expect(await poolGauges(metrics)).toEqual({ inUse: 0, idle: 1, waiting: 0 });
        expect(await errorCounts(metrics)).toEqual({ timeout: 0, lost_connection: 0, deadlock_retried: 0 });
        expect(poolErrors).toEqual([]);
      },
    );
  });

  /** Migrates the scratch database through a handle of its own, with the default timeout: the pools under test have short ones. */
  async function migrateScratch(): Promise<ReturnType<typeof ratingModules>> {
    const setup = openDatabase(scratch.url);
    const modules = ratingModules();
    try {
      await migrateToLatest(setup, modules.migrations());
    } finally {
      await setup.close();
    }
    return modules;
  }

  /** A session of the test's own holding the configuration write lock (the `tariff_config_version` row every write updates first). */
  interface ConfigLocker {
    lock(): Promise<void>;
    unlock(): Promise<void>;
    close(): Promise<void>;
  }

  function openConfigLocker(): Promise<ConfigLocker> {
    const lockRow = "select version from tariff_config_version where name = 'rating' for update";
    return perServer<() => Promise<ConfigLocker>>({
      async postgres() {
        const client = new pg.Client({ connectionString: scratch.url });
        await client.connect();
        return {
          async lock() {
            await client.query('begin');
            await client.query(lockRow);
          },
          unlock: async () => void (await client.query('rollback')),
          close: () => client.end(),
        };
      },
      async mysql() {
        const connection: MysqlConnection = await createConnection(scratch.url);
        return {
          async lock() {
            await connection.query('begin');
            await connection.query(lockRow);
          },
          unlock: async () => void (await connection.query('rollback')),
          close: () => connection.end(),
        };
      },
    })();
  }

  it.runIf(hasServer)('counts a write blocked on a row lock past the database timeout as a timeout, answered 503, not retried', async () => {
    const modules = await migrateScratch();
    const opened = open({ timeoutMs: 300 });
    const config = { ...loadConfig({}), databaseUrl: scratch.url };
    const app = await buildTariffApp({ config, database: opened, modules, logger: false, metrics });
    const locker = await openConfigLocker();
    const name = `locked-${kind}`;
    try {
      // The app's first write sets up what every write uses (on a loaded machine, for seconds):
      // done before, so that the time measured is the wait for the lock.
      const first = await app.inject({ method: 'POST', url: '/v1/rating/module_config/hashmap/services', payload: { name: `first-${kind}` } });
      expect(first.statusCode).toBe(201);
      await locker.lock();
      const started = Date.now();
      const blocked = await app.inject({ method: 'POST', url: '/v1/rating/module_config/hashmap/services', payload: { name } });
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThanOrEqual(250);
      // About the timeout: not the server's 50 s lock wait (once, not retried: see the counts below).
      expect(waited).toBeLessThan(300 + LOAD_MARGIN_MS);
      expect(blocked.statusCode).toBe(503);
      expect(blocked.json().faultstring).toMatch(/^The database is unavailable/);
      expect(await errorCounts(metrics)).toEqual({ timeout: 1, lost_connection: 0, deadlock_retried: 0 });
      await locker.unlock();

      const scrape = await app.inject({ method: 'GET', url: '/metrics' });
      expect(sample(scrape.body, 'tariff_database_errors_total{kind="timeout"}')).toBe(1);
      // The connection that timed out went back to the pool and serves the next write.
      const after = await app.inject({ method: 'POST', url: '/v1/rating/module_config/hashmap/services', payload: { name } });
      expect(after.statusCode).toBe(201);
      expect(await poolGauges(metrics)).toEqual({ inUse: 0, idle: 1, waiting: 0 });
      expect(await errorCounts(metrics)).toEqual({ timeout: 1, lost_connection: 0, deadlock_retried: 0 });
    } finally {
      await locker.close();
      await app.close();
    }
    if (databaseIs('postgres')) {
      // The server's statement_timeout and node-postgres's query_timeout end the wait at the same
      // moment; whichever answers first, the write is a timeout answered 503.
      const statementTimeout = Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014', severity: 'ERROR' });
      for (const error of [statementTimeout, new Error('Query read timeout')]) {
        expect(databaseErrorKind(error)).toBe('timeout');
        expect(classifyDatabaseError(error)).toBeInstanceOf(DatabaseUnavailableError);
      }
    }
  });

  it.runIf(hasServer)('answers a read that waits for a connection of a full pool past the timeout 503, counted as a timeout', async () => {
    const modules = await migrateScratch();
    const opened = open({ timeoutMs: 300 });
    const config = { ...loadConfig({}), databaseUrl: scratch.url };
    const app = await buildTariffApp({ config, database: opened, modules, logger: false, metrics });
    try {
      // The app's first read sets up what every read uses (on a loaded machine, for seconds): done
      // before, so that the time measured is the wait for a connection.
      const first = await app.inject({ method: 'GET', url: '/v1/rating/module_config/hashmap/services' });
      expect(first.statusCode).toBe(200);
      const held = [holdConnection(opened), holdConnection(opened)];
      await Promise.all(held.map((connection) => connection.lent));
      const started = Date.now();
      const waiting = await app.inject({ method: 'GET', url: '/v1/rating/module_config/hashmap/services' });
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThanOrEqual(250);
      expect(waited).toBeLessThan(300 + LOAD_MARGIN_MS);
      expect(waiting.statusCode).toBe(503);
      expect(waiting.json().faultstring).toMatch(/^The database is unavailable/);
      expect(await errorCounts(metrics)).toEqual({ timeout: 1, lost_connection: 0, deadlock_retried: 0 });
      for (const connection of held) connection.release();
      await Promise.all(held.map((connection) => connection.done));
      await vi.waitFor(async () => expect(await poolGauges(metrics)).toEqual({ inUse: 0, idle: 2, waiting: 0 }), SETTLE);
      const after = await app.inject({ method: 'GET', url: '/v1/rating/module_config/hashmap/services' });
      expect(after.statusCode).toBe(200);
      expect(await poolGauges(metrics)).toEqual({ inUse: 0, idle: 2, waiting: 0 });
    } finally {
      await app.close();
    }
  });

  it.runIf(isMariaDb)('bounds every pooled MariaDB session by the timeout: its lock waits (1205, a 503 timeout) and its statements (1969)', async () => {
    await migrateScratch();
    const opened = open({ timeoutMs: 1000 });
    const { rows } = await sql<{ lockWait: number | string; statementTime: number | string }>`
      select @@session.innodb_lock_wait_timeout as lockWait, @@session.max_statement_time as statementTime`.execute(opened.db);
    expect(Number(rows[0].lockWait)).toBe(1);
    expect(Number(rows[0].statementTime)).toBe(1);
    const sleeping = await sql`select sleep(3)`.execute(opened.db).then(
      () => new Error('the statement outlived max_statement_time'),
      (failure: unknown) => failure,
    );
    expect((sleeping as { errno?: number }).errno).toBe(1969);
    expect(databaseErrorKind(sleeping)).toBe('timeout');
    expect(classifyDatabaseError(sleeping, { lastAttempt: false })).toBeInstanceOf(DatabaseUnavailableError);

    // The lock wait alone (max_statement_time off in this session): it ends with 1205 after the
    // timeout, a 503 timeout even when the transaction could still be retried.
    const locker = await openConfigLocker();
    try {
      await locker.lock();
      const { error, waited } = await opened.db.connection().execute(async (connection) => {
        await sql`set session max_statement_time = 0`.execute(connection);
        const started = Date.now();
        const failure = await connection
          .transaction()
          .execute((transaction) => sql`update tariff_config_version set version = version + 1 where name = 'rating'`.execute(transaction))
          .then(
            () => new Error('the update outlived the lock wait'),
            (caught: unknown) => caught,
          );
        return { error: failure, waited: Date.now() - started };
      });
      expect((error as { errno?: number }).errno).toBe(1205);
      expect(waited).toBeGreaterThanOrEqual(900);
      expect(waited).toBeLessThan(1000 + LOAD_MARGIN_MS);
      expect(databaseErrorKind(error)).toBe('timeout');
      expect(classifyDatabaseError(error, { lastAttempt: false })).toBeInstanceOf(DatabaseUnavailableError);
    } finally {
      await locker.unlock();
      await locker.close();
    }
    // Real deadlocks, and Galera's failed certifications (reported as deadlocks), are still retried.
    const deadlock = Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), {
      code: 'ER_LOCK_DEADLOCK',
      errno: 1213,
    });
    expect(classifyDatabaseError(deadlock, { lastAttempt: false })).toBe('retry');
    expect(databaseErrorKind(deadlock)).toBeUndefined();
  });
});
