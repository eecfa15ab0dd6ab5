/**
 * Rating modules over HTTP (rating.md §2): the v1 API the CloudKitty client speaks (`hot-config`,
 * WSME faults, PUT echoing the whole module), the v2 API (`hot_config`, `{"message"}` errors, PUT
 * partial → 204), `reload_modules`, the unconfigurable `noop`, the `/v1/billing` alias, and module
 * state kept in the database.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultModuleNames, defaultModules } from '../../src/rating/registry.js';
import { H, startTestApp, type TestApp } from '../helpers/app.js';
import { createService, expectFault } from '../helpers/fixtures.js';

const M = '/v1/rating/modules';
const M2 = '/v2/rating/modules';

/** CloudKitty's modules as v1 shows them by default (CloudKitty: noop's `hot_config` is the base class's False). */
const CLOUDKITTY_V1 = [
  { module_id: 'hashmap', description: 'HashMap rating module.', enabled: false, 'hot-config': true, priority: 1 },
  { module_id: 'noop', description: 'Dummy test module.', enabled: false, 'hot-config': false, priority: 1 },
  { module_id: 'pyscripts', description: 'PyScripts rating module.', enabled: false, 'hot-config': true, priority: 1 },
];
/** Every module of the registry as v1 shows it by default, in name order: CloudKitty's as CloudKitty does. */
const DEFAULT_V1 = defaultModuleNames().map((name) => CLOUDKITTY_V1.find((module) => module.module_id === name) ?? ownDefaultV1(name));
const DEFAULT_V2 = DEFAULT_V1.map(({ 'hot-config': hotConfig, ...rest }) => ({
  module_id: rest.module_id,
  description: rest.description,
  enabled: rest.enabled,
  hot_config: hotConfig,
  priority: rest.priority,
}));

const v1Default = (name: string) => ({ ...DEFAULT_V1.find((module) => module.module_id === name)! });
const v2Default = (name: string) => ({ ...DEFAULT_V2.find((module) => module.module_id === name)! });

/** A module of the registry that CloudKitty has not, as v1 shows it by default: its own description and `hot-config`. */
function ownDefaultV1(name: string) {
  const module = defaultModules().find((candidate) => candidate.name === name)!;
  return { module_id: name, description: module.description, enabled: false, 'hot-config': module.hotConfig, priority: 1 };
}

/** The default `modules` listing with some modules' state changed, by name (each one a listed module). */
function changed<Module extends { module_id: string }>(listing: Module[], changes: Record<string, Partial<Module>>): Module[] {
  for (const name of Object.keys(changes)) expect(listing.map((module) => module.module_id)).toContain(name);
  return listing.map((module) => ({ ...module, ...changes[module.module_id] }));
}

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

/** Puts every module back to its default state (disabled, priority 1) through v2. */
async function resetModules(): Promise<void> {
  for (const { module_id: name } of DEFAULT_V1) {
    const response = await t.put(`${M2}/${name}`, { enabled: false, priority: 1 });
    expect(response.status, response.text).toBe(204);
  }
}

