/**
 * The rating module contract is a seam (issue 12): a module written in the tests only
 * (`test/modules/fixed-fee/`, a fixed fee per point) is registered by one line, the list handed to
 * the app, and then its table is migrated, its routes answer under `module_config/fixed_fee` (and
 * the `/v1/billing` alias), its state is kept like CloudKitty's modules', and it prices quotes in
 * its turn among the others, by priority.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultModuleNames, defaultModules } from '../../src/rating/registry.js';
import { H, startTestApp, type TestApp } from '../helpers/app.js';
import { createService, expectFault } from '../helpers/fixtures.js';
import { fixedFeeModule } from '../modules/fixed-fee/module.js';

const FEES = '/v1/rating/module_config/fixed_fee/fees';
/** The modules the app serves: the registry's and the test module, in name order. */
const SERVED = [...defaultModuleNames(), 'fixed_fee'].sort();

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ modules: (dependencies) => [...defaultModules(dependencies), fixedFeeModule] });
});
afterAll(() => t?.close());

/** Sets a module's state through v2. */
async function setModule(name: string, state: { enabled?: boolean; priority?: number }): Promise<void> {
  const response = await t.put(`/v2/rating/modules/${name}`, state);
  expect(response.status, response.text).toBe(204);
}

describe('its table', () => {
  it('is migrated with the others, and its migration recorded', async () => {
    const applied = await sql<{ name: string }>`select name from tariff_migration order by name`.execute(t.database.db);
    expect(applied.rows.map((row) => row.name)).toEqual([
      '0001_rating_tables',
      '0002_config_version',
      '0003_modules_state',
      '0004_exact_text',
      '0005_cloudkitty_layout',
      '0006_time_zone',
      '0007_changes',
      '0008_change_details',
      'fixed_fee_0001_fees',
      'hashmap_0002_names_by_validity',
      'pyscripts_0001_scripts',
      'pyscripts_0002_names_by_validity',
    ]);
    const rows = await sql<{ count: number | string }>`select count(*) as count from fixed_fee_fees`.execute(t.database.db);
    expect(Number(rows.rows[0].count)).toBe(0);
  });
});

describe('its routes', () => {
  it('create, list and delete fees, also through the /v1/billing alias', async () => {
    const created = await t.post(`${FEES}/`, { service: 'routes-test', fee: '1.5' });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({ fee_id: expect.any(String), service: 'routes-test', fee: '1.5000000000000000000000000000' });
    expect(created.headers.location).toMatch(new RegExp(`/v1/rating/module_config/fixed_fee/fees/${created.body.fee_id}$`));
    expectFault(await t.post(FEES, { service: 'routes-test', fee: 2 }), 409, `Service routes-test already has a fee (UUID: ${created.body.fee_id})`);
    expect((await t.get('/v1/billing/module_config/fixed_fee/fees')).body.fees).toContainEqual(created.body);
    expect((await t.del(`${FEES}/${created.body.fee_id}`)).status).toBe(204);
    expect((await t.get(FEES)).body.fees).not.toContainEqual(created.body);
  });

  it('are in the OpenAPI document, beside the built-in modules', async () => {
    const paths = Object.keys((await t.get('/v1/openapi.json')).body.paths);
    expect(paths).toContain('/v1/rating/module_config/fixed_fee/fees');
    expect(paths).toContain('/v1/rating/module_config/hashmap/services');
  });
});

describe('its state', () => {
  it('is listed and kept like the built-in modules, on v1 and v2', async () => {
    const listed = (await t.get('/v1/rating/modules')).body.modules;
    expect(listed.map((module: { module_id: string }) => module.module_id)).toEqual(SERVED);
    await setModule('fixed_fee', { enabled: true, priority: 7 });
    expect((await t.get('/v1/rating/modules/fixed_fee')).body).toEqual({
      module_id: 'fixed_fee',
      description: 'Fixed fee per point (test module).',
      enabled: true,
      'hot-config': true,
      priority: 7,
    });
    const put = await t.put('/v1/rating/modules/fixed_fee', { module_id: 'fixed_fee', enabled: false, priority: 2 });
    expect(put.status, put.text).toBe(200);
    expect((await t.get('/v2/rating/modules/fixed_fee')).body).toEqual({
      module_id: 'fixed_fee',
      description: 'Fixed fee per point (test module).',
      enabled: false,
      hot_config: true,
      priority: 2,
    });
    const rows = await t.database.db.selectFrom('modules_state').select(['name', 'priority']).where('name', '=', 'fixed_fee').execute();
    expect(rows).toEqual([{ name: 'fixed_fee', priority: 2 }]);
  });
});

