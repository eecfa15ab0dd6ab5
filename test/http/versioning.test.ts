/**
 * Versioned rules over HTTP (api.md §6), on mappings: create-time date checks, validity intervals
 * and conflicts, and the update rules for rules not started, running and over.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, daysFromNow, startTestApp, withAppFor, type TestApp, type TestResponse } from '../helpers/app.js';
import {
  expectFault,
  expectNow,
  createField as createNamedField,
  createGroup as createNamedGroup,
  createService as createNamedService,
} from '../helpers/fixtures.js';

const MESSAGE_TIME = '\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}';

/** Asserts a 400 whose message matches `pattern`, and returns the captured `current time`, if any. */
function expectFaultMatching(response: TestResponse, status: number, pattern: RegExp): RegExpMatchArray {
  expect(response.status, response.text).toBe(status);
  expect(response.body).toEqual({ faultcode: 'Client', faultstring: expect.any(String), debuginfo: null });
  const match = pattern.exec(response.body.faultstring);
  expect(match, response.body.faultstring).not.toBeNull();
  return match as RegExpMatchArray;
}

/** Asserts a message-form time (`YYYY-MM-DD HH:MM:SS`, UTC) is now, within a few seconds. */
function expectMessageTimeNow(text: string): void {
  expect(Math.abs(Date.parse(`${text.replace(' ', 'T')}Z`) - Date.now())).toBeLessThanOrEqual(5000);
}

/** Message form of an API/ISO datetime: `2026-12-01 10:00:00`. */
const messageForm = (iso: string) => iso.slice(0, 19).replace('T', ' ');

let t: TestApp;
let counter = 0;

const createService = () => createNamedService(t, `svc-${++counter}`);
const createField = (serviceId: string) => createNamedField(t, serviceId, `field-${++counter}`);
const createGroup = () => createNamedGroup(t, `group-${++counter}`);
async function createMapping(body: Record<string, unknown>, query = ''): Promise<any> {
  const response = await t.post(`${H}/mappings/${query}`, body);
  expect(response.status, response.text).toBe(201);
  return response.body;
}
async function getMapping(id: string): Promise<any> {
  const response = await t.get(`${H}/mappings/${id}`);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('create: dates', () => {
  it('refuses a start in the past with the exact message', async () => {
    const serviceId = await createService();
    const match = expectFaultMatching(
      await t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1, start: '2020-01-01T00:00:00' }),
      400,
      new RegExp(`^Cannot create a rule with start in the past\\. start=\\[2020-01-01 00:00:00\\] current time=\\[(${MESSAGE_TIME})\\]\\.$`),
    );
    expectMessageTimeNow(match[1]);
  });

  it('quotes a past start given with an offset in UTC', async () => {
    const serviceId = await createService();
    expectFaultMatching(
      await t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1, start: '2020-01-01T02:00:00+02:00' }),
      400,
      new RegExp(`^Cannot create a rule with start in the past\\. start=\\[2020-01-01 00:00:00\\] current time=\\[${MESSAGE_TIME}\\]\\.$`),
    );
  });

  it('refuses a date-only start of yesterday', async () => {
    const serviceId = await createService();
    const yesterday = daysFromNow(-1).slice(0, 10);
    expectFaultMatching(
      await t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1, start: yesterday }),
      400,
      new RegExp(`^Cannot create a rule with start in the past\\. start=\\[${yesterday} 00:00:00\\] current time=\\[${MESSAGE_TIME}\\]\\.$`),
    );
  });

  it('accepts a past start with ?force=true or ?force=True, and refuses it with force=false', async () => {
    const serviceId = await createService();
    const a = await createMapping({ service_id: serviceId, cost: 1, start: '2020-01-01T00:00:00', end: '2020-02-01T00:00:00' }, '?force=true');
    expect(a.start).toBe('2020-01-01T00:00:00+00:00');
    expect(a.end).toBe('2020-02-01T00:00:00+00:00');
    const b = await createMapping({ service_id: serviceId, cost: 1, start: '2020-02-01T00:00:00', end: '2020-03-01T00:00:00' }, '?force=True');
    expect(b.start).toBe('2020-02-01T00:00:00+00:00');
    const refused = await t.post(`${H}/mappings/?force=false`, { service_id: serviceId, cost: 1, start: '2020-03-01T00:00:00' });
    expect(refused.status).toBe(400);
    expect(refused.body.faultstring).toMatch(/^Cannot create a rule with start in the past\./);
    expectFault(
      await t.post(`${H}/mappings/?force=yes`, { service_id: serviceId, cost: 1 }),
      400,
      "Invalid input for field/attribute force. Value: 'yes'. Value should be one of: true, True, 1, false, False, 0",
    );
  });

  it('refuses an end before the start with the exact message, also with force', async () => {
    const serviceId = await createService();
    const message = 'Cannot create a rule with start after end. start=[2099-02-01 00:00:00] end=[2099-01-01 00:00:00].';
    expectFault(await t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1, start: '2099-02-01T00:00:00', end: '2099-01-01T00:00:00' }), 400, message);
    expectFault(
      await t.post(`${H}/mappings/?force=true`, { service_id: serviceId, cost: 1, start: '2099-02-01T00:00:00', end: '2099-01-01T00:00:00' }),
      400,
      message,
    );
  });

  it('refuses an end before the default start (now)', async () => {
    const serviceId = await createService();
    const end = daysFromNow(-1);
    expectFaultMatching(
      await t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1, end }),
      400,
      new RegExp(`^Cannot create a rule with start after end\\. start=\\[(${MESSAGE_TIME})\\] end=\\[${messageForm(end)}\\]\\.$`),
    );
  });

  it('reads a date-only start as 00:00:00 and a date-only end as 23:59:59', async () => {
    const serviceId = await createService();
    const mapping = await createMapping({ service_id: serviceId, cost: 1, start: '2099-01-01', end: '2099-01-31' });
    expect(mapping.start).toBe('2099-01-01T00:00:00+00:00');
    expect(mapping.end).toBe('2099-01-31T23:59:59+00:00');
    // A one-day rule: start and end on the same date.
    const day = await createMapping({ service_id: serviceId, cost: 1, start: '2099-05-05', end: '2099-05-05' });
    expect([day.start, day.end]).toEqual(['2099-05-05T00:00:00+00:00', '2099-05-05T23:59:59+00:00']);
  });

  it('converts offsets and Z to UTC output with +00:00', async () => {
    const serviceId = await createService();
    const a = await createMapping({ service_id: serviceId, cost: 1, start: '2099-01-01T10:00:00+02:00', end: '2099-01-31T23:30:00-01:00' });
    expect(a.start).toBe('2099-01-01T08:00:00+00:00');
    expect(a.end).toBe('2099-02-01T00:30:00+00:00');
    const b = await createMapping({ service_id: serviceId, cost: 1, start: '2099-03-01T10:00:00Z', end: '2099-03-02T10:00' });
    expect(b.start).toBe('2099-03-01T10:00:00+00:00');
    expect(b.end).toBe('2099-03-02T10:00:00+00:00');
    expect(await getMapping(b.mapping_id)).toMatchObject({ start: '2099-03-01T10:00:00+00:00', end: '2099-03-02T10:00:00+00:00' });
  });

  it('refuses an invalid start or end naming it', async () => {
    const serviceId = await createService();
    expectFault(
      await t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1, start: '2099-02-30' }),
      400,
      "Invalid input for field/attribute start. Value: '2099-02-30'. Value is not a valid calendar date and time.",
    );
    expectFault(
      await t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1, end: 'tomorrow' }),
      400,
      "Invalid input for field/attribute end. Value: 'tomorrow'. Value must be an ISO 8601 datetime such as 2026-12-01T10:00:00+00:00.",
    );
  });
});

