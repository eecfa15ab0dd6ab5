/**
 * CloudKitty wire conventions every route follows (api.md §1): trailing slashes, JSON content type
 * on bodiless requests, query booleans, unknown query parameters, the `/v1/billing` alias, the
 * unversioned routes, 404/405 faults, request ids, absolute `Location`s, PUT without redirects and
 * the exact shape of fault bodies.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, P, daysFromNow, startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { expectFault } from '../helpers/fixtures.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const REQUEST_ID = /^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const B = '/v1/billing/module_config/hashmap';

/** Ids of one object of every kind, made once per app. */
interface Fixture {
  service: string;
  field: string;
  group: string;
  mapping: any;
  threshold: any;
  script: any;
}

async function makeFixture(t: TestApp): Promise<Fixture> {
  const service = (await t.post(`${H}/services/`, { name: 'compute' })).body.service_id;
  const field = (await t.post(`${H}/fields/`, { service_id: service, name: 'flavor' })).body.field_id;
  const group = (await t.post(`${H}/groups/`, { name: 'g' })).body.group_id;
  const mapping = (await t.post(`${H}/mappings/`, { field_id: field, value: 'm1.small', cost: 1, group_id: group })).body;
  const threshold = (await t.post(`${H}/thresholds/`, { service_id: service, level: '10', cost: 0.5, group_id: group })).body;
  const script = (await t.post(`${P}/scripts/`, { name: 'noop', data: 'pass', start: daysFromNow(1) })).body;
  for (const id of [service, field, group, mapping.mapping_id, threshold.threshold_id, script.script_id]) expect(id).toMatch(UUID);
  return { service, field, group, mapping, threshold, script };
}

/** Every GET route of the API with arguments filled in: [path, query]. */
function getRoutes(f: Fixture): Array<[string, string]> {
  return [
    [`${H}/types`, ''],
    [`${H}/services`, ''],
    [`${H}/services/${f.service}`, ''],
    [`${H}/services/${f.service}/fields`, ''],
    [`${H}/services/${f.service}/mappings`, ''],
    [`${H}/fields`, `?service_id=${f.service}`],
    [`${H}/fields/${f.field}`, ''],
    [`${H}/groups`, ''],
    [`${H}/groups/${f.group}`, ''],
    [`${H}/groups/mappings`, `?group_id=${f.group}`],
    [`${H}/groups/${f.group}/mappings`, ''],
    [`${H}/groups/thresholds`, `?group_id=${f.group}`],
    [`${H}/groups/${f.group}/thresholds`, ''],
    [`${H}/mappings`, `?field_id=${f.field}`],
    [`${H}/mappings/${f.mapping.mapping_id}`, ''],
    [`${H}/mappings/group`, `?mapping_id=${f.mapping.mapping_id}`],
    [`${H}/thresholds`, ''],
    [`${H}/thresholds/${f.threshold.threshold_id}`, ''],
    [`${H}/thresholds/group`, `?threshold_id=${f.threshold.threshold_id}`],
    [`${P}/scripts`, ''],
    [`${P}/scripts/${f.script.script_id}`, ''],
    ['/v1', ''],
    ['/v2', ''],
  ];
}

