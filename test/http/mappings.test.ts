/**
 * Hashmap mappings over HTTP (api.md §4, §6): create, parent and value rules, order of checks,
 * get, list filters, group of a mapping, soft delete and audit columns.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, daysFromNow, startTestApp, type TestApp } from '../helpers/app.js';
import {
  expectFault,
  expectNow,
  API_DATETIME,
  createField as createNamedField,
  createGroup as createNamedGroup,
  createService as createNamedService,
} from '../helpers/fixtures.js';

const MAPPING_KEYS = [
  'cost',
  'created_at',
  'created_by',
  'deleted',
  'deleted_by',
  'description',
  'end',
  'field_id',
  'group_id',
  'mapping_id',
  'name',
  'service_id',
  'start',
  'tenant_id',
  'type',
  'updated_by',
  'value',
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let t: TestApp;
let counter = 0;

const createService = () => createNamedService(t, `svc-${++counter}`);
const createField = (serviceId: string) => createNamedField(t, serviceId, `field-${++counter}`);
const createGroup = () => createNamedGroup(t, `group-${++counter}`);
async function createMapping(body: Record<string, unknown>, options: { query?: string; user?: string } = {}): Promise<any> {
  const headers: Record<string, string> = options.user ? { 'x-user-id': options.user } : {};
  const response = await t.post(`${H}/mappings/${options.query ?? ''}`, body, headers);
  expect(response.status, response.text).toBe(201);
  return response.body;
}

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('POST mappings: create', () => {
  it('creates a service mapping with every attribute present and defaults filled', async () => {
    const serviceId = await createService();
    const response = await t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1.5 });
    expect(response.status).toBe(201);
    const mapping = response.body;
    expect(Object.keys(mapping).sort()).toEqual(MAPPING_KEYS);
    expect(mapping).toEqual({
      mapping_id: expect.stringMatching(UUID),
      value: null,
      type: 'flat',
      cost: '1.5000000000000000000000000000',
      service_id: serviceId,
      field_id: null,
      group_id: null,
      tenant_id: null,
      name: expect.stringMatching(/^[0-9a-f]{32}$/),
      description: null,
      start: expect.stringMatching(API_DATETIME),
      end: null,
      created_at: expect.stringMatching(API_DATETIME),
      deleted: null,
      created_by: 'unknown',
      updated_by: null,
      deleted_by: null,
    });
    // start defaults to the request time, which is also created_at.
    expectNow(mapping.start);
    expect(mapping.start).toBe(mapping.created_at);
    expect(response.headers.location).toBe(`http://localhost:80${H}/mappings/${mapping.mapping_id}`);
    // The stored object is the returned one.
    const fetched = await t.get(`${H}/mappings/${mapping.mapping_id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(mapping);
  });

  it('creates a field mapping with a value, a type, a group, a tenant, a name and a description', async () => {
    const serviceId = await createService();
    const fieldId = await createField(serviceId);
    const groupId = await createGroup();
    const mapping = await createMapping({
      field_id: fieldId,
      value: 'm1.small',
      type: 'rate',
      cost: '0.25',
      group_id: groupId,
      tenant_id: '0123456789abcdef0123456789abcdef',
      name: 'small-flavor',
      description: 'Small flavor rate',
    });
    expect(mapping).toMatchObject({
      value: 'm1.small',
      type: 'rate',
      cost: '0.2500000000000000000000000000',
      service_id: null,
      field_id: fieldId,
      group_id: groupId,
      tenant_id: '0123456789abcdef0123456789abcdef',
      name: 'small-flavor',
      description: 'Small flavor rate',
      end: null,
    });
  });

  it('accepts the body the CLI sends: all seven keys, nulls included, cost as a float', async () => {
    const serviceId = await createService();
    const mapping = await createMapping({ cost: 2.0, value: null, service_id: serviceId, group_id: null, field_id: null, tenant_id: null, type: 'flat' });
    expect(mapping).toMatchObject({
      cost: '2.0000000000000000000000000000',
      value: null,
      service_id: serviceId,
      field_id: null,
      group_id: null,
      tenant_id: null,
      type: 'flat',
    });
  });

  it('stores a JSON number cost by its decimal text: 0.1 is exactly one tenth', async () => {
    const serviceId = await createService();
    const mapping = await createMapping({ service_id: serviceId, cost: 0.1 });
    expect(mapping.cost).toBe('0.1000000000000000000000000000');
    expect((await t.get(`${H}/mappings/${mapping.mapping_id}`)).body.cost).toBe('0.1000000000000000000000000000');
  });

  it('accepts a cost as a string, in exponent form, and negative (a discount)', async () => {
    const fieldId = await createField(await createService());
    expect((await createMapping({ field_id: fieldId, value: 'a', cost: '0.1' })).cost).toBe('0.1000000000000000000000000000');
    expect((await createMapping({ field_id: fieldId, value: 'b', cost: '1e-3' })).cost).toBe('0.0010000000000000000000000000');
    expect((await createMapping({ field_id: fieldId, value: 'c', cost: -0.5 })).cost).toBe('-0.5000000000000000000000000000');
    expect((await createMapping({ field_id: fieldId, value: 'd', cost: '-12.75' })).cost).toBe('-12.7500000000000000000000000000');
    expect((await createMapping({ field_id: fieldId, value: 'e', cost: 0 })).cost).toBe('0.0000000000000000000000000000');
    const rounded = await createMapping({ field_id: fieldId, value: 'f', cost: '0.00000000000000000000000000025' });
    expect(rounded.cost).toBe('0.0000000000000000000000000002');
  });

  it('refuses a missing or non-numeric cost', async () => {
    const serviceId = await createService();
    expectFault(
      await t.post(`${H}/mappings/`, { service_id: serviceId }),
      400,
      "Invalid input for field/attribute cost. Value: 'None'. Mandatory field missing.",
    );
    expectFault(
      await t.post(`${H}/mappings/`, { service_id: serviceId, cost: 'abc' }),
      400,
      "Invalid input for field/attribute cost. Value: 'abc'. Value must be a finite decimal number.",
    );
    expectFault(
      await t.post(`${H}/mappings/`, { service_id: serviceId, cost: '1e13' }),
      400,
      "Invalid input for field/attribute cost. Value: '1e13'. Too many integer digits: at most 12.",
    );
    const listed = await t.get(`${H}/mappings/?service_id=${serviceId}`);
    expect(listed.body).toEqual({ mappings: [] });
  });

  it('generates a distinct 32-hex name for each mapping', async () => {
    const fieldId = await createField(await createService());
    const a = await createMapping({ field_id: fieldId, value: 'x', cost: 1 });
    const b = await createMapping({ field_id: fieldId, value: 'y', cost: 1 });
    expect(a.name).toMatch(/^[0-9a-f]{32}$/);
    expect(b.name).toMatch(/^[0-9a-f]{32}$/);
    expect(a.name).not.toBe(b.name);
    expect(a.mapping_id).not.toBe(b.mapping_id);
  });

  it('accepts uppercase parent and group UUIDs and returns them lowercase', async () => {
    const serviceId = await createService();
    const groupId = await createGroup();
    const mapping = await createMapping({ service_id: serviceId.toUpperCase(), group_id: groupId.toUpperCase(), cost: 1 });
    expect(mapping.service_id).toBe(serviceId);
    expect(mapping.group_id).toBe(groupId);
  });

  it('records created_by from X-User-Id', async () => {
    const serviceId = await createService();
    const mapping = await createMapping({ service_id: serviceId, cost: 1 }, { user: 'alice' });
    expect(mapping.created_by).toBe('alice');
    expect(mapping.updated_by).toBeNull();
  });
});

describe('POST mappings: parent and value rules (api.md §6)', () => {
  it('refuses two parents', async () => {
    const serviceId = await createService();
    const fieldId = await createField(serviceId);
    expectFault(await t.post(`${H}/mappings/`, { service_id: serviceId, field_id: fieldId, value: 'v', cost: 1 }), 400, 'You can only specify one parent.');
  });

  it('refuses no parent, absent or null', async () => {
    expectFault(await t.post(`${H}/mappings/`, { cost: 1 }), 400, 'You must specify one parent.');
    expectFault(await t.post(`${H}/mappings/`, { cost: 1, service_id: null, field_id: null, value: null }), 400, 'You must specify one parent.');
  });

  it('refuses a value with a service_id', async () => {
    const serviceId = await createService();
    expectFault(await t.post(`${H}/mappings/`, { service_id: serviceId, value: 'x', cost: 1 }), 400, "You can't specify a value and a service_id.");
  });

  it('refuses a field mapping without a value, absent or null', async () => {
    const fieldId = await createField(await createService());
    expectFault(await t.post(`${H}/mappings/`, { field_id: fieldId, cost: 1 }), 400, 'You must specify a value for a field mapping.');
    expectFault(await t.post(`${H}/mappings/`, { field_id: fieldId, value: null, cost: 1 }), 400, 'You must specify a value for a field mapping.');
  });

  it('refuses a bad type, listing the types in order', async () => {
    const serviceId = await createService();
    expectFault(
      await t.post(`${H}/mappings/`, { service_id: serviceId, type: 'foo', cost: 1 }),
      400,
      "Invalid input for field/attribute type. Value: 'foo'. Value should be one of: flat, rate",
    );
  });

  it('refuses an unknown service, field or group with its No such message', async () => {
    const unknown = randomUUID();
    expectFault(await t.post(`${H}/mappings/`, { service_id: unknown, cost: 1 }), 400, `No such service: None (UUID: ${unknown})`);
    expectFault(await t.post(`${H}/mappings/`, { field_id: unknown, value: 'v', cost: 1 }), 400, `No such field: ${unknown}`);
    const serviceId = await createService();
    expectFault(await t.post(`${H}/mappings/`, { service_id: serviceId, group_id: unknown, cost: 1 }), 400, `No such group: None (UUID: ${unknown})`);
    expect((await t.get(`${H}/mappings/?service_id=${serviceId}`)).body).toEqual({ mappings: [] });
  });

  it('refuses unknown body attributes, naming them', async () => {
    const serviceId = await createService();
    expectFault(await t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1, foo: 1 }), 400, 'Unknown attribute for argument mapping_data: foo');
  });
});

describe('POST mappings: order of checks (api.md §1)', () => {
  const past = '2020-01-01T00:00:00';
  const PAST_MESSAGE = /^Cannot create a rule with start in the past\. start=\[2020-01-01 00:00:00\] current time=\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\]\.$/;

  it('types before dates: a bad type with a past start gets the type error', async () => {
    const serviceId = await createService();
    expectFault(
      await t.post(`${H}/mappings/`, { service_id: serviceId, type: 'foo', cost: 1, start: past }),
      400,
      "Invalid input for field/attribute type. Value: 'foo'. Value should be one of: flat, rate",
    );
  });

  it('cost before dates: a bad cost with a past start gets the cost error', async () => {
    const serviceId = await createService();
    expectFault(
      await t.post(`${H}/mappings/`, { service_id: serviceId, cost: 'x', start: past }),
      400,
      "Invalid input for field/attribute cost. Value: 'x'. Value must be a finite decimal number.",
    );
  });

  it('dates before parents: a past start with two parents gets the date error', async () => {
    const serviceId = await createService();
    const fieldId = await createField(serviceId);
    const response = await t.post(`${H}/mappings/`, { service_id: serviceId, field_id: fieldId, value: 'v', cost: 1, start: past });
    expect(response.status).toBe(400);
    expect(response.body.faultstring).toMatch(PAST_MESSAGE);
  });

  it('dates before parents: a past start with no parent gets the date error', async () => {
    const response = await t.post(`${H}/mappings/`, { cost: 1, start: past });
    expect(response.status).toBe(400);
    expect(response.body.faultstring).toMatch(PAST_MESSAGE);
  });

  it('dates before parents: end before start with a value on a service mapping gets the date error', async () => {
    const serviceId = await createService();
    expectFault(
      await t.post(`${H}/mappings/`, { service_id: serviceId, value: 'v', cost: 1, start: '2099-02-01T00:00:00', end: '2099-01-01T00:00:00' }),
      400,
      'Cannot create a rule with start after end. start=[2099-02-01 00:00:00] end=[2099-01-01 00:00:00].',
    );
  });

  it('parent rules before existence: two unknown parents get the one-parent error', async () => {
    expectFault(
      await t.post(`${H}/mappings/`, { service_id: randomUUID(), field_id: randomUUID(), value: 'v', cost: 1 }),
      400,
      'You can only specify one parent.',
    );
  });

  it('value rules before existence: an unknown field without value gets the value error', async () => {
    expectFault(await t.post(`${H}/mappings/`, { field_id: randomUUID(), cost: 1 }), 400, 'You must specify a value for a field mapping.');
  });

  it('value rules before existence: a value with an unknown service gets the value error', async () => {
    expectFault(await t.post(`${H}/mappings/`, { service_id: randomUUID(), value: 'v', cost: 1 }), 400, "You can't specify a value and a service_id.");
  });

  it('existence before conflicts: an unknown group on a clashing mapping gets 400, not 409', async () => {
    const serviceId = await createService();
    await createMapping({ service_id: serviceId, cost: 1, name: `clash-${counter}` });
    const unknown = randomUUID();
    expectFault(await t.post(`${H}/mappings/`, { service_id: serviceId, cost: 2, group_id: unknown }), 400, `No such group: None (UUID: ${unknown})`);
  });
});

describe('GET mappings/{id}', () => {
  it('answers 404 for an unknown id, a non-UUID id and a soft-deleted mapping', async () => {
    const unknown = randomUUID();
    expectFault(await t.get(`${H}/mappings/${unknown}`), 404, `No such mapping: ${unknown}`);
    expectFault(await t.get(`${H}/mappings/42`), 404, 'No such mapping: 42');
    const mapping = await createMapping({ service_id: await createService(), cost: 1 });
    expect((await t.del(`${H}/mappings/`, { mapping_id: mapping.mapping_id })).status).toBe(204);
    expectFault(await t.get(`${H}/mappings/${mapping.mapping_id}`), 404, `No such mapping: ${mapping.mapping_id}`);
  });

  it('answers with and without a trailing slash, and through the /v1/billing alias', async () => {
    const mapping = await createMapping({ service_id: await createService(), cost: 1 });
    expect((await t.get(`${H}/mappings/${mapping.mapping_id}/`)).body).toEqual(mapping);
    const alias = await t.get(`/v1/billing/module_config/hashmap/mappings/${mapping.mapping_id}`);
    expect(alias.status).toBe(200);
    expect(alias.body).toEqual(mapping);
  });
});

describe('GET mappings/group?mapping_id=', () => {
  it('returns the group of a mapping', async () => {
    const groupId = await createGroup();
    const groupName = (await t.get(`${H}/groups/${groupId}`)).body.name;
    const mapping = await createMapping({ service_id: await createService(), group_id: groupId, cost: 1 });
    const response = await t.get(`${H}/mappings/group?mapping_id=${mapping.mapping_id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ group_id: groupId, name: groupName });
  });

  it('answers 404 Mapping has no group', async () => {
    const mapping = await createMapping({ service_id: await createService(), cost: 1 });
    expectFault(await t.get(`${H}/mappings/group?mapping_id=${mapping.mapping_id}`), 404, `Mapping has no group (UUID: ${mapping.mapping_id})`);
  });

  it('answers the same 404 for an unknown, deleted or non-UUID mapping (CloudKitty compat)', async () => {
    const unknown = randomUUID();
    expectFault(await t.get(`${H}/mappings/group?mapping_id=${unknown}`), 404, `Mapping has no group (UUID: ${unknown})`);
    expectFault(await t.get(`${H}/mappings/group?mapping_id=notauuid`), 404, 'Mapping has no group (UUID: notauuid)');
    const mapping = await createMapping({ service_id: await createService(), group_id: await createGroup(), cost: 1 });
    await t.del(`${H}/mappings/`, { mapping_id: mapping.mapping_id });
    expectFault(await t.get(`${H}/mappings/group?mapping_id=${mapping.mapping_id}`), 404, `Mapping has no group (UUID: ${mapping.mapping_id})`);
  });

  it('requires mapping_id', async () => {
    expectFault(await t.get(`${H}/mappings/group`), 400, 'Missing argument: "mapping_id"');
  });
});

describe('DELETE mappings: soft delete', () => {
  it('deletes through the collection URL with the id in the body, then 404s', async () => {
    const serviceId = await createService();
    const mapping = await createMapping({ service_id: serviceId, cost: 1 });
    const deleted = await t.request('DELETE', `${H}/mappings/`, { mapping_id: mapping.mapping_id }, { 'x-user-id': 'dave' });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expectFault(await t.get(`${H}/mappings/${mapping.mapping_id}`), 404, `No such mapping: ${mapping.mapping_id}`);
    expectFault(await t.del(`${H}/mappings/`, { mapping_id: mapping.mapping_id }), 404, `No such mapping: ${mapping.mapping_id}`);
    // Gone from the default list, visible with deleted=true, with deleted and deleted_by set.
    expect((await t.get(`${H}/mappings/?service_id=${serviceId}`)).body).toEqual({ mappings: [] });
    const listed = await t.get(`${H}/mappings/?service_id=${serviceId}&deleted=true`);
    expect(listed.body.mappings).toHaveLength(1);
    const row = listed.body.mappings[0];
    expect(row).toEqual({ ...mapping, deleted: expect.stringMatching(API_DATETIME), deleted_by: 'dave' });
    expectNow(row.deleted);
  });

  it('records deleted_by unknown without X-User-Id', async () => {
    const serviceId = await createService();
    const mapping = await createMapping({ service_id: serviceId, cost: 1 });
    expect((await t.del(`${H}/mappings/`, { mapping_id: mapping.mapping_id })).status).toBe(204);
    const row = (await t.get(`${H}/mappings/?service_id=${serviceId}&deleted=True`)).body.mappings[0];
    expect(row.deleted_by).toBe('unknown');
  });

  it('deletes through the item URL and the query string too', async () => {
    const serviceId = await createService();
    const a = await createMapping({ service_id: serviceId, cost: 1, start: '2099-01-01T00:00:00', end: '2099-02-01T00:00:00' });
    const b = await createMapping({ service_id: serviceId, cost: 1, start: '2099-02-01T00:00:00', end: '2099-03-01T00:00:00' });
    expect((await t.del(`${H}/mappings/${a.mapping_id}`)).status).toBe(204);
    expect((await t.del(`${H}/mappings?mapping_id=${b.mapping_id}`)).status).toBe(204);
    expect((await t.get(`${H}/mappings/?service_id=${serviceId}`)).body).toEqual({ mappings: [] });
    expect((await t.get(`${H}/mappings/?service_id=${serviceId}&deleted=1`)).body.mappings).toHaveLength(2);
  });

  it('answers 404 for an unknown id and 400 without an id', async () => {
    const unknown = randomUUID();
    expectFault(await t.del(`${H}/mappings/`, { mapping_id: unknown }), 404, `No such mapping: ${unknown}`);
    expectFault(await t.del(`${H}/mappings/`), 400, 'Missing argument: "mapping_id"');
  });

  it('leaves a deleted mapping out of the group listing', async () => {
    const groupId = await createGroup();
    const serviceId = await createService();
    const kept = await createMapping({ service_id: serviceId, group_id: groupId, cost: 1, start: '2099-01-01T00:00:00', end: '2099-02-01T00:00:00' });
    const gone = await createMapping({ service_id: serviceId, group_id: groupId, cost: 2, start: '2099-02-01T00:00:00', end: '2099-03-01T00:00:00' });
    await t.del(`${H}/mappings/`, { mapping_id: gone.mapping_id });
    const listed = await t.get(`${H}/groups/mappings?group_id=${groupId}`);
    expect(listed.body).toEqual({ mappings: [kept] });
  });
});

describe('audit columns', () => {
  it('sets created_by, updated_by and deleted_by from X-User-Id, each independently', async () => {
    const serviceId = await createService();
    const created = await createMapping({ service_id: serviceId, cost: 1, start: daysFromNow(1) }, { user: 'alice' });
    expect(created).toMatchObject({ created_by: 'alice', updated_by: null, deleted_by: null });
    const updated = await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, cost: 2 }, { 'x-user-id': 'bob' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ created_by: 'alice', updated_by: 'bob', deleted_by: null });
    await t.request('DELETE', `${H}/mappings/`, { mapping_id: created.mapping_id }, { 'x-user-id': 'carol' });
    const row = (await t.get(`${H}/mappings/?service_id=${serviceId}&deleted=true`)).body.mappings[0];
    expect(row).toMatchObject({ created_by: 'alice', updated_by: 'bob', deleted_by: 'carol' });
  });

  it('uses unknown when there is no X-User-Id (also for updates)', async () => {
    const created = await createMapping({ service_id: await createService(), cost: 1, start: daysFromNow(1) });
    expect(created.created_by).toBe('unknown');
    const updated = await t.put(`${H}/mappings/${created.mapping_id}`, { cost: 3 });
    expect(updated.status).toBe(200);
    expect(updated.body.updated_by).toBe('unknown');
  });
});

describe('GET mappings: list filters (api.md §4)', () => {
  let l: TestApp;
  const ids: Record<string, string> = {};
  let s1: string;
  let s2: string;
  let f1: string;
  let g1: string;
  let g2: string;

  async function post(url: string, body: unknown, user?: string): Promise<any> {
    const response = await l.post(url, body, user ? { 'x-user-id': user } : {});
    expect(response.status, response.text).toBe(201);
    return response.body;
  }

  /** The mapping labels (m1..m6) a list query returns, in order. */
  async function labels(query: string): Promise<string[]> {
    const response = await l.get(`${H}/mappings/${query}`);
    expect(response.status, response.text).toBe(200);
    const byId = Object.fromEntries(Object.entries(ids).map(([label, id]) => [id, label]));
    return response.body.mappings.map((mapping: { mapping_id: string }) => byId[mapping.mapping_id] ?? mapping.mapping_id);
  }

  beforeAll(async () => {
    l = await startTestApp();
    s1 = (await post(`${H}/services/`, { name: 's1' })).service_id;
    s2 = (await post(`${H}/services/`, { name: 's2' })).service_id;
    f1 = (await post(`${H}/fields/`, { name: 'flavor', service_id: s1 })).field_id;
    g1 = (await post(`${H}/groups/`, { name: 'g1' })).group_id;
    g2 = (await post(`${H}/groups/`, { name: 'g2' })).group_id;
    // m1: running service mapping of s1, group g1, tenant t1.
    ids.m1 = (
      await post(`${H}/mappings/`, { service_id: s1, cost: 1, group_id: g1, tenant_id: 't1', description: 'Flavor 100% Discount' }, 'alice')
    ).mapping_id;
    // m2: future, bounded service mapping of s1, no group, no tenant.
    ids.m2 = (
      await post(`${H}/mappings/`, { service_id: s1, cost: 2, description: 'plain_rate', start: '2099-01-01T00:00:00', end: '2099-06-01T00:00:00' }, 'bob')
    ).mapping_id;
    // m3: over field mapping (created with force), group g2, tenant t2.
    ids.m3 = (
      await post(`${H}/mappings/?force=true`, {
        field_id: f1,
        value: 'small',
        cost: 3,
        group_id: g2,
        tenant_id: 't2',
        description: 'OLD rule',
        start: daysFromNow(-10),
        end: daysFromNow(-5),
      })
    ).mapping_id;
    // m4: running field mapping, no group, no tenant, end moved by carol.
    ids.m4 = (await post(`${H}/mappings/`, { field_id: f1, value: 'large', cost: 4, description: 'Large flavor' })).mapping_id;
    const moved = await l.put(`${H}/mappings/`, { mapping_id: ids.m4, end: daysFromNow(30) }, { 'x-user-id': 'carol' });
    expect(moved.status, moved.text).toBe(200);
    // m5: service mapping of s2, deleted by dave.
    ids.m5 = (await post(`${H}/mappings/`, { service_id: s2, cost: 5, description: 'gone' })).mapping_id;
    expect((await l.request('DELETE', `${H}/mappings/`, { mapping_id: ids.m5 }, { 'x-user-id': 'dave' })).status).toBe(204);
    // m6: future open-ended service mapping of s2, group g1, tenant t1.
    ids.m6 = (
      await post(`${H}/mappings/`, { service_id: s2, cost: 6, group_id: g1, tenant_id: 't1', description: 'a_b', start: '2099-03-01T00:00:00' })
    ).mapping_id;
  });
  afterAll(() => l.close());

  it('lists every live mapping without filters, in creation order', async () => {
    expect(await labels('')).toEqual(['m1', 'm2', 'm3', 'm4', 'm6']);
    expect(await labels('?all=true')).toEqual(['m1', 'm2', 'm3', 'm4', 'm6']);
  });

  it('lists the full objects', async () => {
    const response = await l.get(`${H}/mappings/?service_id=${s1}`);
    expect(response.body.mappings.map((mapping: object) => Object.keys(mapping).sort())).toEqual([MAPPING_KEYS, MAPPING_KEYS]);
    const m1 = (await l.get(`${H}/mappings/${ids.m1}`)).body;
    expect(response.body.mappings[0]).toEqual(m1);
  });

  it('filters by service_id (service mappings only), also through services/{id}/mappings', async () => {
    expect(await labels(`?service_id=${s1}`)).toEqual(['m1', 'm2']);
    expect(await labels(`?service_id=${s2}`)).toEqual(['m6']);
    expect(await labels(`?service_id=${s1.toUpperCase()}`)).toEqual(['m1', 'm2']);
    expect(await labels(`?service_id=${randomUUID()}`)).toEqual([]);
    const nested = await l.get(`${H}/services/${s1}/mappings`);
    expect(nested.status).toBe(200);
    expect(nested.body.mappings.map((mapping: { mapping_id: string }) => mapping.mapping_id)).toEqual([ids.m1, ids.m2]);
  });

  it('filters by field_id', async () => {
    expect(await labels(`?field_id=${f1}`)).toEqual(['m3', 'm4']);
  });

  it('filters by group_id and no_group', async () => {
    expect(await labels(`?group_id=${g1}`)).toEqual(['m1', 'm6']);
    expect(await labels(`?group_id=${g2}`)).toEqual(['m3']);
    expect(await labels('?no_group=True')).toEqual(['m2', 'm4']);
    expect(await labels(`?service_id=${s1}&no_group=True`)).toEqual(['m2']);
    expect(await labels('?no_group=false')).toEqual(['m1', 'm2', 'm3', 'm4', 'm6']);
  });

  it('applies tenant_id only with filter_tenant=true', async () => {
    expect(await labels('?tenant_id=t1')).toEqual(['m1', 'm2', 'm3', 'm4', 'm6']);
    expect(await labels('?tenant_id=t1&filter_tenant=True')).toEqual(['m1', 'm6']);
    expect(await labels('?tenant_id=t2&filter_tenant=true')).toEqual(['m3']);
    expect(await labels(`?service_id=${s1}&tenant_id=t1&filter_tenant=True`)).toEqual(['m1']);
    expect(await labels('?tenant_id=t1&filter_tenant=False')).toEqual(['m1', 'm2', 'm3', 'm4', 'm6']);
  });

  it('selects mappings without a tenant with filter_tenant=true alone', async () => {
    expect(await labels('?filter_tenant=True')).toEqual(['m2', 'm4']);
    expect(await labels(`?field_id=${f1}&filter_tenant=1`)).toEqual(['m4']);
  });

  it('includes soft-deleted mappings with deleted=true', async () => {
    expect(await labels('?deleted=true')).toEqual(['m1', 'm2', 'm3', 'm4', 'm5', 'm6']);
    expect(await labels(`?deleted=True&service_id=${s2}`)).toEqual(['m5', 'm6']);
    expect(await labels('?deleted=false')).toEqual(['m1', 'm2', 'm3', 'm4', 'm6']);
  });

  it('filters by start (rule start ≥ value)', async () => {
    expect(await labels('?start=2099-01-01T00:00:00Z')).toEqual(['m2', 'm6']);
    expect(await labels('?start=2099-01-01T00:00:01Z')).toEqual(['m6']);
    expect(await labels('?start=2099-03-01')).toEqual(['m6']);
    expect(await labels(`?start=${encodeURIComponent(daysFromNow(-1))}`)).toEqual(['m1', 'm2', 'm4', 'm6']);
  });

  it('filters by end (rule end < value; open-ended rules excluded)', async () => {
    expect(await labels('?end=2099-07-01T00:00:00Z')).toEqual(['m2', 'm3', 'm4']);
    expect(await labels('?end=2099-06-01T00:00:00Z')).toEqual(['m3', 'm4']);
    expect(await labels('?end=2099-06-01T00:00:01Z')).toEqual(['m2', 'm3', 'm4']);
    expect(await labels(`?end=${encodeURIComponent(daysFromNow(0))}`)).toEqual(['m3']);
    // A date-only end means the end of that day.
    expect(await labels('?end=2099-06-01')).toEqual(['m2', 'm3', 'm4']);
  });

  it('filters by created_by, updated_by and deleted_by (exact)', async () => {
    expect(await labels('?created_by=alice')).toEqual(['m1']);
    expect(await labels('?created_by=unknown')).toEqual(['m3', 'm4', 'm6']);
    expect(await labels('?created_by=ALICE')).toEqual([]);
    expect(await labels('?created_by=ali')).toEqual([]);
    expect(await labels('?updated_by=carol')).toEqual(['m4']);
    expect(await labels('?deleted_by=dave')).toEqual([]);
    expect(await labels('?deleted_by=dave&deleted=true')).toEqual(['m5']);
  });

  it('filters by description, case-insensitive substring with % and _ taken literally', async () => {
    expect(await labels('?description=discount')).toEqual(['m1']);
    expect(await labels('?description=DISCOUNT')).toEqual(['m1']);
    expect(await labels('?description=flavor')).toEqual(['m1', 'm4']);
    expect(await labels(`?description=${encodeURIComponent('%')}`)).toEqual(['m1']);
    expect(await labels(`?description=${encodeURIComponent('100% d')}`)).toEqual(['m1']);
    expect(await labels(`?description=${encodeURIComponent('1%D')}`)).toEqual([]);
    expect(await labels('?description=_')).toEqual(['m2', 'm6']);
    expect(await labels('?description=a_b')).toEqual(['m6']);
    expect(await labels('?description=l_r')).toEqual([]);
    expect(await labels(`?description=${encodeURIComponent('!')}`)).toEqual([]);
    expect(await labels('?description=gone')).toEqual([]);
    expect(await labels('?description=gone&deleted=true')).toEqual(['m5']);
  });

  it('filters by is_active at request time', async () => {
    expect(await labels('?is_active=true')).toEqual(['m1', 'm4']);
    expect(await labels('?is_active=True')).toEqual(['m1', 'm4']);
    expect(await labels('?is_active=false')).toEqual(['m2', 'm3', 'm6']);
    expect(await labels('?is_active=False&deleted=True')).toEqual(['m2', 'm3', 'm5', 'm6']);
    expect(await labels('?is_active=1&deleted=true')).toEqual(['m1', 'm4']);
  });

  it('combines filters with AND', async () => {
    expect(await labels(`?service_id=${s1}&is_active=true`)).toEqual(['m1']);
    expect(await labels(`?group_id=${g1}&start=2099-01-01&tenant_id=t1&filter_tenant=true`)).toEqual(['m6']);
    expect(await labels(`?field_id=${f1}&description=flavor&created_by=unknown&updated_by=carol`)).toEqual(['m4']);
  });

  it('refuses all=false without a parent filter, accepts it with one', async () => {
    expectFault(await l.get(`${H}/mappings/?all=false`), 400, 'You must specify either service_uuid, field_uuid or group_uuid.');
    expectFault(
      await l.get(`${H}/mappings/?all=False&tenant_id=t1&filter_tenant=True`),
      400,
      'You must specify either service_uuid, field_uuid or group_uuid.',
    );
    expect(await labels(`?all=False&service_id=${s1}`)).toEqual(['m1', 'm2']);
    expect(await labels(`?all=false&field_id=${f1}`)).toEqual(['m3', 'm4']);
    expect(await labels(`?all=false&group_id=${g1}`)).toEqual(['m1', 'm6']);
  });

  it('refuses service_id with field_id', async () => {
    expectFault(
      await l.get(`${H}/mappings/?service_id=${s1}&field_id=${f1}`),
      400,
      'You can only specify one parent: filter by service_id or by field_id, not both.',
    );
  });

  it('matches nothing with a non-UUID in an id filter (CloudKitty compat: an empty list, not a 400)', async () => {
    expect((await l.get(`${H}/mappings/`)).body.mappings.length).toBeGreaterThan(0);
    for (const filter of ['service_id=abc', 'field_id=42', 'group_id=nope', `service_id=${s1}x`]) {
      const response = await l.get(`${H}/mappings/?${filter}`);
      expect({ status: response.status, body: response.body }, filter).toEqual({ status: 200, body: { mappings: [] } });
    }
  });

  it('refuses an invalid datetime filter', async () => {
    expectFault(
      await l.get(`${H}/mappings/?start=notadate`),
      400,
      "Invalid input for field/attribute start. Value: 'notadate'. Value must be an ISO 8601 datetime such as 2026-12-01T10:00:00+00:00.",
    );
    expectFault(
      await l.get(`${H}/mappings/?end=2026-02-30`),
      400,
      "Invalid input for field/attribute end. Value: '2026-02-30'. Value is not a valid calendar date and time.",
    );
  });

  it('refuses an invalid boolean and an unknown parameter', async () => {
    expectFault(
      await l.get(`${H}/mappings/?deleted=maybe`),
      400,
      "Invalid input for field/attribute deleted. Value: 'maybe'. Value should be one of: true, True, 1, false, False, 0",
    );
    expectFault(await l.get(`${H}/mappings/?foo=1`), 400, 'Unknown argument: "foo"');
  });
});