describe('create: conflicts', () => {
  const serviceClash = (serviceId: string, tenant = 'None') => `Mapping 'None' already exists for service '${serviceId}', tenant: '${tenant}'`;

  it('refuses the same key with overlapping bounded intervals (service and field parents)', async () => {
    const serviceId = await createService();
    await createMapping({ service_id: serviceId, cost: 1, start: '2099-01-01T00:00:00', end: '2099-02-01T00:00:00' });
    expectFault(
      await t.post(`${H}/mappings/`, { service_id: serviceId, cost: 2, start: '2099-01-15T00:00:00', end: '2099-03-01T00:00:00' }),
      409,
      serviceClash(serviceId),
    );
    const fieldId = await createField(serviceId);
    await createMapping({ field_id: fieldId, value: 'm1.small', cost: 1, tenant_id: 'proj', start: '2099-01-01T00:00:00', end: '2099-02-01T00:00:00' });
    expectFault(
      await t.post(`${H}/mappings/`, {
        field_id: fieldId,
        value: 'm1.small',
        cost: 2,
        tenant_id: 'proj',
        start: '2098-12-01T00:00:00',
        end: '2099-01-01T00:00:01',
      }),
      409,
      `Mapping 'm1.small' already exists for field '${fieldId}', tenant: 'proj'`,
    );
  });

  it('refuses two open-ended rules with the same key (fix: CloudKitty let them both be active)', async () => {
    const serviceId = await createService();
    await createMapping({ service_id: serviceId, cost: 1, start: '2099-01-01T00:00:00' });
    expectFault(await t.post(`${H}/mappings/`, { service_id: serviceId, cost: 2, start: '2099-06-01T00:00:00' }), 409, serviceClash(serviceId));
    expectFault(await t.post(`${H}/mappings/`, { service_id: serviceId, cost: 2 }), 409, serviceClash(serviceId));
  });

  it('refuses an open-ended rule starting inside an existing bounded one (CloudKitty missed this)', async () => {
    const serviceId = await createService();
    await createMapping({ service_id: serviceId, cost: 1, start: '2099-01-01T00:00:00', end: '2099-12-01T00:00:00' });
    expectFault(await t.post(`${H}/mappings/`, { service_id: serviceId, cost: 2, start: '2099-06-01T00:00:00' }), 409, serviceClash(serviceId));
  });

  it('refuses a rule that contains an existing one', async () => {
    const serviceId = await createService();
    await createMapping({ service_id: serviceId, cost: 1, start: '2099-03-01T00:00:00', end: '2099-04-01T00:00:00' });
    expectFault(
      await t.post(`${H}/mappings/`, { service_id: serviceId, cost: 2, start: '2099-01-01T00:00:00', end: '2099-12-01T00:00:00' }),
      409,
      serviceClash(serviceId),
    );
  });

  it('accepts adjacent intervals [a,b) and [b,c), in either order, and an open rule starting at b', async () => {
    const serviceId = await createService();
    await createMapping({ service_id: serviceId, cost: 1, start: '2099-02-01T00:00:00', end: '2099-03-01T00:00:00' });
    await createMapping({ service_id: serviceId, cost: 2, start: '2099-01-01T00:00:00', end: '2099-02-01T00:00:00' });
    await createMapping({ service_id: serviceId, cost: 3, start: '2099-03-01T00:00:00' });
    const listed = await t.get(`${H}/mappings/?service_id=${serviceId}`);
    expect(listed.body.mappings.map((mapping: { cost: string }) => mapping.cost)).toEqual([
      '1.0000000000000000000000000000',
      '2.0000000000000000000000000000',
      '3.0000000000000000000000000000',
    ]);
  });

  it('accepts date-only consecutive days: end 23:59:59 then start 00:00:00', async () => {
    const serviceId = await createService();
    await createMapping({ service_id: serviceId, cost: 1, start: '2099-01-01', end: '2099-01-31' });
    await createMapping({ service_id: serviceId, cost: 2, start: '2099-02-01', end: '2099-02-28' });
  });

  it('treats a running default-start rule as overlapping a future open one', async () => {
    const serviceId = await createService();
    await createMapping({ service_id: serviceId, cost: 1 });
    expectFault(await t.post(`${H}/mappings/`, { service_id: serviceId, cost: 2, start: daysFromNow(10) }), 409, serviceClash(serviceId));
    // But a running rule with an end allows a successor from that end.
    const other = await createService();
    const end = daysFromNow(10);
    await createMapping({ service_id: other, cost: 1, end });
    await createMapping({ service_id: other, cost: 2, start: end });
  });

  it('null tenant equals null tenant and null group equals null group', async () => {
    const fieldId = await createField(await createService());
    await createMapping({ field_id: fieldId, value: 'v', cost: 1, tenant_id: null, group_id: null, start: '2099-01-01T00:00:00' });
    expectFault(
      await t.post(`${H}/mappings/`, { field_id: fieldId, value: 'v', cost: 2, start: '2099-02-01T00:00:00' }),
      409,
      `Mapping 'v' already exists for field '${fieldId}', tenant: 'None'`,
    );
  });

  it('allows the same interval for a different value, tenant, group or parent', async () => {
    const serviceId = await createService();
    const fieldId = await createField(serviceId);
    const groupId = await createGroup();
    const otherGroup = await createGroup();
    const when = { start: '2099-01-01T00:00:00' };
    await createMapping({ field_id: fieldId, value: 'v', cost: 1, ...when });
    await createMapping({ field_id: fieldId, value: 'w', cost: 1, ...when });
    await createMapping({ field_id: fieldId, value: 'v', cost: 1, tenant_id: 'p1', ...when });
    await createMapping({ field_id: fieldId, value: 'v', cost: 1, tenant_id: 'p2', ...when });
    await createMapping({ field_id: fieldId, value: 'v', cost: 1, group_id: groupId, ...when });
    await createMapping({ field_id: fieldId, value: 'v', cost: 1, group_id: otherGroup, ...when });
    await createMapping({ field_id: fieldId, value: 'v', cost: 1, group_id: groupId, tenant_id: 'p1', ...when });
    await createMapping({ field_id: await createField(serviceId), value: 'v', cost: 1, ...when });
    await createMapping({ service_id: serviceId, cost: 1, ...when });
    await createMapping({ service_id: await createService(), cost: 1, ...when });
    // And the same key with a group is still refused.
    expectFault(
      await t.post(`${H}/mappings/`, { field_id: fieldId, value: 'v', cost: 1, group_id: groupId, tenant_id: 'p1', start: '2099-05-01T00:00:00' }),
      409,
      `Mapping 'v' already exists for field '${fieldId}', tenant: 'p1'`,
    );
  });

  it('refuses a name already used by a live mapping, on any parent', async () => {
    const a = await createMapping({ service_id: await createService(), cost: 1, name: 'tier-one' });
    expectFault(
      await t.post(`${H}/mappings/`, { service_id: await createService(), cost: 1, name: 'tier-one' }),
      409,
      `Mapping name 'tier-one' is already used by mapping ${a.mapping_id}`,
    );
  });

  it('lets a version take the name of the one it follows, at or after its end, on any parent (fix: names shared by versions)', async () => {
    const serviceId = await createService();
    const name = `versioned-${++counter}`;
    const first = await createMapping({ service_id: serviceId, cost: 1, name, start: '2099-01-01T00:00:00', end: '2099-06-01T00:00:00' });
    // Starting exactly at the end: the same name and key, one after the other.
    const second = await createMapping({ service_id: serviceId, cost: 2, name, start: '2099-06-01T00:00:00', end: '2099-09-01T00:00:00' });
    // After a gap, and before the first: on another parent too.
    const third = await createMapping({ service_id: await createService(), cost: 3, name, start: '2099-10-01T00:00:00' });
    const before = await createMapping({ service_id: await createService(), cost: 4, name, start: '2098-01-01T00:00:00', end: '2099-01-01T00:00:00' });
    expect([first, second, third, before].map((mapping) => mapping.name)).toEqual([name, name, name, name]);
    const listed = await t.get(`${H}/mappings/?all=true`);
    expect(listed.body.mappings.filter((mapping: any) => mapping.name === name)).toHaveLength(4);
    // A rule intersecting one of them still clashes on the name, on any parent.
    expectFault(
      await t.post(`${H}/mappings/`, { service_id: await createService(), cost: 5, name, start: '2099-02-01T00:00:00', end: '2099-03-01T00:00:00' }),
      409,
      `Mapping name '${name}' is already used by mapping ${first.mapping_id}`,
    );
    expectFault(
      await t.post(`${H}/mappings/`, { service_id: await createService(), cost: 5, name, start: '2099-09-01T00:00:00', end: '2099-10-01T00:00:01' }),
      409,
      `Mapping name '${name}' is already used by mapping ${third.mapping_id}`,
    );
    // The gap [2099-09-01, 2099-10-01) is free.
    await createMapping({ service_id: await createService(), cost: 6, name, start: '2099-09-01T00:00:00', end: '2099-10-01T00:00:00' });
  });

  it('lets a rule starting now take the name of a rule that is over', async () => {
    const serviceId = await createService();
    const name = `ended-${++counter}`;
    await createMapping({ service_id: serviceId, cost: 1, name, start: daysFromNow(-10), end: daysFromNow(-1) }, '?force=true');
    const now = await createMapping({ service_id: serviceId, cost: 2, name });
    expect(now.name).toBe(name);
    // And the running one blocks the name for any rule intersecting it.
    expectFault(
      await t.post(`${H}/mappings/`, { service_id: await createService(), cost: 3, name, start: daysFromNow(30) }),
      409,
      `Mapping name '${name}' is already used by mapping ${now.mapping_id}`,
    );
  });

  it('lets a soft-deleted mapping block nothing: neither its key nor its name', async () => {
    const serviceId = await createService();
    const old = await createMapping({ service_id: serviceId, cost: 1, name: 'reusable' });
    expect((await t.del(`${H}/mappings/`, { mapping_id: old.mapping_id })).status).toBe(204);
    const again = await createMapping({ service_id: serviceId, cost: 2, name: 'reusable' });
    expect(again.name).toBe('reusable');
    expect(again.mapping_id).not.toBe(old.mapping_id);
  });

  it('lets an over rule block an overlapping forced rule, but not a later one', async () => {
    const serviceId = await createService();
    await createMapping({ service_id: serviceId, cost: 1, start: daysFromNow(-10), end: daysFromNow(-5) }, '?force=true');
    expectFault(
      await t.post(`${H}/mappings/?force=true`, { service_id: serviceId, cost: 2, start: daysFromNow(-7), end: daysFromNow(-1) }),
      409,
      serviceClash(serviceId),
    );
    await createMapping({ service_id: serviceId, cost: 2, start: daysFromNow(-5) }, '?force=true');
  });
});

