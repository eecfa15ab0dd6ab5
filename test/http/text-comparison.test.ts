/**
 * Issue 11, item 7: one rule per text comparison, the same answers on SQLite, PostgreSQL and
 * MariaDB (docs/operators/migrating.md: "Comparing text").
 * - Names and values are equal only when they are the same code points: `trail` and `trail `
 *   (MariaDB's PAD SPACE made them clash), `Trail` and `trail` are different, in the checks and
 *   in the unique indexes themselves.
 * - The `description` filter lowercases each code point (JavaScript's default lowercase mapping):
 *   `école` finds `ÉCOLE`, `ß` and `ss` stay apart, Turkish İ lowercases to i + U+0307.
 * - Scripts run in code point order of their names.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, P, startTestApp, type TestApp } from '../helpers/app.js';
import { createField, createService } from '../helpers/fixtures.js';
import { ScriptRepository } from '../../src/rating/pyscripts/repository.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

async function post(path: string, body: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const response = await t.post(path, body);
  return { status: response.status, body: response.body };
}

describe('names and values compare code point by code point', () => {
  it('services: a trailing space or another case makes another name; the same name is refused', async () => {
    for (const name of ['trail', 'trail ', 'Trail', 'trail  ']) expect((await post(`${H}/services/`, { name })).status, JSON.stringify(name)).toBe(201);
    const again = await post(`${H}/services/`, { name: 'trail ' });
    expect(again.status).toBe(409);
    expect(again.body.faultstring).toMatch(/^Service trail {2}already exists/);
  });

  it('groups: "trail " and "trail" are two groups', async () => {
    expect((await post(`${H}/groups/`, { name: 'trail' })).status).toBe(201);
    expect((await post(`${H}/groups/`, { name: 'trail ' })).status).toBe(201);
    expect((await post(`${H}/groups/`, { name: 'TRAIL' })).status).toBe(201);
    expect((await post(`${H}/groups/`, { name: 'trail ' })).status).toBe(409);
    const names = (await t.get(`${H}/groups/`)).body.groups.map((group: { name: string }) => group.name);
    expect(names.filter((name: string) => name.trim().toLowerCase() === 'trail').sort()).toEqual(['TRAIL', 'trail', 'trail '].sort());
  });

  it('fields of one service: "flavor" and "flavor " are two fields', async () => {
    const service = await createService(t, 'fields-exact');
    await createField(t, service, 'flavor');
    await createField(t, service, 'flavor ');
    await createField(t, service, 'Flavor');
    expect((await post(`${H}/fields/`, { service_id: service, name: 'flavor ' })).status).toBe(409);
  });

  it('mapping values and tenants: "m1 " is not "m1", "t1 " is not "t1"', async () => {
    const service = await createService(t, 'values-exact');
    const field = await createField(t, service, 'flavor');
    const values = ['m1', 'm1 ', 'M1'];
    for (const value of values) expect((await post(`${H}/mappings/`, { field_id: field, value, cost: 1 })).status, JSON.stringify(value)).toBe(201);
    expect((await post(`${H}/mappings/`, { field_id: field, value: 'm1 ', cost: 2 })).status).toBe(409);
    expect((await post(`${H}/mappings/`, { field_id: field, value: 'm1', cost: 3, tenant_id: 't1' })).status).toBe(201);
    expect((await post(`${H}/mappings/`, { field_id: field, value: 'm1', cost: 4, tenant_id: 't1 ' })).status).toBe(201);
    const forTenant = async (tenant: string) =>
      (await t.get(`${H}/mappings/?field_id=${field}&filter_tenant=true&tenant_id=${encodeURIComponent(tenant)}`)).body.mappings.map(
        (mapping: { cost: string }) => Number(mapping.cost),
      );
    expect(await forTenant('t1')).toEqual([3]);
    expect(await forTenant('t1 ')).toEqual([4]);
    expect(await forTenant('T1')).toEqual([]);
  });

  it('mapping names: "price" and "price " are two live names', async () => {
    const service = await createService(t, 'mapping-names');
    expect((await post(`${H}/mappings/`, { service_id: service, cost: 1, name: 'price', tenant_id: 'a' })).status).toBe(201);
    expect((await post(`${H}/mappings/`, { service_id: service, cost: 1, name: 'price ', tenant_id: 'b' })).status).toBe(201);
    expect((await post(`${H}/mappings/`, { service_id: service, cost: 1, name: 'price ', tenant_id: 'c' })).status).toBe(409);
  });

  it('script names: "rate" and "rate " are two scripts', async () => {
    expect((await post(`${P}/scripts/`, { name: 'rate', data: '# a\n' })).status).toBe(201);
    expect((await post(`${P}/scripts/`, { name: 'rate ', data: '# b\n' })).status).toBe(201);
    expect((await post(`${P}/scripts/`, { name: 'Rate', data: '# c\n' })).status).toBe(201);
    expect((await post(`${P}/scripts/`, { name: 'rate ', data: '# d\n' })).status).toBe(409);
  });

  it('the created_by filter is exact too ("ann " finds nothing, "Ann" only Ann)', async () => {
    const service = await createService(t, 'audit-exact');
    for (const user of ['ann', 'Ann']) {
      const response = await t.post(`${H}/mappings/`, { service_id: service, cost: 1, tenant_id: user }, { 'x-user-id': user });
      expect(response.status, response.text).toBe(201);
    }
    const by = async (user: string) =>
      (await t.get(`${H}/mappings/?service_id=${service}&created_by=${encodeURIComponent(user)}`)).body.mappings.map(
        (mapping: { tenant_id: string }) => mapping.tenant_id,
      );
    expect(await by('ann')).toEqual(['ann']);
    expect(await by('Ann')).toEqual(['Ann']);
    expect(await by('ann ')).toEqual([]);
  });

  it('the unique indexes themselves tell "idx" from "idx " and "IDX", and refuse a second "idx"', async () => {
    const insertGroup = (name: string) => t.tables.insertInto('hashmap_groups').values({ group_id: randomUUID(), name }).execute();
    await insertGroup('idx');
    await insertGroup('idx ');
    await insertGroup('IDX');
    await expect(insertGroup('idx')).rejects.toThrow();
    await t.tables.insertInto('hashmap_services').values({ service_id: randomUUID(), name: 'idx-service' }).execute();
    await t.tables.insertInto('hashmap_services').values({ service_id: randomUUID(), name: 'idx-service ' }).execute();
    await expect(t.tables.insertInto('hashmap_services').values({ service_id: randomUUID(), name: 'idx-service ' }).execute()).rejects.toThrow();
  });
});

describe('the description filter lowercases each code point, the same on every database', () => {
  const descriptions: Record<string, string | null> = {
    school: 'ÉCOLE primaire',
    ecole: 'ecole sans accent',
    sharp: 'Straße',
    capitalSharp: 'STRAẞE',
    doubleS: 'STRASSE',
    dottedI: 'İZMİR',
    dotlessI: 'ıspanak',
    greek: 'ΟΔΟΣ ΣΟΦΙΑΣ',
    literal: '50%_off',
    none: null,
  };
  const labelOf = new Map<string, string>();
  let service: string;

  beforeAll(async () => {
    service = await createService(t, 'descriptions');
    for (const [label, description] of Object.entries(descriptions)) {
      const created = await post(`${H}/mappings/`, { service_id: service, cost: 1, tenant_id: label, description });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      labelOf.set(created.body.mapping_id, label);
    }
  });

  async function found(fragment: string): Promise<string[]> {
    const response = await t.get(`${H}/mappings/?service_id=${service}&description=${encodeURIComponent(fragment)}`);
    expect(response.status, response.text).toBe(200);
    return response.body.mappings.map((mapping: { mapping_id: string }) => labelOf.get(mapping.mapping_id));
  }

  it('école finds ÉCOLE (not the unaccented ecole), and ÉCOLE finds it back', async () => {
    expect(await found('école')).toEqual(['school']);
    expect(await found('ÉCOLE')).toEqual(['school']);
    expect(await found('ecole')).toEqual(['ecole']);
  });

  it('ß finds ß and ẞ, never ss: lowercase mapping, not full case folding', async () => {
    expect(await found('straße')).toEqual(['sharp', 'capitalSharp']);
    expect(await found('STRAẞE')).toEqual(['sharp', 'capitalSharp']);
    expect(await found('strasse')).toEqual(['doubleS']);
  });

  it('Turkish: İ lowercases to i + U+0307 (found by i), dotless ı only by itself; no locale rules', async () => {
    expect(await found('i\u0307zmi\u0307r')).toEqual(['dottedI']);
    expect(await found('İZMİR')).toEqual(['dottedI']);
    expect(await found('izmir')).toEqual([]);
    expect(await found('zm')).toEqual(['dottedI']);
    expect(await found('ıspanak')).toEqual(['dotlessI']);
    expect(await found('ISPANAK')).toEqual([]);
  });

  it('Greek: Σ lowercases to σ wherever it stands, so a fragment ending a word still matches', async () => {
    expect(await found('οδοσ')).toEqual(['greek']);
    expect(await found('ΟΔΟΣ Σ')).toEqual(['greek']);
    expect(await found('σοφιασ')).toEqual(['greek']);
  });

  it('% and _ are plain characters; the empty fragment finds every rule with a description', async () => {
    expect(await found('%_')).toEqual(['literal']);
    expect(await found('_')).toEqual(['literal']);
    expect(await found('')).toEqual(Object.keys(descriptions).filter((label) => descriptions[label] !== null));
  });

  it('scripts follow the same rule', async () => {
    const created = await post(`${P}/scripts/`, { name: 'described', data: '# d\n', description: 'Tarif ÉCOLE' });
    expect(created.status).toBe(201);
    const names = async (fragment: string) =>
      (await t.get(`${P}/scripts/?no_data=true&description=${encodeURIComponent(fragment)}`)).body.scripts.map((script: { name: string }) => script.name);
    expect(await names('tarif école')).toEqual(['described']);
    expect(await names('tarif ecole')).toEqual([]);
  });
});

describe('scripts run in code point order of their names', () => {
  it('upper case before lower case, U+FF5E before U+1F600, whatever the database collation', async () => {
    const names = ['order-b', 'order-B', 'order-a', 'order-~', 'order-\u{1F600}', 'order-\uFF5E', 'order-é'];
    for (const name of names) expect((await post(`${P}/scripts/`, { name, data: '# run\n' })).status).toBe(201);
    const order = (await new ScriptRepository(t.database).loadLive()).map((script) => script.name).filter((name) => name.startsWith('order-'));
    expect(order).toEqual(['order-B', 'order-a', 'order-b', 'order-~', 'order-é', 'order-\uFF5E', 'order-\u{1F600}']);
  });
});
