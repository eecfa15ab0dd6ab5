/**
 * The part of better-sqlite3's API that an earlier Tariff's SQLite module used (a constructor
 * taking a file, `pragma`, `prepare` with Kysely's statement shape, `close`), over `node:sqlite`:
 * better-sqlite3 is no longer installed, and cloudkitty-layout.test.ts still migrates a database
 * with an earlier Tariff's source. Plain JavaScript, as Node loads it from that source's
 * node_modules; errors carry SQLite's result-code names as better-sqlite3's did (from dist/).
 */
import { DatabaseSync } from 'node:sqlite';
import { withResultCodeName } from '../../dist/database/dialects/sqlite-result-codes.js';

/** A statement as Kysely's SQLite dialect drives it (parameters as one array). */
class Statement {
  /** @param {import('node:sqlite').StatementSync} statement */
  constructor(statement) {
    this.statement = statement;
    this.reader = statement.columns().length > 0;
  }
  all(parameters = []) {
    return withResultCodeName(() => this.statement.all(...parameters));
  }
  run(parameters = []) {
    return withResultCodeName(() => this.statement.run(...parameters));
  }
  iterate(parameters = []) {
    return withResultCodeName(() => this.statement.iterate(...parameters));
  }
}

/** `new Database(file)` as better-sqlite3 made it. */
export default class Database {
  /** @param {string} file */
  constructor(file) {
    this.database = withResultCodeName(() => new DatabaseSync(file));
  }
  /** `PRAGMA text`; with `simple`, the first column of the first row. */
  pragma(text, options = {}) {
    const rows = withResultCodeName(() => this.database.prepare(`PRAGMA ${text}`).all());
    return options.simple ? Object.values(rows[0] ?? {})[0] : rows;
  }
  prepare(text) {
    return new Statement(withResultCodeName(() => this.database.prepare(text)));
  }
  close() {
    this.database.close();
  }
}