describe('update: a rule not started yet', () => {
  it('may change cost, type, value, group_id, tenant_id, start, end and description, and stores them', async () => {
    const serviceId = await createService();
    const fieldId = await createField(serviceId);
    const groupId = await createGroup();
    const created = await createMapping({
      field_id: fieldId,
      value: 'old',
      cost: 1,
      type: 'flat',
      start: '2099-01-01T00:00:00',
      end: '2099-02-01T00:00:00',
      description: 'before',
    });
    const response = await t.put(`${H}/mappings/`, {
      mapping_id: created.mapping_id,
      cost: '2.5',
      type: 'rate',
      value: 'new',
      group_id: groupId,
      tenant_id: 'proj',
      start: '2099-03-01T00:00:00+01:00',
      end: '2099-04-01',
      description: 'after',
    });
    expect(response.status, response.text).toBe(200);
    const expected = {
      ...created,
      cost: '2.5000000000000000000000000000',
      type: 'rate',
      value: 'new',
      group_id: groupId,
      tenant_id: 'proj',
      start: '2099-02-28T23:00:00+00:00',
      end: '2099-04-01T23:59:59+00:00',
      description: 'after',
      updated_by: 'unknown',
    };
    expect(response.body).toEqual(expected);
    expect(response.headers.location).toMatch(new RegExp(`^http://localhost:80${H}/mappings/${created.mapping_id}\\?update_request=req-`));
    expect(await getMapping(created.mapping_id)).toEqual(expected);
    // The changed key is really used: the new key clashes, the old one is free.
    expectFault(
      await t.post(`${H}/mappings/`, { field_id: fieldId, value: 'new', cost: 1, group_id: groupId, tenant_id: 'proj', start: '2099-03-15T00:00:00' }),
      409,
      `Mapping 'new' already exists for field '${fieldId}', tenant: 'proj'`,
    );
    await createMapping({ field_id: fieldId, value: 'old', cost: 1, start: '2099-01-01T00:00:00', end: '2099-02-01T00:00:00' });
  });

  it('may set group_id, tenant_id, end and description back to null', async () => {
    const serviceId = await createService();
    const created = await createMapping({
      service_id: serviceId,
      cost: 1,
      group_id: await createGroup(),
      tenant_id: 'p',
      start: '2099-01-01T00:00:00',
      end: '2099-02-01T00:00:00',
      description: 'd',
    });
    const response = await t.put(`${H}/mappings/${created.mapping_id}`, { group_id: null, tenant_id: null, end: null, description: null });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ group_id: null, tenant_id: null, end: null, description: null });
    expect(await getMapping(created.mapping_id)).toMatchObject({ group_id: null, tenant_id: null, end: null, description: null });
  });

  it('keeps absent attributes (fix: CloudKitty cleared description and end)', async () => {
    const created = await createMapping({
      service_id: await createService(),
      cost: 1,
      start: '2099-01-01T00:00:00',
      end: '2099-02-01T00:00:00',
      description: 'keep me',
      tenant_id: 'p',
    });
    const response = await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, cost: 3 });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...created, cost: '3.0000000000000000000000000000', updated_by: 'unknown' });
  });

  it('applies the create checks again: start in the past, end before start', async () => {
    const created = await createMapping({ service_id: await createService(), cost: 1, start: '2099-01-01T00:00:00', end: '2099-02-01T00:00:00' });
    expectFaultMatching(
      await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, start: '2020-01-01T00:00:00' }),
      400,
      new RegExp(`^Cannot create a rule with start in the past\\. start=\\[2020-01-01 00:00:00\\] current time=\\[${MESSAGE_TIME}\\]\\.$`),
    );
    expectFault(
      await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, end: '2098-12-31T00:00:00' }),
      400,
      'Cannot create a rule with start after end. start=[2099-01-01 00:00:00] end=[2098-12-31 00:00:00].',
    );
    expectFault(
      await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, start: '2099-03-01T00:00:00' }),
      400,
      'Cannot create a rule with start after end. start=[2099-03-01 00:00:00] end=[2099-02-01 00:00:00].',
    );
    // Nothing was stored.
    expect(await getMapping(created.mapping_id)).toEqual(created);
  });

  it('applies the value rules and checks the group exists', async () => {
    const serviceId = await createService();
    const fieldId = await createField(serviceId);
    const serviceMapping = await createMapping({ service_id: serviceId, cost: 1, start: '2099-01-01T00:00:00' });
    const fieldMapping = await createMapping({ field_id: fieldId, value: 'v', cost: 1, start: '2099-01-01T00:00:00' });
    expectFault(await t.put(`${H}/mappings/`, { mapping_id: serviceMapping.mapping_id, value: 'x' }), 400, "You can't specify a value and a service_id.");
    expectFault(await t.put(`${H}/mappings/`, { mapping_id: fieldMapping.mapping_id, value: null }), 400, 'You must specify a value for a field mapping.');
    const unknown = randomUUID();
    expectFault(await t.put(`${H}/mappings/`, { mapping_id: fieldMapping.mapping_id, group_id: unknown }), 400, `No such group: None (UUID: ${unknown})`);
    expectFault(
      await t.put(`${H}/mappings/`, { mapping_id: fieldMapping.mapping_id, type: 'foo' }),
      400,
      "Invalid input for field/attribute type. Value: 'foo'. Value should be one of: flat, rate",
    );
    expect(await getMapping(fieldMapping.mapping_id)).toEqual(fieldMapping);
  });

  it('refuses an update that creates an overlap (409) and stores nothing', async () => {
    const serviceId = await createService();
    await createMapping({ service_id: serviceId, cost: 1, start: '2099-01-01T00:00:00', end: '2099-02-01T00:00:00' });
    const b = await createMapping({ service_id: serviceId, cost: 2, start: '2099-02-01T00:00:00', end: '2099-03-01T00:00:00' });
    const clash = `Mapping 'None' already exists for service '${serviceId}', tenant: 'None'`;
    expectFault(await t.put(`${H}/mappings/`, { mapping_id: b.mapping_id, start: '2099-01-31T00:00:00' }), 409, clash);
    expect(await getMapping(b.mapping_id)).toEqual(b);
    // Moving the key onto another one's also clashes: different tenant made equal.
    const c = await createMapping({ service_id: serviceId, cost: 3, tenant_id: 'p', start: '2099-01-01T00:00:00', end: '2099-03-01T00:00:00' });
    expectFault(await t.put(`${H}/mappings/`, { mapping_id: c.mapping_id, tenant_id: null }), 409, clash);
    expect(await getMapping(c.mapping_id)).toEqual(c);
  });

  it('refuses moving its interval onto that of a mapping with the same name (409) and stores nothing', async () => {
    const name = `moved-${++counter}`;
    const first = await createMapping({ service_id: await createService(), cost: 1, name, start: '2099-01-01T00:00:00', end: '2099-02-01T00:00:00' });
    const next = await createMapping({ service_id: await createService(), cost: 2, name, start: '2099-02-01T00:00:00', end: '2099-03-01T00:00:00' });
    const clash = `Mapping name '${name}' is already used by mapping ${first.mapping_id}`;
    expectFault(await t.put(`${H}/mappings/`, { mapping_id: next.mapping_id, start: '2099-01-31T23:59:59' }), 409, clash);
    expectFault(
      await t.put(`${H}/mappings/`, { mapping_id: first.mapping_id, end: null }),
      409,
      `Mapping name '${name}' is already used by mapping ${next.mapping_id}`,
    );
    expect(await getMapping(next.mapping_id)).toEqual(next);
    expect(await getMapping(first.mapping_id)).toEqual(first);
    // Moving apart, or to meet exactly, is fine.
    const moved = await t.put(`${H}/mappings/`, { mapping_id: next.mapping_id, start: '2099-02-15T00:00:00' });
    expect(moved.status, moved.text).toBe(200);
    const met = await t.put(`${H}/mappings/`, { mapping_id: first.mapping_id, end: '2099-02-15T00:00:00' });
    expect(met.status, met.text).toBe(200);
  });

  it('does not clash with itself when its own interval changes', async () => {
    const created = await createMapping({
      service_id: await createService(),
      cost: 1,
      start: '2099-01-01T00:00:00',
      end: '2099-02-01T00:00:00',
      name: `self-${counter}`,
    });
    const response = await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, start: '2099-01-15T00:00:00', end: '2099-03-01T00:00:00' });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ start: '2099-01-15T00:00:00+00:00', end: '2099-03-01T00:00:00+00:00', name: created.name });
  });
});

