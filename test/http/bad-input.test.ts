/**
 * Bad input (api.md §1): every malformed request gets a 4xx with the WSME fault body
 * `{"faultcode": "Client", "faultstring": ..., "debuginfo": null}` whose message names the problem,
 * nothing is written, and nothing a client sends is ever a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { H, P, daysFromNow, startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';

const TABLES = ['hashmap_services', 'hashmap_fields', 'hashmap_groups', 'hashmap_mappings', 'hashmap_thresholds', 'pyscripts_scripts'] as const;
const UNKNOWN = '5f0d6e7a-3b1c-4d2e-9f8a-0b1c2d3e4f50';

let t: TestApp;
/** Fixtures every test may aim at: a service, a field of it, a group, a mapping and a script that start in 30 days, a threshold. */
let serviceId: string;
let fieldId: string;
let groupId: string;
let mapping: Record<string, any>;
let threshold: Record<string, any>;
let script: Record<string, any>;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Asserts a WSME client fault with this status whose faultstring matches `message`. */
function expectFault(response: TestResponse, status: number, message: RegExp | string): void {
  expect(response.status, response.text).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(response.body ?? {}).sort()).toEqual(['debuginfo', 'faultcode', 'faultstring']);
  expect(response.body.faultcode).toBe('Client');
  expect(response.body.debuginfo).toBeNull();
  if (typeof message === 'string') expect(response.body.faultstring).toBe(message);
  else expect(response.body.faultstring).toMatch(message);
}

/** Everything a rejected request could have changed: row counts, live rows, and the fixtures as the API shows them. */
async function state(): Promise<Record<string, unknown>> {
  const counts: Record<string, unknown> = {};
  for (const table of TABLES) {
    const row = await t.tables
      .selectFrom(table)
      .select(sql<number>`count(*)`.as('n'))
      .executeTakeFirstOrThrow();
    counts[table] = Number(row.n);
  }
  for (const table of ['hashmap_mappings', 'hashmap_thresholds'] as const) {
    const row = await t.tables
      .selectFrom(table)
      .select(sql<number>`count(group_id)`.as('n'))
      .executeTakeFirstOrThrow();
    counts[`${table} with a group`] = Number(row.n);
  }
  for (const table of ['hashmap_mappings', 'pyscripts_scripts'] as const) {
    const row = await t.tables
      .selectFrom(table)
      .select(sql<number>`count(*)`.as('n'))
      .where('deleted', 'is', null)
      .executeTakeFirstOrThrow();
    counts[`${table} live`] = Number(row.n);
  }
  const fixtures = {
    service: (await t.get(`${H}/services/${serviceId}`)).body,
    field: (await t.get(`${H}/fields/${fieldId}`)).body,
    group: (await t.get(`${H}/groups/${groupId}`)).body,
    mapping: (await t.get(`${H}/mappings/${mapping.mapping_id}`)).body,
    threshold: (await t.get(`${H}/thresholds/${threshold.threshold_id}`)).body,
    script: (await t.get(`${P}/scripts/${script.script_id}`)).body,
  };
  return { counts, fixtures };
}

/** Sends a request that must be refused with a client fault, and checks that nothing changed. */
async function rejects(send: () => Promise<TestResponse>, status: number, message: RegExp | string): Promise<TestResponse> {
  const before = await state();
  const response = await send();
  expectFault(response, status, message);
  expect(await state()).toEqual(before);
  return response;
}

beforeAll(async () => {
  t = await startTestApp();
  serviceId = (await t.post(`${H}/services/`, { name: 'compute' })).body.service_id;
  fieldId = (await t.post(`${H}/fields/`, { service_id: serviceId, name: 'flavor' })).body.field_id;
  groupId = (await t.post(`${H}/groups/`, { name: 'instances' })).body.group_id;
  mapping = (await t.post(`${H}/mappings/`, { field_id: fieldId, value: 'm1.small', cost: '1.5', group_id: groupId, start: daysFromNow(30) })).body;
  threshold = (await t.post(`${H}/thresholds/`, { service_id: serviceId, level: 10, cost: '0.5', group_id: groupId })).body;
  script = (await t.post(`${P}/scripts/`, { name: 'future', data: 'a = 1', start: daysFromNow(30) })).body;
  expect([serviceId, fieldId, groupId, mapping.mapping_id, threshold.threshold_id, script.script_id].every((id) => typeof id === 'string')).toBe(true);
});
afterAll(() => t.close());

/** One write endpoint, with a valid body and the WSME name of its body argument. */
interface WriteEndpoint {
  label: string;
  method: 'POST' | 'PUT';
  url: () => string;
  valid: () => Record<string, unknown>;
  argument: string;
}

const WRITES: WriteEndpoint[] = [
  { label: 'POST service', method: 'POST', url: () => `${H}/services/`, valid: () => ({ name: 'network' }), argument: 'service_data' },
  { label: 'POST field', method: 'POST', url: () => `${H}/fields/`, valid: () => ({ service_id: serviceId, name: 'image' }), argument: 'field_data' },
  { label: 'POST group', method: 'POST', url: () => `${H}/groups/`, valid: () => ({ name: 'volumes' }), argument: 'group_data' },
  { label: 'POST mapping', method: 'POST', url: () => `${H}/mappings/`, valid: () => ({ service_id: serviceId, cost: 2 }), argument: 'mapping_data' },
  {
    label: 'POST threshold',
    method: 'POST',
    url: () => `${H}/thresholds/`,
    valid: () => ({ service_id: serviceId, level: '20', cost: 1 }),
    argument: 'threshold_data',
  },
  { label: 'POST script', method: 'POST', url: () => `${P}/scripts/`, valid: () => ({ name: 'other', data: 'b = 2' }), argument: 'script_data' },
  { label: 'PUT mapping', method: 'PUT', url: () => `${H}/mappings/${mapping.mapping_id}`, valid: () => ({ cost: '3' }), argument: 'mapping' },
  { label: 'PUT threshold', method: 'PUT', url: () => `${H}/thresholds/${threshold.threshold_id}`, valid: () => ({ cost: '3' }), argument: 'threshold' },
  { label: 'PUT script', method: 'PUT', url: () => `${P}/scripts/${script.script_id}`, valid: () => ({ data: 'c = 3' }), argument: 'script_data' },
];

