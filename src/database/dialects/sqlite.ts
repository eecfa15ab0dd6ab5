/**
 * The embedded database: Node's built-in `node:sqlite` in WAL mode (`synchronous=NORMAL`: an
 * acknowledged write survives a process crash), foreign keys on, a 5 s busy timeout for other
 * processes' writes, the log's checkpoints in a worker thread (sqlite-checkpoints.ts). A file that is not a database, or a damaged one, is refused when opened.
 *
 * Why `node:sqlite` and not better-sqlite3: the same SQLite semantics and speed (bench figures in
 * docs/development.md, "The runtime and the embedded driver"), with no native build at install (no
 * C++ toolchain, no headers matching the Node that runs it).
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { Kysely, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { withResultCodeName } from './sqlite-result-codes.js';
import { DatabaseOpenError, type OpenedDatabase } from './opening.js';
import type { TariffTables } from '../tables.js';
import { countingConnections } from './connection-counts.js';
import { checkpointInWorker, type Checkpointer } from './sqlite-checkpoints.js';

/** Distinct SQL texts whose prepared statements are kept; past it the cache starts over. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * A `node:sqlite` statement in the shape Kysely's SQLite dialect drives (better-sqlite3's): the
 * parameters as one array, `reader` when it returns rows. Driver errors get SQLite's result-code
 * name as `code` (`SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_BUSY`, ...), which sqlite-traits.ts reads.
 *
 * Rows are read as arrays and made into objects here: `node:sqlite`'s own row objects have no
 * prototype and are slow to read and serialise (measured: a list of 10,000 mappings took twice
 * the time to turn into JSON than objects made here; see docs/development.md).
 */
function kyselyStatement(statement: StatementSync): SqliteStatement {
  const names = statement.columns().map((column) => column.name);
  if (names.length > 0) statement.setReturnArrays(true);
  const toRow = (values: unknown): Record<string, unknown> => {
    const row: Record<string, unknown> = {};
    for (let index = 0; index < names.length; index += 1) row[names[index]] = (values as unknown[])[index];
    return row;
  };
  return {
    reader: names.length > 0,
    all: (parameters) => withResultCodeName(() => statement.all(...(parameters as never[]))).map(toRow),
    run: (parameters) => withResultCodeName(() => statement.run(...(parameters as never[]))),
    iterate: (parameters) =>
      rowsOf(
        withResultCodeName(() => statement.iterate(...(parameters as never[]))),
        toRow,
      ),
  };
}

/** The rows of `iterator` made by `toRow`, an error while stepping through them renamed by {@link withResultCodeName}. */
function* rowsOf(iterator: Iterator<unknown>, toRow: (values: unknown) => Record<string, unknown>): Generator<Record<string, unknown>> {
  for (;;) {
    const step = withResultCodeName(() => iterator.next());
    if (step.done) return;
    yield toRow(step.value);
  }
}

/**
 * The database with prepared statements reused by SQL text: Kysely prepares every query anew,
 * which was the largest single cost of a request (measured: 17 % of CPU creating mappings).
 */
function withStatementCache(sqlite: DatabaseSync, checkpointer: Checkpointer | undefined): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => {
      // The worker's connection first: the last one to close checkpoints and removes the log.
      checkpointer?.stop();
      sqlite.close();
    },
    prepare(text: string) {
      let statement = statements.get(text);
      if (!statement) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
        statement = kyselyStatement(withResultCodeName(() => sqlite.prepare(text)));
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
function openConnection(file: string, inMemory: boolean): DatabaseSync {
  if (!inMemory) mkdirSync(dirname(resolve(file)), { recursive: true });
  const sqlite = withResultCodeName(() => new DatabaseSync(inMemory ? ':memory:' : file, { timeout: 5000, enableForeignKeyConstraints: true }));
  try {
    withResultCodeName(() => {
      sqlite.exec('PRAGMA journal_mode = WAL');
      sqlite.exec('PRAGMA synchronous = NORMAL');
    });
    const verdict = String(withResultCodeName(() => sqlite.prepare('PRAGMA quick_check(1)').get())?.quick_check);
    if (verdict !== 'ok')
      throw new Error(`database disk image is malformed (PRAGMA quick_check: ${oneLine(verdict.replace(/^\*\*\* in database \w+ \*\*\*\s*/, ''))})`);
    return sqlite;
  } catch (error) {
    sqlite.close();
    throw error;
  }
}

/** The file an `sqlite:` URL's location names: `sqlite:////var/lib/tariff.db`'s `//` + absolute path is that path; `:memory:` stays. */
export function sqliteFilePath(location: string): string {
  return location.replace(/^\/\/(?=\/)/, '');
}

/**
 * Opens (creating folder and file when missing) the SQLite database at `path` (`:memory:` too).
 *
 * @throws DatabaseOpenError naming the file and the problem: not a database, damaged, a folder
 *   that cannot be created, a file that cannot be read.
 */
export function openSqlite(path: string): OpenedDatabase {
  const file = sqliteFilePath(path);
  const inMemory = file === ':memory:';
  let sqlite: DatabaseSync;
  try {
    sqlite = openConnection(file, inMemory);
  } catch (error) {
    throw new DatabaseOpenError(`cannot open the SQLite database ${file}: ${describeOpenFailure(error)}`);
  }
  const checkpointer = inMemory ? undefined : checkpointInWorker(sqlite, resolve(file));
  const { dialect, counts } = countingConnections(new SqliteDialect({ database: withStatementCache(sqlite, checkpointer) }));
  const db = new Kysely<TariffTables>({ dialect });
  // One connection, lent to one query or transaction at a time.
  const pool = () => ({ inUse: counts.inUse, idle: 1 - counts.inUse, waiting: counts.waiting });
  return { db, description: `sqlite:${inMemory ? file : resolve(file)}`, pool };
}
