/**
 * Scratch databases for tests: a new SQLite file, or a new database on the machine's PostgreSQL
 * (127.0.0.1:5432, trust auth) or MariaDB (127.0.0.1:3306, root without password), dropped after.
 * `TARIFF_TEST_DATABASE` picks the kind (default `sqlite`).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { createConnection } from 'mysql2/promise';

/** The kind of database the current test run uses. */
export function testDatabaseKind(): 'sqlite' | 'postgres' | 'mysql' {
  const kind = process.env.TARIFF_TEST_DATABASE ?? 'sqlite';
  if (kind !== 'sqlite' && kind !== 'postgres' && kind !== 'mysql') throw new Error(`unknown TARIFF_TEST_DATABASE ${kind}`);
  return kind;
}

export const POSTGRES_ADMIN_URL = process.env.TARIFF_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const MYSQL_ADMIN_URL = process.env.TARIFF_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';

/** A database made for one test app. */
export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Creates a scratch database of the current kind; SQLite files go in `directory`. */
export async function createScratchDatabase(directory: string): Promise<ScratchDatabase> {
  const kind = testDatabaseKind();
  if (kind === 'sqlite') return { url: `sqlite:${join(directory, 'tariff.db')}`, drop: async () => {} };
  const name = `tariff_test_${randomBytes(6).toString('hex')}`;
  if (kind === 'postgres') return createPostgresDatabase(name);
  const admin = await createConnection(MYSQL_ADMIN_URL);
  await admin.query(`create database ${name} character set utf8mb4 collate utf8mb4_bin`);
  await admin.end();
  const url = new URL(MYSQL_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const connection = await createConnection(MYSQL_ADMIN_URL);
      await connection.query(`drop database if exists ${name}`);
      await connection.end();
    },
  };
}

/**
 * Creates a scratch PostgreSQL database named `name` on the local server (commits not waiting for
 * their WAL flush: a crash of PostgreSQL itself is not among what the tests check); `drop` removes
 * it, whoever still holds connections to it.
 */
export async function createPostgresDatabase(name: string): Promise<ScratchDatabase> {
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  // ~10 ms a commit saved: what the tests check is what PostgreSQL answers, and a crash of Tariff loses nothing either way.
  await admin.query(`alter database ${name} set synchronous_commit = off`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}