describe('update: a running rule', () => {
  it("refuses a change of a running rule's start, whatever the setting: its past stays", async () => {
    const created = await createMapping({ service_id: await createService(), cost: 1, start: '2020-01-01T00:00:00' }, '?force=true');
    expectFault(
      await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, start: daysFromNow(1), cost: 2 }),
      400,
      'You are allowed to update only the attribute [end] as this rule is already running as it started on [2020-01-01 00:00:00]',
    );
    expect(await getMapping(created.mapping_id)).toEqual(created);
  });

  it('may change end, then move it again (fix: CloudKitty allowed it once), and set updated_by', async () => {
    const created = await createMapping({ service_id: await createService(), cost: 1 });
    const first = daysFromNow(10);
    const moved = await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, end: first }, { 'x-user-id': 'erin' });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toEqual({ ...created, end: first, updated_by: 'erin' });
    const second = daysFromNow(20);
    const again = await t.put(`${H}/mappings/${created.mapping_id}`, { end: second }, { 'x-user-id': 'frank' });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual({ ...created, end: second, updated_by: 'frank' });
    expect(await getMapping(created.mapping_id)).toEqual(again.body);
    // Back to open-ended.
    const cleared = await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, end: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.end).toBeNull();
  });

  it('refuses an end in the past with the exact message', async () => {
    const created = await createMapping({ service_id: await createService(), cost: 1, start: daysFromNow(-30) }, '?force=true');
    const end = daysFromNow(-1);
    const match = expectFaultMatching(
      await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, end }),
      400,
      new RegExp(`^End date must be in the future\\. end=\\[${messageForm(end)}\\] current time=\\[(${MESSAGE_TIME})\\]$`),
    );
    expectMessageTimeNow(match[1]);
    expect((await getMapping(created.mapping_id)).end).toBeNull();
  });

  it('refuses a new end that makes it overlap a successor (409)', async () => {
    const serviceId = await createService();
    const end = daysFromNow(10);
    const running = await createMapping({ service_id: serviceId, cost: 1, end });
    await createMapping({ service_id: serviceId, cost: 2, start: end });
    expectFault(
      await t.put(`${H}/mappings/`, { mapping_id: running.mapping_id, end: daysFromNow(11) }),
      409,
      `Mapping 'None' already exists for service '${serviceId}', tenant: 'None'`,
    );
    expect((await getMapping(running.mapping_id)).end).toBe(end);
  });

  it('refuses a new end that makes it overlap the next version of its name (409)', async () => {
    const name = `succeeded-${++counter}`;
    const running = await createMapping({ service_id: await createService(), cost: 1, name, end: daysFromNow(10) });
    const next = await createMapping({ service_id: await createService(), cost: 2, name, start: running.end });
    const clash = `Mapping name '${name}' is already used by mapping ${next.mapping_id}`;
    expectFault(await t.put(`${H}/mappings/`, { mapping_id: running.mapping_id, end: daysFromNow(11) }), 409, clash);
    expectFault(await t.put(`${H}/mappings/`, { mapping_id: running.mapping_id, end: null }), 409, clash);
    expect((await getMapping(running.mapping_id)).end).toBe(running.end);
    const earlier = daysFromNow(5);
    const ended = await t.put(`${H}/mappings/`, { mapping_id: running.mapping_id, end: earlier });
    expect(ended.status, ended.text).toBe(200);
    expect(ended.body.end).toBe(earlier);
  });

  it('accepts the whole GET object echoed back (as the CLI does), cost as a string', async () => {
    const groupId = await createGroup();
    const fieldId = await createField(await createService());
    const created = await createMapping({ field_id: fieldId, value: 'v', cost: 1.25, group_id: groupId, tenant_id: 'p', description: 'd' });
    const echoed = await getMapping(created.mapping_id);
    expect(typeof echoed.cost).toBe('string');
    const response = await t.put(`${H}/mappings/`, echoed);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ ...created, updated_by: 'unknown' });
    // The same echo with a new end (what `mapping update` can do to a running rule).
    const end = daysFromNow(3);
    const withEnd = await t.put(`${H}/mappings/`, { ...(await getMapping(created.mapping_id)), end });
    expect(withEnd.status, withEnd.text).toBe(200);
    expect(withEnd.body.end).toBe(end);
    // The echo with a new cost, as `mapping update --cost 2` sends it: the price changes (in place
    // when the rule started this very second, else from now on as a new version, below).
    const repriced = await t.put(`${H}/mappings/`, { ...(await getMapping(created.mapping_id)), cost: '2' });
    expect(repriced.status, repriced.text).toBe(200);
    expect(repriced.body.cost).toBe('2.0000000000000000000000000000');
  });

  it('accepts an echoed cost in another notation when it is the same number', async () => {
    const created = await createMapping({ service_id: await createService(), cost: '0.5' });
    const response = await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, cost: 0.5, type: 'flat' });
    expect(response.status, response.text).toBe(200);
    expect(response.body.cost).toBe('0.5000000000000000000000000000');
  });
});