describe('malformed JSON', () => {
  const MALFORMED = ['{"name": "x"', "{'name': 'x'}", '{"name": "x",}', '{"name": "x"} trailing', '{"cost": NaN}', '{name: 1}'];

  it.each(WRITES.map((endpoint) => [endpoint.label, endpoint] as const))('%s: 400 Request is not in valid JSON format', async (_label, endpoint) => {
    for (const text of MALFORMED) {
      await rejects(() => t.request(endpoint.method, endpoint.url(), text), 400, /^Request is not in valid JSON format/);
    }
  });

  it('also on a DELETE carrying its id in a body, which then deletes nothing', async () => {
    await rejects(() => t.del(`${H}/mappings/`, `{"mapping_id": "${mapping.mapping_id}"`), 400, /^Request is not in valid JSON format/);
    await rejects(() => t.del(`${H}/services/`, `{"service_id": "${serviceId}",}`), 400, /^Request is not in valid JSON format/);
    await rejects(() => t.del(`${H}/groups/`, `{"group_id": "${groupId}", "recursive": tru}`), 400, /^Request is not in valid JSON format/);
  });
});

describe('a body that is not a JSON object', () => {
  const NOT_OBJECTS = ['[]', '[{"name": "x"}]', '"compute"', '42', '1.5', 'null', 'true'];

  it.each(WRITES.map((endpoint) => [endpoint.label, endpoint] as const))('%s: 400 naming the body argument', async (_label, endpoint) => {
    for (const text of NOT_OBJECTS) {
      await rejects(
        () => t.request(endpoint.method, endpoint.url(), text),
        400,
        `Invalid input for argument ${endpoint.argument}: the request body must be a JSON object.`,
      );
    }
  });

  it('DELETE with an array body deletes nothing', async () => {
    await rejects(() => t.del(`${H}/mappings/`, [mapping.mapping_id]), 400, /must be a JSON object/);
    await rejects(() => t.del(`${H}/thresholds/`, 'null'), 400, /must be a JSON object/);
  });

  it('the valid bodies of the same endpoints are accepted (control)', async () => {
    for (const endpoint of WRITES.filter((candidate) => candidate.method === 'POST')) {
      const response = await t.request(endpoint.method, endpoint.url(), endpoint.valid());
      expect(response.status, `${endpoint.label}: ${response.text}`).toBe(201);
    }
  });
});

