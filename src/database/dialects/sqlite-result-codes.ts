/**
 * SQLite's result codes by name, for errors of `node:sqlite`, which reports the number only
 * (`code: 'ERR_SQLITE_ERROR'`, `errcode: 2067`): the rest of Tariff (sqlite-traits.ts, the
 * start-up's one-line messages) reads SQLite's own names, as `sqlite3_errstr` documents them.
 */

/** Primary result codes (the low 8 bits of every extended code). */
const PRIMARY_NAMES: Record<number, string> = {
  1: 'SQLITE_ERROR',
  2: 'SQLITE_INTERNAL',
  3: 'SQLITE_PERM',
  4: 'SQLITE_ABORT',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  7: 'SQLITE_NOMEM',
  8: 'SQLITE_READONLY',
  9: 'SQLITE_INTERRUPT',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  12: 'SQLITE_NOTFOUND',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  15: 'SQLITE_PROTOCOL',
  16: 'SQLITE_EMPTY',
  17: 'SQLITE_SCHEMA',
  18: 'SQLITE_TOOBIG',
  19: 'SQLITE_CONSTRAINT',
  20: 'SQLITE_MISMATCH',
  21: 'SQLITE_MISUSE',
  22: 'SQLITE_NOLFS',
  23: 'SQLITE_AUTH',
  24: 'SQLITE_FORMAT',
  25: 'SQLITE_RANGE',
  26: 'SQLITE_NOTADB',
};

/** The extended codes Tariff tells apart (constraint kinds); others are named by their primary code. */
const EXTENDED_NAMES: Record<number, string> = {
  275: 'SQLITE_CONSTRAINT_CHECK',
  787: 'SQLITE_CONSTRAINT_FOREIGNKEY',
  1299: 'SQLITE_CONSTRAINT_NOTNULL',
  1555: 'SQLITE_CONSTRAINT_PRIMARYKEY',
  2067: 'SQLITE_CONSTRAINT_UNIQUE',
};

/**
 * SQLite's name of an (extended) result code: `2067` → `SQLITE_CONSTRAINT_UNIQUE`, `261`
 * (`SQLITE_BUSY_RECOVERY`) → `SQLITE_BUSY`; `undefined` for a number SQLite does not define.
 */
export function resultCodeName(code: number): string | undefined {
  return EXTENDED_NAMES[code] ?? PRIMARY_NAMES[code & 0xff];
}

/**
 * Runs `action`; an error `node:sqlite` throws comes out with SQLite's name of its result code
 * as `code` (the message unchanged), as better-sqlite3 and the other drivers report theirs.
 *
 * @throws whatever `action` throws, renamed as above when it carries an `errcode`.
 */
export function withResultCodeName<T>(action: () => T): T {
  try {
    return action();
  } catch (error) {
    const errcode = (error as { errcode?: unknown } | null)?.errcode;
    const name = typeof errcode === 'number' ? resultCodeName(errcode) : undefined;
    if (name !== undefined) (error as { code: string }).code = name;
    throw error;
  }
}