describe('update: a rule that is over, deleted or unknown', () => {
  it('refuses any update of an over rule, even end-only or unchanged', async () => {
    const created = await createMapping({ service_id: await createService(), cost: 1, start: daysFromNow(-10), end: daysFromNow(-5) }, '?force=true');
    const message = 'Cannot update a rule that was already processed and has a defined end date.';
    expectFault(await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, end: daysFromNow(5) }), 400, message);
    expectFault(await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, cost: 9 }), 400, message);
    expectFault(await t.put(`${H}/mappings/`, await getMapping(created.mapping_id)), 400, message);
    expect(await getMapping(created.mapping_id)).toEqual(created);
  });

  it('answers 404 for a deleted mapping, an unknown id and a non-UUID id', async () => {
    const created = await createMapping({ service_id: await createService(), cost: 1, start: daysFromNow(1) });
    await t.del(`${H}/mappings/`, { mapping_id: created.mapping_id });
    expectFault(await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, cost: 2 }), 404, `No such mapping: ${created.mapping_id}`);
    expectFault(await t.put(`${H}/mappings/${created.mapping_id}`, { cost: 2 }), 404, `No such mapping: ${created.mapping_id}`);
    const unknown = randomUUID();
    expectFault(await t.put(`${H}/mappings/${unknown}`, { cost: 2 }), 404, `No such mapping: ${unknown}`);
    expectFault(await t.put(`${H}/mappings/42`, { cost: 2 }), 404, 'No such mapping: 42');
    // 404 comes before any body fault.
    expectFault(await t.put(`${H}/mappings/${unknown}`, { cost: 'abc', foo: 1 }), 404, `No such mapping: ${unknown}`);
  });

  it('requires the id', async () => {
    expectFault(await t.put(`${H}/mappings/`, { cost: 2 }), 400, 'Missing argument: "mapping_id"');
  });
});

