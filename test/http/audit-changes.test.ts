/**
 * The audit trail (issue 15, api.md §9): every configuration write route leaves exactly one entry
 * in `tariff_changes` (the write routes are read from the app's OpenAPI document, so a new write
 * route without a driver here fails), with the acting user and the attributes before and after;
 * a refused or rolled-back write leaves none; `GET /v2/rating/changes` pages newest first with
 * no duplicates or gaps and filters by `since` and `kind`; the log line is emitted once per
 * write, without secrets; Keystone mode records the Keystone user and project.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTariffApp, ratingModules } from '../../src/application.js';
import { loadConfig } from '../../src/config.js';
import { ChangeJournal, type WrittenChange } from '../../src/database/change-journal.js';
import { openDatabase, type Database } from '../../src/database/connection.js';
import { migrateToLatest } from '../../src/database/migrate.js';
import { inWriteTransaction } from '../../src/database/transaction.js';
import type { KeystoneIdentity } from '../../src/auth/keystone.js';
import type { TariffApp } from '../../src/http/app.js';
import { NotFoundError } from '../../src/kernel/errors.js';
import { H, P, daysFromNow, startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { perDatabase } from '../helpers/database-kind.js';
import { createScratchDatabase } from '../helpers/databases.js';
import { testIdentity } from '../helpers/keystone-identity.js';

const CHANGES = '/v2/rating/changes';
const USER = 'auditor-7';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

/** Sends as the acting user {@link USER}; an update as the client makes it (a followed 302 included, `TestApp.put`). */
function send(method: string, url: string, body?: unknown): Promise<TestResponse> {
  const headers = { 'x-user-id': USER };
  return method === 'PUT' ? t.put(url, body, headers) : t.request(method, url, body, headers);
}

async function ok(response: Promise<TestResponse>, status: number): Promise<any> {
  const answer = await response;
  expect(answer.status, answer.text).toBe(status);
  return answer.body;
}

