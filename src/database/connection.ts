/**
 * Opens the database named by `TARIFF_DATABASE_URL`: the embedded SQLite file (default), or
 * PostgreSQL / MariaDB / MySQL. Every driver is set to hand back decimals and datetimes as text,
 * so the repositories see one shape on every database.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, type SqliteDatabase } from 'kysely';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { createPool } from 'mysql2';
import type { TariffTables } from './tables.js';
import { ConfigurationError } from '../config.js';

/** The SQL dialects Tariff runs on. */
export type DialectName = 'sqlite' | 'postgres' | 'mysql';

/** An open database: the Kysely handle, its dialect and a way to close it. */
export interface Database {
  readonly db: Kysely<TariffTables>;
  readonly dialect: DialectName;
  /** Human-readable location without credentials, for logs. */
  readonly description: string;
  close(): Promise<void>;
}

/** Options of {@link openDatabase}. */
export interface DatabaseOptions {
  /** Connection pool size for PostgreSQL and MySQL (default 10). */
  poolSize?: number;
  /** Milliseconds to wait for a connection or a statement before failing (default 5,000). */
  timeoutMs?: number;
  /** Where pool errors of idle connections are reported (a dropped server must not crash the process). */
  onPoolError?: (error: Error) => void;
}

/**
 * Parses a database URL and opens it. SQLite files get WAL journaling, foreign keys and a 5 s busy
 * timeout; their folder is created when missing.
 *
 * @param url - `sqlite:<path>` (`sqlite::memory:` for a private in-memory database),
 *   `postgres://` / `postgresql://`, or `mysql://` / `mariadb://`.
 * @throws ConfigurationError for any other scheme.
 */
export function openDatabase(url: string, options: DatabaseOptions = {}): Database {
  const poolSize = options.poolSize ?? 10;
  const timeoutMs = options.timeoutMs ?? 5000;
  const onPoolError = options.onPoolError ?? (() => undefined);
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    const inMemory = path === ':memory:';
    if (!inMemory) mkdirSync(dirname(resolve(path)), { recursive: true });
    const sqlite = new BetterSqlite3(inMemory ? ':memory:' : path);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    const db = new Kysely<TariffTables>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
    return { db, dialect: 'sqlite', description: `sqlite:${inMemory ? path : resolve(path)}`, close: () => db.destroy() };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    const types = {
      // timestamp (1114) and date (1082) stay text: naive UTC, as stored.
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === 1114 || oid === 1082 ? (text: string) => text : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    };
    const pool = new pg.Pool({
      connectionString: url,
      max: poolSize,
      types,
      connectionTimeoutMillis: timeoutMs,
      query_timeout: timeoutMs,
      statement_timeout: timeoutMs,
      idleTimeoutMillis: 30_000,
    });
    // Idle clients report to the pool; a client checked out when its server goes away reports to
    // itself, and an unheard 'error' event would end the process.
    pool.on('error', onPoolError);
    pool.on('connect', (client) => client.on('error', onPoolError));
    const db = new Kysely<TariffTables>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', description: redact(url), close: () => db.destroy() };
  }
  if (/^(mysql|mariadb):\/\//.test(url)) {
    const pool = createPool({
      uri: url.replace(/^mariadb:/, 'mysql:'),
      connectionLimit: poolSize,
      dateStrings: true,
      decimalNumbers: false,
      supportBigNumbers: true,
      bigNumberStrings: true,
      timezone: 'Z',
      charset: 'utf8mb4',
      connectTimeout: timeoutMs,
      enableKeepAlive: true,
    });
    pool.on('connection', (connection) => connection.on('error', onPoolError));
    const db = new Kysely<TariffTables>({ dialect: new MysqlDialect({ pool }) });
    return { db, dialect: 'mysql', description: redact(url), close: () => db.destroy() };
  }
  throw new ConfigurationError(`TARIFF_DATABASE_URL must start with sqlite:, postgres:// or mysql://, got '${redact(url)}'`);
}

/** Distinct SQL texts whose prepared statements are kept; past it the cache starts over. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * better-sqlite3 with prepared statements reused by SQL text: Kysely prepares every query anew,
 * which was the largest single cost of a request (measured: 17 % of CPU creating mappings).
 */
function withStatementCache(sqlite: BetterSqlite3.Database): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      let statement = statements.get(text);
      if (!statement) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
        statement = sqlite.prepare(text);
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