describe('update: immutable and read-only attributes', () => {
  it('refuses a changed name, service_id, field_id or mapping_id, naming it', async () => {
    const serviceId = await createService();
    const created = await createMapping({ service_id: serviceId, cost: 1, start: daysFromNow(1), name: `fixed-${counter}` });
    expectFault(
      await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, name: 'other' }),
      400,
      "Invalid input for field/attribute name. Value: 'other'. Cannot set read only field.",
    );
    const otherService = await createService();
    expectFault(
      await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, service_id: otherService }),
      400,
      `Invalid input for field/attribute service_id. Value: '${otherService}'. Cannot set read only field.`,
    );
    const fieldId = await createField(serviceId);
    expectFault(
      await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, field_id: fieldId }),
      400,
      `Invalid input for field/attribute field_id. Value: '${fieldId}'. Cannot set read only field.`,
    );
    const otherId = randomUUID();
    expectFault(
      await t.put(`${H}/mappings/${created.mapping_id}`, { mapping_id: otherId, cost: 2 }),
      400,
      `Invalid input for field/attribute mapping_id. Value: '${otherId}'. Cannot set read only field.`,
    );
    expectFault(
      await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, created_by: 'mallory' }),
      400,
      "Invalid input for field/attribute created_by. Value: 'mallory'. Cannot set read only field.",
    );
    expect(await getMapping(created.mapping_id)).toEqual(created);
  });

  it('ignores immutable and read-only attributes echoed unchanged, uppercase ids included', async () => {
    const serviceId = await createService();
    const created = await createMapping({ service_id: serviceId, cost: 1, start: daysFromNow(1) });
    const response = await t.put(`${H}/mappings/${created.mapping_id}`, {
      mapping_id: created.mapping_id.toUpperCase(),
      service_id: serviceId.toUpperCase(),
      field_id: null,
      name: created.name,
      created_at: created.created_at,
      created_by: created.created_by,
      deleted: null,
      cost: 4,
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ ...created, cost: '4.0000000000000000000000000000', updated_by: 'unknown' });
  });

  it('refuses unknown body attributes', async () => {
    const created = await createMapping({ service_id: await createService(), cost: 1, start: daysFromNow(1) });
    expectFault(await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, colour: 'red' }), 400, 'Unknown attribute for argument mapping: colour');
  });
});

