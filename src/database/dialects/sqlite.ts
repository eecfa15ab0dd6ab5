/**
 * The embedded database: better-sqlite3 in WAL mode (`synchronous=NORMAL`: an acknowledged write
 * survives a process crash), foreign keys on, a 5 s busy timeout for other processes' writes.
 * A file that is not a database, or a damaged one, is refused when opened.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Kysely, SqliteDialect, type SqliteDatabase } from 'kysely';
import BetterSqlite3 from 'better-sqlite3';
import { DatabaseOpenError, type OpenedDatabase } from './opening.js';
import type { TariffTables } from '../tables.js';
import { countingConnections } from './connection-counts.js';

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

/** The text with its line breaks turned into `; `, for a one-line message. */
function oneLine(text: string): string {
  return text.trim().replace(/\s*\n\s*/g, '; ');
}

/** An error's message with SQLite's result code, on one line, e.g. `file is not a database (SQLITE_NOTADB)`. */
function describeOpenFailure(error: unknown): string {
  if (!(error instanceof Error)) return oneLine(String(error));
  const code = (error as { code?: unknown }).code;
  return oneLine(typeof code === 'string' && code.startsWith('SQLITE_') ? `${error.message} (${code})` : error.message);
}

/**
 * Opens the file and sets the connection up; then `PRAGMA quick_check` reads every page once
 * (milliseconds for a rating configuration), so that a truncated or damaged file is refused now
 * rather than failing requests later.
 */
function openConnection(file: string, inMemory: boolean): BetterSqlite3.Database {
  if (!inMemory) mkdirSync(dirname(resolve(file)), { recursive: true });
  const sqlite = new BetterSqlite3(inMemory ? ':memory:' : file);
  try {
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    const verdict = String(sqlite.pragma('quick_check(1)', { simple: true }));
    if (verdict !== 'ok')
      throw new Error(`database disk image is malformed (PRAGMA quick_check: ${oneLine(verdict.replace(/^\*\*\* in database \w+ \*\*\*\s*/, ''))})`);
    return sqlite;
  } catch (error) {
    sqlite.close();
    throw error;
  }
}

/**
 * Opens (creating folder and file when missing) the SQLite database at `path` (`:memory:` too).
 *
 * @throws DatabaseOpenError naming the file and the problem: not a database, damaged, a folder
 *   that cannot be created, a file that cannot be read.
 */
export function openSqlite(path: string): OpenedDatabase {
  const file = path.replace(/^\/\/(?=\/)/, '');
  const inMemory = file === ':memory:';
  let sqlite: BetterSqlite3.Database;
  try {
    sqlite = openConnection(file, inMemory);
  } catch (error) {
    throw new DatabaseOpenError(`cannot open the SQLite database ${file}: ${describeOpenFailure(error)}`);
  }
  const { dialect, counts } = countingConnections(new SqliteDialect({ database: withStatementCache(sqlite) }));
  const db = new Kysely<TariffTables>({ dialect });
  // One connection, lent to one query or transaction at a time.
  const pool = () => ({ inUse: counts.inUse, idle: 1 - counts.inUse, waiting: counts.waiting });
  return { db, description: `sqlite:${inMemory ? file : resolve(file)}`, pool };
}
