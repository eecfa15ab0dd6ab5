/**
 * The acting user's id against CloudKitty's 32-character audit columns (docs/operators/migrating.md: "What Tariff does differently"):
 * a write that would record a longer id (mapping and script create / update / delete, recursive
 * group delete) is refused with a 400 naming the length, never truncated, nothing written; reads
 * are unaffected. On the project's database (`TARIFF_TEST_DATABASE`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, P, daysFromNow, startTestApp, type TestApp } from '../helpers/app.js';
import { createField, createGroup, createService, expectFault } from '../helpers/fixtures.js';

const AT_WIDTH = 'u'.repeat(32);
const TOO_LONG = 'u'.repeat(33);
/** 33 code points, 66 UTF-16 units: the limit counts characters. */
const TOO_LONG_ASTRAL = '😀'.repeat(33);
const refusal = (length: number) => `The acting user id is ${length} characters long; CloudKitty's audit columns (created_by, updated_by, deleted_by) hold 32.`;
const as = (user: string) => ({ 'x-user-id': Buffer.from(user, 'utf8').toString('latin1') });

let t: TestApp;
let fieldId: string;

beforeAll(async () => {
  t = await startTestApp();
  fieldId = await createField(t, await createService(t, 'compute'), 'flavor');
});
afterAll(() => t.close());

describe('acting user ids longer than the audit columns', () => {
  it('records a 32-character id as it is', async () => {
    const created = await t.post(`${H}/mappings/`, { field_id: fieldId, cost: 1, value: 'exact' }, as(AT_WIDTH));
    expect(created.status, created.text).toBe(201);
    expect(created.body.created_by).toBe(AT_WIDTH);
  });

  it('refuses a mapping create with a longer id and writes nothing', async () => {
    const before = await t.get(`${H}/mappings/?field_id=${fieldId}`);
    expectFault(await t.post(`${H}/mappings/`, { field_id: fieldId, cost: 1, value: 'long' }, as(TOO_LONG)), 400, refusal(33));
    expectFault(await t.post(`${H}/mappings/`, { field_id: fieldId, cost: 1, value: 'astral' }, as(TOO_LONG_ASTRAL)), 400, refusal(33));
    expect((await t.get(`${H}/mappings/?field_id=${fieldId}`)).body).toEqual(before.body);
  });

  it('refuses a mapping update and delete with a longer id and leaves the mapping as it was', async () => {
    const created = await t.post(`${H}/mappings/`, { field_id: fieldId, cost: 1, value: 'kept' });
    expect(created.status, created.text).toBe(201);
    const id = created.body.mapping_id;
    expectFault(await t.put(`${H}/mappings/`, { mapping_id: id, end: daysFromNow(3) }, as(TOO_LONG)), 400, refusal(33));
    expectFault(await t.request('DELETE', `${H}/mappings/${id}`, undefined, as(TOO_LONG)), 400, refusal(33));
    const after = await t.get(`${H}/mappings/${id}`);
    expect(after.status).toBe(200);
    expect(after.body).toEqual(created.body);
  });

  it('refuses a recursive group delete with a longer id', async () => {
    const groupId = await createGroup(t, 'long-user-group');
    const mapping = await t.post(`${H}/mappings/`, { field_id: fieldId, cost: 1, value: 'grouped', group_id: groupId });
    expect(mapping.status, mapping.text).toBe(201);
    expectFault(await t.request('DELETE', `${H}/groups/${groupId}?recursive=true`, undefined, as(TOO_LONG)), 400, refusal(33));
    expect((await t.get(`${H}/groups/${groupId}`)).status).toBe(200);
    expect((await t.get(`${H}/mappings/${mapping.body.mapping_id}`)).body.deleted).toBeNull();
  });

  it('refuses a script create with a longer id', async () => {
    expectFault(await t.post(`${P}/scripts/`, { name: 'long-user', data: 'a = 1' }, as(TOO_LONG)), 400, refusal(33));
    expect((await t.get(`${P}/scripts/`)).body.scripts).toEqual([]);
  });

  it('serves reads whatever the id', async () => {
    const read = await t.request('GET', `${H}/mappings/?field_id=${fieldId}`, undefined, as(TOO_LONG));
    expect(read.status).toBe(200);
  });
});