describe('update: where the id travels', () => {
  it('works with the id in the body on the collection URL, in the item URL, and in the query string', async () => {
    const created = await createMapping({ service_id: await createService(), cost: 1, start: daysFromNow(1) });
    const viaBody = await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, cost: 2 });
    expect(viaBody.status).toBe(200);
    expect(viaBody.body.cost).toBe('2.0000000000000000000000000000');
    const viaPath = await t.put(`${H}/mappings/${created.mapping_id}`, { cost: 3 });
    expect(viaPath.status).toBe(200);
    expect(viaPath.body.cost).toBe('3.0000000000000000000000000000');
    const viaQuery = await t.put(`${H}/mappings?mapping_id=${created.mapping_id}`, { cost: 4 });
    expect(viaQuery.status).toBe(200);
    expect(viaQuery.body.cost).toBe('4.0000000000000000000000000000');
    expect((await getMapping(created.mapping_id)).cost).toBe('4.0000000000000000000000000000');
    expect(viaPath.headers.location).toMatch(new RegExp(`^http://localhost:80${H}/mappings/${created.mapping_id}\\?update_request=req-`));
    expect(viaBody.headers.location).toMatch(new RegExp(`^http://localhost:80${H}/mappings/${created.mapping_id}\\?update_request=req-`));
  });
});

describe('update: a running rule with TARIFF_RUNNING_RULE_UPDATES=refuse (CloudKitty 23)', () => {
  withAppFor(
    { config: { runningRuleUpdates: 'refuse' } },
    () => t,
    (app) => (t = app),
  );

  it('refuses any attribute other than end with the exact message', async () => {
    const groupId = await createGroup();
    const fieldId = await createField(await createService());
    const created = await createMapping({ field_id: fieldId, value: 'v', cost: 1, description: 'd' });
    const message = `You are allowed to update only the attribute [end] as this rule is already running as it started on [${messageForm(created.start)}]`;
    for (const change of [
      { cost: 2 },
      { type: 'rate' },
      { value: 'w' },
      { group_id: groupId },
      { tenant_id: 'p' },
      { description: 'e' },
      { start: daysFromNow(1) },
      { cost: 2, end: daysFromNow(5) },
    ]) {
      expectFault(await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, ...change }), 400, message);
    }
    expect(await getMapping(created.mapping_id)).toEqual(created);
  });

  it('names the forced past start in the message', async () => {
    const created = await createMapping({ service_id: await createService(), cost: 1, start: '2020-01-01T00:00:00' }, '?force=true');
    expectFault(
      await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, cost: 2 }),
      400,
      'You are allowed to update only the attribute [end] as this rule is already running as it started on [2020-01-01 00:00:00]',
    );
  });
});