/** Every change, newest first. */
async function allChanges(): Promise<any[]> {
  const answer = await t.get(`${CHANGES}?limit=1000`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.changes;
}

async function changeCount(): Promise<number> {
  return (await t.get(`${CHANGES}?limit=1`)).body.total;
}

/** What a driven write must have recorded. */
interface Expected {
  kind: string;
  objectId: string;
  action: 'create' | 'update' | 'delete';
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

/** A service with a field, a group, a mapping, a threshold and a script to act on, fresh per call. */
let fixtures = 0;
async function objects(prefix: string) {
  const n = ++fixtures;
  const hashmap = `${prefix}/module_config/hashmap`;
  const service = await ok(send('POST', `${hashmap}/services`, { name: `audit-svc-${n}` }), 201);
  const field = await ok(send('POST', `${hashmap}/fields`, { service_id: service.service_id, name: `flavor-${n}` }), 201);
  const group = await ok(send('POST', `${hashmap}/groups`, { name: `audit-group-${n}` }), 201);
  const mapping = await ok(
    send('POST', `${hashmap}/mappings`, { service_id: service.service_id, cost: '1.5', start: daysFromNow(1), group_id: group.group_id }),
    201,
  );
  const threshold = await ok(send('POST', `${hashmap}/thresholds`, { field_id: field.field_id, level: '10', cost: '2' }), 201);
  const script = await ok(send('POST', `${prefix}/module_config/pyscripts/scripts`, { name: `audit-script-${n}`, data: 'a = 1', start: daysFromNow(1) }), 201);
  return { hashmap, scripts: `${prefix}/module_config/pyscripts/scripts`, service, field, group, mapping, threshold, script };
}

/** Drives one write route (template relative to its prefix) successfully; says what it recorded. */
type Driver = (prefix: string) => Promise<Expected>;

/** How each write route of `/v1/rating` (and its `/v1/billing` alias) is driven. */
const V1_DRIVERS: Record<string, Driver> = {
  'PUT /modules/:module_id': async (prefix) => {
    const before = (await t.get(`${prefix}/modules/noop`)).body;
    await ok(send('PUT', `${prefix}/modules/noop`, { priority: before.priority + 1 }), 200);
    return {
      kind: 'module',
      objectId: 'noop',
      action: 'update',
      before: { enabled: before.enabled, priority: before.priority },
      after: { enabled: before.enabled, priority: before.priority + 1 },
    };
  },
  'POST /module_config/hashmap/services': async (prefix) => {
    const service = await ok(send('POST', `${prefix}/module_config/hashmap/services`, { name: `svc-${++fixtures}` }), 201);
    return { kind: 'service', objectId: service.service_id, action: 'create', before: null, after: service };
  },
  'DELETE /module_config/hashmap/services': async (prefix) => {
    const { hashmap, service } = await objects(prefix);
    await ok(send('DELETE', `${hashmap}/services`, { service_id: service.service_id }), 204);
    return { kind: 'service', objectId: service.service_id, action: 'delete', before: service, after: null };
  },
  'DELETE /module_config/hashmap/services/:service_id': async (prefix) => {
    const { hashmap, service } = await objects(prefix);
    await ok(send('DELETE', `${hashmap}/services/${service.service_id}`), 204);
    return { kind: 'service', objectId: service.service_id, action: 'delete', before: service, after: null };
  },
  'POST /module_config/hashmap/fields': async (prefix) => {
    const { hashmap, service } = await objects(prefix);
    const field = await ok(send('POST', `${hashmap}/fields`, { service_id: service.service_id, name: 'extra' }), 201);
    return { kind: 'field', objectId: field.field_id, action: 'create', before: null, after: field };
  },
  'DELETE /module_config/hashmap/fields': async (prefix) => {
    const { hashmap, field } = await objects(prefix);
    await ok(send('DELETE', `${hashmap}/fields`, { field_id: field.field_id }), 204);
    return { kind: 'field', objectId: field.field_id, action: 'delete', before: field, after: null };
  },
  'DELETE /module_config/hashmap/fields/:field_id': async (prefix) => {
    const { hashmap, field } = await objects(prefix);
    await ok(send('DELETE', `${hashmap}/fields/${field.field_id}`), 204);
    return { kind: 'field', objectId: field.field_id, action: 'delete', before: field, after: null };
  },
  'POST /module_config/hashmap/groups': async (prefix) => {
    const group = await ok(send('POST', `${prefix}/module_config/hashmap/groups`, { name: `group-${++fixtures}` }), 201);
    return { kind: 'group', objectId: group.group_id, action: 'create', before: null, after: group };
  },
  'DELETE /module_config/hashmap/groups': async (prefix) => {
    const { hashmap, group } = await objects(prefix);
    // Recursive: the group's mapping is soft-deleted too, in the same one change.
    await ok(send('DELETE', `${hashmap}/groups`, { group_id: group.group_id, recursive: true }), 204);
    return { kind: 'group', objectId: group.group_id, action: 'delete', before: group, after: null };
  },
  'DELETE /module_config/hashmap/groups/:group_id': async (prefix) => {
    const { hashmap, group } = await objects(prefix);
    await ok(send('DELETE', `${hashmap}/groups/${group.group_id}`), 204);
    return { kind: 'group', objectId: group.group_id, action: 'delete', before: group, after: null };
  },
  'POST /module_config/hashmap/mappings': async (prefix) => {
    const { hashmap, field } = await objects(prefix);
    const mapping = await ok(send('POST', `${hashmap}/mappings`, { field_id: field.field_id, value: 'm1.tiny', cost: '0.1' }), 201);
    return { kind: 'mapping', objectId: mapping.mapping_id, action: 'create', before: null, after: mapping };
  },
  'PUT /module_config/hashmap/mappings': async (prefix) => {
    const { hashmap, mapping } = await objects(prefix);
    const updated = await ok(send('PUT', `${hashmap}/mappings`, { mapping_id: mapping.mapping_id, cost: '2.5' }), 200);
    return { kind: 'mapping', objectId: mapping.mapping_id, action: 'update', before: mapping, after: updated };
  },
  'PUT /module_config/hashmap/mappings/:mapping_id': async (prefix) => {
    const { hashmap, mapping } = await objects(prefix);
    const updated = await ok(send('PUT', `${hashmap}/mappings/${mapping.mapping_id}`, { description: 'changed' }), 200);
    expect(updated.description).toBe('changed');
    return { kind: 'mapping', objectId: mapping.mapping_id, action: 'update', before: mapping, after: updated };
  },
  'DELETE /module_config/hashmap/mappings': async (prefix) => {
    const { hashmap, mapping } = await objects(prefix);
    await ok(send('DELETE', `${hashmap}/mappings`, { mapping_id: mapping.mapping_id }), 204);
    return { kind: 'mapping', objectId: mapping.mapping_id, action: 'delete', before: mapping, after: null };
  },
  'DELETE /module_config/hashmap/mappings/:mapping_id': async (prefix) => {
    const { hashmap, mapping } = await objects(prefix);
    await ok(send('DELETE', `${hashmap}/mappings/${mapping.mapping_id}`), 204);
    return { kind: 'mapping', objectId: mapping.mapping_id, action: 'delete', before: mapping, after: null };
  },
  'POST /module_config/hashmap/thresholds': async (prefix) => {
    const { hashmap, service } = await objects(prefix);
    const threshold = await ok(send('POST', `${hashmap}/thresholds`, { service_id: service.service_id, level: '5', cost: '1' }), 201);
    return { kind: 'threshold', objectId: threshold.threshold_id, action: 'create', before: null, after: threshold };
  },
  'PUT /module_config/hashmap/thresholds': async (prefix) => {
    const { hashmap, threshold } = await objects(prefix);
    const updated = await ok(send('PUT', `${hashmap}/thresholds`, { threshold_id: threshold.threshold_id, cost: '3' }), 200);
    return { kind: 'threshold', objectId: threshold.threshold_id, action: 'update', before: threshold, after: updated };
  },
  'PUT /module_config/hashmap/thresholds/:threshold_id': async (prefix) => {
    const { hashmap, threshold } = await objects(prefix);
    const updated = await ok(send('PUT', `${hashmap}/thresholds/${threshold.threshold_id}`, { level: '20' }), 200);
    return { kind: 'threshold', objectId: threshold.threshold_id, action: 'update', before: threshold, after: updated };
  },
  'DELETE /module_config/hashmap/thresholds': async (prefix) => {
    const { hashmap, threshold } = await objects(prefix);
    await ok(send('DELETE', `${hashmap}/thresholds`, { threshold_id: threshold.threshold_id }), 204);
    return { kind: 'threshold', objectId: threshold.threshold_id, action: 'delete', before: threshold, after: null };
  },
  'DELETE /module_config/hashmap/thresholds/:threshold_id': async (prefix) => {
    const { hashmap, threshold } = await objects(prefix);
    await ok(send('DELETE', `${hashmap}/thresholds/${threshold.threshold_id}`), 204);
    return { kind: 'threshold', objectId: threshold.threshold_id, action: 'delete', before: threshold, after: null };
  },
  'POST /module_config/pyscripts/scripts': async (prefix) => {
    const script = await ok(send('POST', `${prefix}/module_config/pyscripts/scripts`, { name: `script-${++fixtures}`, data: 'b = 2' }), 201);
    return { kind: 'script', objectId: script.script_id, action: 'create', before: null, after: withoutData(script) };
  },
  'PUT /module_config/pyscripts/scripts': async (prefix) => {
    const { scripts, script } = await objects(prefix);
    const updated = await ok(send('PUT', scripts, { script_id: script.script_id, data: 'a = 2' }), 200);
    expect(updated.checksum).not.toBe(script.checksum);
    return { kind: 'script', objectId: script.script_id, action: 'update', before: withoutData(script), after: withoutData(updated) };
  },
  'PUT /module_config/pyscripts/scripts/:script_id': async (prefix) => {
    const { scripts, script } = await objects(prefix);
    const updated = await ok(send('PUT', `${scripts}/${script.script_id}`, { description: 'audited' }), 200);
    return { kind: 'script', objectId: script.script_id, action: 'update', before: withoutData(script), after: withoutData(updated) };
  },
  'DELETE /module_config/pyscripts/scripts': async (prefix) => {
    const { scripts, script } = await objects(prefix);
    await ok(send('DELETE', scripts, { script_id: script.script_id }), 204);
    return { kind: 'script', objectId: script.script_id, action: 'delete', before: withoutData(script), after: null };
  },
  'DELETE /module_config/pyscripts/scripts/:script_id': async (prefix) => {
    const { scripts, script } = await objects(prefix);
    await ok(send('DELETE', `${scripts}/${script.script_id}`), 204);
    return { kind: 'script', objectId: script.script_id, action: 'delete', before: withoutData(script), after: null };
  },
};

/** How each write route of `/v2/rating` is driven. */
const V2_DRIVERS: Record<string, Driver> = {
  'PUT /modules/:module_id': async () => {
    const before = (await t.get('/v2/rating/modules/noop')).body;
    await ok(send('PUT', '/v2/rating/modules/noop', { enabled: !before.enabled }), 204);
    return {
      kind: 'module',
      objectId: 'noop',
      action: 'update',
      before: { enabled: before.enabled, priority: before.priority },
      after: { enabled: !before.enabled, priority: before.priority },
    };
  },
  'POST /price_list': async () => {
    const document = (await t.get('/v2/rating/price_list')).body;
    document.modules.noop.priority += 1;
    const diff = await ok(send('POST', '/v2/rating/price_list', document), 200);
    expect(diff.counts.updated).toBe(1);
    // Beside its entry, the apply records the module state it changed, with its revision.
    const [entry, rule] = (await ok(t.get(`${CHANGES}?revision=${diff.revision}`), 200)).changes;
    expect(entry).toMatchObject({ kind: 'price_list', revision: diff.revision, name: null });
    expect(rule).toMatchObject({
      kind: 'module',
      object_id: 'noop',
      action: 'update',
      name: 'modules[noop]',
      revision: diff.revision,
      user_id: USER,
      request_id: entry.request_id,
      after: { module_id: 'noop', priority: document.modules.noop.priority },
    });
    return {
      kind: 'price_list',
      objectId: String(diff.revision),
      action: 'update',
      before: { revision: diff.revision - 1 },
      after: { revision: diff.revision, effective_at: diff.effective_at, counts: diff.counts },
    };
  },
};

/** Routes that write no configuration: the quotes. */
// Priced, never written: the quotes, and a draft's simulation (its transaction always rolls back).
const NOT_WRITES = new Set(['POST /v1/rating/quote', 'POST /v2/rating/quote', 'POST /v2/rating/price_list/simulation']);

function withoutData(script: Record<string, unknown>): Record<string, unknown> {
  const { data: _data, ...attributes } = script;
  return attributes;
}

/** Every POST/PUT/DELETE/PATCH route of the OpenAPI document, as `METHOD /template`. */
async function writeRoutes(): Promise<string[]> {
  const paths: Record<string, Record<string, unknown>> = (await t.get('/v1/openapi.json')).body.paths;
  const routes: string[] = [];
  for (const [path, methods] of Object.entries(paths)) {
    for (const method of Object.keys(methods)) {
      if (['post', 'put', 'delete', 'patch'].includes(method)) routes.push(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
    }
  }
  return routes.sort();
}

/** Drives `route` and checks that exactly one change, the expected one, was recorded. */
async function expectOneChange(route: string, prefix: string, driver: Driver): Promise<void> {
  const expected = await driver(prefix);
  // Fixtures are written first; the driven write is the newest change. A price-list apply's rule
  // changes (named by their place in the document) come just before its own entry: left out here.
  const [newest, previous] = (await t.get(`${CHANGES}?limit=50`)).body.changes.filter((change: any) => change.name === null);
  expect(newest, route).toMatchObject({
    user_id: USER,
    project_id: null,
    route,
    kind: expected.kind,
    object_id: expected.objectId,
    action: expected.action,
    before: expected.before ?? null,
    after: expected.after ?? null,
  });
  expect(newest.request_id).toMatch(/^req-[0-9a-f-]{36}$/);
  expect(newest.route === previous?.route && newest.request_id === previous?.request_id, route).toBe(false);
}

describe('every configuration write route records exactly one change', () => {
  it('has a driver for every write route the app serves, and each records one change with its user, before and after', { timeout: 120_000 }, async () => {
    const routes = await writeRoutes();
    expect(routes.length).toBeGreaterThan(25);
    const driven: string[] = [];
    for (const route of routes) {
      if (NOT_WRITES.has(route)) continue;
      const [method, template] = route.split(' ');
      const v1 = /^\/v1\/rating(\/.*)$/.exec(template)?.[1];
      const v2 = /^\/v2\/rating(\/.*)$/.exec(template)?.[1];
      const driver = v1 !== undefined ? V1_DRIVERS[`${method} ${v1}`] : v2 !== undefined ? V2_DRIVERS[`${method} ${v2}`] : undefined;
      expect(driver, `no audit driver for the write route ${route}: add one (and record its change)`).toBeDefined();
      const total = await changeCount();
      const before = Date.now();
      await expectOneChange(route, v1 !== undefined ? '/v1/rating' : '/v2/rating', driver!);
      const newest = (await allChanges())[0];
      expect(Date.parse(newest.at)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
      expect(await changeCount(), route).toBeGreaterThan(total);
      driven.push(route);
      if (v1 !== undefined) {
        // The hidden /v1/billing alias serves the same routes, recorded under its own template.
        const alias = `${method} /v1/billing${v1}`;
        await expectOneChange(alias, '/v1/billing', driver!);
        driven.push(alias);
      }
    }
    expect(driven.length).toBeGreaterThan(40);
  });

  it('counts one change per write: the fixtures and the driven write, nothing more', async () => {
    const total = await changeCount();
    // objects(): service, field, group, mapping, threshold, script = 6 writes.
    const { hashmap, group } = await objects('/v1/rating');
    expect(await changeCount()).toBe(total + 6);
    await ok(send('DELETE', `${hashmap}/groups/${group.group_id}`, { recursive: false }), 204);
    expect(await changeCount()).toBe(total + 7);
  });
});

describe('a refused or rolled-back write records nothing', () => {
  it('records nothing for 400, 404 and 409 answers, a dry run and a price list that changes nothing', async () => {
    const { hashmap, scripts, service, mapping, threshold } = await objects('/v1/rating');
    const total = await changeCount();
    expect((await send('POST', `${hashmap}/services`, { name: service.name })).status).toBe(409);
    expect((await send('POST', `${hashmap}/services`, { name: '' })).status).toBe(400);
    expect((await send('DELETE', `${hashmap}/services/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await send('PUT', `${hashmap}/mappings/${mapping.mapping_id}`, { cost: 'lots' })).status).toBe(400);
    expect((await send('DELETE', `${hashmap}/thresholds/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await send('POST', `${hashmap}/thresholds`, { service_id: threshold.service_id, level: '1', cost: '1' })).status).toBe(400);
    expect((await send('DELETE', `${scripts}/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await send('PUT', '/v1/rating/modules/nothing', { enabled: true })).status).toBe(404);
    expect((await send('PUT', '/v2/rating/modules/noop', { priority: -1 })).status).toBe(400);
    // An acting user too long for the audit columns: refused before anything is written.
    expect((await t.request('POST', `${hashmap}/groups`, { name: 'long-user' }, { 'x-user-id': 'u'.repeat(33) })).status).toBe(400);
    const document = (await t.get('/v2/rating/price_list')).body;
    expect((await send('POST', '/v2/rating/price_list', document)).status).toBe(200);
    document.modules.noop.priority += 5;
    const dryRun = await ok(send('POST', '/v2/rating/price_list?dry_run=true', document), 200);
    expect(dryRun.counts.updated).toBe(1);
    expect(await changeCount()).toBe(total);
  });

  it('records nothing when the transaction rolls back after the change was recorded, and once when a retried attempt commits', async () => {
    const heard: WrittenChange[] = [];
    const author = { userId: USER, projectId: null, requestId: 'req-00000000-0000-4000-8000-000000000001', route: 'TEST /rollback' };
    const total = await changeCount();
    const journal = new ChangeJournal(author, (change) => heard.push(change));
    await expect(
      inWriteTransaction(t.database, journal, async () => {
        journal.record({ kind: 'group', objectId: 'rolled-back', action: 'create', before: null, after: { name: 'x' } });
        throw new NotFoundError('gone');
      }),
    ).rejects.toThrow('gone');
    expect(await changeCount()).toBe(total);
    expect(heard).toEqual([]);

    // A lost race the dialect retries: the first attempt's change is dropped with its rollback.
    const race = perDatabase<object | undefined>({ postgres: { code: '40001' }, mysql: { errno: 1213, code: 'ER_LOCK_DEADLOCK' }, sqlite: undefined });
    let attempts = 0;
    await inWriteTransaction(t.database, journal, async () => {
      attempts += 1;
      journal.record({ kind: 'group', objectId: `attempt-${attempts}`, action: 'create', before: null, after: null });
      if (attempts === 1 && race) throw Object.assign(new Error('lost race'), race);
    });
    expect(attempts).toBe(race ? 2 : 1);
    const changes = await allChanges();
    expect(changes[0]).toMatchObject({ route: 'TEST /rollback', object_id: `attempt-${attempts}` });
    expect(changes.filter((change) => change.route === 'TEST /rollback')).toHaveLength(1);
    expect(heard.map((change) => change.objectId)).toEqual([`attempt-${attempts}`]);
    expect(() => journal.record({ kind: 'group', objectId: 'a', action: 'create', before: null, after: null })).not.toThrow();
    expect(() => journal.record({ kind: 'group', objectId: 'b', action: 'create', before: null, after: null })).toThrow(/one change/);
  });
});

describe('GET /v2/rating/changes', () => {
  let kindsSeen: string[];

  beforeAll(async () => {
    // 25 groups, then 5 services: a known tail of the trail.
    for (let index = 0; index < 25; index += 1) await ok(send('POST', `${H}/groups`, { name: `page-group-${index}` }), 201);
    for (let index = 0; index < 5; index += 1) await ok(send('POST', `${H}/services`, { name: `page-service-${index}` }), 201);
    kindsSeen = [...new Set((await allChanges()).map((change) => change.kind))];
  });

  it('pages newest first by change id, with no duplicate and no gap, and the same total on every page', async () => {
    const all = await allChanges();
    const total = all.length;
    expect(all.map((change) => change.change_id)).toEqual([...all.map((change) => change.change_id)].sort((a, b) => b - a));
    const seen: number[] = [];
    for (let offset = 0; offset < total + 7; offset += 7) {
      const page = await ok(t.get(`${CHANGES}?offset=${offset}&limit=7`), 200);
      expect(page.total).toBe(total);
      expect(page.changes.length).toBe(Math.max(0, Math.min(7, total - offset)));
      seen.push(...page.changes.map((change: any) => change.change_id));
    }
    expect(seen).toEqual(all.map((change) => change.change_id));
    const first = await ok(t.get(CHANGES), 200);
    expect(first.changes.length).toBe(Math.min(100, total));
  });

  it('filters by kind and by since (at or after), with the total of the filtered changes', async () => {
    const groups = await ok(t.get(`${CHANGES}?kind=group&limit=1000`), 200);
    expect(groups.changes.length).toBeGreaterThanOrEqual(25);
    expect(groups.total).toBe(groups.changes.length);
    expect(new Set(groups.changes.map((change: any) => change.kind))).toEqual(new Set(['group']));
    expect(kindsSeen).toEqual(expect.arrayContaining(['service', 'field', 'group', 'mapping', 'threshold', 'script', 'module', 'price_list']));

    // Spread the stored times: the 10 newest changes happened in 2099, one a day.
    const newest = (await allChanges()).slice(0, 10);
    for (const [index, change] of newest.entries()) {
      const at = `2099-01-${String(10 - index).padStart(2, '0')} 12:00:00`;
      await t.database.db.updateTable('tariff_changes').set({ at }).where('change_id', '=', change.change_id).execute();
    }
    const since = await ok(t.get(`${CHANGES}?since=2099-01-05T12:00:00Z`), 200);
    expect(since.changes.map((change: any) => change.change_id)).toEqual(newest.slice(0, 6).map((change) => change.change_id));
    expect(since.changes[5].at).toBe('2099-01-05T12:00:00+00:00');
    const both = await ok(t.get(`${CHANGES}?since=2099-01-01&kind=service&offset=1&limit=2`), 200);
    expect(both.total).toBe(5);
    expect(both.changes.map((change: any) => change.change_id)).toEqual(newest.slice(1, 3).map((change) => change.change_id));
    expect((await ok(t.get(`${CHANGES}?since=2100-01-01`), 200)).changes).toEqual([]);
  });

  it('answers 400 naming the parameter for a bad since, kind, offset or limit, and for unknown parameters', async () => {
    const fault = async (query: string, name: string) => {
      const answer = await t.get(`${CHANGES}?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.faultstring, query).toContain(name);
    };
    await fault('since=yesterday', 'since');
    await fault('since=2026-13-01', 'since');
    await fault('kind=price', 'kind');
    await fault('kind=', 'kind');
    await fault('offset=-1', 'offset');
    await fault('offset=1.5', 'offset');
    await fault('limit=0', 'limit');
    await fault('limit=1001', 'TARIFF_CHANGES_MAX_LIMIT');
    await fault('limit=abc', 'limit');
    await fault('kind=group&kind=service', 'kind');
    await fault('user=me', 'user');
  });

  it('never fails on hostile query parameters: 200 or a 400 naming the parameter', async () => {
    const parameter = fc.constantFrom('since', 'kind', 'object_id', 'revision', 'offset', 'limit');
    const value = fc.oneof(
      fc.string(),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.integer().map(String),
      fc.double().map(String),
      fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
      fc.constantFrom('9'.repeat(30), '1e3', ' 5', '0x10', '2026-02-30', '+99999-01-01', 'group', 'module', 'price_list'),
    );
    await fc.assert(
      fc.asyncProperty(parameter, value, async (name, text) => {
        const answer = await t.get(`${CHANGES}?${name}=${encodeURIComponent(text)}`);
        expect([200, 400], `${name}=${text}: ${answer.text}`).toContain(answer.status);
        if (answer.status === 400) expect(answer.body.faultstring).toMatch(new RegExp(`${name}|query`));
        else expect(Array.isArray(answer.body.changes)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});

/** An app on `t`'s database whose pino lines are kept. */
async function loggingApp(options: { environment?: Record<string, string>; validate?: (token: string) => Promise<KeystoneIdentity | null> } = {}) {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const config = { ...loadConfig(options.environment ?? {}), databaseUrl: t.databaseUrl };
  const app = await buildTariffApp({
    config,
    database: t.database,
    modules: ratingModules(),
    logger: { level: 'info', stream },
    keystoneClient: options.validate ? { validate: options.validate } : undefined,
  });
  await app.ready();
  return { app, lines };
}

describe('the log line of a change', () => {
  it('is written once per committed write, at info level, with the change and no secret', async () => {
    const { app, lines } = await loggingApp();
    try {
      const headers = { 'content-type': 'application/json', 'x-user-id': USER, 'x-auth-token': 'SECRET-TOKEN-0123456789abcdef' };
      const created = await app.inject({ method: 'POST', url: `${H}/services`, headers, payload: JSON.stringify({ name: 'logged-service' }) });
      expect(created.statusCode).toBe(201);
      const service = created.json();
      const refused = await app.inject({ method: 'POST', url: `${H}/services`, headers, payload: JSON.stringify({ name: 'logged-service' }) });
      expect(refused.statusCode).toBe(409);
      const mapping = await app.inject({
        method: 'POST',
        url: `${H}/mappings`,
        headers,
        payload: JSON.stringify({ service_id: service.service_id, cost: '1', start: daysFromNow(1) }),
      });
      const updated = await app.inject({
        method: 'PUT',
        url: `${H}/mappings/${mapping.json().mapping_id}`,
        headers,
        payload: JSON.stringify({ cost: '2' }),
      });
      expect(updated.statusCode).toBe(302);

      const entries = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'configuration change');
      expect(entries).toHaveLength(3);
      expect(entries[0]).toMatchObject({
        level: 30,
        reqId: created.headers['x-openstack-request-id'],
        change: {
          user_id: USER,
          project_id: null,
          request_id: created.headers['x-openstack-request-id'],
          route: `POST ${H}/services`,
          kind: 'service',
          object_id: service.service_id,
          action: 'create',
          before: null,
          after: service,
        },
      });
      expect(entries[2].change).toMatchObject({
        route: `PUT ${H}/mappings/:mapping_id`,
        action: 'update',
        before: { cost: '1.0000000000000000000000000000' },
        after: { cost: '2.0000000000000000000000000000' },
      });
      const text = lines.join('\n');
      expect(text).not.toContain('SECRET-TOKEN');
      expect(text).not.toContain(t.databaseUrl);
      expect(text.toLowerCase()).not.toContain('password');
    } finally {
      await app.close();
    }
  });
});

describe('Keystone mode', () => {
  const KEYSTONE_ENVIRONMENT = {
    TARIFF_AUTH: 'keystone',
    TARIFF_KEYSTONE_AUTH_URL: 'http://keystone.invalid:5000',
    TARIFF_KEYSTONE_USERNAME: 'tariff',
    TARIFF_KEYSTONE_PASSWORD: 'keystone-service-password',
  };
  const ADMIN_TOKEN = 'gAAAAABadmin-token-for-audit-tests-0123';
  const MEMBER_TOKEN = 'gAAAAABmember-token-for-audit-tests-0123';
  const identity = (userId: string, roles: string[]): KeystoneIdentity => ({ ...testIdentity(roles), userId, projectId: 'a1b2c3d4e5f60718293a4b5c6d7e8f90' });
  let app: TariffApp;
  let lines: string[];

  beforeAll(async () => {
    ({ app, lines } = await loggingApp({
      environment: KEYSTONE_ENVIRONMENT,
      validate: async (token) =>
        token === ADMIN_TOKEN ? identity('0123456789abcdef0123456789abcdef', ['admin']) : token === MEMBER_TOKEN ? identity('member-user', ['member']) : null,
    }));
  });

  afterAll(async () => {
    await app?.close();
  });

  it("records the token's user and project (an X-User-Id is not the acting user), and guards the trail with rating:module_config", async () => {
    const headers = { 'content-type': 'application/json', 'x-auth-token': ADMIN_TOKEN, 'x-user-id': 'someone-else' };
    const created = await app.inject({ method: 'POST', url: `${P}/scripts`, headers, payload: JSON.stringify({ name: 'keystone-script', data: '' }) });
    expect(created.statusCode, created.body).toBe(201);
    const listed = await app.inject({ method: 'GET', url: `${CHANGES}?kind=script&limit=1`, headers: { 'x-auth-token': ADMIN_TOKEN } });
    expect(listed.statusCode).toBe(200);
    expect(listed.json().changes[0]).toMatchObject({
      user_id: '0123456789abcdef0123456789abcdef',
      project_id: 'a1b2c3d4e5f60718293a4b5c6d7e8f90',
      object_id: created.json().script_id,
      action: 'create',
    });
    expect((await app.inject({ method: 'GET', url: CHANGES, headers: { 'x-auth-token': MEMBER_TOKEN } })).statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: CHANGES })).statusCode).toBe(401);
    const text = lines.join('\n');
    expect(text).toContain('a1b2c3d4e5f60718293a4b5c6d7e8f90');
    for (const secret of [ADMIN_TOKEN, MEMBER_TOKEN, 'keystone-service-password']) expect(text).not.toContain(secret);
  });
});

describe('the migration', () => {
  it('keeps a tariff_changes table already there when migrated again', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'tariff-audit-'));
    const scratch = await createScratchDatabase(directory);
    let database: Database | undefined;
    try {
      database = openDatabase(scratch.url, { timeoutMs: 30_000 });
      const modules = ratingModules();
      await migrateToLatest(database, modules.migrations());
      await database.db
        .insertInto('tariff_changes')
        .values({
          at: '2026-01-01 00:00:00',
          user_id: 'u',
          project_id: null,
          request_id: 'r',
          route: 'r',
          kind: 'group',
          object_id: 'g',
          action: 'create',
          before: null,
          after: null,
        })
        .execute();
      await database.db
        .deleteFrom('tariff_migration' as never)
        .where('name' as never, '=', '0007_changes' as never)
        .execute();
      await migrateToLatest(database, modules.migrations());
      expect(await database.db.selectFrom('tariff_changes').select('object_id').execute()).toEqual([{ object_id: 'g' }]);
    } finally {
      await database?.close();
      await scratch.drop();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
