/**
 * Migrations are bounded by TARIFF_DB_START_TIMEOUT, not by a request's TARIFF_DB_TIMEOUT: a
 * process starting while another holds the migration lock (here: a session holding Kysely's lock
 * for 3 s) waits for it and starts, although its statements are ended at 1 s (PostgreSQL's
 * statement_timeout, MariaDB's max_statement_time). SQLite bounds no statement and is not concerned.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createConnection } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseHas, perServer } from '../helpers/database-kind.js';
import { createScratchDatabase, type ScratchDatabase } from '../helpers/databases.js';
import { callServer, startServerProcess, type ServerProcess } from '../helpers/server.js';

/** Kysely's migration lock (its PostgreSQL and MySQL adapters): the same key, held by another session. */
const POSTGRES_LOCK = '3853314791062309107';
const MYSQL_LOCK = 'ea586330-2c93-47c8-908d-981d9d270f9d';

/** Holds the migration lock in a session of its own until `release()`. */
function holdMigrationLock(url: string): Promise<{ release(): Promise<void> }> {
  return perServer({ postgres: holdPostgresMigrationLock, mysql: holdMysqlMigrationLock })(url);
}

async function holdPostgresMigrationLock(url: string): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`select pg_advisory_lock(${POSTGRES_LOCK})`);
  return { release: () => client.end() };
}

async function holdMysqlMigrationLock(url: string): Promise<{ release(): Promise<void> }> {
  const connection = await createConnection(url);
  const [rows] = await connection.query(`select get_lock('${MYSQL_LOCK}', 1) as taken`);
  expect(rows).toEqual([{ taken: 1 }]);
  return { release: () => connection.end() };
}

describe.runIf(databaseHas('server'))('a start waiting for another process’s migration', () => {
  let directory: string;
  let scratch: ScratchDatabase;
  let server: ServerProcess | undefined;
  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-migration-wait-'));
    scratch = await createScratchDatabase(directory);
  });
  afterAll(async () => {
    await server?.stop();
    await scratch?.drop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('waits past TARIFF_DB_TIMEOUT for the lock, then migrates and serves', async () => {
    const lock = await holdMigrationLock(scratch.url);
    const released = new Promise<number>((resolve) =>
      setTimeout(() => {
        void lock.release().then(() => resolve(Date.now()));
      }, 3000),
    );
    server = await startServerProcess(scratch.url, { TARIFF_DB_TIMEOUT: '1' });
    const servingAt = Date.now();
    // It could not have migrated before the lock was released.
    expect(servingAt).toBeGreaterThanOrEqual(await released);
    expect((await callServer(server, 'GET', '/v1/rating/module_config/hashmap/services')).status).toBe(200);
    expect(server.output()).not.toMatch(/max_statement_time|statement timeout|canceling statement/i);
  });
});