describe('wrong JSON types', () => {
  const cases: [string, () => string, () => Record<string, unknown>, RegExp][] = [
    [
      'service name: 5',
      () => `${H}/services/`,
      () => ({ name: 5 }),
      /^Invalid input for field\/attribute name\. Value: '5'\. Wrong type\. Expected 'str', got 'int'$/,
    ],
    ['service name: null', () => `${H}/services/`, () => ({ name: null }), /^Invalid input for field\/attribute name\. Value: 'None'\. Wrong type/],
    ['field service_id: 5', () => `${H}/fields/`, () => ({ service_id: 5, name: 'x' }), /field\/attribute service_id\. Value: '5'\. Wrong type/],
    ['field name: true', () => `${H}/fields/`, () => ({ service_id: serviceId, name: true }), /field\/attribute name\. Value: 'True'\. Wrong type.*got 'bool'/],
    ['group name: []', () => `${H}/groups/`, () => ({ name: [] }), /field\/attribute name\. Value: '\[\]'\. Wrong type.*got 'list'/],
    [
      'mapping cost: true',
      () => `${H}/mappings/`,
      () => ({ service_id: serviceId, cost: true }),
      /field\/attribute cost\. Value: 'True'\. Wrong type.*got 'bool'/,
    ],
    ['mapping cost: {}', () => `${H}/mappings/`, () => ({ service_id: serviceId, cost: {} }), /field\/attribute cost\. Value: '\{\}'\. Wrong type.*got 'dict'/],
    ['mapping cost: [1]', () => `${H}/mappings/`, () => ({ service_id: serviceId, cost: [1] }), /field\/attribute cost\. .*Wrong type.*got 'list'/],
    ['mapping cost: null', () => `${H}/mappings/`, () => ({ service_id: serviceId, cost: null }), /field\/attribute cost\. Value: 'None'/],
    [
      'mapping value: 3',
      () => `${H}/mappings/`,
      () => ({ field_id: fieldId, value: 3, cost: 1 }),
      /field\/attribute value\. Value: '3'\. Wrong type.*got 'int'/,
    ],
    [
      'mapping tenant_id: []',
      () => `${H}/mappings/`,
      () => ({ service_id: serviceId, cost: 1, tenant_id: [] }),
      /field\/attribute tenant_id\. Value: '\[\]'\. Wrong type/,
    ],
    ['mapping name: 5', () => `${H}/mappings/`, () => ({ service_id: serviceId, cost: 1, name: 5 }), /field\/attribute name\. Value: '5'\. Wrong type/],
    ['mapping type: 1', () => `${H}/mappings/`, () => ({ service_id: serviceId, cost: 1, type: 1 }), /field\/attribute type\. Value: '1'/],
    ['mapping service_id: 7', () => `${H}/mappings/`, () => ({ service_id: 7, cost: 1 }), /field\/attribute service_id\. Value: '7'\. Wrong type/],
    ['mapping group_id: {}', () => `${H}/mappings/`, () => ({ service_id: serviceId, cost: 1, group_id: {} }), /field\/attribute group_id\. .*Wrong type/],
    [
      'mapping description: 5',
      () => `${H}/mappings/`,
      () => ({ service_id: serviceId, cost: 1, description: 5 }),
      /field\/attribute description\. Value: '5'\. Wrong type/,
    ],
    ['mapping start: 5', () => `${H}/mappings/`, () => ({ service_id: serviceId, cost: 1, start: 5 }), /field\/attribute start\. Value: '5'/],
    [
      'threshold level: true',
      () => `${H}/thresholds/`,
      () => ({ service_id: serviceId, level: true, cost: 1 }),
      /field\/attribute level\. Value: 'True'\. Wrong type/,
    ],
    ['threshold cost: {}', () => `${H}/thresholds/`, () => ({ service_id: serviceId, level: 1, cost: {} }), /field\/attribute cost\. .*Wrong type/],
    [
      'threshold tenant_id: []',
      () => `${H}/thresholds/`,
      () => ({ service_id: serviceId, level: 1, cost: 1, tenant_id: [] }),
      /field\/attribute tenant_id\. .*Wrong type/,
    ],
    ['script name: 5', () => `${P}/scripts/`, () => ({ name: 5, data: '' }), /field\/attribute name\. Value: '5'\. Wrong type/],
    ['script data: 5', () => `${P}/scripts/`, () => ({ name: 'typed', data: 5 }), /field\/attribute data\. Value: '5'\. Wrong type/],
    ['script description: []', () => `${P}/scripts/`, () => ({ name: 'typed', description: [] }), /field\/attribute description\. .*Wrong type/],
  ];

  it.each(cases)('POST %s → 400 naming the attribute', async (_label, url, body, message) => {
    await rejects(() => t.post(url(), body()), 400, message);
  });

  it('PUT bodies with wrong types change nothing', async () => {
    await rejects(() => t.put(`${H}/mappings/`, { mapping_id: mapping.mapping_id, cost: true }), 400, /field\/attribute cost\. Value: 'True'\. Wrong type/);
    await rejects(() => t.put(`${H}/mappings/`, { mapping_id: mapping.mapping_id, group_id: 5 }), 400, /field\/attribute group_id\. Value: '5'\. Wrong type/);
    await rejects(() => t.put(`${H}/mappings/`, { mapping_id: mapping.mapping_id, value: ['m1.tiny'] }), 400, /field\/attribute value\. .*Wrong type/);
    await rejects(() => t.put(`${H}/mappings/`, { mapping_id: 5, cost: '3' }), 400, /field\/attribute mapping_id\. Value: '5'\. Wrong type/);
    await rejects(() => t.put(`${H}/thresholds/`, { threshold_id: threshold.threshold_id, level: null }), 400, /field\/attribute level\. Value: 'None'/);
    await rejects(() => t.put(`${H}/thresholds/`, { threshold_id: threshold.threshold_id, tenant_id: {} }), 400, /field\/attribute tenant_id\. .*Wrong type/);
    await rejects(() => t.put(`${P}/scripts/${script.script_id}`, { data: 5 }), 400, /field\/attribute data\. Value: '5'\. Wrong type/);
    await rejects(() => t.put(`${P}/scripts/${script.script_id}`, { description: false }), 400, /field\/attribute description\. Value: 'False'\. Wrong type/);
  });

  it('DELETE bodies with wrong types delete nothing', async () => {
    await rejects(
      () => t.del(`${H}/groups/`, { group_id: groupId, recursive: 'yes' }),
      400,
      /field\/attribute recursive\. Value: 'yes'\. Wrong type.*Expected 'bool'/,
    );
    await rejects(() => t.del(`${H}/mappings/`, { mapping_id: 5 }), 400, /field\/attribute mapping_id\. Value: '5'\. Wrong type/);
    await rejects(() => t.del(`${H}/services/`, { service_id: [serviceId] }), 400, /field\/attribute service_id\. .*Wrong type/);
    await rejects(() => t.del(`${P}/scripts/`, { script_id: {} }), 400, /field\/attribute script_id\. .*Wrong type/);
  });

  it('an invalid enum value is named with the allowed values', async () => {
    await rejects(
      () => t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1, type: 'bad' }),
      400,
      "Invalid input for field/attribute type. Value: 'bad'. Value should be one of: flat, rate",
    );
    await rejects(
      () => t.post(`${H}/thresholds/`, { service_id: serviceId, level: 1, cost: 1, type: 'FLAT' }),
      400,
      "Invalid input for field/attribute type. Value: 'FLAT'. Value should be one of: flat, rate",
    );
    await rejects(
      () => t.put(`${H}/thresholds/`, { threshold_id: threshold.threshold_id, type: 'stepped' }),
      400,
      /field\/attribute type\. Value: 'stepped'\. Value should be one of: flat, rate/,
    );
  });
});