describe('trailing slashes', () => {
  let t: TestApp;
  let f: Fixture;
  beforeAll(async () => {
    t = await startTestApp();
    f = await makeFixture(t);
  });
  afterAll(() => t.close());

  it('answers every GET route the same with and without a trailing slash', async () => {
    for (const [path, query] of getRoutes(f)) {
      const bare = await t.get(`${path}${query}`);
      const slashed = await t.get(`${path}/${query}`);
      expect({ path, status: bare.status }).toEqual({ path, status: 200 });
      expect({ path, status: slashed.status }).toEqual({ path, status: 200 });
      expect(slashed.body).toEqual(bare.body);
    }
  });

  it('answers POST with and without a trailing slash', async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      [`${H}/services`, { name: 'slash-service' }],
      [`${H}/fields`, { service_id: f.service, name: 'slash-field' }],
      [`${H}/groups`, { name: 'slash-group' }],
      [`${H}/mappings`, { service_id: f.service, cost: 1, name: 'slashmapping' }],
      [`${H}/thresholds`, { service_id: f.service, level: 99, cost: 1 }],
      [`${P}/scripts`, { name: 'slash-script', data: '' }],
    ];
    for (const [path, body] of cases) {
      const slashed = await t.post(`${path}/`, body);
      expect({ path, status: slashed.status }).toEqual({ path, status: 201 });
      const uniqueBody = { ...body };
      if ('name' in uniqueBody) uniqueBody.name = `${String(uniqueBody.name)}2`;
      if ('level' in uniqueBody) uniqueBody.level = 100;
      if ('cost' in uniqueBody && !('level' in uniqueBody)) uniqueBody.tenant_id = 'another-tenant';
      const bare = await t.post(path, uniqueBody);
      expect({ path, status: bare.status }).toEqual({ path, status: 201 });
    }
  });

  it('answers PUT and DELETE on item URLs with a trailing slash', async () => {
    const threshold = (await t.post(`${H}/thresholds/`, { service_id: f.service, level: 200, cost: 1 })).body;
    const put = await t.put(`${H}/thresholds/${threshold.threshold_id}/`, { cost: 2 });
    expect(put.status).toBe(200);
    expect(put.body.cost).toBe('2.0000000000000000000000000000');
    const script = (await t.post(`${P}/scripts/`, { name: 'item-slash', data: 'a = 1', start: daysFromNow(1) })).body;
    const putScript = await t.put(`${P}/scripts/${script.script_id}/`, { description: 'described' });
    expect(putScript.status).toBe(200);
    expect(putScript.body.description).toBe('described');

    const service = (await t.post(`${H}/services/`, { name: 'to-delete' })).body.service_id;
    const group = (await t.post(`${H}/groups/`, { name: 'to-delete' })).body.group_id;
    const mapping = (await t.post(`${H}/mappings/`, { service_id: f.service, cost: 3, tenant_id: 'to-delete' })).body;
    for (const url of [
      `${H}/services/${service}/`,
      `${H}/groups/${group}/`,
      `${H}/mappings/${mapping.mapping_id}/`,
      `${H}/thresholds/${threshold.threshold_id}/`,
      `${P}/scripts/${script.script_id}/`,
    ]) {
      const deleted = await t.del(url);
      expect({ url, status: deleted.status, text: deleted.text }).toEqual({ url, status: 204, text: '' });
    }
  });
});

