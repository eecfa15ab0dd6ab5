/**
 * Issue 6: databases Tariff must not touch. A CloudKitty 17 schema (made by CloudKitty's own
 * `cloudkitty-dbsync upgrade`) that is half-upgraded, or at an alembic revision Tariff does not
 * know, is refused with a clear message and left exactly as it was.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { databaseHas } from '../helpers/database-kind.js';
import { createScratchDatabase, testDatabaseKind, type ScratchDatabase } from '../helpers/databases.js';
import { runTariff } from '../helpers/server.js';
import { sqlalchemyUrl } from './cloudkitty.js';
import { columnsOf, RATING_TABLES, selectRows } from './database.js';

const kind = testDatabaseKind();
const DBSYNC = '/usr/bin/cloudkitty-dbsync';

/** Every rating table's columns and the alembic revisions: what must not change. */
async function layout(url: string) {
  const tables: Record<string, string[]> = {};
  for (const table of RATING_TABLES) tables[table] = await columnsOf(url, table);
  const revisions = [
    ...(await selectRows(url, 'select version_num from hashmap_alembic')),
    ...(await selectRows(url, 'select version_num from pyscripts_alembic')),
  ];
  const tariffTables = await selectRows(
    url,
    `select table_name from information_schema.tables where table_name like 'tariff%' and table_schema = ${url.startsWith('postgres') ? 'current_schema()' : 'database()'}`,
  );
  return { tables, revisions, tariffTables };
}

describe.skipIf(!databaseHas('cloudKittyProduction') || !existsSync(DBSYNC))(`databases Tariff refuses on ${kind}`, () => {
  let directory: string;
  let scratch: ScratchDatabase;

  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-refuse-'));
    scratch = await createScratchDatabase(directory);
    const configFile = join(directory, 'cloudkitty.conf');
    writeFileSync(configFile, `[DEFAULT]\ntransport_url = fake:/\n[database]\nconnection = ${sqlalchemyUrl(scratch.url)}\n`);
    await promisify(execFile)(DBSYNC, ['--config-file', configFile, 'upgrade'], { timeout: 120_000 });
  }, 180_000);

  afterEach(async () => {
    await scratch?.drop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('a half-upgraded CloudKitty database is refused and left untouched', async () => {
    await selectRows(scratch.url, 'alter table hashmap_mappings add column name varchar(32)');
    const before = await layout(scratch.url);
    for (const args of [['db', 'upgrade'], ['db', 'upgrade', '--dry-run'], ['serve']]) {
      const answer = await runTariff(scratch.url, ...args);
      expect(answer.code, args.join(' ')).toBe(1);
      expect(answer.stderr).toContain('table hashmap_mappings has columns');
      expect(answer.stderr).toContain('half-upgraded');
    }
    expect(await layout(scratch.url)).toEqual(before);
  });

  it('an alembic revision Tariff does not know is refused and left untouched', async () => {
    await selectRows(scratch.url, "update pyscripts_alembic set version_num = 'feedc0ffee00'");
    const before = await layout(scratch.url);
    const answer = await runTariff(scratch.url, 'db', 'upgrade');
    expect(answer.code).toBe(1);
    expect(answer.stderr).toContain('pyscripts_alembic is at revision [feedc0ffee00], which Tariff does not know');
    expect(await layout(scratch.url)).toEqual(before);
  });

  it('rating tables without CloudKitty migration tables are refused', async () => {
    await selectRows(scratch.url, 'drop table hashmap_alembic');
    const answer = await runTariff(scratch.url, 'db', 'upgrade');
    expect(answer.code).toBe(1);
    expect(answer.stderr).toContain('but no hashmap_alembic');
  });

  it('an empty CloudKitty 17 schema is upgraded, and the upgrade is idempotent', async () => {
    const first = await runTariff(scratch.url, 'db', 'upgrade');
    expect(first.code, first.stderr).toBe(0);
    const second = await runTariff(scratch.url, 'db', 'upgrade');
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('already up to date');
  });
});
