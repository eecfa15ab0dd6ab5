/**
 * Issue 11, item 8: a database out of space answers writes with 503 and a fault body naming the
 * problem (never a 500), keeps answering reads, and takes writes again once there is space; all
 * with the database's own errors, counted in writes, never timed.
 * - SQLite: `PRAGMA max_page_count` (SQLite's own SQLITE_FULL), and a real full tmpfs holding the
 *   database file.
 * - PostgreSQL: a private server whose `tariff` database lives in a tablespace on a full tmpfs
 *   (SQLSTATE 53100 from the server).
 * - MariaDB: the server's errno 1114 (a MEMORY table past `max_heap_table_size`) is classified as
 *   a full storage, on a private server: on the shared one, MariaDB 10.11 crashed (segfault in
 *   its temporary-table code) in another connection's query right after the table filled, twice,
 *   failing every other MariaDB test file. A whole MariaDB on a full disk is not run: InnoDB
 *   aborts the server when a rollback finds no space, which no client can answer for.
 * Without mount rights the tmpfs cases are skipped with the reason; the error-code mapping of
 * every dialect is in test/unit/database-errors.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { createConnection } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { createField, createService } from '../helpers/fixtures.js';
import { databaseIs } from '../helpers/database-kind.js';
import { mountSmallDisk, type SmallDisk } from '../helpers/small-disk.js';
import { startPrivateDatabase, type PrivateDatabase } from '../helpers/private-database.js';
import { classifyDatabaseError, StorageFullError } from '../../src/database/errors.js';

/** Mapping creates tried before the storage must have run out (each one needs new pages sooner or later). */
const WRITE_LIMIT = 3000;

/** The fault body of a 503 for a full storage whose driver code matches `code`. */
function storageFullFault(code: RegExp) {
  return {
    faultcode: 'Server',
    faultstring: expect.stringMatching(
      new RegExp(
        `^The database has no space left to store the change \\(${code.source}\\); nothing was written\\. Reads still work; try again once space is freed\\.$`,
      ),
    ),
    debuginfo: null,
  };
}

/**
 * Creates mappings until one is refused (at most {@link WRITE_LIMIT}); returns the refusal and
 * how many were created before it.
 */
async function createUntilRefused(t: TestApp, fieldId: string): Promise<{ refused: TestResponse | undefined; created: number; body: Record<string, unknown> }> {
  for (let attempt = 0; attempt < WRITE_LIMIT; attempt += 1) {
    const body = { field_id: fieldId, value: `value-${attempt}`, cost: '1.5', description: 'x'.repeat(200) };
    const response = await t.post(`${H}/mappings/`, body);
    if (response.status !== 201) return { refused: response, created: attempt, body };
  }
  return { refused: undefined, created: WRITE_LIMIT, body: {} };
}

/**
 * The whole story on one app: writes fit, the storage fills (`fill`), writes get 503 with the
 * fault body while reads answer, space comes back (`free`) and the refused write succeeds.
 */
async function showFullStorage(t: TestApp, fill: () => Promise<void>, free: () => Promise<void>, code: RegExp): Promise<void> {
  const serviceId = await createService(t, 'full-storage');
  const fieldId = await createField(t, serviceId, 'flavor');
  const kept = ['kept-1', 'kept-2', 'kept-3'];
  for (const value of kept) expect((await t.post(`${H}/mappings/`, { field_id: fieldId, value, cost: 1 })).status).toBe(201);
  await fill();

  const { refused, created, body } = await createUntilRefused(t, fieldId);
  expect(refused, `no write was refused after ${WRITE_LIMIT} creates`).toBeDefined();
  expect({ status: refused!.status, body: refused!.body }).toEqual({ status: 503, body: storageFullFault(code) });
  const again = await t.post(`${H}/mappings/`, body);
  expect({ status: again.status, body: again.body }).toEqual({ status: 503, body: storageFullFault(code) });

  // Reads keep working, and show every acknowledged write and nothing of the refused ones.
  const listed = await t.get(`${H}/mappings/?field_id=${fieldId}`);
  expect(listed.status).toBe(200);
  expect(listed.body.mappings.map((mapping: { value: string }) => mapping.value)).toEqual([
    ...kept,
    ...Array.from({ length: created }, (_, index) => `value-${index}`),
  ]);
  expect((await t.get(`${H}/services/${serviceId}`)).status).toBe(200);

  await free();
  const retried = await t.post(`${H}/mappings/`, body);
  expect(retried.status, retried.text).toBe(201);
  const after = await t.get(`${H}/mappings/?field_id=${fieldId}`);
  expect(after.body.mappings.map((mapping: { value: string }) => mapping.value)).toContain(body.value);
  expect(after.body.mappings).toHaveLength(kept.length + created + 1);
  expect((await t.post(`${H}/services/`, { name: 'after-the-disk-was-freed' })).status).toBe(201);
}

