/**
 * The embedded database: better-sqlite3 in WAL mode (`synchronous=NORMAL`: an acknowledged write
 * survives a process crash), foreign keys on, a 5 s busy timeout for other processes' writes.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Kysely, SqliteDialect, type SqliteDatabase } from 'kysely';
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from '../connection.js';
import type { TariffTables } from '../tables.js';

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

/** Opens (creating folder and file when missing) the SQLite database at `path` (`:memory:` too). */
export function openSqlite(path: string): Database {
  const file = path.replace(/^\/\/(?=\/)/, '');
  const inMemory = file === ':memory:';
  if (!inMemory) mkdirSync(dirname(resolve(file)), { recursive: true });
  const sqlite = new BetterSqlite3(inMemory ? ':memory:' : file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<TariffTables>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return { db, dialect: 'sqlite', description: `sqlite:${inMemory ? file : resolve(file)}`, writes: { count: 0 }, close: () => db.destroy() };
}