describe('unknown body attributes', () => {
  it.each(WRITES.map((endpoint) => [endpoint.label, endpoint] as const))('%s: 400 Unknown attribute for argument …: foo', async (_label, endpoint) => {
    await rejects(
      () => t.request(endpoint.method, endpoint.url(), { ...endpoint.valid(), foo: 1 }),
      400,
      `Unknown attribute for argument ${endpoint.argument}: foo`,
    );
  });

  it('names the unknown attribute, not a known one', async () => {
    await rejects(
      () => t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1, map_type: 'flat' }),
      400,
      'Unknown attribute for argument mapping_data: map_type',
    );
    await rejects(
      () => t.post(`${H}/thresholds/`, { service_id: serviceId, level: 1, cost: 1, value: 'x' }),
      400,
      'Unknown attribute for argument threshold_data: value',
    );
    await rejects(() => t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1, force: true }), 400, 'Unknown attribute for argument mapping_data: force');
    await rejects(() => t.del(`${H}/mappings/`, { mapping_id: mapping.mapping_id, cascade: true }), 400, /Unknown attribute for argument .*: cascade/);
  });

  it('unknown query parameters are refused too', async () => {
    await rejects(() => t.get(`${H}/mappings/?foo=1`), 400, 'Unknown argument: "foo"');
    await rejects(() => t.get(`${H}/thresholds/?service=x`), 400, 'Unknown argument: "service"');
    await rejects(() => t.get(`${P}/scripts/?nodata=True`), 400, 'Unknown argument: "nodata"');
    await rejects(() => t.post(`${H}/mappings/?dry_run=1`, { service_id: serviceId, cost: 7 }), 400, 'Unknown argument: "dry_run"');
  });

  it('echoed read-only attributes are accepted on create, and the server picks its own values', async () => {
    const echoed = { mapping_id: UNKNOWN, created_at: '2020-01-01T00:00:00+00:00', deleted: null, created_by: 'someone', updated_by: null, deleted_by: null };
    const created = await t.post(`${H}/mappings/`, { service_id: serviceId, cost: '4', tenant_id: 'echo', ...echoed });
    expect(created.status, created.text).toBe(201);
    expect(created.body.mapping_id).not.toBe(UNKNOWN);
    expect(created.body.created_by).toBe('unknown');
    expect(created.body.deleted).toBeNull();

    const service = await t.post(`${H}/services/`, { name: 'echoed', service_id: UNKNOWN });
    expect(service.status, service.text).toBe(201);
    expect(service.body.service_id).not.toBe(UNKNOWN);
    const field = await t.post(`${H}/fields/`, { name: 'echoed', service_id: serviceId, field_id: UNKNOWN });
    expect(field.status, field.text).toBe(201);
    const group = await t.post(`${H}/groups/`, { name: 'echoed', group_id: UNKNOWN });
    expect(group.status, group.text).toBe(201);
    const newThreshold = await t.post(`${H}/thresholds/`, { service_id: serviceId, level: 99, cost: 1, threshold_id: UNKNOWN });
    expect(newThreshold.status, newThreshold.text).toBe(201);
    const newScript = await t.post(`${P}/scripts/`, { name: 'echoed', data: 'x', script_id: UNKNOWN, checksum: 'abc', created_at: null, created_by: 'x' });
    expect(newScript.status, newScript.text).toBe(201);
    expect(newScript.body.checksum).toMatch(/^[0-9a-f]{128}$/);
  });

  it('echoing a whole GET object back on PUT is accepted and changes nothing but updated_by', async () => {
    const before = (await t.get(`${H}/mappings/${mapping.mapping_id}`)).body;
    const updated = await t.put(`${H}/mappings/`, before);
    expect(updated.status, updated.text).toBe(200);
    expect({ ...updated.body, updated_by: null }).toEqual({ ...before, updated_by: null });
    const scriptBefore = (await t.get(`${P}/scripts/${script.script_id}`)).body;
    const scriptUpdated = await t.put(`${P}/scripts/${script.script_id}`, scriptBefore);
    expect(scriptUpdated.status, scriptUpdated.text).toBe(200);
    expect({ ...scriptUpdated.body, updated_by: null }).toEqual({ ...scriptBefore, updated_by: null });
  });

  it('an echoed read-only attribute with a different value is refused, naming it', async () => {
    await rejects(
      () => t.put(`${H}/mappings/`, { mapping_id: mapping.mapping_id, created_by: 'mallory' }),
      400,
      /field\/attribute created_by\. Value: 'mallory'\. Cannot set read only field\./,
    );
    await rejects(
      () => t.put(`${H}/mappings/`, { mapping_id: mapping.mapping_id, created_at: '2001-01-01T00:00:00+00:00' }),
      400,
      /field\/attribute created_at\. .*Cannot set read only field\./,
    );
    await rejects(
      () => t.put(`${H}/mappings/`, { mapping_id: mapping.mapping_id, created_at: 'yesterday' }),
      400,
      /^Invalid input for field\/attribute created_at\. Value: 'yesterday'\./,
    );
    await rejects(
      () => t.put(`${H}/mappings/`, { mapping_id: mapping.mapping_id, deleted: 'notadate' }),
      400,
      /^Invalid input for field\/attribute deleted\. Value: 'notadate'\./,
    );
    await rejects(
      () => t.put(`${P}/scripts/${script.script_id}`, { checksum: 'abc' }),
      400,
      /field\/attribute checksum\. Value: 'abc'\. Cannot set read only field\./,
    );
    await rejects(
      () => t.put(`${H}/thresholds/`, { threshold_id: threshold.threshold_id, service_id: UNKNOWN }),
      400,
      /field\/attribute service_id\. .*Cannot set read only field\./,
    );
  });
});

