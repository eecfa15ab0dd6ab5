// Scratch databases for benches: a new SQLite file, or a new database with a unique name on the
// machine's PostgreSQL (127.0.0.1:5432, trust) or MariaDB (127.0.0.1:3306, root without
// password), dropped after. The bench-side twin of test/helpers/databases.ts (which is TypeScript,
// so plain-JS benches cannot import it). TARIFF_TEST_POSTGRES_URL / TARIFF_TEST_MYSQL_URL override
// the admin URLs, as for the tests.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';

export const POSTGRES_ADMIN_URL = process.env.TARIFF_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const MYSQL_ADMIN_URL = process.env.TARIFF_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';

export const DATABASE_KINDS = ['sqlite', 'postgres', 'mysql'];

/**
 * Creates a scratch database of `kind`; SQLite files go in `directory` as `<label>.db`.
 * @returns {Promise<{kind: string, url: string, name: string, drop(): Promise<void>}>}
 */
export async function createScratchDatabase(kind, directory, label = 'bench') {
  const name = `tariff_bench_${label}_${randomBytes(5).toString('hex')}`;
  if (kind === 'sqlite') return { kind, name, url: `sqlite:${path.join(directory, `${name}.db`)}`, drop: async () => {} };
  if (kind === 'postgres') {
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    try {
      await admin.query(`create database ${name}`);
    } finally {
      await admin.end();
    }
    const url = new URL(POSTGRES_ADMIN_URL);
    url.pathname = `/${name}`;
    return {
      kind,
      name,
      url: url.toString(),
      async drop() {
        const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
        await client.connect();
        try {
          await client.query(`drop database if exists ${name} with (force)`);
        } finally {
          await client.end();
        }
      },
    };
  }
  if (kind === 'mysql') {
    const admin = await createConnection(MYSQL_ADMIN_URL);
    try {
      await admin.query(`create database ${name} character set utf8mb4 collate utf8mb4_bin`);
    } finally {
      await admin.end();
    }
    const url = new URL(MYSQL_ADMIN_URL);
    url.pathname = `/${name}`;
    return {
      kind,
      name,
      url: url.toString(),
      async drop() {
        const connection = await createConnection(MYSQL_ADMIN_URL);
        try {
          await connection.query(`drop database if exists ${name}`);
        } finally {
          await connection.end();
        }
      },
    };
  }
  throw new Error(`unknown database kind ${kind} (${DATABASE_KINDS.join(', ')})`);
}

/** The SQLAlchemy URL CloudKitty needs for a scratch database (test/adoption/cloudkitty.ts's rule). */
export function sqlalchemyUrl(scratch, directory) {
  if (scratch.kind === 'sqlite') return `sqlite:///${path.join(directory, `${scratch.name}.ck.sqlite`)}`;
  const url = new URL(scratch.url);
  const driver = scratch.kind === 'postgres' ? 'postgresql+psycopg2' : 'mysql+pymysql';
  return `${driver}://${url.username}${url.password ? `:${url.password}` : ''}@${url.host}${url.pathname}`;
}
