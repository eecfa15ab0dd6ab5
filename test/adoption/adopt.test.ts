/**
 * Issue 6: a database made and filled by the real CloudKitty 17 (its migrations, its own API) is
 * upgraded in place by `tariff db upgrade`, then served by Tariff with every object, id and value
 * intact, its rules versioned as CloudKitty 23 does, and quotes priced as CloudKitty priced them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseHas, databaseIs } from '../helpers/database-kind.js';
import { createScratchDatabase, testDatabaseKind, type ScratchDatabase } from '../helpers/databases.js';
import { callServer, runTariff, startServerProcess, type ServerProcess } from '../helpers/server.js';
import { cloudKittyAvailable, cloudKittyPrices, startCloudKitty, type CloudKitty, type PricedPoint } from './cloudkitty.js';
import { columnsOf, rowCounts, selectRows } from './database.js';

const kind = testDatabaseKind();
const H = '/v1/rating/module_config/hashmap';
const P = '/v1/rating/module_config/pyscripts';

const POINTS: PricedPoint[] = [
  { service: 'compute', qty: '1', metadata: { flavor: 'm1.small', vcpus: 1 }, groupby: { project_id: 'p' } },
  { service: 'compute', qty: '3', metadata: { flavor: 'm1.large', vcpus: '4' }, groupby: {} },
  { service: 'compute', qty: '1', metadata: { flavor: 'm1.tiny', vcpus: 2 }, groupby: {} },
  { service: 'volume', qty: '250', metadata: { volume_type: 'ssd' }, groupby: {} },
  { service: 'volume', qty: '150', metadata: { volume_type: 'hdd' }, groupby: {} },
  { service: 'volume', qty: '120', metadata: { volume_type: 'ssd' }, groupby: {} },
  { service: 'image', qty: '2', metadata: {}, groupby: {} },
];

const SCRIPTS = [
  { name: 'keep-prices', data: "import decimal\nfactor = decimal.Decimal('1.5')  # prix inchangés\n" },
  { name: 'second', data: '# a second script, also leaving prices alone\nx = [i * 2 for i in range(3)]\n' },
];

/** Writes a rule set through CloudKitty's own API; returns what CloudKitty answered, by kind. */
async function seedThroughCloudKitty(ck: CloudKitty) {
  const service = async (name: string) => ck.call('POST', `${H}/services/`, { name });
  const compute = await service('compute');
  const volume = await service('volume');
  const image = await service('image');
  const flavor = await ck.call('POST', `${H}/fields/`, { service_id: compute.service_id, name: 'flavor' });
  const vcpus = await ck.call('POST', `${H}/fields/`, { service_id: compute.service_id, name: 'vcpus' });
  const volumeType = await ck.call('POST', `${H}/fields/`, { service_id: volume.service_id, name: 'volume_type' });
  const uptime = await ck.call('POST', `${H}/groups/`, { name: 'instance_uptime' });
  const discount = await ck.call('POST', `${H}/groups/`, { name: 'volume_discount' });
  const mappingBodies = [
    { field_id: flavor.field_id, value: 'm1.small', cost: '0.5', type: 'flat', group_id: uptime.group_id },
    { field_id: flavor.field_id, value: 'm1.large', cost: '1.25', type: 'flat' },
    { field_id: flavor.field_id, value: 'm1.large', cost: '2.5', type: 'flat', tenant_id: 'tenant-a' },
    { service_id: compute.service_id, cost: '1.1', type: 'rate' },
    { service_id: volume.service_id, cost: '0.0001234567890123456789012345', type: 'flat' },
    { field_id: volumeType.field_id, value: 'ssd', cost: '0.15', type: 'rate', group_id: discount.group_id },
    { service_id: image.service_id, cost: '0.01', type: 'flat', tenant_id: 'tenant-a' },
  ];
  const mappings = [];
  for (const body of mappingBodies) mappings.push(await ck.call('POST', `${H}/mappings/`, body));
  const thresholdBodies = [
    { service_id: volume.service_id, level: '200', cost: '0.95', type: 'rate', group_id: discount.group_id },
    // Field thresholds compare the field's value: CloudKitty 17 fails on non-numeric ones.
    { field_id: vcpus.field_id, level: '3.5', cost: '3', type: 'flat', tenant_id: 'tenant-a' },
    { field_id: vcpus.field_id, level: '2', cost: '0.9', type: 'rate' },
  ];
  const thresholds = [];
  for (const body of thresholdBodies) thresholds.push(await ck.call('POST', `${H}/thresholds/`, body));
  const scripts = [];
  for (const script of SCRIPTS) scripts.push(await ck.call('POST', `${P}/scripts/`, script));
  await ck.call('PUT', '/v1/rating/modules/hashmap', { module_id: 'hashmap', enabled: true, priority: 2 });
  await ck.call('PUT', '/v1/rating/modules/pyscripts', { module_id: 'pyscripts', enabled: true, priority: 1 });
  return {
    services: (await ck.call('GET', `${H}/services/`)).services,
    fields: [
      ...(await ck.call('GET', `${H}/fields/?service_id=${compute.service_id}`)).fields,
      ...(await ck.call('GET', `${H}/fields/?service_id=${volume.service_id}`)).fields,
    ],
    groups: (await ck.call('GET', `${H}/groups/`)).groups,
    mappings,
    thresholds,
    scripts: (await ck.call('GET', `${P}/scripts/`)).scripts,
  };
}