describe('decimals', () => {
  const NOT_NUMBERS = ['abc', 'NaN', 'nan', 'Infinity', '-Infinity', 'inf', '', ' ', '1,5', '0x10', '1_000', '1.2.3', '--1', '1e', '١٢'];

  it('non-numeric, NaN and infinite costs are refused on mapping and threshold create', async () => {
    for (const cost of NOT_NUMBERS) {
      await rejects(
        () => t.post(`${H}/mappings/`, { service_id: serviceId, cost }),
        400,
        new RegExp(`^Invalid input for field/attribute cost\\. Value: '${escapeRegExp(cost)}'\\. `),
      );
      await rejects(() => t.post(`${H}/thresholds/`, { service_id: serviceId, level: 3, cost }), 400, /^Invalid input for field\/attribute cost\. /);
    }
  });

  it('non-numeric levels are refused', async () => {
    for (const level of NOT_NUMBERS) {
      await rejects(() => t.post(`${H}/thresholds/`, { service_id: serviceId, level, cost: 1 }), 400, /^Invalid input for field\/attribute level\. /);
    }
  });

  it('a JSON number too large for a double (1e400) is refused and quoted as Infinity', async () => {
    await rejects(
      () => t.post(`${H}/mappings/`, `{"service_id": "${serviceId}", "cost": 1e400}`),
      400,
      /^Invalid input for field\/attribute cost\. Value: 'Infinity'\./,
    );
    await rejects(
      () => t.post(`${H}/thresholds/`, `{"service_id": "${serviceId}", "level": -1e400, "cost": 1}`),
      400,
      /^Invalid input for field\/attribute level\. Value: '-Infinity'\./,
    );
  });

  it('a cost with 13 integer digits is refused (NUMERIC(40,28) holds 12)', async () => {
    for (const cost of ['1234567890123', 1234567890123, '-1234567890123', '1e12', '999999999999.99999999999999999999999999999']) {
      await rejects(
        () => t.post(`${H}/mappings/`, { service_id: serviceId, cost }),
        400,
        /^Invalid input for field\/attribute cost\. .*Too many integer digits: at most 12\./,
      );
    }
    await rejects(
      () => t.post(`${H}/thresholds/`, { service_id: serviceId, level: 1, cost: '1e15' }),
      400,
      /field\/attribute cost\. .*Too many integer digits/,
    );
    await rejects(
      () => t.post(`${H}/mappings/`, { service_id: serviceId, cost: '1e99999999999999999' }),
      400,
      /field\/attribute cost\. .*Too many integer digits/,
    );
  });

  it('a level with 13 integer digits is refused (NUMERIC(20,8) holds 12)', async () => {
    for (const level of ['1234567890123', 1234567890123, '1e13']) {
      await rejects(
        () => t.post(`${H}/thresholds/`, { service_id: serviceId, level, cost: 1 }),
        400,
        /^Invalid input for field\/attribute level\. .*Too many integer digits: at most 12\./,
      );
    }
  });

  it('the largest values that fit are accepted (control)', async () => {
    const cost = await t.post(`${H}/mappings/`, { service_id: serviceId, cost: '-999999999999.9999999999999999999999999999', tenant_id: 'widest' });
    expect(cost.status, cost.text).toBe(201);
    expect(cost.body.cost).toBe('-999999999999.9999999999999999999999999999');
    const level = await t.post(`${H}/thresholds/`, { service_id: serviceId, level: '999999999999.99999999', cost: 1 });
    expect(level.status, level.text).toBe(201);
    expect(level.body.level).toBe('999999999999.99999999');
  });

  it('over-precise values are refused; extra fraction digits within the precision are rounded half-even (api.md §1)', async () => {
    // More significant digits than NUMERIC(40,28) / NUMERIC(20,8) hold at all: refused, nothing written.
    await rejects(
      () => t.post(`${H}/mappings/`, { service_id: serviceId, cost: '12345678901.234567890123456789012345678951', tenant_id: 'precise' }),
      400,
      /^Invalid input for field\/attribute cost\. .*Too many significant digits: at most 40\./,
    );
    await rejects(
      () => t.post(`${H}/thresholds/`, { service_id: serviceId, level: '1.000000005000000000001', cost: 1 }),
      400,
      /^Invalid input for field\/attribute level\. .*Too many significant digits: at most 20\./,
    );
    // Within the precision, the fraction beyond the scale is rounded half-even.
    const cost = await t.post(`${H}/mappings/`, { service_id: serviceId, cost: '1.234567890123456789012345678951', tenant_id: 'precise' });
    expect(cost.status, cost.text).toBe(201);
    expect(cost.body.cost).toBe('1.2345678901234567890123456790');
    const level = await t.post(`${H}/thresholds/`, { service_id: serviceId, level: '1.0000000051', cost: 1 });
    expect(level.status, level.text).toBe(201);
    expect(level.body.level).toBe('1.00000001');
    // 41 significant digits, the excess in the integer part: refused.
    await rejects(
      () => t.post(`${H}/mappings/`, { service_id: serviceId, cost: '1234567890123.0000000000000000000000000001' }),
      400,
      /^Invalid input for field\/attribute cost\. .*Too many integer digits: at most 12\./,
    );
    await rejects(
      () => t.post(`${H}/thresholds/`, { service_id: serviceId, level: '1234567890123.0000001', cost: 1 }),
      400,
      /^Invalid input for field\/attribute level\. .*Too many integer digits: at most 12\./,
    );
    // Rounding up may carry into a 13th integer digit: refused, not wrapped.
    await rejects(
      () => t.post(`${H}/mappings/`, { service_id: serviceId, cost: '999999999999.99999999999999999999999999995' }),
      400,
      /field\/attribute cost\. .*Too many integer digits/,
    );
    await rejects(
      () => t.post(`${H}/thresholds/`, { service_id: serviceId, level: '999999999999.999999995', cost: 1 }),
      400,
      /field\/attribute level\. .*Too many integer digits/,
    );
  });

  it('negative levels are refused; negative costs (discounts) are not', async () => {
    for (const level of [-1, '-0.5', '-0.00000001', '-1e-3']) {
      await rejects(
        () => t.post(`${H}/thresholds/`, { service_id: serviceId, level, cost: 1 }),
        400,
        /^Invalid input for field\/attribute level\. Value: '-.*'\. Value must not be negative\./,
      );
    }
    await rejects(
      () => t.put(`${H}/thresholds/`, { threshold_id: threshold.threshold_id, level: '-2' }),
      400,
      /field\/attribute level\. Value: '-2'\. Value must not be negative\./,
    );
    const discount = await t.post(`${H}/thresholds/`, { service_id: serviceId, level: 50, cost: '-0.25' });
    expect(discount.status, discount.text).toBe(201);
    expect(discount.body.cost).toBe('-0.2500000000000000000000000000');
  });

  it('updates are checked the same way and change nothing', async () => {
    for (const cost of ['abc', 'NaN', 'Infinity', '1234567890123', '999999999999.99999999999999999999999999995']) {
      await rejects(() => t.put(`${H}/mappings/`, { mapping_id: mapping.mapping_id, cost }), 400, /^Invalid input for field\/attribute cost\. /);
      await rejects(() => t.put(`${H}/thresholds/`, { threshold_id: threshold.threshold_id, cost }), 400, /^Invalid input for field\/attribute cost\. /);
    }
    for (const level of ['abc', '1e13', '-0.1', '999999999999.999999995']) {
      await rejects(() => t.put(`${H}/thresholds/${threshold.threshold_id}`, { level }), 400, /^Invalid input for field\/attribute level\. /);
    }
  });
});

