/**
 * A database Tariff creates is one CloudKitty accepts (docs/operators/migrating.md: "CloudKitty's layout"):
 * 1. the reference: an empty scratch database migrated by CloudKitty master's own dbsync (on
 *    PostgreSQL through test/cloudkitty-master/dbsync_reference.py, which works around two
 *    CloudKitty defects);
 * 2. a fresh Tariff database (Tariff's migrations);
 * 3. their catalogs are equal but for the deliberate differences below;
 * 4. master's `cloudkitty-dbsync upgrade` on Tariff's database exits 0 and runs nothing;
 * 5. Tariff still serves it afterwards.
 * And a database made by an earlier Tariff (the migrations of commit 4fb1cb4, before 0005) is
 * brought to the same layout by 0005, or refused unchanged when an audit value is too long.
 * SQLite (CloudKitty on SQLite is a test setup; master's dbsync does not finish on an empty file):
 * the same tables and version rows, and dbsync accepts it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, startTestApp } from '../helpers/app.js';
import { databaseHas, perServer } from '../helpers/database-kind.js';
import { createScratchDatabase, testDatabaseKind, type ScratchDatabase } from '../helpers/databases.js';
import { masterAvailable, runMaster, sqlalchemyUrl, type MasterRun } from '../cloudkitty-master/master.js';
import { readCatalog, type Catalog } from './catalog.js';
import { runTariff } from '../helpers/server.js';
import { openDatabase } from '../../src/database/connection.js';
import { migrateToLatest } from '../../src/database/migrate.js';
import { ratingModules } from '../../src/application.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const KIND = testDatabaseKind();
/** The last commit whose migrations made the approximate layout (before 0005_cloudkitty_layout). */
const EARLIER_TARIFF = '4fb1cb4';
const HEADS = { cloudkitty_alembic: ['385e33fef139'], hashmap_alembic: ['8a591f85865f'], pyscripts_alembic: ['c6e4cda29654'] };

/**
 * The only differences allowed between CloudKitty's layout and Tariff's (README: "CloudKitty's
 * layout"): Tariff's own tables (`tariff_*`), its own indexes (`ix_*`), the script `data` column's
 * size on MariaDB (`longblob`: CloudKitty's `blob` holds 64 KiB) and the MariaDB text collation
 * (not read by catalog.ts).
 */
function withoutDeliberateDifferences(catalog: Catalog): Catalog {
  const drop = <T>(record: Record<string, T>, unwanted: (key: string) => boolean) =>
    Object.fromEntries(Object.entries(record).filter(([key]) => !unwanted(key)));
  const tariffTable = (key: string) => key.startsWith('tariff_');
  const columns = drop(catalog.columns, tariffTable);
  if (columns['pyscripts_scripts.data'] !== undefined) columns['pyscripts_scripts.data'] = columns['pyscripts_scripts.data'].replace(/^longblob\b/, 'blob');
  return {
    ...catalog,
    tables: catalog.tables.filter((table) => !tariffTable(table)),
    columns,
    constraints: drop(catalog.constraints, tariffTable),
    indexes: drop(catalog.indexes, (key) => tariffTable(key) || /\.ix_/.test(key)),
    sequences: catalog.sequences.filter((sequence) => !tariffTable(sequence)),
  };
}

/** The same, for an upgraded earlier database: the column order and the non-unique indexes InnoDB made for old foreign keys may differ. */
function constraintsAndColumns(catalog: Catalog): Partial<Catalog> {
  const { tables, columns, constraints, enums, sequences, versions } = withoutDeliberateDifferences(catalog);
  return { tables, columns, constraints, enums, sequences, versions };
}

