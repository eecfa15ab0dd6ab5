/**
 * Hashmap services, fields and groups (api.md §4): create, list, get, the three delete forms, the
 * CloudKitty messages of 404 / 409 / 400, the nested collections and the cascades.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { expectFault, createService, createField, createGroup } from '../helpers/fixtures.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNKNOWN = '0b7c4a52-6f35-4c47-9a4d-3f0e5e0f7a11';

function expectNoContent(response: TestResponse): void {
  expect(response.status).toBe(204);
  expect(response.text).toBe('');
}

async function createMapping(t: TestApp, body: Record<string, unknown>): Promise<any> {
  const response = await t.post(`${H}/mappings/`, { cost: 1, ...body });
  expect(response.status).toBe(201);
  return response.body;
}

async function createThreshold(t: TestApp, body: Record<string, unknown>): Promise<any> {
  const response = await t.post(`${H}/thresholds/`, { cost: 1, ...body });
  expect(response.status).toBe(201);
  return response.body;
}

async function countRows(
  t: TestApp,
  table: 'hashmap_services' | 'hashmap_fields' | 'hashmap_groups' | 'hashmap_mappings' | 'hashmap_thresholds',
): Promise<number> {
  const rows = await t.tables.selectFrom(table).select('id').execute();
  return rows.length;
}

describe('hashmap services', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('creates a service: 201, the object and an absolute Location', async () => {
    const created = await t.post(`${H}/services/`, { name: 'compute' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ service_id: expect.stringMatching(UUID), name: 'compute' });
    expect(created.headers.location).toBe(`http://localhost:80${H}/services/${created.body.service_id}`);

    const withoutSlash = await t.post(`${H}/services`, { name: 'image' });
    expect(withoutSlash.status).toBe(201);
    expect(withoutSlash.headers.location).toBe(`http://localhost:80${H}/services/${withoutSlash.body.service_id}`);
  });

  it('lists services in creation order and gets one', async () => {
    const listed = await t.get(`${H}/services/`);
    expect(listed.status).toBe(200);
    expect(listed.body.services.map((service: any) => service.name)).toEqual(['compute', 'image']);
    const compute = listed.body.services[0];
    expect(Object.keys(compute).sort()).toEqual(['name', 'service_id']);

    const got = await t.get(`${H}/services/${compute.service_id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(compute);
  });

  it('finds a service by its id written in upper case', async () => {
    const id = await createService(t, 'upper');
    const got = await t.get(`${H}/services/${id.toUpperCase()}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ service_id: id, name: 'upper' });
  });

  it("answers 404 with CloudKitty's message for an unknown or non-UUID id", async () => {
    expectFault(await t.get(`${H}/services/${UNKNOWN}`), 404, `No such service: None (UUID: ${UNKNOWN})`);
    expectFault(await t.get(`${H}/services/42`), 404, 'No such service: None (UUID: 42)');
  });

  it('refuses a second service with the same name: 409 naming the existing one', async () => {
    const id = await createService(t, 'volume');
    expectFault(await t.post(`${H}/services/`, { name: 'volume' }), 409, `Service volume already exists (UUID: ${id})`);
    const listed = await t.get(`${H}/services/`);
    expect(listed.body.services.filter((service: any) => service.name === 'volume')).toHaveLength(1);
  });

  it('refuses a create body without a name', async () => {
    expectFault(await t.post(`${H}/services/`, {}), 400, "Invalid input for field/attribute name. Value: 'None'. Mandatory field missing.");
  });

  it("deletes a service with the id in a JSON body sent to the collection URL (the client's form)", async () => {
    const id = await createService(t, 'by-body');
    expectNoContent(await t.del(`${H}/services/`, { service_id: id }));
    expectFault(await t.get(`${H}/services/${id}`), 404, `No such service: None (UUID: ${id})`);
  });

  it('deletes a service by path and by query', async () => {
    const byPath = await createService(t, 'by-path');
    expectNoContent(await t.del(`${H}/services/${byPath}`));
    expectFault(await t.get(`${H}/services/${byPath}`), 404, `No such service: None (UUID: ${byPath})`);

    const byQuery = await createService(t, 'by-query');
    expectNoContent(await t.del(`${H}/services?service_id=${byQuery}`));
    expectFault(await t.get(`${H}/services/${byQuery}`), 404, `No such service: None (UUID: ${byQuery})`);

    const listed = await t.get(`${H}/services/`);
    expect(listed.body.services.map((service: any) => service.name)).not.toContain('by-path');
    expect(listed.body.services.map((service: any) => service.name)).not.toContain('by-query');
  });

  it('answers a DELETE of an unknown id with the same 404 as a GET, in every form', async () => {
    const message = `No such service: None (UUID: ${UNKNOWN})`;
    expectFault(await t.del(`${H}/services/`, { service_id: UNKNOWN }), 404, message);
    expectFault(await t.del(`${H}/services/${UNKNOWN}`), 404, message);
    expectFault(await t.del(`${H}/services?service_id=${UNKNOWN}`), 404, message);
    expectFault(await t.del(`${H}/services/not-a-uuid`), 404, 'No such service: None (UUID: not-a-uuid)');
  });

  it('answers a second DELETE of the same service with 404', async () => {
    const id = await createService(t, 'twice');
    expectNoContent(await t.del(`${H}/services/`, { service_id: id }));
    expectFault(await t.del(`${H}/services/`, { service_id: id }), 404, `No such service: None (UUID: ${id})`);
  });

  it('refuses a DELETE that names no service', async () => {
    expectFault(await t.del(`${H}/services/`), 400, 'Missing argument: "service_id"');
  });
});

describe('hashmap fields', () => {
  let t: TestApp;
  let compute: string;
  let image: string;
  beforeAll(async () => {
    t = await startTestApp();
    compute = await createService(t, 'compute');
    image = await createService(t, 'image');
  });
  afterAll(() => t.close());

  it('creates a field: 201, the object and an absolute Location', async () => {
    const created = await t.post(`${H}/fields/`, { service_id: compute, name: 'flavor' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ field_id: expect.stringMatching(UUID), name: 'flavor', service_id: compute });
    expect(created.headers.location).toBe(`http://localhost:80${H}/fields/${created.body.field_id}`);
  });

  it('refuses a field of an unknown service: 400 with the No such service message', async () => {
    expectFault(await t.post(`${H}/fields/`, { service_id: UNKNOWN, name: 'flavor' }), 400, `No such service: None (UUID: ${UNKNOWN})`);
  });

  it('refuses a second field with the same name in a service, allows it in another one', async () => {
    const first = await createField(t, compute, 'image_id');
    expectFault(await t.post(`${H}/fields/`, { service_id: compute, name: 'image_id' }), 409, `Field image_id already exists (UUID: ${first})`);
    const other = await t.post(`${H}/fields/`, { service_id: image, name: 'image_id' });
    expect(other.status).toBe(201);
    expect(other.body).toEqual({ field_id: expect.stringMatching(UUID), name: 'image_id', service_id: image });
    expect(other.body.field_id).not.toBe(first);
  });

  it('lists the fields of one service, by query and by the nested route', async () => {
    const service = await createService(t, 'network');
    const a = await createField(t, service, 'a');
    const b = await createField(t, service, 'b');
    const expected = {
      fields: [
        { field_id: a, name: 'a', service_id: service },
        { field_id: b, name: 'b', service_id: service },
      ],
    };
    const byQuery = await t.get(`${H}/fields/?service_id=${service}`);
    expect(byQuery.status).toBe(200);
    expect(byQuery.body).toEqual(expected);
    const nested = await t.get(`${H}/services/${service}/fields`);
    expect(nested.status).toBe(200);
    expect(nested.body).toEqual(expected);
  });

  it('requires service_id to list fields', async () => {
    expectFault(await t.get(`${H}/fields/`), 400, 'Missing argument: "service_id"');
    expectFault(await t.get(`${H}/fields`), 400, 'Missing argument: "service_id"');
  });

  it('lists no fields for an unknown service', async () => {
    const byQuery = await t.get(`${H}/fields/?service_id=${UNKNOWN}`);
    expect(byQuery.status).toBe(200);
    expect(byQuery.body).toEqual({ fields: [] });
    const nested = await t.get(`${H}/services/${UNKNOWN}/fields`);
    expect(nested.status).toBe(200);
    expect(nested.body).toEqual({ fields: [] });
    const notUuid = await t.get(`${H}/services/compute/fields`);
    expect(notUuid.status).toBe(200);
    expect(notUuid.body).toEqual({ fields: [] });
  });

  it('answers no fields for a service_id filter that is not a UUID (CloudKitty compat: Horizon asks ?service_id=<name>)', async () => {
    const response = await t.get(`${H}/fields/?service_id=compute`);
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { fields: [] } });
  });

  it('gets a field; unknown and non-UUID ids are 404 No such field', async () => {
    const id = await createField(t, compute, 'get-me');
    const got = await t.get(`${H}/fields/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ field_id: id, name: 'get-me', service_id: compute });
    expectFault(await t.get(`${H}/fields/${UNKNOWN}`), 404, `No such field: ${UNKNOWN}`);
    expectFault(await t.get(`${H}/fields/7`), 404, 'No such field: 7');
  });

  it('deletes a field by body, path and query', async () => {
    const byBody = await createField(t, compute, 'by-body');
    const byPath = await createField(t, compute, 'by-path');
    const byQuery = await createField(t, compute, 'by-query');
    expectNoContent(await t.del(`${H}/fields/`, { field_id: byBody }));
    expectNoContent(await t.del(`${H}/fields/${byPath}`));
    expectNoContent(await t.del(`${H}/fields?field_id=${byQuery}`));
    for (const id of [byBody, byPath, byQuery]) expectFault(await t.get(`${H}/fields/${id}`), 404, `No such field: ${id}`);
    const names = (await t.get(`${H}/fields/?service_id=${compute}`)).body.fields.map((field: any) => field.name);
    expect(names).toEqual(['flavor', 'image_id', 'get-me']);
  });

  it('answers a DELETE of an unknown field with the same 404 as a GET', async () => {
    expectFault(await t.del(`${H}/fields/`, { field_id: UNKNOWN }), 404, `No such field: ${UNKNOWN}`);
    expectFault(await t.del(`${H}/fields/${UNKNOWN}`), 404, `No such field: ${UNKNOWN}`);
    expectFault(await t.del(`${H}/fields?field_id=${UNKNOWN}`), 404, `No such field: ${UNKNOWN}`);
    expectFault(await t.del(`${H}/fields/xyz`), 404, 'No such field: xyz');
  });
});

describe('hashmap groups', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('creates, lists and gets groups', async () => {
    const created = await t.post(`${H}/groups/`, { name: 'instance_uptime_flavor' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ group_id: expect.stringMatching(UUID), name: 'instance_uptime_flavor' });
    expect(created.headers.location).toBe(`http://localhost:80${H}/groups/${created.body.group_id}`);
    const second = await createGroup(t, 'second');

    const listed = await t.get(`${H}/groups/`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      groups: [
        { group_id: created.body.group_id, name: 'instance_uptime_flavor' },
        { group_id: second, name: 'second' },
      ],
    });
    const got = await t.get(`${H}/groups/${second}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ group_id: second, name: 'second' });
  });

  it('answers 404 No such group for an unknown or non-UUID id', async () => {
    expectFault(await t.get(`${H}/groups/${UNKNOWN}`), 404, `No such group: None (UUID: ${UNKNOWN})`);
    expectFault(await t.get(`${H}/groups/g1`), 404, 'No such group: None (UUID: g1)');
  });

  it('refuses a second group with the same name: 409', async () => {
    const id = await createGroup(t, 'dup');
    expectFault(await t.post(`${H}/groups/`, { name: 'dup' }), 409, `Group dup already exists (UUID: ${id})`);
  });

  it('deletes a group by body (with recursive as the client sends it), path and query', async () => {
    const byBody = await createGroup(t, 'by-body');
    const byPath = await createGroup(t, 'by-path');
    const byQuery = await createGroup(t, 'by-query');
    expectNoContent(await t.del(`${H}/groups/`, { group_id: byBody, recursive: false }));
    expectNoContent(await t.del(`${H}/groups/${byPath}`));
    expectNoContent(await t.del(`${H}/groups?group_id=${byQuery}`));
    for (const id of [byBody, byPath, byQuery]) expectFault(await t.get(`${H}/groups/${id}`), 404, `No such group: None (UUID: ${id})`);
  });

  it('answers a DELETE of an unknown group with the same 404 as a GET', async () => {
    const message = `No such group: None (UUID: ${UNKNOWN})`;
    expectFault(await t.del(`${H}/groups/`, { group_id: UNKNOWN, recursive: true }), 404, message);
    expectFault(await t.del(`${H}/groups/${UNKNOWN}`), 404, message);
    expectFault(await t.del(`${H}/groups?group_id=${UNKNOWN}`), 404, message);
  });

  it('refuses a non-boolean recursive in the body', async () => {
    const id = await createGroup(t, 'recursive-type');
    const response = await t.del(`${H}/groups/`, { group_id: id, recursive: 'yes' });
    expect(response.status).toBe(400);
    expect(response.body.faultstring).toContain('recursive');
    expect((await t.get(`${H}/groups/${id}`)).status).toBe(200);
  });
});

describe('nested collections of services and groups', () => {
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
    otherGroup = await createGroup(t, 'other');
  });
  afterAll(() => t.close());

  it('lists the mappings of a service: services/{id}/mappings equals mappings?service_id=', async () => {
    const own = await createMapping(t, { service_id: service, group_id: group });
    const deleted = await createMapping(t, { service_id: service, tenant_id: 'gone' });
    expectNoContent(await t.del(`${H}/mappings/`, { mapping_id: deleted.mapping_id }));
    await createMapping(t, { service_id: otherService });
    await createMapping(t, { field_id: field, value: 'm1.small' });

    const nested = await t.get(`${H}/services/${service}/mappings`);
    expect(nested.status).toBe(200);
    expect(nested.body).toEqual({ mappings: [own] });
    const byQuery = await t.get(`${H}/mappings/?service_id=${service}`);
    expect(byQuery.body).toEqual(nested.body);
    expect((await t.get(`${H}/services/${UNKNOWN}/mappings`)).body).toEqual({ mappings: [] });
  });

  it('lists the mappings of a group by path and by query, without deleted ones', async () => {
    const inGroup = await createMapping(t, { field_id: field, value: 'm1.large', group_id: group });
    const deleted = await createMapping(t, { field_id: field, value: 'm1.tiny', group_id: group });
    expectNoContent(await t.del(`${H}/mappings/${deleted.mapping_id}`));
    await createMapping(t, { field_id: field, value: 'm1.xlarge', group_id: otherGroup });

    const expectedIds = [(await t.get(`${H}/mappings/?service_id=${service}`)).body.mappings[0].mapping_id, inGroup.mapping_id];
    const byPath = await t.get(`${H}/groups/${group}/mappings`);
    expect(byPath.status).toBe(200);
    expect(byPath.body.mappings.map((mapping: any) => mapping.mapping_id)).toEqual(expectedIds);
    expect(byPath.body.mappings.every((mapping: any) => mapping.group_id === group)).toBe(true);
    expect(byPath.body.mappings[1]).toEqual(inGroup);
    const byQuery = await t.get(`${H}/groups/mappings?group_id=${group}`);
    expect(byQuery.status).toBe(200);
    expect(byQuery.body).toEqual(byPath.body);
  });

  it('lists the thresholds of a group by path and by query', async () => {
    const a = await createThreshold(t, { service_id: service, level: 1, group_id: group });
    const b = await createThreshold(t, { field_id: field, level: '2', group_id: group });
    await createThreshold(t, { service_id: service, level: 3, group_id: otherGroup });
    await createThreshold(t, { service_id: service, level: 4 });

    const byPath = await t.get(`${H}/groups/${group}/thresholds`);
    expect(byPath.status).toBe(200);
    expect(byPath.body).toEqual({ thresholds: [a, b] });
    const byQuery = await t.get(`${H}/groups/thresholds?group_id=${group}`);
    expect(byQuery.status).toBe(200);
    expect(byQuery.body).toEqual({ thresholds: [a, b] });
  });

  it('answers empty collections for an unknown group (CloudKitty compat: not a 404)', async () => {
    for (const [url, key] of [
      [`${H}/groups/${UNKNOWN}/mappings`, 'mappings'],
      [`${H}/groups/mappings?group_id=${UNKNOWN}`, 'mappings'],
      [`${H}/groups/${UNKNOWN}/thresholds`, 'thresholds'],
      [`${H}/groups/thresholds?group_id=${UNKNOWN}`, 'thresholds'],
      [`${H}/groups/g1/mappings`, 'mappings'],
      [`${H}/groups/g1/thresholds`, 'thresholds'],
    ]) {
      const response = await t.get(url);
      expect({ status: response.status, body: response.body }, url).toEqual({ status: 200, body: { [key]: [] } });
    }
  });

  it('requires group_id for groups/mappings and groups/thresholds', async () => {
    expectFault(await t.get(`${H}/groups/mappings`), 400, 'Missing argument: "group_id"');
    expectFault(await t.get(`${H}/groups/thresholds`), 400, 'Missing argument: "group_id"');
  });

  it('lists an empty group as empty collections', async () => {
    const empty = await createGroup(t, 'empty');
    expect((await t.get(`${H}/groups/${empty}/mappings`)).body).toEqual({ mappings: [] });
    expect((await t.get(`${H}/groups/${empty}/thresholds`)).body).toEqual({ thresholds: [] });
  });
});

describe('cascades of service and field deletes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('deleting a service removes its fields, mappings (deleted ones too) and thresholds', async () => {
    const keep = await createService(t, 'keep');
    const keepField = await createField(t, keep, 'keep-field');
    const keepMapping = await createMapping(t, { field_id: keepField, value: 'v' });
    const keepThreshold = await createThreshold(t, { service_id: keep, level: 1 });

    const doomed = await createService(t, 'doomed');
    const doomedField = await createField(t, doomed, 'flavor');
    const serviceMapping = await createMapping(t, { service_id: doomed });
    const fieldMapping = await createMapping(t, { field_id: doomedField, value: 'm1.small' });
    const softDeleted = await createMapping(t, { field_id: doomedField, value: 'm1.gone' });
    expectNoContent(await t.del(`${H}/mappings/`, { mapping_id: softDeleted.mapping_id }));
    const serviceThreshold = await createThreshold(t, { service_id: doomed, level: 10 });
    const fieldThreshold = await createThreshold(t, { field_id: doomedField, level: '5' });

    expect(await countRows(t, 'hashmap_fields')).toBe(2);
    expect(await countRows(t, 'hashmap_mappings')).toBe(4);
    expect(await countRows(t, 'hashmap_thresholds')).toBe(3);

    expectNoContent(await t.del(`${H}/services/`, { service_id: doomed }));

    expectFault(await t.get(`${H}/fields/${doomedField}`), 404, `No such field: ${doomedField}`);
    for (const mapping of [serviceMapping, fieldMapping]) {
      expectFault(await t.get(`${H}/mappings/${mapping.mapping_id}`), 404, `No such mapping: ${mapping.mapping_id}`);
    }
    for (const threshold of [serviceThreshold, fieldThreshold]) {
      expectFault(await t.get(`${H}/thresholds/${threshold.threshold_id}`), 404, `No such threshold: ${threshold.threshold_id}`);
    }
    expect((await t.get(`${H}/fields/?service_id=${doomed}`)).body).toEqual({ fields: [] });
    expect((await t.get(`${H}/mappings/?field_id=${doomedField}&deleted=True`)).body).toEqual({ mappings: [] });

    expect(await countRows(t, 'hashmap_services')).toBe(1);
    expect(await countRows(t, 'hashmap_fields')).toBe(1);
    const mappingRows = await t.tables.selectFrom('hashmap_mappings').select('mapping_id').execute();
    expect(mappingRows.map((row) => row.mapping_id)).toEqual([keepMapping.mapping_id]);
    const thresholdRows = await t.tables.selectFrom('hashmap_thresholds').select('threshold_id').execute();
    expect(thresholdRows.map((row) => row.threshold_id)).toEqual([keepThreshold.threshold_id]);

    expect((await t.get(`${H}/mappings/${keepMapping.mapping_id}`)).body).toEqual(keepMapping);
    expect((await t.get(`${H}/thresholds/${keepThreshold.threshold_id}`)).body).toEqual(keepThreshold);
  });

  it("deleting a field removes its mappings and thresholds, not the service's", async () => {
    const service = await createService(t, 'fielded');
    const doomedField = await createField(t, service, 'doomed');
    const otherField = await createField(t, service, 'other');
    const serviceMapping = await createMapping(t, { service_id: service });
    const serviceThreshold = await createThreshold(t, { service_id: service, level: 1 });
    const otherMapping = await createMapping(t, { field_id: otherField, value: 'x' });
    const fieldMappings = [await createMapping(t, { field_id: doomedField, value: 'a' }), await createMapping(t, { field_id: doomedField, value: 'b' })];
    const fieldThreshold = await createThreshold(t, { field_id: doomedField, level: 1 });
    const mappingsBefore = await countRows(t, 'hashmap_mappings');
    const thresholdsBefore = await countRows(t, 'hashmap_thresholds');

    expectNoContent(await t.del(`${H}/fields/${doomedField}`));

    for (const mapping of fieldMappings) {
      expectFault(await t.get(`${H}/mappings/${mapping.mapping_id}`), 404, `No such mapping: ${mapping.mapping_id}`);
    }
    expectFault(await t.get(`${H}/thresholds/${fieldThreshold.threshold_id}`), 404, `No such threshold: ${fieldThreshold.threshold_id}`);
    expect(await countRows(t, 'hashmap_mappings')).toBe(mappingsBefore - 2);
    expect(await countRows(t, 'hashmap_thresholds')).toBe(thresholdsBefore - 1);
    expect((await t.get(`${H}/mappings/${serviceMapping.mapping_id}`)).body).toEqual(serviceMapping);
    expect((await t.get(`${H}/mappings/${otherMapping.mapping_id}`)).body).toEqual(otherMapping);
    expect((await t.get(`${H}/thresholds/${serviceThreshold.threshold_id}`)).body).toEqual(serviceThreshold);
    expect((await t.get(`${H}/fields/?service_id=${service}`)).body).toEqual({ fields: [{ field_id: otherField, name: 'other', service_id: service }] });
  });
});

describe('group deletes', () => {
  let t: TestApp;
  let service: string;
  let field: string;
  beforeAll(async () => {
    t = await startTestApp();
    service = await createService(t, 'compute');
    field = await createField(t, service, 'flavor');
  });
  afterAll(() => t.close());

  async function groupWithRules(name: string) {
    const group = await createGroup(t, name);
    const mapping = await createMapping(t, { field_id: field, value: `${name}-value`, group_id: group });
    const threshold = await createThreshold(t, { service_id: service, level: 100, group_id: group });
    const loneMapping = await createMapping(t, { field_id: field, value: `${name}-lone` });
    return { group, mapping, threshold, loneMapping };
  }

  it("non-recursive: detaches the group's mappings and thresholds (group_id becomes null)", async () => {
    const { group, mapping, threshold, loneMapping } = await groupWithRules('detach');
    const mappingsBefore = await countRows(t, 'hashmap_mappings');
    const thresholdsBefore = await countRows(t, 'hashmap_thresholds');

    expectNoContent(await t.del(`${H}/groups/`, { group_id: group, recursive: false }));

    expectFault(await t.get(`${H}/groups/${group}`), 404, `No such group: None (UUID: ${group})`);
    expect((await t.get(`${H}/mappings/${mapping.mapping_id}`)).body).toEqual({ ...mapping, group_id: null });
    expect((await t.get(`${H}/thresholds/${threshold.threshold_id}`)).body).toEqual({ ...threshold, group_id: null });
    expect((await t.get(`${H}/mappings/${loneMapping.mapping_id}`)).body).toEqual(loneMapping);
    expectFault(await t.get(`${H}/mappings/group?mapping_id=${mapping.mapping_id}`), 404, `Mapping has no group (UUID: ${mapping.mapping_id})`);
    expectFault(await t.get(`${H}/thresholds/group?threshold_id=${threshold.threshold_id}`), 404, `Threshold has no group (UUID: ${threshold.threshold_id})`);
    expect(await countRows(t, 'hashmap_mappings')).toBe(mappingsBefore);
    expect(await countRows(t, 'hashmap_thresholds')).toBe(thresholdsBefore);
  });

  it('non-recursive is the default when recursive is left out', async () => {
    const { group, mapping, threshold } = await groupWithRules('default');
    expectNoContent(await t.del(`${H}/groups/${group}`));
    expect((await t.get(`${H}/mappings/${mapping.mapping_id}`)).body).toEqual({ ...mapping, group_id: null });
    expect((await t.get(`${H}/thresholds/${threshold.threshold_id}`)).body).toEqual({ ...threshold, group_id: null });
  });

  it("recursive: soft-deletes the group's mappings (deleted_by from X-User-Id) and deletes its thresholds", async () => {
    const { group, mapping, threshold, loneMapping } = await groupWithRules('recursive');
    const mappingsBefore = await countRows(t, 'hashmap_mappings');
    const thresholdsBefore = await countRows(t, 'hashmap_thresholds');

    const deleted = await t.request('DELETE', `${H}/groups/`, { group_id: group, recursive: true }, { 'X-User-Id': 'alice' });
    expectNoContent(deleted);

    expectFault(await t.get(`${H}/groups/${group}`), 404, `No such group: None (UUID: ${group})`);
    expectFault(await t.get(`${H}/mappings/${mapping.mapping_id}`), 404, `No such mapping: ${mapping.mapping_id}`);
    expectFault(await t.get(`${H}/thresholds/${threshold.threshold_id}`), 404, `No such threshold: ${threshold.threshold_id}`);
    expect((await t.get(`${H}/mappings/${loneMapping.mapping_id}`)).body).toEqual(loneMapping);

    const live = await t.get(`${H}/mappings/?field_id=${field}`);
    expect(live.body.mappings.map((m: any) => m.mapping_id)).not.toContain(mapping.mapping_id);
    const withDeleted = await t.get(`${H}/mappings/?field_id=${field}&deleted=true`);
    const soft = withDeleted.body.mappings.find((m: any) => m.mapping_id === mapping.mapping_id);
    expect(soft).toBeDefined();
    expect(soft.deleted).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    expect(soft.deleted_by).toBe('alice');
    expect(soft.value).toBe('recursive-value');
    const byDeleter = await t.get(`${H}/mappings/?field_id=${field}&deleted=true&deleted_by=alice`);
    expect(byDeleter.body.mappings.map((m: any) => m.mapping_id)).toEqual([mapping.mapping_id]);

    expect(await countRows(t, 'hashmap_mappings')).toBe(mappingsBefore);
    expect(await countRows(t, 'hashmap_thresholds')).toBe(thresholdsBefore - 1);
    const row = await t.tables
      .selectFrom('hashmap_mappings')
      .select(['deleted', 'deleted_by'])
      .where('mapping_id', '=', mapping.mapping_id)
      .executeTakeFirstOrThrow();
    expect(row.deleted).not.toBeNull();
    expect(row.deleted_by).toBe('alice');
  });

  it('recursive by query string, without X-User-Id: deleted_by is unknown', async () => {
    const { group, mapping, threshold } = await groupWithRules('by-query');
    expectNoContent(await t.del(`${H}/groups/${group}?recursive=True`));
    expectFault(await t.get(`${H}/mappings/${mapping.mapping_id}`), 404, `No such mapping: ${mapping.mapping_id}`);
    expectFault(await t.get(`${H}/thresholds/${threshold.threshold_id}`), 404, `No such threshold: ${threshold.threshold_id}`);
    const withDeleted = await t.get(`${H}/mappings/?field_id=${field}&deleted=True&deleted_by=unknown`);
    expect(withDeleted.body.mappings.map((m: any) => m.mapping_id)).toEqual([mapping.mapping_id]);
  });

  it('a recursive delete leaves already deleted mappings as they were', async () => {
    const group = await createGroup(t, 'predeleted');
    const mapping = await createMapping(t, { field_id: field, value: 'predeleted', group_id: group });
    await t.request('DELETE', `${H}/mappings/`, { mapping_id: mapping.mapping_id }, { 'X-User-Id': 'bob' });
    expectNoContent(await t.request('DELETE', `${H}/groups/`, { group_id: group, recursive: true }, { 'X-User-Id': 'carol' }));
    const row = await t.tables.selectFrom('hashmap_mappings').select('deleted_by').where('mapping_id', '=', mapping.mapping_id).executeTakeFirstOrThrow();
    expect(row.deleted_by).toBe('bob');
  });

  it('a mapping of another group is untouched by a recursive delete', async () => {
    const doomed = await createGroup(t, 'doomed');
    const survivor = await createGroup(t, 'survivor');
    const kept = await createMapping(t, { field_id: field, value: 'kept', group_id: survivor });
    const keptThreshold = await createThreshold(t, { field_id: field, level: 7, group_id: survivor });
    await createMapping(t, { field_id: field, value: 'doomed', group_id: doomed });
    expectNoContent(await t.del(`${H}/groups/`, { group_id: doomed, recursive: true }));
    expect((await t.get(`${H}/groups/${survivor}/mappings`)).body).toEqual({ mappings: [kept] });
    expect((await t.get(`${H}/groups/${survivor}/thresholds`)).body).toEqual({ thresholds: [keptThreshold] });
  });
});