/** The module as `GET /v1/rating/modules/{m}` shows it (the client's form, with `?module_id=`). */
async function getV1(name: string): Promise<any> {
  const response = await t.get(`${M}/${name}?module_id=${name}`);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

describe('v1 /v1/rating/modules', () => {
  beforeEach(resetModules);

  it('lists the three modules with their CloudKitty descriptions, disabled, priority 1', async () => {
    // The client asks with a trailing slash.
    for (const url of [`${M}/`, M]) {
      const response = await t.get(url);
      expect(response.status, response.text).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.body).toEqual({ modules: DEFAULT_V1 });
      // CloudKitty's three among them, as CloudKitty shows them.
      expect(response.body.modules).toEqual(expect.arrayContaining(CLOUDKITTY_V1));
      // Exactly these keys, with `hot-config` spelled with a dash.
      for (const module of response.body.modules) expect(Object.keys(module).sort()).toEqual(['description', 'enabled', 'hot-config', 'module_id', 'priority']);
    }
  });

  it('gets one module, ignoring the redundant ?module_id= the client sends', async () => {
    for (const name of defaultModuleNames()) {
      expect(await getV1(name)).toEqual(v1Default(name));
      const plain = await t.get(`${M}/${name}`);
      expect(plain.status).toBe(200);
      expect(plain.body).toEqual(v1Default(name));
    }
  });

  it('answers 404 `Module not found.` for an unknown module, on GET and PUT', async () => {
    expectFault(await t.get(`${M}/nope`), 404, 'Module not found.');
    expectFault(await t.get(`${M}/nope?module_id=nope`), 404, 'Module not found.');
    expectFault(await t.get(`${M}/Hashmap`), 404, 'Module not found.');
    expectFault(await t.put(`${M}/nope`, { module_id: 'nope', enabled: true }), 404, 'Module not found.');
  });

  it('PUT with the whole module echoed (enable): 200 with the module, state changed', async () => {
    const echoed = { ...(await getV1('hashmap')), enabled: true };
    const response = await t.put(`${M}/hashmap`, echoed);
    expect(response.status, response.text).toBe(200);
    expect(response.wireStatus).toBe(302);
    expect(response.body).toEqual({ ...v1Default('hashmap'), enabled: true });
    expect(await getV1('hashmap')).toEqual({ ...v1Default('hashmap'), enabled: true });
    // Only hashmap changed.
    expect(await getV1('pyscripts')).toEqual(v1Default('pyscripts'));
    expect(await getV1('noop')).toEqual(v1Default('noop'));
  });

  it('PUT disables and sets the priority; both survive each other', async () => {
    expect((await t.put(`${M}/pyscripts`, { ...v1Default('pyscripts'), enabled: true })).status).toBe(200);
    const prioritised = await t.put(`${M}/pyscripts`, { ...(await getV1('pyscripts')), priority: 5 });
    expect(prioritised.status, prioritised.text).toBe(200);
    expect(prioritised.body).toEqual({ ...v1Default('pyscripts'), enabled: true, priority: 5 });
    const disabled = await t.put(`${M}/pyscripts`, { ...(await getV1('pyscripts')), enabled: false });
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.body).toEqual({ ...v1Default('pyscripts'), enabled: false, priority: 5 });
    expect(await getV1('pyscripts')).toEqual({ ...v1Default('pyscripts'), enabled: false, priority: 5 });
    // A large priority is fine.
    expect((await t.put(`${M}/pyscripts`, { priority: 1000 })).body.priority).toBe(1000);
    expect((await getV1('pyscripts')).priority).toBe(1000);
  });

  it('PUT applies only enabled and priority: an echoed description or hot-config is not stored', async () => {
    const response = await t.put(`${M}/hashmap`, { module_id: 'hashmap', description: 'Changed.', enabled: true, 'hot-config': false, priority: 3 });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ ...v1Default('hashmap'), enabled: true, priority: 3 });
    expect(await getV1('hashmap')).toEqual({ ...v1Default('hashmap'), enabled: true, priority: 3 });
    // A body with neither changes nothing.
    const echo = await t.put(`${M}/hashmap`, { module_id: 'hashmap' });
    expect(echo.status, echo.text).toBe(200);
    expect(echo.body).toEqual({ ...v1Default('hashmap'), enabled: true, priority: 3 });
  });

  it('refuses a bad priority with a 400 WSME fault and keeps the state', async () => {
    await t.put(`${M}/hashmap`, { priority: 4 });
    const cases: [unknown, string][] = [
      [0, "Invalid input for field/attribute priority. Value: '0'. Value should be greater or equal to 1"],
      [-1, "Invalid input for field/attribute priority. Value: '-1'. Value should be greater or equal to 1"],
      ['x', "Invalid input for field/attribute priority. Value: 'x'. Wrong type. Expected 'int', got 'str'"],
      [1.5, "Invalid input for field/attribute priority. Value: '1.5'. Wrong type. Expected 'int', got 'float'"],
    ];
    for (const [priority, message] of cases) {
      expectFault(await t.put(`${M}/hashmap`, { ...v1Default('hashmap'), priority }), 400, message);
    }
    expectFault(
      await t.put(`${M}/hashmap`, { enabled: 'yes' }),
      400,
      "Invalid input for field/attribute enabled. Value: 'yes'. Wrong type. Expected 'bool', got 'str'",
    );
    expect(await getV1('hashmap')).toEqual({ ...v1Default('hashmap'), priority: 4 });
  });

  it('refuses an unknown body attribute with a 400 naming it', async () => {
    expectFault(await t.put(`${M}/hashmap`, { ...v1Default('hashmap'), enabled: true, colour: 'red' }), 400, 'Unknown attribute for argument module: colour');
    expect((await getV1('hashmap')).enabled).toBe(false);
  });

  it('GET /v1/rating/reload_modules answers 204 with no body', async () => {
    for (const url of ['/v1/rating/reload_modules', '/v1/rating/reload_modules/']) {
      const response = await t.get(url);
      expect(response.status, response.text).toBe(204);
      expect(response.text).toBe('');
    }
  });

  it("reload_modules drops the cached rules: a change made behind the server's back is seen after it", async () => {
    const serviceId = await createService(t, 'reload.svc');
    expect((await t.post(`${H}/mappings/`, { service_id: serviceId, cost: '2' })).status).toBe(201);
    expect((await t.put(`${M}/hashmap`, { enabled: true })).status).toBe(200);
    const quote = async () => {
      const response = await t.post('/v2/rating/quote', { usage: { 'reload.svc': [{ vol: { unit: 'u', qty: '3' } }] } });
      expect(response.status, response.text).toBe(200);
      return response.body.total;
    };
    expect(await quote()).toBe('6');
    // Behind the server's back: no configuration write through the app, no version bump.
    await t.tables.updateTable('hashmap_mappings').set({ cost: '5' }).where('service_id', 'is not', null).execute();
    expect(await quote()).toBe('6');
    expect((await t.get('/v1/rating/reload_modules')).status).toBe(204);
    expect(await quote()).toBe('15');
    // Behind the server's back again, for the module state.
    await t.tables.updateTable('modules_state').set({ priority: 9 }).where('name', '=', 'hashmap').execute();
    await t.tables.deleteFrom('hashmap_mappings').execute();
    expect(await quote()).toBe('15');
    expect((await t.get('/v1/rating/reload_modules/')).status).toBe(204);
    expect(await quote()).toBe('0');
    expect((await t.del(`${H}/services/${serviceId}`)).status).toBe(204);
  });
});