/** master's `cloudkitty-dbsync ARGS` on the database (any of Tariff's URL forms), or `program` (a wrapper of it) instead. */
async function dbsync(databaseUrl: string, args: string[], program?: string): Promise<MasterRun> {
  const directory = mkdtempSync(join(tmpdir(), 'tariff-layout-'));
  try {
    const config = join(directory, 'cloudkitty.conf');
    const connection = databaseUrl.startsWith('sqlite:') ? `sqlite:///${databaseUrl.slice('sqlite:'.length)}` : sqlalchemyUrl(databaseUrl);
    writeFileSync(config, `[DEFAULT]\nuse_stderr = true\n[database]\nconnection = ${connection}\n`);
    const command = program === undefined ? ['dbsync'] : ['python', program];
    return await runMaster([...command, '--config-file', config, ...args], { timeoutMs: 300_000 });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Asserts that master's dbsync accepts the database as its own: exit 0, no migration run. */
async function expectAcceptedByCloudKitty(databaseUrl: string): Promise<void> {
  const run = await dbsync(databaseUrl, ['upgrade']);
  expect(run.code, run.stderr.slice(-3000)).toBe(0);
  expect(`${run.stdout}${run.stderr}`).not.toMatch(/Running upgrade/);
}

/** Asserts that Tariff starts on the database and serves a write and a read. */
async function expectTariffServes(databaseUrl: string, service: string): Promise<void> {
  const t = await startTestApp({ databaseUrl });
  try {
    const created = await t.post(`${H}/services/`, { name: service });
    expect(created.status, created.text).toBe(201);
    const field = await t.post(`${H}/fields/`, { service_id: created.body.service_id, name: 'flavor' });
    expect(field.status, field.text).toBe(201);
    const mapping = await t.post(`${H}/mappings/`, { field_id: field.body.field_id, value: 'm1.tiny', cost: '1.5', type: 'rate' });
    expect(mapping.status, mapping.text).toBe(201);
    const threshold = await t.post(`${H}/thresholds/`, { service_id: created.body.service_id, level: 10, cost: 2 });
    expect(threshold.status, threshold.text).toBe(201);
    const read = await t.get(`${H}/mappings/${mapping.body.mapping_id}`);
    expect(read.body).toMatchObject({ type: 'rate', cost: '1.5000000000000000000000000000', description: null });
  } finally {
    await t.close();
  }
}

/** Runs Tariff's migrations (the built-in modules') on the database. */
async function migrateTariff(databaseUrl: string): Promise<void> {
  const database = openDatabase(databaseUrl, { timeoutMs: 30_000 });
  try {
    await migrateToLatest(database, ratingModules({}).migrations());
  } finally {
    await database.close();
  }
}

/** Tariff's source at {@link EARLIER_TARIFF}, to make a database with the migrations as they were. */
interface EarlierTariff {
  migrate(databaseUrl: string): Promise<void>;
  remove(): void;
}

function checkOutEarlierTariff(): EarlierTariff {
  const directory = mkdtempSync(join(tmpdir(), 'tariff-earlier-'));
  execFileSync('sh', ['-c', `git -C "${ROOT}" archive ${EARLIER_TARIFF} src | tar -x -C "${directory}"`]);
  symlinkSync(join(ROOT, 'node_modules'), join(directory, 'node_modules'));
  // The earlier source's embedded driver, better-sqlite3, is no longer installed (node:sqlite
  // replaced it): a shim over node:sqlite with the part of its API that source used stands in.
  const stub = join(directory, 'src/node_modules/better-sqlite3');
  mkdirSync(stub, { recursive: true });
  writeFileSync(join(stub, 'package.json'), JSON.stringify({ name: 'better-sqlite3', type: 'module', main: 'index.js' }));
  writeFileSync(join(stub, 'index.js'), `export { default } from ${JSON.stringify(join(ROOT, 'test/databases/better-sqlite3-shim.js'))};\n`);
  return {
    async migrate(databaseUrl) {
      const connection = await import(join(directory, 'src/database/connection.ts'));
      const migrate = await import(join(directory, 'src/database/migrate.ts'));
      const application = await import(join(directory, 'src/application.ts'));
      const database = connection.openDatabase(databaseUrl, { timeoutMs: 30_000 });
      try {
        await migrate.migrateToLatest(database, application.ratingModules({}).migrations());
      } finally {
        await database.close();
      }
    },
    remove: () => rmSync(directory, { recursive: true, force: true }),
  };
}

const SEEDED_MAPPING = '00000000-0000-4000-8000-000000000002';
const SEEDED_THRESHOLD = '00000000-0000-4000-8000-000000000003';

/** Rows as an earlier Tariff wrote them: a service, a rate mapping by `createdBy`, a threshold. */
async function seedEarlierRows(databaseUrl: string, createdBy: string): Promise<void> {
  const handle = openDatabase(databaseUrl, { timeoutMs: 30_000 });
  const start = handle.traits.quoteIdentifier('start');
  try {
    await sql`insert into hashmap_services (service_id, name) values ('00000000-0000-4000-8000-000000000001', 'seeded')`.execute(handle.db);
    await sql
      .raw(
        `insert into hashmap_mappings (mapping_id, cost, map_type, service_id, name, ${start}, created_at, created_by) ` +
          `select '${SEEDED_MAPPING}', '1.25', 'rate', id, 'seeded', '2020-01-01 00:00:00', '2020-01-01 00:00:00', '${createdBy}' from hashmap_services`,
      )
      .execute(handle.db);
    await sql
      .raw(
        `insert into hashmap_thresholds (threshold_id, level, cost, map_type, service_id) select '${SEEDED_THRESHOLD}', '5', '2', 'flat', id from hashmap_services`,
      )
      .execute(handle.db);
  } finally {
    await handle.close();
  }
}

const scratches: ScratchDatabase[] = [];
const directories: string[] = [];
async function scratch(): Promise<ScratchDatabase> {
  const directory = mkdtempSync(join(tmpdir(), 'tariff-layout-db-'));
  directories.push(directory);
  const database = await createScratchDatabase(directory);
  scratches.push(database);
  return database;
}

afterAll(async () => {
  for (const database of scratches) await database.drop();
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

if (!masterAvailable()) console.warn('cloudkitty-layout.test.ts skipped: ../shared/anchors/cloudkitty-master/run.sh (or Debian python3-cloudkitty) is missing');

describe.skipIf(!masterAvailable())(`CloudKitty master's layout on ${KIND}`, () => {
  let reference: Catalog | undefined;
  let earlier: EarlierTariff;

  beforeAll(async () => {
    earlier = checkOutEarlierTariff();
    if (!databaseHas('cloudKittyProduction')) return;
    const empty = await scratch();
    const program = perServer({ postgres: join(ROOT, 'test/cloudkitty-master/dbsync_reference.py'), mysql: undefined });
    const run = await dbsync(empty.url, ['upgrade'], program);
    expect(run.code, run.stderr.slice(-3000)).toBe(0);
    reference = await readCatalog(empty.url);
    expect(reference.versions).toEqual(HEADS);
    expect(reference.columns['hashmap_mappings.map_type']).toMatch(/enum/);
  }, 600_000);
  afterAll(() => earlier?.remove());

  it('is the layout of a fresh Tariff database, but for the deliberate differences', async () => {
    const database = await scratch();
    const dryRun = await runTariff(database.url, 'db', 'upgrade', '--dry-run');
    expect(dryRun.stdout).toContain('cloudkitty_alembic 385e33fef139, hashmap_alembic 8a591f85865f, pyscripts_alembic c6e4cda29654');
    await migrateTariff(database.url);
    const tariff = await readCatalog(database.url);
    expect(tariff.versions).toEqual(HEADS);
    expect(tariff.tables).toEqual(expect.arrayContaining(['states', 'service_to_collector_mappings', 'modules_state', ...Object.keys(HEADS)]));
    if (reference !== undefined) expect(withoutDeliberateDifferences(tariff)).toEqual(withoutDeliberateDifferences(reference));

    await expectAcceptedByCloudKitty(database.url);
    expect(await readCatalog(database.url)).toEqual(tariff);
    await expectTariffServes(database.url, 'compute');
  }, 600_000);

  it('is what 0005 makes of a database an earlier Tariff made, with its rows', async () => {
    const database = await scratch();
    await earlier.migrate(database.url);
    await seedEarlierRows(database.url, 'alice');
    await migrateTariff(database.url);
    const catalog = await readCatalog(database.url);
    expect(catalog.versions).toEqual(HEADS);
    expect(catalog.tables).toEqual(expect.arrayContaining(['states', 'service_to_collector_mappings', ...Object.keys(HEADS)]));
    if (reference !== undefined) expect(constraintsAndColumns(catalog)).toEqual(constraintsAndColumns(reference));
    await expectAcceptedByCloudKitty(database.url);
    const t = await startTestApp({ databaseUrl: database.url });
    try {
      const mapping = await t.get(`${H}/mappings/${SEEDED_MAPPING}`);
      expect(mapping.body).toMatchObject({ type: 'rate', cost: '1.2500000000000000000000000000', created_by: 'alice', name: 'seeded' });
      expect((await t.get(`${H}/thresholds/${SEEDED_THRESHOLD}`)).body).toMatchObject({ level: '5.00000000', type: 'flat' });
    } finally {
      await t.close();
    }
    await expectTariffServes(database.url, 'network');
  }, 600_000);

  it.runIf(databaseHas('cloudKittyProduction'))(
    'refuses, changing nothing, an earlier database whose audit values CloudKitty cannot hold',
    async () => {
      const database = await scratch();
      await earlier.migrate(database.url);
      await seedEarlierRows(database.url, 'x'.repeat(40));
      const before = await readCatalog(database.url);
      await expect(migrateTariff(database.url)).rejects.toThrow(
        /0005_cloudkitty_layout failed: hashmap_mappings\.created_by holds 1 value\(s\) longer than 32 characters.*nothing was changed/,
      );
      expect(await readCatalog(database.url)).toEqual(before);
    },
    600_000,
  );
});
