/**
 * Hashmap thresholds (api.md §3-§4): create with its parent rules and decimals, uniqueness (a null
 * tenant counts as a value: the fix), list filters, get, update as the real client sends it (PUT to
 * the collection URL echoing every attribute) and by path, delete, and the group of a threshold.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, startTestApp, type TestApp } from '../helpers/app.js';
import { expectFault, createService, createField, createGroup } from '../helpers/fixtures.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNKNOWN = '5d3c7a90-2b1e-4f6a-8c9d-0e1f2a3b4c5d';

async function createThreshold(t: TestApp, body: Record<string, unknown>): Promise<any> {
  const response = await t.post(`${H}/thresholds/`, { cost: 1, ...body });
  expect(response.status).toBe(201);
  return response.body;
}

async function thresholdCount(t: TestApp): Promise<number> {
  return (await t.tables.selectFrom('hashmap_thresholds').select('id').execute()).length;
}

/** The threshold object with every attribute, as api.md §3 lists them. */
function threshold(values: Partial<Record<string, string | null>> & { threshold_id: string }) {
  return { level: null, type: 'flat', cost: null, service_id: null, field_id: null, group_id: null, tenant_id: null, ...values };
}

describe('threshold create', () => {
  let t: TestApp;
  let service: string;
  let field: string;
  let group: string;
  beforeAll(async () => {
    t = await startTestApp();
    service = await createService(t, 'compute');
    field = await createField(t, service, 'flavor');
    group = await createGroup(t, 'g');
  });
  afterAll(() => t.close());

  it('creates a service threshold from the body the client sends (level as string, cost as number, nulls)', async () => {
    const created = await t.post(`${H}/thresholds/`, {
      cost: 0.2,
      level: '10',
      service_id: service,
      field_id: null,
      group_id: null,
      tenant_id: null,
      type: 'flat',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      threshold_id: expect.stringMatching(UUID),
      level: '10.00000000',
      type: 'flat',
      cost: '0.2000000000000000000000000000',
      service_id: service,
      field_id: null,
      group_id: null,
      tenant_id: null,
    });
    expect(created.headers.location).toBe(`http://localhost:80${H}/thresholds/${created.body.threshold_id}`);
    const got = await t.get(`${H}/thresholds/${created.body.threshold_id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);
  });

  it('creates a field threshold with a group and a tenant; type defaults to flat', async () => {
    const created = await t.post(`${H}/thresholds`, {
      field_id: field,
      level: 2.5,
      cost: '1.5',
      group_id: group,
      tenant_id: 'f9c0b1f4a2d34e5e8c1d2b3a4f5e6d7c',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual(
      threshold({
        threshold_id: created.body.threshold_id,
        level: '2.50000000',
        cost: '1.5000000000000000000000000000',
        field_id: field,
        group_id: group,
        tenant_id: 'f9c0b1f4a2d34e5e8c1d2b3a4f5e6d7c',
      }),
    );
    expect(created.headers.location).toBe(`http://localhost:80${H}/thresholds/${created.body.threshold_id}`);
  });

  it('stores type rate', async () => {
    const created = await createThreshold(t, { service_id: service, level: 11, cost: 3, type: 'rate' });
    expect(created.type).toBe('rate');
    expect((await t.get(`${H}/thresholds/${created.threshold_id}`)).body.type).toBe('rate');
  });

  it('keeps decimals exact: 0.1 is one tenth, more digits than the scale round half-even', async () => {
    const tenth = await createThreshold(t, { service_id: service, level: 0.1, cost: 0.1 });
    expect(tenth.level).toBe('0.10000000');
    expect(tenth.cost).toBe('0.1000000000000000000000000000');
    const rounded = await createThreshold(t, { service_id: service, level: '0.000000125', cost: '-0.5' });
    expect(rounded.level).toBe('0.00000012');
    expect(rounded.cost).toBe('-0.5000000000000000000000000000');
    const exponent = await createThreshold(t, { service_id: service, level: '1e3', cost: '1e-3' });
    expect(exponent.level).toBe('1000.00000000');
    expect(exponent.cost).toBe('0.0010000000000000000000000000');
  });

  it('refuses a negative level', async () => {
    expectFault(
      await t.post(`${H}/thresholds/`, { service_id: service, level: -1, cost: 1 }),
      400,
      "Invalid input for field/attribute level. Value: '-1'. Value must not be negative.",
    );
  });

  it('refuses a non-numeric level or cost', async () => {
    expectFault(
      await t.post(`${H}/thresholds/`, { service_id: service, level: 'ten', cost: 1 }),
      400,
      "Invalid input for field/attribute level. Value: 'ten'. Value must be a finite decimal number.",
    );
    expectFault(
      await t.post(`${H}/thresholds/`, { service_id: service, level: 1, cost: 'NaN' }),
      400,
      "Invalid input for field/attribute cost. Value: 'NaN'. Value must be a finite decimal number.",
    );
  });

  it('refuses two parents, and no parent', async () => {
    const before = await thresholdCount(t);
    expectFault(await t.post(`${H}/thresholds/`, { service_id: service, field_id: field, level: 1, cost: 1 }), 400, 'You can only specify one parent.');
    expectFault(await t.post(`${H}/thresholds/`, { level: 1, cost: 1 }), 400, 'You must specify one parent.');
    expectFault(
      await t.post(`${H}/thresholds/`, { level: '1', cost: 1, service_id: null, field_id: null, group_id: null, tenant_id: null, type: 'flat' }),
      400,
      'You must specify one parent.',
    );
    expect(await thresholdCount(t)).toBe(before);
  });

  it('refuses a missing level before the parent rules', async () => {
    const message = "Invalid input for field/attribute level. Value: 'None'. Mandatory field missing.";
    expectFault(await t.post(`${H}/thresholds/`, { service_id: service, cost: 1 }), 400, message);
    expectFault(await t.post(`${H}/thresholds/`, { service_id: service, field_id: field, cost: 1 }), 400, message);
    expectFault(await t.post(`${H}/thresholds/`, { cost: 1 }), 400, message);
  });

  it('refuses a missing cost', async () => {
    expectFault(
      await t.post(`${H}/thresholds/`, { service_id: service, level: 1 }),
      400,
      "Invalid input for field/attribute cost. Value: 'None'. Mandatory field missing.",
    );
  });

  it('refuses an unknown service, field or group with 400 and the No such message', async () => {
    const before = await thresholdCount(t);
    expectFault(await t.post(`${H}/thresholds/`, { service_id: UNKNOWN, level: 1, cost: 1 }), 400, `No such service: None (UUID: ${UNKNOWN})`);
    expectFault(await t.post(`${H}/thresholds/`, { field_id: UNKNOWN, level: 1, cost: 1 }), 400, `No such field: ${UNKNOWN}`);
    expectFault(await t.post(`${H}/thresholds/`, { service_id: service, group_id: UNKNOWN, level: 1, cost: 1 }), 400, `No such group: None (UUID: ${UNKNOWN})`);
    expect(await thresholdCount(t)).toBe(before);
  });

  it('refuses a bad type with the list of types', async () => {
    expectFault(
      await t.post(`${H}/thresholds/`, { service_id: service, level: 1, cost: 1, type: 'bogus' }),
      400,
      "Invalid input for field/attribute type. Value: 'bogus'. Value should be one of: flat, rate",
    );
  });

  it('refuses an unknown attribute', async () => {
    expectFault(
      await t.post(`${H}/thresholds/`, { service_id: service, level: 1, cost: 1, value: 'x' }),
      400,
      'Unknown attribute for argument threshold_data: value',
    );
  });
});

describe('threshold uniqueness', () => {
  let t: TestApp;
  let service: string;
  let otherService: string;
  let field: string;
  let group: string;
  beforeAll(async () => {
    t = await startTestApp();
    service = await createService(t, 'compute');
    otherService = await createService(t, 'image');
    field = await createField(t, service, 'flavor');
    group = await createGroup(t, 'g');
  });
  afterAll(() => t.close());

  it('refuses the same level for the same parent when the tenant is null (fix), in any spelling', async () => {
    await createThreshold(t, { service_id: service, level: '10', cost: 1 });
    const before = await thresholdCount(t);
    const message = `Threshold '10.00000000' already exists for service '${service}', tenant: 'None'`;
    expectFault(await t.post(`${H}/thresholds/`, { service_id: service, level: '10', cost: 2 }), 409, message);
    expectFault(await t.post(`${H}/thresholds/`, { service_id: service, level: 10, cost: 2, type: 'rate' }), 409, message);
    expectFault(await t.post(`${H}/thresholds/`, { service_id: service, level: '10.000', cost: 2 }), 409, message);
    expectFault(await t.post(`${H}/thresholds/`, { service_id: service, level: '1e1', cost: 2 }), 409, message);
    expect(await thresholdCount(t)).toBe(before);
  });

  it('refuses the same level, parent, tenant and group', async () => {
    await createThreshold(t, { field_id: field, level: 5, tenant_id: 'p1', group_id: group });
    expectFault(
      await t.post(`${H}/thresholds/`, { field_id: field, level: '5', cost: 9, tenant_id: 'p1', group_id: group }),
      409,
      `Threshold '5.00000000' already exists for field '${field}', tenant: 'p1'`,
    );
  });

  it('allows the same level with another tenant, another parent, or (no tenant) another group', async () => {
    await createThreshold(t, { service_id: service, level: 20 });
    await createThreshold(t, { service_id: service, level: 20, tenant_id: 'p1' });
    await createThreshold(t, { service_id: service, level: 20, tenant_id: 'p2' });
    await createThreshold(t, { service_id: service, level: 20, group_id: group });
    await createThreshold(t, { service_id: otherService, level: 20 });
    await createThreshold(t, { field_id: field, level: 20 });
    // CloudKitty's uniq_service_threshold (level, service_id, tenant_id): with a tenant, the group does not count.
    expectFault(
      await t.post(`${H}/thresholds/`, { service_id: service, level: 20, group_id: group, tenant_id: 'p1', cost: 1 }),
      409,
      `Threshold '20.00000000' already exists for service '${service}', tenant: 'p1'`,
    );
    expectFault(
      await t.post(`${H}/thresholds/`, { service_id: service, level: 20, group_id: group, cost: 1 }),
      409,
      `Threshold '20.00000000' already exists for service '${service}', tenant: 'None'`,
    );
  });
});

describe('threshold list filters', () => {
  let t: TestApp;
  let service: string;
  let otherService: string;
  let field: string;
  let group: string;
  let all: any[];
  beforeAll(async () => {
    t = await startTestApp();
    service = await createService(t, 'compute');
    otherService = await createService(t, 'image');
    field = await createField(t, service, 'flavor');
    group = await createGroup(t, 'g');
    all = [
      await createThreshold(t, { service_id: service, level: 1 }),
      await createThreshold(t, { service_id: service, level: 2, group_id: group }),
      await createThreshold(t, { service_id: service, level: 3, tenant_id: 'p1' }),
      await createThreshold(t, { field_id: field, level: 1 }),
      await createThreshold(t, { service_id: otherService, level: 1, group_id: group, tenant_id: 'p1' }),
    ];
  });
  afterAll(() => t.close());

  async function ids(query: string): Promise<string[]> {
    const response = await t.get(`${H}/thresholds/${query}`);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['thresholds']);
    return response.body.thresholds.map((item: any) => item.threshold_id);
  }
  const pick = (...indexes: number[]) => indexes.map((index) => all[index].threshold_id);

  it('lists every threshold without a filter (fix: CloudKitty 500)', async () => {
    const response = await t.get(`${H}/thresholds/`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ thresholds: all });
    expect((await t.get(`${H}/thresholds`)).body).toEqual({ thresholds: all });
  });

  it('filters by service_id, field_id and group_id', async () => {
    expect(await ids(`?service_id=${service}`)).toEqual(pick(0, 1, 2));
    expect(await ids(`?service_id=${otherService}`)).toEqual(pick(4));
    expect(await ids(`?field_id=${field}`)).toEqual(pick(3));
    expect(await ids(`?group_id=${group}`)).toEqual(pick(1, 4));
    expect(await ids(`?service_id=${service}&group_id=${group}`)).toEqual(pick(1));
    expect(await ids(`?service_id=${service.toUpperCase()}`)).toEqual(pick(0, 1, 2));
  });

  it('filters by no_group', async () => {
    expect(await ids('?no_group=True')).toEqual(pick(0, 2, 3));
    expect(await ids(`?service_id=${service}&no_group=True`)).toEqual(pick(0, 2));
    expect(await ids('?no_group=False')).toEqual(pick(0, 1, 2, 3, 4));
  });

  it('filters by tenant only with filter_tenant=True', async () => {
    expect(await ids('?tenant_id=p1&filter_tenant=True')).toEqual(pick(2, 4));
    expect(await ids(`?service_id=${service}&tenant_id=p1&filter_tenant=True`)).toEqual(pick(2));
    expect(await ids('?tenant_id=p1')).toEqual(pick(0, 1, 2, 3, 4));
    expect(await ids('?tenant_id=p1&filter_tenant=False')).toEqual(pick(0, 1, 2, 3, 4));
    expect(await ids('?tenant_id=nobody&filter_tenant=True')).toEqual([]);
  });

  it('filter_tenant=True without tenant_id selects the thresholds without a tenant', async () => {
    expect(await ids('?filter_tenant=True')).toEqual(pick(0, 1, 3));
    expect(await ids(`?group_id=${group}&filter_tenant=True`)).toEqual(pick(1));
  });

  it('lists nothing for an unknown parent', async () => {
    expect(await ids(`?service_id=${UNKNOWN}`)).toEqual([]);
    expect(await ids(`?field_id=${UNKNOWN}`)).toEqual([]);
    expect(await ids(`?group_id=${UNKNOWN}`)).toEqual([]);
  });

  it('refuses service_id with field_id', async () => {
    expectFault(
      await t.get(`${H}/thresholds/?service_id=${service}&field_id=${field}`),
      400,
      'You can only specify one parent: filter by service_id or by field_id, not both.',
    );
  });

  it('matches nothing with non-UUID text in an id filter (CloudKitty compat: an empty list, not a 400)', async () => {
    expect((await t.get(`${H}/thresholds/`)).body.thresholds.length).toBeGreaterThan(0);
    for (const name of ['service_id', 'field_id', 'group_id']) {
      const response = await t.get(`${H}/thresholds/?${name}=compute`);
      expect({ status: response.status, body: response.body }, name).toEqual({ status: 200, body: { thresholds: [] } });
    }
  });
});