describe('v2 /v2/rating/modules', () => {
  beforeEach(resetModules);

  it('lists the modules with the key hot_config', async () => {
    const response = await t.get(M2);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ modules: DEFAULT_V2 });
    for (const module of response.body.modules) expect(Object.keys(module).sort()).toEqual(['description', 'enabled', 'hot_config', 'module_id', 'priority']);
    expect((await t.get(`${M2}/`)).body).toEqual({ modules: DEFAULT_V2 });
  });

  it('gets one module', async () => {
    for (const expected of DEFAULT_V2) {
      const response = await t.get(`${M2}/${expected.module_id}`);
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual(expected);
    }
  });

  it('answers 404 {"message": "Module \'x\' not found"} for an unknown module, on GET and PUT', async () => {
    for (const response of [await t.get(`${M2}/x`), await t.put(`${M2}/x`, { enabled: true })]) {
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ message: "Module 'x' not found" });
    }
  });

  it('PUT with a partial body answers 204; GET shows the change, in v1 too', async () => {
    const enabled = await t.put(`${M2}/hashmap`, { enabled: true });
    expect(enabled.status, enabled.text).toBe(204);
    expect(enabled.text).toBe('');
    expect((await t.get(`${M2}/hashmap`)).body).toEqual({ ...v2Default('hashmap'), enabled: true });
    const prioritised = await t.put(`${M2}/hashmap`, { priority: 7 });
    expect(prioritised.status, prioritised.text).toBe(204);
    // Priority alone keeps enabled.
    expect((await t.get(`${M2}/hashmap`)).body).toEqual({ ...v2Default('hashmap'), enabled: true, priority: 7 });
    expect(await getV1('hashmap')).toEqual({ ...v1Default('hashmap'), enabled: true, priority: 7 });
    // Enabled alone keeps the priority; an empty body changes nothing.
    expect((await t.put(`${M2}/hashmap`, { enabled: false })).status).toBe(204);
    expect((await t.put(`${M2}/hashmap`, {})).status).toBe(204);
    expect((await t.get(`${M2}/hashmap`)).body).toEqual({ ...v2Default('hashmap'), enabled: false, priority: 7 });
    // The list shows it too, and the other modules did not move.
    expect((await t.get(M2)).body).toEqual({ modules: changed(DEFAULT_V2, { hashmap: { priority: 7 } }) });
  });

  it('refuses a bad body with 400 {"message"} and keeps the state', async () => {
    for (const body of [
      { priority: 0 },
      { priority: -1 },
      { priority: 'x' },
      { priority: 1.5 },
      { enabled: 'yes' },
      { colour: 'red' },
      { enabled: true, module_id: 'hashmap' },
    ]) {
      const response = await t.put(`${M2}/hashmap`, body);
      expect(response.status, `${JSON.stringify(body)} → ${response.text}`).toBe(400);
      expect(Object.keys(response.body)).toEqual(['message']);
      expect(typeof response.body.message).toBe('string');
    }
    expect((await t.put(`${M2}/hashmap`, { priority: 0 })).body.message).toMatch(/priority/);
    expect((await t.put(`${M2}/hashmap`, { colour: 'red' })).body.message).toMatch(/colour/);
    expect((await t.get(`${M2}/hashmap`)).body).toEqual(v2Default('hashmap'));
  });
});