describe('update: a running rule takes new terms from now on (TARIFF_RUNNING_RULE_UPDATES=new-version, the default)', () => {
  /** Prices one instance of flavor `flavor` for `tenant` at `at`. */
  async function priceAt(at: string, flavor: string, tenant: string): Promise<string> {
    const response = await t.post('/v2/rating/quote', {
      usage: { [serviceName]: [{ vol: { unit: 'instance', qty: 1 }, rating: { price: '0' }, groupby: {}, metadata: { flavor } }] },
      at,
      tenant_id: tenant,
    });
    expect(response.status, response.text).toBe(200);
    return response.body.total as string;
  }
  let serviceName: string;

  it('keeps the id with the new terms from now, and the old terms as an ended version pricing the time before', async () => {
    serviceName = `priced-${++counter}`;
    expect((await t.request('PUT', '/v2/rating/modules/hashmap', { enabled: true })).status).toBe(204);
    const serviceId = (await t.post(`${H}/services/`, { name: serviceName })).body.service_id as string;
    const fieldId = await createNamedField(t, serviceId, 'flavor');
    const created = await createMapping(
      { field_id: fieldId, value: 'm1.small', cost: '1', tenant_id: 'p1', description: 'small', group_id: await createGroup(), start: '2020-01-01T00:00:00' },
      '?force=true',
    );
    const changesBefore = (await t.get('/v2/rating/changes?kind=mapping&limit=1')).body.total as number;

    const update = await t.request('PUT', `${H}/mappings/`, { mapping_id: created.mapping_id, cost: 0, value: 'm1.large' }, { 'x-user-id': 'carol' });
    expect(update.status, update.text).toBe(302);
    const now = await getMapping(created.mapping_id);
    expect(now).toMatchObject({ mapping_id: created.mapping_id, value: 'm1.large', name: created.name, end: null, created_at: created.created_at });
    expect(now.cost).toBe('0.0000000000000000000000000000');
    expectNow(now.start);
    expect(now.updated_by).toBe('carol');

    // A plain list shows the rule once; asking about time or deletion shows its history too.
    expect((await t.get(`${H}/mappings/?field_id=${fieldId}`)).body.mappings).toEqual([now]);
    const versions = (await t.get(`${H}/mappings/?field_id=${fieldId}&deleted=true`)).body.mappings as any[];
    expect(versions.map((mapping) => mapping.mapping_id)).toContain(created.mapping_id);
    const ended = versions.filter((mapping) => mapping.mapping_id !== created.mapping_id);
    expect(ended).toEqual([{ ...created, mapping_id: expect.stringMatching(/^[0-9a-f-]{36}$/), end: now.start, updated_by: 'carol' }]);
    expect(ended[0].mapping_id).not.toBe(created.mapping_id);

    // One change in the audit trail: the update of the rule, before and after.
    const changes = (await t.get('/v2/rating/changes?kind=mapping')).body;
    expect(changes.total).toBe(changesBefore + 1);
    expect(changes.changes[0]).toMatchObject({ object_id: created.mapping_id, action: 'update', before: created, after: now });

    // Before now the old terms price, from now on the new ones.
    expect(await priceAt('2021-06-01T00:00:00+00:00', 'm1.small', 'p1')).toBe('1');
    expect(await priceAt('2021-06-01T00:00:00+00:00', 'm1.large', 'p1')).toBe('0');
    expect(await priceAt(daysFromNow(1), 'm1.small', 'p1')).toBe('0');
  });

  it('updates in place a rule that started this very second (no past to keep), and versions scripts the same way', async () => {
    const created = await createMapping({ service_id: await createService(), cost: 1 });
    const response = await t.put(`${H}/mappings/`, { mapping_id: created.mapping_id, cost: 2 });
    if (Date.parse(created.start) === Math.floor(Date.now() / 1000) * 1000) {
      expect(response.body).toEqual({ ...created, cost: '2.0000000000000000000000000000', updated_by: 'unknown' });
    } else {
      expectNow(response.body.start);
    }
    const script = (
      await t.post('/v1/rating/module_config/pyscripts/scripts/?force=true', { name: `s-${++counter}`, data: 'a = 1', start: '2020-01-01T00:00:00' })
    ).body;
    const updated = await t.request('PUT', `/v1/rating/module_config/pyscripts/scripts/${script.script_id}`, { data: 'a = 2' });
    expect(updated.status, updated.text).toBe(201);
    expect(updated.body).toMatchObject({ script_id: script.script_id, data: 'a = 2', end: null });
    expectNow(updated.body.start);
    const listed = (await t.get('/v1/rating/module_config/pyscripts/scripts/')).body.scripts as any[];
    expect(listed.filter((other) => other.name === script.name)).toEqual([updated.body]);
    const all = (await t.get(`/v1/rating/module_config/pyscripts/scripts/?deleted=true`)).body.scripts as any[];
    const versions = all.filter((other) => other.name === script.name && other.script_id !== script.script_id);
    expect(versions).toEqual([{ ...script, script_id: expect.any(String), end: updated.body.start, updated_by: 'unknown' }]);
  });
});