describe('threshold get, update and delete', () => {
  let t: TestApp;
  let service: string;
  let otherService: string;
  let field: string;
  let group: string;
  let otherGroup: string;
  beforeAll(async () => {
    t = await startTestApp();
    service = await createService(t, 'compute');
    otherService = await createService(t, 'image');
    field = await createField(t, service, 'flavor');
    group = await createGroup(t, 'g');
    otherGroup = await createGroup(t, 'h');
  });
  afterAll(() => t.close());

  it('gets a threshold; unknown and non-UUID ids are 404 No such threshold', async () => {
    const created = await createThreshold(t, { service_id: service, level: 100, cost: '0.5' });
    const got = await t.get(`${H}/thresholds/${created.threshold_id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(
      threshold({ threshold_id: created.threshold_id, level: '100.00000000', cost: '0.5000000000000000000000000000', service_id: service }),
    );
    expectFault(await t.get(`${H}/thresholds/${UNKNOWN}`), 404, `No such threshold: ${UNKNOWN}`);
    expectFault(await t.get(`${H}/thresholds/12`), 404, 'No such threshold: 12');
  });

  it('updates the way the client does: PUT to the collection echoing the object, level and cost as strings', async () => {
    const created = await createThreshold(t, { service_id: service, level: '200', cost: 1 });
    const got = (await t.get(`${H}/thresholds/${created.threshold_id}`)).body;
    const updated = await t.put(`${H}/thresholds/`, { ...got, level: '250', cost: '3.25' });
    expect(updated.status).toBe(200);
    const expected = { ...created, level: '250.00000000', cost: '3.2500000000000000000000000000' };
    expect(updated.body).toEqual(expected);
    expect(updated.headers.location).toMatch(new RegExp(`^http://localhost:80${H}/thresholds/${created.threshold_id}\\?update_request=req-`));
    expect((await t.get(`${H}/thresholds/${created.threshold_id}`)).body).toEqual(expected);
  });

  it("accepts the whole object echoed unchanged, values in the server's own spelling", async () => {
    const created = await createThreshold(t, { field_id: field, level: 7, cost: 2, group_id: group, tenant_id: 'p1' });
    const echoed = await t.put(`${H}/thresholds/`, created);
    expect(echoed.status).toBe(200);
    expect(echoed.body).toEqual(created);
    const respelled = await t.put(`${H}/thresholds/`, {
      ...created,
      level: '7',
      cost: 2,
      threshold_id: created.threshold_id.toUpperCase(),
      field_id: field.toUpperCase(),
    });
    expect(respelled.status).toBe(200);
    expect(respelled.body).toEqual(created);
  });

  it('updates by path; attributes absent from the body keep their values', async () => {
    const created = await createThreshold(t, { service_id: service, level: 300, cost: 1, type: 'rate', group_id: group, tenant_id: 'p1' });
    const costOnly = await t.put(`${H}/thresholds/${created.threshold_id}`, { cost: 4 });
    expect(costOnly.status).toBe(200);
    expect(costOnly.body).toEqual({ ...created, cost: '4.0000000000000000000000000000' });
    expect(costOnly.headers.location).toMatch(new RegExp(`^http://localhost:80${H}/thresholds/${created.threshold_id}\\?update_request=req-`));
    const levelOnly = await t.put(`${H}/thresholds/${created.threshold_id}/`, { level: 301 });
    expect(levelOnly.status).toBe(200);
    expect(levelOnly.body).toEqual({ ...created, cost: '4.0000000000000000000000000000', level: '301.00000000' });
    const nothing = await t.put(`${H}/thresholds/`, { threshold_id: created.threshold_id });
    expect(nothing.status).toBe(200);
    expect(nothing.body).toEqual(levelOnly.body);
    const empty = await t.put(`${H}/thresholds/${created.threshold_id}`, {});
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual(levelOnly.body);
  });

  it('changes type', async () => {
    const created = await createThreshold(t, { service_id: service, level: 400 });
    const updated = await t.put(`${H}/thresholds/`, { ...created, type: 'rate' });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ ...created, type: 'rate' });
    expect((await t.get(`${H}/thresholds/${created.threshold_id}`)).body.type).toBe('rate');
  });

  it('changes group_id, to another group and back to null', async () => {
    const created = await createThreshold(t, { service_id: service, level: 500 });
    const grouped = await t.put(`${H}/thresholds/`, { ...created, group_id: group });
    expect(grouped.status).toBe(200);
    expect(grouped.body).toEqual({ ...created, group_id: group });
    expect((await t.get(`${H}/thresholds/group?threshold_id=${created.threshold_id}`)).body).toEqual({ group_id: group, name: 'g' });
    const moved = await t.put(`${H}/thresholds/${created.threshold_id}`, { group_id: otherGroup.toUpperCase() });
    expect(moved.status).toBe(200);
    expect(moved.body.group_id).toBe(otherGroup);
    expect((await t.get(`${H}/groups/${otherGroup}/thresholds`)).body.thresholds.map((item: any) => item.threshold_id)).toContain(created.threshold_id);
    const detached = await t.put(`${H}/thresholds/`, { ...moved.body, group_id: null });
    expect(detached.status).toBe(200);
    expect(detached.body).toEqual(created);
    expect((await t.get(`${H}/thresholds/${created.threshold_id}`)).body.group_id).toBeNull();
  });

  it('refuses an unknown group on update and keeps the threshold', async () => {
    const created = await createThreshold(t, { service_id: service, level: 550 });
    expectFault(await t.put(`${H}/thresholds/`, { ...created, group_id: UNKNOWN }), 400, `No such group: None (UUID: ${UNKNOWN})`);
    expect((await t.get(`${H}/thresholds/${created.threshold_id}`)).body).toEqual(created);
  });

  it('changes tenant_id, and clears it', async () => {
    const created = await createThreshold(t, { field_id: field, level: 600 });
    const withTenant = await t.put(`${H}/thresholds/`, { ...created, tenant_id: 'p2' });
    expect(withTenant.status).toBe(200);
    expect(withTenant.body).toEqual({ ...created, tenant_id: 'p2' });
    const cleared = await t.put(`${H}/thresholds/${created.threshold_id}`, { tenant_id: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual(created);
  });

  it('refuses a changed threshold_id, service_id or field_id', async () => {
    const created = await createThreshold(t, { service_id: service, level: 700 });
    const other = await createThreshold(t, { service_id: service, level: 701 });
    expectFault(
      await t.put(`${H}/thresholds/${created.threshold_id}`, { threshold_id: other.threshold_id, level: 702 }),
      400,
      `Invalid input for field/attribute threshold_id. Value: '${other.threshold_id}'. Cannot set read only field.`,
    );
    expectFault(
      await t.put(`${H}/thresholds/`, { ...created, service_id: otherService }),
      400,
      `Invalid input for field/attribute service_id. Value: '${otherService}'. Cannot set read only field.`,
    );
    expectFault(
      await t.put(`${H}/thresholds/`, { ...created, field_id: field }),
      400,
      `Invalid input for field/attribute field_id. Value: '${field}'. Cannot set read only field.`,
    );
    expectFault(
      await t.put(`${H}/thresholds/`, { ...created, service_id: null, field_id: field }),
      400,
      `Invalid input for field/attribute service_id. Value: 'None'. Cannot set read only field.`,
    );
    expect((await t.get(`${H}/thresholds/${created.threshold_id}`)).body).toEqual(created);
  });

  it('refuses an update that clashes with another threshold: 409, nothing changed', async () => {
    await createThreshold(t, { service_id: service, level: 800, tenant_id: 'p1' });
    const b = await createThreshold(t, { service_id: service, level: 801, tenant_id: 'p1' });
    expectFault(await t.put(`${H}/thresholds/`, { ...b, level: '800' }), 409, `Threshold '800.00000000' already exists for service '${service}', tenant: 'p1'`);
    expect((await t.get(`${H}/thresholds/${b.threshold_id}`)).body).toEqual(b);

    const c = await createThreshold(t, { service_id: service, level: 800 });
    expectFault(
      await t.put(`${H}/thresholds/${c.threshold_id}`, { tenant_id: 'p1' }),
      409,
      `Threshold '800.00000000' already exists for service '${service}', tenant: 'p1'`,
    );
    expect((await t.get(`${H}/thresholds/${c.threshold_id}`)).body).toEqual(c);

    const d = await createThreshold(t, { service_id: service, level: 800, group_id: group });
    expectFault(
      await t.put(`${H}/thresholds/${d.threshold_id}`, { group_id: null }),
      409,
      `Threshold '800.00000000' already exists for service '${service}', tenant: 'None'`,
    );
    expect((await t.get(`${H}/thresholds/${d.threshold_id}`)).body).toEqual(d);
  });

  it('allows a level already used by another tenant or group of the same parent', async () => {
    await createThreshold(t, { service_id: service, level: 850, tenant_id: 'p1' });
    await createThreshold(t, { service_id: service, level: 850, group_id: group });
    const moving = await createThreshold(t, { service_id: service, level: 851 });
    const updated = await t.put(`${H}/thresholds/`, { ...moving, level: '850' });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ ...moving, level: '850.00000000' });
  });

  it('answers 404 for an unknown id even when the body is bad', async () => {
    const message = `No such threshold: ${UNKNOWN}`;
    expectFault(await t.put(`${H}/thresholds/`, { threshold_id: UNKNOWN, level: 'abc', bogus: 1 }), 404, message);
    expectFault(await t.put(`${H}/thresholds/${UNKNOWN}`, { level: 'abc', type: 'bogus', bogus: 1 }), 404, message);
    expectFault(await t.put(`${H}/thresholds/${UNKNOWN}`, { level: 1 }), 404, message);
    expectFault(await t.put(`${H}/thresholds/oops`, { level: 1 }), 404, 'No such threshold: oops');
  });

  it('refuses a PUT that names no threshold', async () => {
    expectFault(await t.put(`${H}/thresholds/`, { level: 1 }), 400, 'Missing argument: "threshold_id"');
  });

  it('refuses bad values and unknown attributes on update', async () => {
    const created = await createThreshold(t, { service_id: service, level: 900 });
    expectFault(
      await t.put(`${H}/thresholds/`, { ...created, level: 'high' }),
      400,
      "Invalid input for field/attribute level. Value: 'high'. Value must be a finite decimal number.",
    );
    expectFault(
      await t.put(`${H}/thresholds/`, { ...created, type: 'bogus' }),
      400,
      "Invalid input for field/attribute type. Value: 'bogus'. Value should be one of: flat, rate",
    );
    expectFault(await t.put(`${H}/thresholds/`, { ...created, value: 'x' }), 400, 'Unknown attribute for argument threshold: value');
    expect((await t.get(`${H}/thresholds/${created.threshold_id}`)).body).toEqual(created);
  });

  it('deletes a threshold by body, path and query; a second delete is 404', async () => {
    const byBody = await createThreshold(t, { service_id: service, level: 1000 });
    const byPath = await createThreshold(t, { service_id: service, level: 1001 });
    const byQuery = await createThreshold(t, { service_id: service, level: 1002 });
    for (const response of [
      await t.del(`${H}/thresholds/`, { threshold_id: byBody.threshold_id }),
      await t.del(`${H}/thresholds/${byPath.threshold_id}`),
      await t.del(`${H}/thresholds?threshold_id=${byQuery.threshold_id}`),
    ]) {
      expect(response.status).toBe(204);
      expect(response.text).toBe('');
    }
    for (const item of [byBody, byPath, byQuery]) {
      expectFault(await t.get(`${H}/thresholds/${item.threshold_id}`), 404, `No such threshold: ${item.threshold_id}`);
      expectFault(await t.del(`${H}/thresholds/`, { threshold_id: item.threshold_id }), 404, `No such threshold: ${item.threshold_id}`);
    }
    const row = await t.tables.selectFrom('hashmap_thresholds').select('id').where('threshold_id', '=', byBody.threshold_id).executeTakeFirst();
    expect(row).toBeUndefined();
  });

  it('answers a DELETE of an unknown threshold with the same 404 as a GET', async () => {
    expectFault(await t.del(`${H}/thresholds/`, { threshold_id: UNKNOWN }), 404, `No such threshold: ${UNKNOWN}`);
    expectFault(await t.del(`${H}/thresholds/${UNKNOWN}`), 404, `No such threshold: ${UNKNOWN}`);
    expectFault(await t.del(`${H}/thresholds?threshold_id=${UNKNOWN}`), 404, `No such threshold: ${UNKNOWN}`);
    expectFault(await t.del(`${H}/thresholds/nope`), 404, 'No such threshold: nope');
  });
});