describe('module_config/noop', () => {
  it('any method anywhere under it is a 409 `Module is not configurable`', async () => {
    const urls = [
      '/v1/rating/module_config/noop',
      '/v1/rating/module_config/noop/',
      '/v1/rating/module_config/noop/services',
      '/v1/rating/module_config/noop/a/b/c?x=1',
      '/v1/billing/module_config/noop/mappings/',
    ];
    for (const url of urls) {
      for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH']) {
        const response = await t.request(method, url, method === 'GET' ? undefined : { name: 'x' });
        expect({ url, method, status: response.status, body: response.body }).toEqual({
          url,
          method,
          status: 409,
          body: { faultcode: 'Client', faultstring: 'Module is not configurable', debuginfo: null },
        });
      }
    }
  });
});

describe('/v1/billing alias', () => {
  beforeEach(resetModules);

  it('lists, gets and updates modules like /v1/rating', async () => {
    expect((await t.get('/v1/billing/modules/')).body).toEqual({ modules: DEFAULT_V1 });
    expect((await t.get('/v1/billing/modules/noop?module_id=noop')).body).toEqual(v1Default('noop'));
    expectFault(await t.get('/v1/billing/modules/nope'), 404, 'Module not found.');
    const response = await t.put('/v1/billing/modules/noop', { ...v1Default('noop'), enabled: true, priority: 2 });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ ...v1Default('noop'), enabled: true, priority: 2 });
    expect(await getV1('noop')).toEqual({ ...v1Default('noop'), enabled: true, priority: 2 });
    expect((await t.get('/v1/billing/reload_modules')).status).toBe(204);
  });
});

describe('persistence', () => {
  it('module state is stored in the database: a new app on the same database sees it', async () => {
    await resetModules();
    expect((await t.put(`${M}/hashmap`, { ...v1Default('hashmap'), enabled: true, priority: 3 })).status).toBe(200);
    expect((await t.put(`${M2}/pyscripts`, { priority: 8 })).status).toBe(204);
    const other = await startTestApp({ databaseUrl: t.databaseUrl });
    try {
      expect((await other.get(`${M}/`)).body).toEqual({
        modules: changed(DEFAULT_V1, { hashmap: { enabled: true, priority: 3 }, pyscripts: { priority: 8 } }),
      });
      // And CloudKitty's table holds it.
      const rows = await other.database.db.selectFrom('modules_state').select(['name', 'priority']).orderBy('name').execute();
      expect(rows.filter((row) => row.name !== 'noop')).toEqual([
        { name: 'hashmap', priority: 3 },
        { name: 'pyscripts', priority: 8 },
      ]);
      // A change through the second app is seen by the first (a write by another handle).
      expect((await other.put(`${M2}/hashmap`, { enabled: false })).status).toBe(204);
    } finally {
      await other.close();
    }
    expect((await getV1('hashmap')).enabled).toBe(false);
  });
});