describe('bodiless requests with a JSON content type', () => {
  let t: TestApp;
  let f: Fixture;
  beforeAll(async () => {
    t = await startTestApp();
    f = await makeFixture(t);
  });
  afterAll(() => t.close());

  it('GET with Content-Type: application/json and an empty body works', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: `${H}/services/`,
      headers: { 'content-type': 'application/json', 'content-length': '0' },
      payload: '',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ services: [{ service_id: f.service, name: 'compute' }] });
    const item = await t.app.inject({
      method: 'GET',
      url: `${H}/thresholds/${f.threshold.threshold_id}`,
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(item.statusCode).toBe(200);
    expect(item.json()).toEqual(f.threshold);
  });

  it('GET without any content type works too', async () => {
    const response = await t.app.inject({ method: 'GET', url: `${H}/types/` });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(['flat', 'rate']);
  });

  it('DELETE without a body works, with or without a JSON content type', async () => {
    const withType = await t.app.inject({
      method: 'DELETE',
      url: `${P}/scripts/${f.script.script_id}`,
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(withType.statusCode).toBe(204);
    expect(withType.body).toBe('');
    const withoutType = await t.app.inject({ method: 'DELETE', url: `${H}/thresholds/${f.threshold.threshold_id}` });
    expect(withoutType.statusCode).toBe(204);
    expect(withoutType.body).toBe('');
    expectFault(await t.get(`${H}/thresholds/${f.threshold.threshold_id}`), 404, `No such threshold: ${f.threshold.threshold_id}`);
  });
});

describe('query strings', () => {
  let t: TestApp;
  let f: Fixture;
  let ungrouped: any;
  beforeAll(async () => {
    t = await startTestApp();
    f = await makeFixture(t);
    ungrouped = (await t.post(`${H}/thresholds/`, { service_id: f.service, level: 20, cost: 1 })).body;
  });
  afterAll(() => t.close());

  it('accepts true, True and 1 as true', async () => {
    for (const value of ['true', 'True', '1']) {
      const response = await t.get(`${H}/thresholds/?no_group=${value}`);
      expect({ value, status: response.status }).toEqual({ value, status: 200 });
      expect(response.body).toEqual({ thresholds: [ungrouped] });
    }
    const scripts = await t.get(`${P}/scripts/?no_data=True`);
    expect(scripts.status).toBe(200);
    expect(scripts.body.scripts).toHaveLength(1);
    expect('data' in scripts.body.scripts[0]).toBe(false);
  });

  it('accepts false, False and 0 as false', async () => {
    for (const value of ['false', 'False', '0']) {
      const response = await t.get(`${H}/thresholds/?no_group=${value}`);
      expect({ value, status: response.status }).toEqual({ value, status: 200 });
      expect(response.body).toEqual({ thresholds: [f.threshold, ungrouped] });
    }
    const scripts = await t.get(`${P}/scripts/?no_data=0`);
    expect(scripts.body.scripts[0].data).toBe('pass');
  });

  it('refuses any other boolean text with 400 naming the parameter', async () => {
    const choices = 'Value should be one of: true, True, 1, false, False, 0';
    expectFault(await t.get(`${H}/thresholds/?no_group=maybe`), 400, `Invalid input for field/attribute no_group. Value: 'maybe'. ${choices}`);
    expectFault(await t.get(`${H}/mappings/?field_id=${f.field}&deleted=yes`), 400, `Invalid input for field/attribute deleted. Value: 'yes'. ${choices}`);
    expectFault(await t.get(`${P}/scripts/?no_data=TRUE`), 400, `Invalid input for field/attribute no_data. Value: 'TRUE'. ${choices}`);
    expectFault(await t.del(`${H}/groups/${f.group}?recursive=maybe`), 400, `Invalid input for field/attribute recursive. Value: 'maybe'. ${choices}`);
    expect((await t.get(`${H}/groups/${f.group}`)).status).toBe(200);
    expectFault(
      await t.post(`${H}/mappings/?force=maybe`, { service_id: f.service, cost: 1 }),
      400,
      `Invalid input for field/attribute force. Value: 'maybe'. ${choices}`,
    );
  });

  it('refuses an unknown query parameter on every kind of route', async () => {
    const urls = [
      `${H}/types/?foo=1`,
      `${H}/services/?foo=1`,
      `${H}/services/${f.service}?foo=1`,
      `${H}/services/${f.service}/fields?foo=1`,
      `${H}/services/${f.service}/mappings?foo=1`,
      `${H}/fields/?service_id=${f.service}&foo=1`,
      `${H}/fields/${f.field}?foo=1`,
      `${H}/groups/?foo=1`,
      `${H}/groups/${f.group}?foo=1`,
      `${H}/groups/mappings?group_id=${f.group}&foo=1`,
      `${H}/groups/${f.group}/thresholds?foo=1`,
      `${H}/mappings/?foo=1`,
      `${H}/mappings/${f.mapping.mapping_id}?foo=1`,
      `${H}/mappings/group?mapping_id=${f.mapping.mapping_id}&foo=1`,
      `${H}/thresholds/?foo=1`,
      `${H}/thresholds/${f.threshold.threshold_id}?foo=1`,
      `${P}/scripts/?foo=1`,
      `${P}/scripts/${f.script.script_id}?foo=1`,
    ];
    for (const url of urls) {
      const response = await t.get(url);
      expect({ url, status: response.status, body: response.body }).toEqual({
        url,
        status: 400,
        body: { faultcode: 'Client', faultstring: 'Unknown argument: "foo"', debuginfo: null },
      });
    }
  });

  it('refuses an unknown query parameter on writes, and writes nothing', async () => {
    expectFault(await t.post(`${H}/services/?foo=1`, { name: 'with-query' }), 400, 'Unknown argument: "foo"');
    expectFault(await t.post(`${H}/fields/?foo=1`, { service_id: f.service, name: 'with-query' }), 400, 'Unknown argument: "foo"');
    expectFault(await t.post(`${H}/groups/?foo=1`, { name: 'with-query' }), 400, 'Unknown argument: "foo"');
    expectFault(await t.post(`${H}/thresholds/?foo=1`, { service_id: f.service, level: 30, cost: 1 }), 400, 'Unknown argument: "foo"');
    expectFault(await t.post(`${H}/mappings/?foo=1`, { service_id: f.service, cost: 1 }), 400, 'Unknown argument: "foo"');
    expectFault(await t.post(`${P}/scripts/?foo=1`, { name: 'with-query', data: '' }), 400, 'Unknown argument: "foo"');
    expectFault(await t.put(`${H}/thresholds/${f.threshold.threshold_id}?foo=1`, { cost: 5 }), 400, 'Unknown argument: "foo"');
    expectFault(await t.del(`${H}/services/${f.service}?foo=1`), 400, 'Unknown argument: "foo"');
    expect((await t.get(`${H}/services/`)).body.services).toHaveLength(1);
    expect((await t.get(`${H}/groups/`)).body.groups).toHaveLength(1);
    expect((await t.get(`${H}/thresholds/${f.threshold.threshold_id}`)).body).toEqual(f.threshold);
    expect((await t.get(`${P}/scripts/`)).body.scripts).toHaveLength(1);
  });

  it('accepts a redundant id in the query equal to the path id', async () => {
    const cases: Array<[string, unknown]> = [
      [`${H}/services/${f.service}?service_id=${f.service}`, { service_id: f.service, name: 'compute' }],
      [`${H}/services/${f.service}/fields?service_id=${f.service}`, { fields: [{ field_id: f.field, name: 'flavor', service_id: f.service }] }],
      [`${H}/fields/${f.field}?field_id=${f.field}`, { field_id: f.field, name: 'flavor', service_id: f.service }],
      [`${H}/groups/${f.group}?group_id=${f.group}`, { group_id: f.group, name: 'g' }],
      [`${H}/groups/${f.group}/mappings?group_id=${f.group}`, { mappings: [f.mapping] }],
      [`${H}/mappings/${f.mapping.mapping_id}?mapping_id=${f.mapping.mapping_id}`, f.mapping],
      [`${H}/thresholds/${f.threshold.threshold_id}?threshold_id=${f.threshold.threshold_id}`, f.threshold],
      [`${P}/scripts/${f.script.script_id}?script_id=${f.script.script_id}`, f.script],
    ];
    for (const [url, expected] of cases) {
      const response = await t.get(url);
      expect({ url, status: response.status }).toEqual({ url, status: 200 });
      expect(response.body).toEqual(expected);
    }
  });

  it('refuses a query id that differs from the path id', async () => {
    const other = '00000000-0000-4000-8000-000000000000';
    expectFault(
      await t.get(`${H}/services/${f.service}?service_id=${other}`),
      400,
      `Parameter service_id was given several times with different values: '${f.service}' and '${other}'`,
    );
    expectFault(
      await t.get(`${H}/services/${f.service}/fields?service_id=${other}`),
      400,
      `Parameter service_id was given several times with different values: '${f.service}' and '${other}'`,
    );
  });
});

describe('the /v1/billing alias and the unversioned routes', () => {
  let t: TestApp;
  let f: Fixture;
  beforeAll(async () => {
    t = await startTestApp();
    f = await makeFixture(t);
  });
  afterAll(() => t.close());

  it('serves the same data under /v1/billing', async () => {
    for (const [path, query] of getRoutes(f)) {
      if (!path.startsWith(H)) continue;
      const rating = await t.get(`${path}${query}`);
      const billing = await t.get(`${path.replace(H, B)}${query}`);
      expect({ path, status: billing.status }).toEqual({ path, status: 200 });
      expect(billing.body).toEqual(rating.body);
    }
    const scripts = await t.get('/v1/billing/module_config/pyscripts/scripts/');
    expect(scripts.status).toBe(200);
    expect(scripts.body).toEqual((await t.get(`${P}/scripts/`)).body);
  });

  it('writes through /v1/billing, with a Location under /v1/billing', async () => {
    const created = await t.post(`${B}/services/`, { name: 'billed' });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`http://localhost:80${B}/services/${created.body.service_id}`);
    expect((await t.get(`${H}/services/${created.body.service_id}`)).body).toEqual({ service_id: created.body.service_id, name: 'billed' });
    expectFault(await t.get(`${B}/services/${f.field}`), 404, `No such service: None (UUID: ${f.field})`);
    const deleted = await t.del(`${B}/services/`, { service_id: created.body.service_id });
    expect(deleted.status).toBe(204);
    expectFault(await t.get(`${H}/services/${created.body.service_id}`), 404, `No such service: None (UUID: ${created.body.service_id})`);
  });

  it('GET /healthcheck answers 200', async () => {
    const response = await t.get('/healthcheck');
    expect(response.status).toBe(200);
    expect(response.text).toBe('OK');
  });

  it('GET /v1/openapi.json is an OpenAPI 3 document listing the hashmap and pyscripts paths', async () => {
    const response = await t.get('/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(String(response.headers['content-type'])).toMatch(/^application\/json/);
    const document = response.body;
    expect(document.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(typeof document.info.title).toBe('string');
    const paths = Object.keys(document.paths);
    for (const path of [
      `${H}/types`,
      `${H}/services`,
      `${H}/services/{service_id}`,
      `${H}/fields`,
      `${H}/fields/{field_id}`,
      `${H}/groups`,
      `${H}/groups/{group_id}`,
      `${H}/mappings`,
      `${H}/mappings/{mapping_id}`,
      `${H}/thresholds`,
      `${H}/thresholds/{threshold_id}`,
      `${P}/scripts`,
      `${P}/scripts/{script_id}`,
    ]) {
      expect(paths).toContain(path);
    }
    expect(Object.keys(document.paths[`${H}/mappings`]).sort()).toEqual(['delete', 'get', 'post', 'put']);
    expect(paths.filter((path) => path.startsWith('/v1/billing'))).toEqual([]);
  });
});

describe('unknown routes and wrong methods', () => {
  let t: TestApp;
  let f: Fixture;
  beforeAll(async () => {
    t = await startTestApp();
    f = await makeFixture(t);
  });
  afterAll(() => t.close());

  it('answers an unknown route with a 404 fault', async () => {
    expectFault(await t.get('/v1/nothing'), 404, 'Resource not found: GET /v1/nothing');
    expectFault(await t.get(`${H}/nothing/`), 404, `Resource not found: GET ${H}/nothing/`);
    expectFault(await t.post(`${H}/services/${f.service}/nothing`, {}), 404, `Resource not found: POST ${H}/services/${f.service}/nothing`);
    expectFault(await t.get('/v3?x=1'), 404, 'Resource not found: GET /v3');
  });

  it('answers a wrong method on a known route with a 405 fault and an Allow header', async () => {
    const cases: Array<[string, string, string]> = [
      ['PATCH', `${H}/services`, 'DELETE, GET, HEAD, POST'],
      ['PUT', `${H}/services/`, 'DELETE, GET, HEAD, POST'],
      ['POST', `${H}/services/${f.service}`, 'DELETE, GET, HEAD'],
      ['DELETE', `${H}/types`, 'GET, HEAD'],
      ['PUT', `${H}/groups/${f.group}`, 'DELETE, GET, HEAD'],
      ['POST', `${H}/thresholds/${f.threshold.threshold_id}`, 'DELETE, GET, HEAD, PUT'],
      ['PATCH', `${P}/scripts/`, 'DELETE, GET, HEAD, POST, PUT'],
      ['POST', '/healthcheck', 'GET, HEAD'],
    ];
    for (const [method, url, allow] of cases) {
      const response = await t.request(method, url, {});
      expect({ method, url, status: response.status, allow: response.headers.allow, body: response.body }).toEqual({
        method,
        url,
        status: 405,
        allow,
        body: { faultcode: 'Client', faultstring: `Method ${method} is not allowed on ${url}`, debuginfo: null },
      });
    }
    expect((await t.get(`${H}/services/${f.service}`)).status).toBe(200);
  });
});

describe('request ids', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('sets X-Openstack-Request-Id req-<uuid> on every answer, a new one per request', async () => {
    const responses = [
      await t.get(`${H}/services/`),
      await t.post(`${H}/services/`, { name: 'x' }),
      await t.get(`${H}/services/not-found`),
      await t.get('/nowhere'),
      await t.request('PATCH', `${H}/services/`),
      await t.post(`${H}/services/`, '{bad json'),
      await t.get('/healthcheck'),
    ];
    const ids = responses.map((response) => response.headers['x-openstack-request-id']);
    for (const id of ids) expect(id).toMatch(REQUEST_ID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('echoes a well-formed incoming request id, and replaces a malformed one', async () => {
    const given = 'req-3f0e5e0f-7a11-4c47-9a4d-0b7c4a526f35';
    const echoed = await t.request('GET', `${H}/groups/`, undefined, { 'X-Openstack-Request-Id': given });
    expect(echoed.headers['x-openstack-request-id']).toBe(given);
    const onError = await t.request('GET', `${H}/groups/42`, undefined, { 'X-Openstack-Request-Id': given });
    expect(onError.status).toBe(404);
    expect(onError.headers['x-openstack-request-id']).toBe(given);
    for (const malformed of ['abc', 'req-123', `${given}-extra`, `x${given}`, 'req-3F0E5E0F-7A11-4C47-9A4D-0B7C4A526F35']) {
      const replaced = await t.request('GET', `${H}/groups/`, undefined, { 'X-Openstack-Request-Id': malformed });
      expect(replaced.status).toBe(200);
      expect(replaced.headers['x-openstack-request-id']).toMatch(REQUEST_ID);
      expect(replaced.headers['x-openstack-request-id']).not.toBe(malformed);
    }
  });
});

describe('Location and PUT answers', () => {
  let t: TestApp;
  let f: Fixture;
  beforeAll(async () => {
    t = await startTestApp();
    f = await makeFixture(t);
  });
  afterAll(() => t.close());

  it('builds Location from the Host header, or from X-Forwarded-Proto / X-Forwarded-Host', async () => {
    const plain = await t.post(`${H}/groups/`, { name: 'plain' }, { host: 'rating.internal:8889' });
    expect(plain.headers.location).toBe(`http://rating.internal:8889${H}/groups/${plain.body.group_id}`);
    const forwarded = await t.post(`${H}/groups/`, { name: 'forwarded' }, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'cloud.example.com' });
    expect(forwarded.status).toBe(201);
    expect(forwarded.headers.location).toBe(`https://cloud.example.com${H}/groups/${forwarded.body.group_id}`);
    const proxies = await t.post(
      `${H}/groups/`,
      { name: 'proxies' },
      { 'x-forwarded-proto': 'https, http', 'x-forwarded-host': 'edge.example.com, inner.example.com' },
    );
    expect(proxies.headers.location).toBe(`https://edge.example.com${H}/groups/${proxies.body.group_id}`);
    const protoOnly = await t.post(`${H}/groups/`, { name: 'proto-only' }, { 'x-forwarded-proto': 'https', host: 'api.example.org' });
    expect(protoOnly.headers.location).toBe(`https://api.example.org${H}/groups/${protoOnly.body.group_id}`);
  });

  /** `Location` of a 302 update: the object's URL and the follow-up parameter naming the update's request. */
  const followUp = (url: string, response: TestResponse) => `${url}?update_request=${String(response.headers['x-openstack-request-id'])}`;

  it('honours the forwarded headers on PUT as well', async () => {
    const put = await t.request('PUT', `${H}/thresholds/`, f.threshold, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'cloud.example.com' });
    expect(put.status).toBe(302);
    expect(put.headers.location).toBe(followUp(`https://cloud.example.com${H}/thresholds/${f.threshold.threshold_id}`, put));
  });

  it("answers CloudKitty's codes: 302 without a body for mapping, threshold and module PUTs, 201 with the script for a script PUT", async () => {
    const threshold = await t.request('PUT', `${H}/thresholds/`, { ...f.threshold, cost: '0.75' });
    expect({ status: threshold.status, text: threshold.text }).toEqual({ status: 302, text: '' });
    expect(threshold.headers.location).toBe(followUp(`http://localhost:80${H}/thresholds/${f.threshold.threshold_id}`, threshold));
    expect((await t.get(`${H}/thresholds/${f.threshold.threshold_id}`)).body).toEqual({ ...f.threshold, cost: '0.7500000000000000000000000000' });

    const mapping = await t.request('PUT', `${H}/mappings/`, { ...f.mapping, end: daysFromNow(400) });
    expect({ status: mapping.status, text: mapping.text }).toEqual({ status: 302, text: '' });
    expect(mapping.headers.location).toBe(followUp(`http://localhost:80${H}/mappings/${f.mapping.mapping_id}`, mapping));
    const mappingByPath = await t.request('PUT', `${H}/mappings/${f.mapping.mapping_id}`, {});
    expect(mappingByPath.status).toBe(302);
    expect(mappingByPath.headers.location).toBe(followUp(`http://localhost:80${H}/mappings/${f.mapping.mapping_id}`, mappingByPath));

    const moduleUpdate = await t.request('PUT', '/v1/rating/modules/hashmap', { module_id: 'hashmap', enabled: true, priority: 1 });
    expect({ status: moduleUpdate.status, text: moduleUpdate.text }).toEqual({ status: 302, text: '' });
    expect(moduleUpdate.headers.location).toBe(followUp('http://localhost:80/v1/rating/modules/hashmap', moduleUpdate));

    const { checksum: _checksum, ...echoedScript } = f.script;
    const script = await t.request('PUT', `${P}/scripts/${f.script.script_id}`, { ...echoedScript, description: 'changed' });
    expect(script.status).toBe(201);
    expect(script.body).toEqual({ ...f.script, description: 'changed', updated_by: 'unknown' });
    expect(script.headers.location).toBe(`http://localhost:80${P}/scripts/${f.script.script_id}`);
  });

  it('fix: following the 302 once changes nothing, records nothing and answers 302 without a Location, so an update is two requests, not 31', async () => {
    const changesBefore = (await t.get('/v2/rating/changes')).body.total as number;
    const current = (await t.get(`${H}/mappings/${f.mapping.mapping_id}`)).body;
    const update = await t.request('PUT', `${H}/mappings/`, { ...current, end: daysFromNow(500) });
    expect(update.status, update.text).toBe(302);
    const location = new URL(String(update.headers.location));
    const stored = (await t.get(`${H}/mappings/${f.mapping.mapping_id}`)).body;
    // keystoneauth repeats the PUT with the same body at Location; a changed body changes nothing either.
    for (const body of [
      { ...current, end: daysFromNow(500) },
      { ...current, end: daysFromNow(600) },
    ]) {
      const followed = await t.request('PUT', `${location.pathname}${location.search}`, body);
      expect({ status: followed.status, text: followed.text, location: followed.headers.location }).toEqual({ status: 302, text: '', location: undefined });
    }
    expect((await t.get(`${H}/mappings/${f.mapping.mapping_id}`)).body).toEqual(stored);
    expect((await t.get('/v2/rating/changes')).body.total).toBe(changesBefore + 1);
    // A client that turns the followed 302 into a GET reads the object.
    const read = await t.get(`${location.pathname}${location.search}`);
    expect({ status: read.status, body: read.body }).toEqual({ status: 200, body: stored });
  });

  it('answers 200 with the updated object, no redirect, to a client asking Prefer: return=representation (RFC 7240)', async () => {
    const current = (await t.get(`${H}/thresholds/${f.threshold.threshold_id}`)).body;
    const threshold = await t.request('PUT', `${H}/thresholds/`, { ...current, cost: '0.5' }, { prefer: 'return=representation' });
    expect({ status: threshold.status, body: threshold.body }).toEqual({ status: 200, body: { ...current, cost: '0.5000000000000000000000000000' } });
    expect(threshold.headers.location).toBe(`http://localhost:80${H}/thresholds/${f.threshold.threshold_id}`);
    const script = await t.request(
      'PUT',
      `${P}/scripts/${f.script.script_id}`,
      { description: 'represented' },
      { prefer: 'handling=lenient, return=representation' },
    );
    expect({ status: script.status, description: script.body.description }).toEqual({ status: 200, description: 'represented' });
  });

  it('refuses the follow-up parameter where no redirect leads: not a request id, or on POST and DELETE', async () => {
    const id = f.mapping.mapping_id as string;
    expectFault(await t.request('PUT', `${H}/mappings/${id}?update_request=yes`, {}), 400, 'Unknown argument: "update_request"');
    expectFault(await t.request('PUT', `${P}/scripts/${f.script.script_id}?update_request=req-${randomUUID()}`, {}), 400, 'Unknown argument: "update_request"');
    expectFault(await t.request('DELETE', `${H}/mappings/${id}?update_request=req-${randomUUID()}`), 400, 'Unknown argument: "update_request"');
    expect((await t.get(`${H}/mappings/${id}`)).status).toBe(200);
  });
});

describe('fault bodies', () => {
  let t: TestApp;
  let f: Fixture;
  beforeAll(async () => {
    t = await startTestApp();
    f = await makeFixture(t);
  });
  afterAll(() => t.close());

  it('have exactly faultcode, faultstring and debuginfo, whatever raised them', async () => {
    const faults: Array<[string, number, TestResponse]> = [
      ['missing attribute', 400, await t.post(`${H}/services/`, {})],
      ['unknown attribute', 400, await t.post(`${H}/services/`, { name: 'x', foo: 1 })],
      ['malformed JSON', 400, await t.post(`${H}/services/`, '{"name": ')],
      ['not an object', 400, await t.post(`${H}/services/`, '[1, 2]')],
      ['bad boolean', 400, await t.get(`${H}/thresholds/?no_group=maybe`)],
      ['unknown query parameter', 400, await t.get(`${H}/thresholds/?foo=1`)],
      ['missing argument', 400, await t.get(`${H}/fields/`)],
      ['rule', 400, await t.post(`${H}/thresholds/`, { level: 1, cost: 1 })],
      ['unknown id', 404, await t.get(`${H}/mappings/${f.service}`)],
      ['unknown route', 404, await t.get('/v1/rating/nothing')],
      ['wrong method', 405, await t.request('PATCH', `${H}/mappings/`)],
      ['conflict', 409, await t.post(`${H}/services/`, { name: 'compute' })],
      ['too large', 413, await t.post(`${P}/scripts/`, { name: 'big', data: 'x'.repeat(1024 * 1024 + 1) })],
      ['not JSON', 415, await t.request('POST', `${H}/services/`, 'name=x', { 'content-type': 'text/plain' })],
    ];
    for (const [label, status, response] of faults) {
      expect({ label, status: response.status }).toEqual({ label, status });
      expect(String(response.headers['content-type'])).toMatch(/^application\/json/);
      expect({ label, keys: Object.keys(response.body).sort() }).toEqual({ label, keys: ['debuginfo', 'faultcode', 'faultstring'] });
      expect(response.body.faultcode).toBe('Client');
      expect(response.body.debuginfo).toBeNull();
      expect(typeof response.body.faultstring).toBe('string');
      expect(response.body.faultstring.length).toBeGreaterThan(0);
    }
    expect((await t.get(`${H}/services/`)).body.services).toHaveLength(1);
  });
});