describe('the group of a threshold', () => {
  let t: TestApp;
  let service: string;
  let group: string;
  beforeAll(async () => {
    t = await startTestApp();
    service = await createService(t, 'compute');
    group = await createGroup(t, 'instance_uptime');
  });
  afterAll(() => t.close());

  it('returns the group', async () => {
    const created = await createThreshold(t, { service_id: service, level: 1, group_id: group });
    const response = await t.get(`${H}/thresholds/group?threshold_id=${created.threshold_id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ group_id: group, name: 'instance_uptime' });
    expect((await t.get(`${H}/thresholds/group/?threshold_id=${created.threshold_id}`)).body).toEqual({ group_id: group, name: 'instance_uptime' });
  });

  it('answers 404 Threshold has no group for a threshold without a group', async () => {
    const created = await createThreshold(t, { service_id: service, level: 2 });
    expectFault(await t.get(`${H}/thresholds/group?threshold_id=${created.threshold_id}`), 404, `Threshold has no group (UUID: ${created.threshold_id})`);
  });

  it('answers the same 404 for an unknown or non-UUID threshold (CloudKitty compat), 400 when none is named', async () => {
    expectFault(await t.get(`${H}/thresholds/group?threshold_id=${UNKNOWN}`), 404, `Threshold has no group (UUID: ${UNKNOWN})`);
    expectFault(await t.get(`${H}/thresholds/group?threshold_id=compute`), 404, 'Threshold has no group (UUID: compute)');
    expectFault(await t.get(`${H}/thresholds/group`), 400, 'Missing argument: "threshold_id"');
  });
});