describe.runIf(databaseIs('sqlite'))('SQLite out of space', () => {
  it('PRAGMA max_page_count: SQLITE_FULL gives 503, reads work, writes recover when the limit is raised', async () => {
    const t = await startTestApp();
    try {
      await showFullStorage(
        t,
        async () => {
          const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(t.database.db);
          await sql.raw(`pragma max_page_count = ${rows[0].page_count}`).execute(t.database.db);
        },
        async () => {
          await sql`pragma max_page_count = 1073741823`.execute(t.database.db);
        },
        /SQLITE_FULL/,
      );
    } finally {
      await t.close();
    }
  });

  it('a real full file system (tmpfs) holding the database file: the same', async (context) => {
    const mounted = mountSmallDisk(2);
    if ('unavailable' in mounted) return context.skip(`no tmpfs: ${mounted.unavailable}`);
    const { disk } = mounted;
    try {
      const t = await startTestApp({ databaseUrl: `sqlite:${join(disk.path, 'tariff.db')}` });
      try {
        await showFullStorage(
          t,
          async () => disk.fill(),
          async () => disk.free(),
          /SQLITE_FULL/,
        );
      } finally {
        await t.close();
      }
    } finally {
      disk.unmount();
    }
  });
});

describe.runIf(databaseIs('postgres'))('PostgreSQL out of space', () => {
  let server: PrivateDatabase | undefined;
  let disk: SmallDisk | undefined;
  let unavailable: string | undefined;
  let t: TestApp | undefined;

  beforeAll(async () => {
    const owner =
      process.getuid?.() === 0
        ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) }
        : undefined;
    const mounted = mountSmallDisk(2, owner);
    if ('unavailable' in mounted) {
      unavailable = mounted.unavailable;
      return;
    }
    disk = mounted.disk;
    const location = join(disk.path, 'tablespace');
    mkdirSync(location, { mode: 0o700 });
    if (owner) chownSync(location, owner.uid, owner.gid);
    server = await startPrivateDatabase('postgres');
    const admin = new pg.Client({ connectionString: server.url.replace(/\/tariff$/, '/postgres') });
    await admin.connect();
    try {
      // Tariff's tables and indexes go to the small disk; the catalog and the WAL stay on the big one.
      await admin.query(`create tablespace full_disk location '${location}'`);
      await admin.query('alter database tariff set default_tablespace = full_disk');
    } finally {
      await admin.end();
    }
    t = await startTestApp({ databaseUrl: server.url });
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await server?.destroy();
    disk?.unmount();
  });

  it('a tablespace on a full tmpfs: 53100 disk_full gives 503, reads work, writes recover once space is freed', async (context) => {
    if (unavailable) return context.skip(`no tmpfs: ${unavailable}`);
    await showFullStorage(
      t!,
      async () => disk!.fill(),
      async () => disk!.free(),
      /53100/,
    );
  });
});

describe.runIf(databaseIs('mysql'))('MariaDB out of space', () => {
  it("the server's errno 1114 (table full) is a full storage: 503, not a 500", async () => {
    const server = await startPrivateDatabase('mysql');
    const connection = await createConnection(server.url);
    try {
      await connection.query('set session max_heap_table_size = 16384');
      await connection.query('create temporary table tariff_full (v varchar(255)) engine=memory');
      let failure: unknown;
      try {
        for (let rows = 0; rows < 10_000; rows += 1) await connection.query("insert into tariff_full values (repeat('x', 255))");
      } catch (error) {
        failure = error;
      }
      expect((failure as { errno?: number }).errno).toBe(1114);
      const classified = classifyDatabaseError(failure);
      expect(classified).toBeInstanceOf(StorageFullError);
      expect((classified as StorageFullError).status).toBe(503);
      expect((classified as StorageFullError).message).toMatch(/^The database has no space left to store the change \(ER_RECORD_FILE_FULL\)/);
    } finally {
      await connection.end();
      await server.destroy();
    }
  }, 120_000);
});