type Seeded = Awaited<ReturnType<typeof seedThroughCloudKitty>>;

/** What the upgrade must not touch, as stored: ids, parents, values, costs, levels, script bytes. */
function storedRules(url: string) {
  return Promise.all([
    selectRows(url, 'select id, mapping_id, value, cost, map_type, service_id, field_id, group_id, tenant_id from hashmap_mappings order by id'),
    selectRows(url, 'select id, threshold_id, level, cost, map_type, service_id, field_id, group_id, tenant_id from hashmap_thresholds order by id'),
    selectRows(url, 'select id, script_id, name, data, checksum from pyscripts_scripts order by id'),
    selectRows(url, 'select * from hashmap_services order by id'),
    selectRows(url, 'select * from hashmap_fields order by id'),
    selectRows(url, 'select * from hashmap_groups order by id'),
  ]);
}

function sameDecimal(actual: string, expected: string): void {
  expect(new Decimal(actual).eq(new Decimal(expected)), `${actual} = ${expected}`).toBe(true);
}

describe.skipIf(!databaseHas('cloudKittyProduction') || !cloudKittyAvailable())(`adopting a CloudKitty 17 database on ${kind}`, () => {
  let directory: string;
  let scratch: ScratchDatabase;
  let seeded: Seeded;
  let pricesBefore: Record<string, string[]>;
  let countsBefore: Record<string, number>;
  let storedBefore: Record<string, unknown>[][];
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-adopt-'));
    scratch = await createScratchDatabase(directory);
    const ck = await startCloudKitty(scratch.url);
    try {
      seeded = await seedThroughCloudKitty(ck);
      pricesBefore = {};
      for (const tenant of [null, 'tenant-a']) {
        const answer = await cloudKittyPrices(ck.configFile, tenant, POINTS);
        expect(answer.modules).toEqual(['hashmap', 'pyscripts']);
        pricesBefore[String(tenant)] = answer.prices;
      }
    } finally {
      await ck.stop();
    }
    countsBefore = await rowCounts(scratch.url);
    storedBefore = await storedRules(scratch.url);
  }, 900_000);

  afterAll(async () => {
    await server?.stop();
    await scratch?.drop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('db upgrade --dry-run prints the plan and changes nothing', async () => {
    const before = await columnsOf(scratch.url, 'hashmap_mappings');
    const dryRun = await runTariff(scratch.url, 'db', 'upgrade', '--dry-run');
    expect(dryRun.code, dryRun.stderr).toBe(0);
    expect(dryRun.stdout).toContain('hashmap: CloudKitty 17 to 22, revision 4e0232ce');
    expect(dryRun.stdout).toMatch(/ALTER TABLE hashmap_mappings .*ADD COLUMN name varchar\(32\)/);
    expect(dryRun.stdout).toContain('dry run: nothing was changed');
    expect(await columnsOf(scratch.url, 'hashmap_mappings')).toEqual(before);
    expect(await rowCounts(scratch.url)).toEqual(countsBefore);
  });

  it('serve refuses the CloudKitty 17 tables until db upgrade ran', async () => {
    const refused = await startServerProcess(scratch.url).then(
      (started) => started.stop().then(() => 'started'),
      (error: Error) => error.message,
    );
    expect(refused).toContain("run 'tariff db upgrade'");
  });

  it('db upgrade keeps every row, id and value, and serves them', async () => {
    const upgrade = await runTariff(scratch.url, 'db', 'upgrade');
    expect(upgrade.code, upgrade.stderr).toBe(0);
    expect(await rowCounts(scratch.url)).toEqual(countsBefore);
    expect(await storedRules(scratch.url)).toEqual(storedBefore);
    expect(await selectRows(scratch.url, 'select version_num from hashmap_alembic')).toEqual([{ version_num: '8a591f85865f' }]);
    expect(await selectRows(scratch.url, 'select version_num from pyscripts_alembic')).toEqual([{ version_num: 'c6e4cda29654' }]);

    server = await startServerProcess(scratch.url, { TARIFF_SANDBOX_WORKERS: '1' });
    const get = async (path: string) => {
      const answer = await callServer(server!, 'GET', path);
      expect(answer.status, path).toBe(200);
      return answer.body;
    };
    const byName = (items: { name: string }[]) => [...items].sort((a, b) => a.name.localeCompare(b.name));
    expect(byName((await get(`${H}/services`)).services)).toEqual(byName(seeded.services));
    for (const field of seeded.fields) expect(await get(`${H}/fields/${field.field_id}`)).toEqual(field);
    expect(byName((await get(`${H}/groups`)).groups)).toEqual(byName(seeded.groups));
    for (const mapping of seeded.mappings) {
      const served = await get(`${H}/mappings/${mapping.mapping_id}`);
      const { cost, ...rest } = mapping;
      expect(served).toMatchObject(rest);
      sameDecimal(served.cost, cost);
    }
    for (const threshold of seeded.thresholds) {
      const served = await get(`${H}/thresholds/${threshold.threshold_id}`);
      const { cost, level, ...rest } = threshold;
      expect(served).toMatchObject(rest);
      sameDecimal(served.cost, cost);
      sameDecimal(served.level, level);
    }
    for (const script of seeded.scripts) {
      expect(await get(`${P}/scripts/${script.script_id}`)).toMatchObject({
        script_id: script.script_id,
        name: script.name,
        data: script.data,
        checksum: script.checksum,
      });
    }
    const modules = (await get('/v1/rating/modules')).modules;
    expect(modules.find((module: any) => module.module_id === 'hashmap')).toMatchObject({ enabled: true, priority: 2 });
    expect(modules.find((module: any) => module.module_id === 'pyscripts')).toMatchObject({ enabled: true, priority: 1 });
  });

  it('old rules are versioned as CloudKitty 23 versions them', async () => {
    for (const mapping of seeded.mappings) {
      const served = (await callServer(server!, 'GET', `${H}/mappings/${mapping.mapping_id}`)).body;
      expect(served).toMatchObject({ start: '1970-01-01T00:00:00+00:00', end: null, created_by: 'migration', deleted: null });
      expect(served.name).toMatch(/^[0-9a-f]{32}$/);
    }
    for (const script of seeded.scripts) {
      const served = (await callServer(server!, 'GET', `${P}/scripts/${script.script_id}`)).body;
      expect(served).toMatchObject({ start: '2014-01-01T00:00:00+00:00', end: null, created_by: 'migration' });
    }
    // The old unique constraints are gone, replaced by the versioning rules.
    const flavor = seeded.fields.find((field: any) => field.name === 'flavor');
    const overlapping = await callServer(server!, 'POST', `${H}/mappings`, { field_id: flavor.field_id, value: 'm1.large', cost: '9', type: 'flat' });
    expect(overlapping.status).toBe(409);
    // A new price from 2099: end the adopted rule there, then add its successor.
    const adopted = seeded.mappings.find((mapping: any) => mapping.value === 'm1.large' && mapping.tenant_id === null);
    const ended = await callServer(server!, 'PUT', `${H}/mappings/${adopted.mapping_id}`, { end: '2099-01-01T00:00:00' });
    expect(ended.status, JSON.stringify(ended.body)).toBe(200);
    const later = await callServer(server!, 'POST', `${H}/mappings`, {
      field_id: flavor.field_id,
      value: 'm1.large',
      cost: '9',
      type: 'flat',
      start: '2099-01-01T00:00:00',
    });
    expect(later.status, JSON.stringify(later.body)).toBe(201);
    const duplicateScript = await callServer(server!, 'POST', `${P}/scripts`, { name: 'keep-prices', data: 'y = 1\n' });
    expect(duplicateScript.status).toBe(409);
  });

  it('quotes price every point as CloudKitty priced it, with and without a tenant', async () => {
    const usage: Record<string, unknown[]> = {};
    for (const point of POINTS) (usage[point.service] ??= []).push({ vol: { unit: 'unit', qty: point.qty }, metadata: point.metadata, groupby: point.groupby });
    for (const tenant of [null, 'tenant-a']) {
      const quote = await callServer(server!, 'POST', '/v2/rating/quote', { usage, tenant_id: tenant }, { timeoutMs: 60_000 });
      expect(quote.status, JSON.stringify(quote.body)).toBe(200);
      const seen: Record<string, number> = {};
      const prices = POINTS.map((point) => quote.body.usage[point.service][(seen[point.service] = (seen[point.service] ?? -1) + 1)].rating.price);
      pricesBefore[String(tenant)].forEach((expected, index) => sameDecimal(prices[index], expected));
    }
    expect(pricesBefore.null).not.toEqual(pricesBefore['tenant-a']);
  });

  it('names compare exactly on the adopted tables, as on a new database (README: Comparing text)', async () => {
    // CloudKitty's MariaDB tables ignored case; after the upgrade `compute ` and `COMPUTE` are new names.
    for (const name of ['compute ', 'COMPUTE']) {
      const created = await callServer(server!, 'POST', `${H}/services`, { name });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    expect((await callServer(server!, 'POST', `${H}/services`, { name: 'compute' })).status).toBe(409);
    if (databaseIs('mysql')) {
      const collations = await selectRows(
        scratch.url,
        `select distinct collation_name as name from information_schema.columns where table_schema = database() and collation_name is not null
           and table_name in ('hashmap_services', 'hashmap_fields', 'hashmap_groups', 'hashmap_mappings', 'hashmap_thresholds', 'pyscripts_scripts')`,
      );
      expect(collations).toEqual([{ name: 'utf8mb4_nopad_bin' }]);
    }
  });

  it('a database already at CloudKitty 23 layout is used as it is', async () => {
    await server?.stop();
    server = undefined;
    const columns = await columnsOf(scratch.url, 'hashmap_mappings');
    const counts = await rowCounts(scratch.url);
    for (const table of ['tariff_migration', 'tariff_migration_lock', 'tariff_config_version']) await selectRows(scratch.url, `drop table ${table}`);
    const again = await runTariff(scratch.url, 'db', 'upgrade');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('hashmap: CloudKitty 23 or later, revision 8a591f85865f');
    expect(again.stdout).not.toContain('ALTER TABLE');
    expect(await columnsOf(scratch.url, 'hashmap_mappings')).toEqual(columns);
    expect(await rowCounts(scratch.url)).toEqual(counts);
  });
});
