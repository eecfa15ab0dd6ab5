/**
 * Issue 11, item 8: every dialect's "no space left" errors become a 503 StorageFullError, other
 * exhausted resources a 503 DatabaseUnavailableError, and look-alikes stay what they were. The
 * real errors are produced in test/databases/storage-full.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { classifyDatabaseError, DatabaseUnavailableError, StorageFullError } from '../../src/database/errors.js';

const storageFull = [
  { name: 'SQLite SQLITE_FULL', error: { code: 'SQLITE_FULL', message: 'database or disk is full' }, detail: 'SQLITE_FULL' },
  { name: 'PostgreSQL 53100 disk_full', error: { code: '53100', message: 'could not extend file "base/1/2": No space left on device' }, detail: '53100' },
  {
    name: 'MySQL 1114 ER_RECORD_FILE_FULL',
    error: { code: 'ER_RECORD_FILE_FULL', errno: 1114, message: "The table 'hashmap_mappings' is full" },
    detail: 'ER_RECORD_FILE_FULL',
  },
  {
    name: 'MySQL 1021 ER_DISK_FULL',
    error: { code: 'ER_DISK_FULL', errno: 1021, message: 'Disk full (./x); waiting for someone to free some space...' },
    detail: 'ER_DISK_FULL',
  },
  {
    name: 'MySQL 3 EE_WRITE with ENOSPC',
    error: { errno: 3, message: 'Error writing file \'./ib_tmp\' (Errcode: 28 "No space left on device")' },
    detail: 'errno 3',
  },
  {
    name: 'MySQL 1030 ER_GET_ERRNO with ENOSPC',
    error: { code: 'ER_GET_ERRNO', errno: 1030, message: 'Got error 28 "No space left on device" from storage engine InnoDB' },
    detail: 'ER_GET_ERRNO',
  },
];

describe('classifyDatabaseError: storage full', () => {
  for (const { name, error, detail } of storageFull) {
    it(`${name} → 503 StorageFullError naming the code`, () => {
      const classified = classifyDatabaseError(Object.assign(new Error(error.message), error));
      expect(classified).toBeInstanceOf(StorageFullError);
      expect((classified as StorageFullError).status).toBe(503);
      expect((classified as StorageFullError).message).toBe(
        `The database has no space left to store the change (${detail}); nothing was written. Reads still work; try again once space is freed.`,
      );
    });
  }

  it('on a write transaction that could still be retried too: no retry, the 503 at once', () => {
    expect(classifyDatabaseError({ code: 'SQLITE_FULL' }, { lastAttempt: false })).toBeInstanceOf(StorageFullError);
  });
});

describe('classifyDatabaseError: other exhausted resources and look-alikes', () => {
  it('PostgreSQL class 53 besides disk_full (out of memory, too many connections) → 503 unavailable', () => {
    for (const code of ['53000', '53200', '53300']) {
      const classified = classifyDatabaseError({ code });
      expect(classified, code).toBeInstanceOf(DatabaseUnavailableError);
      expect((classified as DatabaseUnavailableError).message).toBe(
        `The database is unavailable: the database server is out of resources (${code}). Try again later.`,
      );
    }
  });

  it('MySQL out of memory and SQLite SQLITE_NOMEM → 503 unavailable', () => {
    expect(classifyDatabaseError({ code: 'ER_OUTOFMEMORY', errno: 1037 })).toBeInstanceOf(DatabaseUnavailableError);
    expect(classifyDatabaseError({ code: 'SQLITE_NOMEM' })).toBeInstanceOf(DatabaseUnavailableError);
  });

  it('a MySQL write error for another reason than ENOSPC is left as it is', () => {
    expect(classifyDatabaseError({ errno: 3, message: 'Error writing file \'./x\' (Errcode: 13 "Permission denied")' })).toBeUndefined();
    expect(classifyDatabaseError({ errno: 1030, message: 'Got error 168 from storage engine' })).toBeUndefined();
  });

  it('a database dropped under the server (issue 24) → 503 unavailable: PostgreSQL 3D000 and 57P04, MariaDB 1049 and 1146', () => {
    for (const error of [
      { code: '3D000', message: 'database "tariff" does not exist' },
      { code: '57P04', message: 'database dropped' },
      { code: 'ER_BAD_DB_ERROR', errno: 1049, message: "Unknown database 'tariff'" },
      { code: 'ER_NO_SUCH_TABLE', errno: 1146, message: "Table 'tariff.hashmap_services' doesn't exist" },
    ]) {
      const classified = classifyDatabaseError(error);
      expect(classified, error.code).toBeInstanceOf(DatabaseUnavailableError);
      expect((classified as DatabaseUnavailableError).message).toBe(`The database is unavailable: ${error.code}. Try again later.`);
    }
  });

  it('unrelated errors keep their classification', () => {
    expect(classifyDatabaseError({ code: 'SQLITE_CORRUPT' })).toBeUndefined();
    expect(classifyDatabaseError({ code: '23505' }, { lastAttempt: false })).toBe('retry');
    expect(classifyDatabaseError({ code: 'ECONNREFUSED', errno: -111 })).toBeInstanceOf(DatabaseUnavailableError);
  });
});