describe('query filters', () => {
  it('text that is not a UUID in an id filter matches nothing: 200 with an empty list (CloudKitty compat)', async () => {
    const cases: [string, string][] = [
      [`${H}/mappings/?service_id=abc`, 'mappings'],
      [`${H}/mappings/?field_id=42`, 'mappings'],
      [`${H}/mappings/?group_id=${groupId}x`, 'mappings'],
      [`${H}/thresholds/?service_id=abc`, 'thresholds'],
      [`${H}/thresholds/?field_id=abc`, 'thresholds'],
      [`${H}/fields/?service_id=instance`, 'fields'],
      [`${H}/groups/mappings/?group_id=nope`, 'mappings'],
      [`${H}/groups/thresholds/?group_id=nope`, 'thresholds'],
    ];
    for (const [url, key] of cases) {
      const response = await t.get(url);
      expect(response.status, `${url}: ${response.text}`).toBe(200);
      expect(response.body, url).toEqual({ [key]: [] });
    }
  });

  it('the same filters with valid UUIDs answer 200 (control)', async () => {
    for (const url of [`${H}/mappings/?service_id=${UNKNOWN}`, `${H}/thresholds/?field_id=${UNKNOWN}`, `${H}/fields/?service_id=${UNKNOWN}`]) {
      const response = await t.get(url);
      expect(response.status, `${url}: ${response.text}`).toBe(200);
    }
  });

  it('an invalid boolean is a 400 naming the parameter', async () => {
    const cases: [string, string][] = [
      [`${H}/mappings/?service_id=${serviceId}&no_group=maybe`, 'no_group'],
      [`${H}/mappings/?service_id=${serviceId}&filter_tenant=yes`, 'filter_tenant'],
      [`${H}/mappings/?deleted=2`, 'deleted'],
      [`${H}/mappings/?is_active=maybe`, 'is_active'],
      [`${H}/mappings/?all=nope`, 'all'],
      [`${H}/thresholds/?service_id=${serviceId}&no_group=maybe`, 'no_group'],
      [`${P}/scripts/?no_data=maybe`, 'no_data'],
      [`${P}/scripts/?is_active=`, 'is_active'],
    ];
    for (const [url, parameter] of cases) {
      await rejects(
        () => t.get(url),
        400,
        new RegExp(`^Invalid input for field/attribute ${parameter}\\. Value: '.*'\\. Value should be one of: true, True, 1, false, False, 0$`),
      );
    }
  });

  it('an invalid boolean on a write refuses the write', async () => {
    await rejects(() => t.post(`${H}/mappings/?force=maybe`, { service_id: serviceId, cost: 8 }), 400, /field\/attribute force\. Value: 'maybe'/);
    await rejects(() => t.post(`${P}/scripts/?force=yes`, { name: 'forced', data: '' }), 400, /field\/attribute force\. Value: 'yes'/);
    await rejects(() => t.del(`${H}/groups/?group_id=${groupId}&recursive=maybe`), 400, /field\/attribute recursive\. Value: 'maybe'/);
  });

  it('an invalid datetime filter is a 400 naming it', async () => {
    await rejects(() => t.get(`${H}/mappings/?start=notadate`), 400, /^Invalid input for field\/attribute start\. Value: 'notadate'\./);
    await rejects(() => t.get(`${H}/mappings/?end=2026-13-45`), 400, /^Invalid input for field\/attribute end\. Value: '2026-13-45'\./);
    await rejects(() => t.get(`${P}/scripts/?start=yesterday`), 400, /^Invalid input for field\/attribute start\. Value: 'yesterday'\./);
    await rejects(() => t.get(`${P}/scripts/?end=2026-02-30`), 400, /^Invalid input for field\/attribute end\. Value: '2026-02-30'\./);
    await rejects(() => t.get(`${H}/mappings/?start=2026-01-01T00:00:00%2B99:00`), 400, /^Invalid input for field\/attribute start\. .*offset/);
  });

  it('a parameter given twice is a 400, not a silent pick', async () => {
    await rejects(() => t.get(`${H}/mappings/?service_id=${serviceId}&service_id=${UNKNOWN}`), 400, /field\/attribute service_id\. .*Wrong type/);
  });
});

describe('datetimes in bodies', () => {
  const INVALID = [
    '2026-13-45',
    '2026-02-30',
    'notadate',
    '2026-12-01T25:00',
    '2026-12-01T10:60',
    '2026-12-01T10:00:00+25:00',
    '2026-12-01T10:00:00+02:75',
    '12/01/2026',
    '9999-12-31T23:59:59-05:00',
  ];

  it.each(['start', 'end'])('an invalid %s refuses a mapping or script create, naming the attribute', async (attribute) => {
    for (const value of INVALID) {
      await rejects(
        () => t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1, [attribute]: value }),
        400,
        new RegExp(`^Invalid input for field/attribute ${attribute}\\. Value: '${escapeRegExp(value)}'\\.`),
      );
      await rejects(
        () => t.post(`${P}/scripts/`, { name: 'dated', [attribute]: value }),
        400,
        new RegExp(`^Invalid input for field/attribute ${attribute}\\. `),
      );
    }
  });

  it('an invalid start or end refuses an update', async () => {
    for (const value of INVALID) {
      await rejects(() => t.put(`${H}/mappings/`, { mapping_id: mapping.mapping_id, start: value }), 400, /^Invalid input for field\/attribute start\. /);
      await rejects(() => t.put(`${P}/scripts/${script.script_id}`, { end: value }), 400, /^Invalid input for field\/attribute end\. /);
    }
    await rejects(
      () => t.put(`${H}/mappings/`, { mapping_id: mapping.mapping_id, start: null }),
      400,
      /^Invalid input for field\/attribute start\. Value: 'None'\./,
    );
  });

  it('an end before the start is refused on create and on update', async () => {
    const start = daysFromNow(10);
    const end = daysFromNow(5);
    const startText = start.slice(0, 19).replace('T', ' ');
    const endText = end.slice(0, 19).replace('T', ' ');
    const message = `Cannot create a rule with start after end. start=[${startText}] end=[${endText}].`;
    await rejects(() => t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1, start, end }), 400, message);
    await rejects(() => t.post(`${P}/scripts/`, { name: 'backwards', data: '', start, end }), 400, message);
    await rejects(
      () => t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1, start: '2099-01-02', end: '2099-01-01' }),
      400,
      'Cannot create a rule with start after end. start=[2099-01-02 00:00:00] end=[2099-01-01 23:59:59].',
    );
    await rejects(() => t.put(`${H}/mappings/`, { mapping_id: mapping.mapping_id, end: daysFromNow(29) }), 400, /^Cannot create a rule with start after end\./);
    await rejects(
      () => t.put(`${P}/scripts/${script.script_id}`, { start: daysFromNow(40), end: daysFromNow(35) }),
      400,
      /^Cannot create a rule with start after end\./,
    );
  });

  it('a start in the past is refused without force', async () => {
    await rejects(
      () => t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1, start: '2020-01-01' }),
      400,
      /^Cannot create a rule with start in the past\. start=\[2020-01-01 00:00:00\] current time=\[/,
    );
    await rejects(() => t.post(`${P}/scripts/`, { name: 'past', start: '2020-01-01T00:00:00Z' }), 400, /^Cannot create a rule with start in the past\./);
  });
});