describe('its pricing', () => {
  const usage = { compute: [{ vol: { unit: 'instance', qty: '2' }, groupby: { flavor: 'm1.nano' } }], volume: [{ vol: { unit: 'GiB', qty: '10' } }] };

  beforeAll(async () => {
    const compute = await createService(t, 'compute');
    expect((await t.post(`${H}/mappings`, { service_id: compute, type: 'flat', cost: '0.5' })).status).toBe(201);
    expect((await t.post(FEES, { service: 'compute', fee: '3' })).status).toBe(201);
  });
  beforeEach(async () => {
    for (const name of SERVED) await setModule(name, { enabled: false, priority: 1 });
  });

  async function quote(): Promise<any> {
    const response = await t.post('/v2/rating/quote', { usage, explain: true });
    expect(response.status, response.text).toBe(200);
    return response.body;
  }

  it('adds its fee to each point of a service with one, and nothing while disabled', async () => {
    await setModule('hashmap', { enabled: true });
    expect((await quote()).usage.compute[0].rating.price).toBe('1');
    await setModule('fixed_fee', { enabled: true });
    const body = await quote();
    expect(body.usage.compute[0].rating.price).toBe('4');
    expect(body.usage.volume[0].rating.price).toBe('0');
    expect(body.total).toBe('4');
    const v1 = await t.post('/v1/rating/quote', { resources: [{ service: 'compute', volume: '2', desc: {} }] });
    expect(v1.text).toBe('4');
  });

  it('prices in priority order: the higher priority first, ties by name', async () => {
    await setModule('hashmap', { enabled: true, priority: 1 });
    await setModule('fixed_fee', { enabled: true, priority: 5 });
    expect((await quote()).usage.compute[0].explain.map((entry: { module: string }) => entry.module)).toEqual(['fixed_fee', 'hashmap']);
    await setModule('hashmap', { priority: 9 });
    expect((await quote()).usage.compute[0].explain.map((entry: { module: string }) => entry.module)).toEqual(['hashmap', 'fixed_fee']);
    await setModule('hashmap', { priority: 5 });
    const explain = (await quote()).usage.compute[0].explain;
    expect(explain.map((entry: { module: string }) => entry.module)).toEqual(['fixed_fee', 'hashmap']);
    expect(explain[0]).toEqual({ module: 'fixed_fee', fee: '3' });
  });

  it('sees a fee written through its routes in the next quote', async () => {
    await setModule('fixed_fee', { enabled: true });
    expect((await quote()).usage.volume[0].rating.price).toBe('0');
    const created = await t.post(FEES, { service: 'volume', fee: '0.25' });
    expect(created.status, created.text).toBe(201);
    expect((await quote()).usage.volume[0].rating.price).toBe('0.25');
    expect((await t.del(`${FEES}/${created.body.fee_id}`)).status).toBe(204);
    expect((await quote()).usage.volume[0].rating.price).toBe('0');
  });
});

describe('an app without it', () => {
  let plain: TestApp;

  beforeAll(async () => {
    plain = await startTestApp();
  });
  afterAll(() => plain?.close());

  it('knows nothing of it: no state, no routes, no table', async () => {
    expectFault(await plain.get('/v1/rating/modules/fixed_fee'), 404, 'Module not found.');
    expect((await plain.get(FEES)).status).toBe(404);
    const applied = await sql<{ name: string }>`select name from tariff_migration`.execute(plain.database.db);
    expect(applied.rows.map((row) => row.name)).not.toContain('fixed_fee_0001_fees');
  });
});