describe('widths and empty names', () => {
  const long = (length: number) => 'x'.repeat(length);

  it('names over their column width are refused, naming the attribute and the limit', async () => {
    await rejects(
      () => t.post(`${H}/services/`, { name: long(256) }),
      400,
      /^Invalid input for field\/attribute name\. Value: 'x+\.\.\.'\. Value should have a maximum character requirement of 255$/,
    );
    await rejects(
      () => t.post(`${H}/fields/`, { service_id: serviceId, name: long(256) }),
      400,
      /field\/attribute name\. .*maximum character requirement of 255/,
    );
    await rejects(() => t.post(`${H}/groups/`, { name: long(256) }), 400, /field\/attribute name\. .*maximum character requirement of 255/);
    await rejects(() => t.post(`${P}/scripts/`, { name: long(256) }), 400, /field\/attribute name\. .*maximum character requirement of 255/);
    await rejects(
      () => t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1, name: long(33) }),
      400,
      `Invalid input for field/attribute name. Value: '${long(33)}'. Value should have a maximum character requirement of 32`,
    );
  });

  it('descriptions, values and tenants over their width are refused', async () => {
    await rejects(
      () => t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1, description: long(257) }),
      400,
      /field\/attribute description\. .*maximum character requirement of 256/,
    );
    await rejects(
      () => t.post(`${P}/scripts/`, { name: 'described', description: long(257) }),
      400,
      /field\/attribute description\. .*maximum character requirement of 256/,
    );
    await rejects(
      () => t.put(`${H}/mappings/`, { mapping_id: mapping.mapping_id, description: long(257) }),
      400,
      /field\/attribute description\. .*maximum character requirement of 256/,
    );
    await rejects(
      () => t.post(`${H}/mappings/`, { field_id: fieldId, value: long(256), cost: 1 }),
      400,
      /field\/attribute value\. .*maximum character requirement of 255/,
    );
    await rejects(
      () => t.put(`${H}/mappings/`, { mapping_id: mapping.mapping_id, value: long(256) }),
      400,
      /field\/attribute value\. .*maximum character requirement of 255/,
    );
    await rejects(
      () => t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1, tenant_id: long(256) }),
      400,
      /field\/attribute tenant_id\. .*maximum character requirement of 255/,
    );
    await rejects(
      () => t.post(`${H}/thresholds/`, { service_id: serviceId, level: 1, cost: 1, tenant_id: long(256) }),
      400,
      /field\/attribute tenant_id\. .*maximum character requirement of 255/,
    );
  });

  it('the widest values that fit are accepted (control)', async () => {
    expect((await t.post(`${H}/services/`, { name: long(255) })).status).toBe(201);
    expect((await t.post(`${H}/groups/`, { name: long(255) })).status).toBe(201);
    const wide = await t.post(`${H}/mappings/`, { field_id: fieldId, value: long(255), cost: 1, name: long(32), description: long(256), tenant_id: long(255) });
    expect(wide.status, wide.text).toBe(201);
    expect([wide.body.value.length, wide.body.name.length, wide.body.description.length, wide.body.tenant_id.length]).toEqual([255, 32, 256, 255]);
  });

  it('empty names are refused', async () => {
    const message = "Invalid input for field/attribute name. Value: ''. Value should have a minimum character requirement of 1";
    await rejects(() => t.post(`${H}/services/`, { name: '' }), 400, message);
    await rejects(() => t.post(`${H}/fields/`, { service_id: serviceId, name: '' }), 400, message);
    await rejects(() => t.post(`${H}/groups/`, { name: '' }), 400, message);
    await rejects(() => t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1, name: '' }), 400, message);
    await rejects(() => t.post(`${P}/scripts/`, { name: '', data: 'a = 1' }), 400, message);
  });

  it('missing mandatory attributes are named', async () => {
    await rejects(() => t.post(`${H}/services/`, {}), 400, "Invalid input for field/attribute name. Value: 'None'. Mandatory field missing.");
    await rejects(
      () => t.post(`${H}/fields/`, { name: 'nameless' }),
      400,
      "Invalid input for field/attribute service_id. Value: 'None'. Mandatory field missing.",
    );
    await rejects(
      () => t.post(`${H}/mappings/`, { service_id: serviceId }),
      400,
      "Invalid input for field/attribute cost. Value: 'None'. Mandatory field missing.",
    );
    await rejects(
      () => t.post(`${H}/thresholds/`, { service_id: serviceId, cost: 1 }),
      400,
      "Invalid input for field/attribute level. Value: 'None'. Mandatory field missing.",
    );
    await rejects(() => t.post(`${P}/scripts/`, { data: 'a = 1' }), 400, "Invalid input for field/attribute name. Value: 'None'. Mandatory field missing.");
  });
});

describe('body size and content type', () => {
  const twoMiB = 'x'.repeat(2 * 1024 * 1024);

  it('a 2 MiB body is refused with 413 on every write', async () => {
    await rejects(() => t.post(`${H}/services/`, { name: twoMiB }), 413, /too large/i);
    await rejects(() => t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1, description: twoMiB }), 413, /too large/i);
    await rejects(() => t.post(`${P}/scripts/`, { name: 'huge', data: twoMiB }), 413, /too large/i);
    await rejects(() => t.put(`${P}/scripts/${script.script_id}`, { data: twoMiB }), 413, /too large/i);
    await rejects(() => t.put(`${H}/mappings/`, { mapping_id: mapping.mapping_id, description: twoMiB }), 413, /too large/i);
  });

  it('a script just under 1 MiB is accepted (control)', async () => {
    const data = `# ${'y'.repeat(1000 * 1000)}\n`;
    const created = await t.post(`${P}/scripts/`, { name: 'big', data });
    expect(created.status, created.text.slice(0, 200)).toBe(201);
    expect(created.body.data).toBe(data);
  });

  it('a write with a non-JSON content type is refused with 415 naming the type', async () => {
    const types = ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x'];
    for (const type of types) {
      const bare = type.split(';')[0];
      await rejects(
        () => t.post(`${H}/services/`, '{"name": "plain"}', { 'content-type': type }),
        415,
        new RegExp(`Unknown mimetype: ${bare.replace('+', '\\+')}`),
      );
    }
    await rejects(
      () => t.post(`${H}/mappings/`, JSON.stringify({ service_id: serviceId, cost: 1 }), { 'content-type': 'text/plain' }),
      415,
      /Unknown mimetype: text\/plain/,
    );
    await rejects(() => t.post(`${P}/scripts/`, JSON.stringify({ name: 'plain' }), { 'content-type': 'text/plain' }), 415, /Unknown mimetype: text\/plain/);
    await rejects(
      () => t.put(`${H}/mappings/`, JSON.stringify({ mapping_id: mapping.mapping_id, cost: 9 }), { 'content-type': 'text/plain' }),
      415,
      /Unknown mimetype: text\/plain/,
    );
    await rejects(() => t.del(`${H}/thresholds/`, 'threshold_id=x'), 400, /^Request is not in valid JSON format/);
  });

  it('JSON with a charset is fine (control)', async () => {
    const response = await t.post(`${H}/groups/`, { name: 'charset' }, { 'content-type': 'application/json; charset=utf-8' });
    expect(response.status, response.text).toBe(201);
  });
});

describe('routes', () => {
  it('unknown routes are 404 with a fault naming the path', async () => {
    const cases: [string, string][] = [
      ['GET', `${H}/nothing`],
      ['GET', `${H}/services/${serviceId}/nothing`],
      ['POST', `${H}/mapping`],
      ['GET', '/v1/rating/module_config/unknown/services'],
      ['DELETE', `${P}/script/${script.script_id}`],
      ['GET', '/v3/rating'],
    ];
    for (const [method, url] of cases) {
      await rejects(() => t.request(method, url, method === 'GET' ? undefined : {}), 404, `Resource not found: ${method} ${url}`);
    }
  });

  it('a malformed URL is a 400 fault and an over-long id is not found', async () => {
    await rejects(() => t.get(`${H}/mappings/%E0%A4%A`), 400, /^Malformed URL: /);
    await rejects(() => t.get(`${H}/mappings/${'a'.repeat(150)}`), 404, /not found/i);
    await rejects(() => t.get(`${H}/mappings/42`), 404, 'No such mapping: 42');
  });

  it('a known route with the wrong method is 405 with an Allow header', async () => {
    const cases: [string, string, string][] = [
      ['PATCH', `${H}/services/`, 'GET'],
      ['PUT', `${H}/services/`, 'POST'],
      ['DELETE', `${H}/types/`, 'GET'],
      ['POST', `${H}/mappings/${mapping.mapping_id}`, 'PUT'],
      ['PUT', `${H}/groups/`, 'DELETE'],
      ['POST', `${P}/scripts/${script.script_id}`, 'GET'],
      ['PATCH', `${P}/scripts/`, 'POST'],
    ];
    for (const [method, url, allowed] of cases) {
      const response = await rejects(() => t.request(method, url, { name: 'x', cost: 1 }), 405, `Method ${method} is not allowed on ${url}`);
      expect(String(response.headers.allow)).toContain(allowed);
      expect(String(response.headers.allow)).not.toContain(method);
    }
  });
});

describe('never a 500', () => {
  it('a battery of odd requests all get 4xx faults or successes, never a server fault', async () => {
    const bodies: unknown[] = [
      {},
      { name: null },
      { cost: null },
      { service_id: null, field_id: null, cost: 1 },
      { service_id: serviceId, field_id: fieldId, cost: 1 },
      { field_id: fieldId, cost: 1 },
      { service_id: serviceId, value: 'x', cost: 1 },
      { service_id: UNKNOWN, cost: 1 },
      { field_id: 'not-a-uuid', value: 'x', cost: 1 },
      { service_id: serviceId, cost: 1, group_id: UNKNOWN },
      { service_id: serviceId, cost: '1e-99999999999999999' },
      { name: '\u0000' },
      { name: '😀'.repeat(300) },
      { a: { b: { c: { d: [[[[[]]]]] } } } },
      { level: 1, cost: 1 },
      { level: '1', cost: '1', service_id: serviceId, field_id: fieldId },
      { data: null, name: 'nulldata' },
      { name: 'bools', data: 'x', start: true },
      { service_id: serviceId, cost: 1, end: '' },
      { service_id: serviceId, cost: '   ' },
    ];
    const targets: [string, string][] = [
      ['POST', `${H}/services/`],
      ['POST', `${H}/fields/`],
      ['POST', `${H}/groups/`],
      ['POST', `${H}/mappings/`],
      ['POST', `${H}/thresholds/`],
      ['POST', `${P}/scripts/`],
      ['PUT', `${H}/mappings/`],
      ['PUT', `${H}/mappings/${mapping.mapping_id}`],
      ['PUT', `${H}/thresholds/${threshold.threshold_id}`],
      ['PUT', `${P}/scripts/${script.script_id}`],
      ['DELETE', `${H}/mappings/`],
      ['DELETE', `${H}/groups/`],
      ['DELETE', `${P}/scripts/`],
    ];
    const seen: string[] = [];
    for (const [method, url] of targets) {
      for (const body of bodies) {
        const response = await t.request(method, url, body);
        seen.push(`${response.status}`);
        expect(response.status, `${method} ${url} ${JSON.stringify(body).slice(0, 120)} → ${response.text.slice(0, 200)}`).toBeLessThan(500);
        if (response.status >= 400) {
          expect(response.body?.faultcode, response.text).toBe('Client');
          expect(typeof response.body?.faultstring).toBe('string');
          expect(response.body.faultstring.length).toBeGreaterThan(0);
        }
      }
    }
    expect(seen.some((status) => status.startsWith('4'))).toBe(true);
  });
});
