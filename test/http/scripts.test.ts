/**
 * PyScripts scripts over HTTP (api.md §5, §6): create, checksum, list with `no_data` and the
 * versioned-rule filters, get, name clashes, update the way the client sends it, soft delete.
 */
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { P, daysFromNow, startTestApp, withAppFor, type TestApp } from '../helpers/app.js';
import { expectFault, expectNow, API_DATETIME } from '../helpers/fixtures.js';

const SCRIPT_KEYS = ['checksum', 'created_at', 'created_by', 'data', 'deleted', 'deleted_by', 'description', 'end', 'name', 'script_id', 'start', 'updated_by'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MESSAGE_TIME = '\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}';

const sha512 = (data: string) => createHash('sha512').update(Buffer.from(data, 'utf8')).digest('hex');
const messageForm = (iso: string) => iso.slice(0, 19).replace('T', ' ');

let t: TestApp;
let appStartedAt: number;
let counter = 0;
const uniqueName = (prefix = 'script') => `${prefix}-${++counter}`;

async function createScript(body: Record<string, unknown>, options: { query?: string; user?: string } = {}): Promise<any> {
  const response = await t.post(`${P}/scripts/${options.query ?? ''}`, body, options.user ? { 'x-user-id': options.user } : {});
  expect(response.status, response.text).toBe(201);
  return response.body;
}
async function getScript(id: string): Promise<any> {
  const response = await t.get(`${P}/scripts/${id}`);
  expect(response.status, response.text).toBe(200);
  return response.body;
}
/** What `cloudkitty pyscript update` sends: the GET object without checksum, with overrides. */
async function clientEcho(id: string, overrides: Record<string, unknown>): Promise<Record<string, unknown>> {
  const current = await getScript(id);
  delete current.checksum;
  return { ...current, ...overrides };
}

beforeAll(async () => {
  appStartedAt = Date.now();
  t = await startTestApp();
});
afterAll(() => t.close());

describe('POST scripts: create', () => {
  it('creates a script with its SHA-512 checksum, every attribute present', async () => {
    const data = 'import decimal\nfor period in data:\n    pass\n';
    const response = await t.post(`${P}/scripts/`, { name: 'policy', data });
    expect(response.status).toBe(201);
    const script = response.body;
    expect(Object.keys(script).sort()).toEqual(SCRIPT_KEYS);
    expect(script).toEqual({
      script_id: expect.stringMatching(UUID),
      name: 'policy',
      data,
      checksum: sha512(data),
      description: null,
      start: expect.stringMatching(API_DATETIME),
      end: null,
      created_at: expect.stringMatching(API_DATETIME),
      deleted: null,
      created_by: 'unknown',
      updated_by: null,
      deleted_by: null,
    });
    expect(script.checksum).toMatch(/^[0-9a-f]{128}$/);
    expect(response.headers.location).toBe(`http://localhost:80${P}/scripts/${script.script_id}`);
    expect(await getScript(script.script_id)).toEqual(script);
  });

  it('hashes the UTF-8 bytes of non-ASCII data and returns the text unchanged', async () => {
    const data = '# Tarif für Größe — 価格\nprint("€")\n';
    const script = await createScript({ name: uniqueName(), data });
    expect(script.checksum).toBe(sha512(data));
    expect((await getScript(script.script_id)).data).toBe(data);
  });

  it('accepts empty data, and absent data as empty', async () => {
    const empty = await createScript({ name: uniqueName(), data: '' });
    expect(empty.data).toBe('');
    expect(empty.checksum).toBe(sha512(''));
    const absent = await createScript({ name: uniqueName() });
    expect(absent.data).toBe('');
    expect(absent.checksum).toBe(sha512(''));
  });

  it('stores a description, a future start and end, and created_by from X-User-Id', async () => {
    const script = await createScript(
      { name: uniqueName(), data: 'a = 1', description: 'Weekend discount', start: '2099-01-01', end: '2099-01-31' },
      { user: 'alice' },
    );
    expect(script).toMatchObject({
      description: 'Weekend discount',
      start: '2099-01-01T00:00:00+00:00',
      end: '2099-01-31T23:59:59+00:00',
      created_by: 'alice',
      checksum: sha512('a = 1'),
    });
  });

  it('defaults start to the request time, not the process start (fix)', async () => {
    // Let the app age, so a start taken at start-up would be visibly older than the request.
    await sleep(Math.max(0, 2200 - (Date.now() - appStartedAt)));
    const before = Math.floor(Date.now() / 1000) * 1000;
    const script = await createScript({ name: uniqueName(), data: 'x' });
    expect(Date.parse(script.start)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(script.start)).toBeGreaterThanOrEqual(Math.floor(appStartedAt / 1000) * 1000 + 2000);
    expect(script.start).toBe(script.created_at);
    expectNow(script.start);
  });

  it('refuses a start in the past unless forced', async () => {
    const response = await t.post(`${P}/scripts/`, { name: uniqueName(), data: 'x', start: '2020-01-01T00:00:00' });
    expect(response.status).toBe(400);
    expect(response.body.faultstring).toMatch(
      new RegExp(`^Cannot create a rule with start in the past\\. start=\\[2020-01-01 00:00:00\\] current time=\\[${MESSAGE_TIME}\\]\\.$`),
    );
    const forced = await createScript({ name: uniqueName(), data: 'x', start: '2020-01-01T00:00:00+02:00' }, { query: '?force=True' });
    expect(forced.start).toBe('2019-12-31T22:00:00+00:00');
    const forcedLower = await createScript({ name: uniqueName(), data: 'x', start: '2020-01-01T00:00:00Z' }, { query: '?force=true' });
    expect(forcedLower.start).toBe('2020-01-01T00:00:00+00:00');
  });

  it('refuses an end before the start', async () => {
    expectFault(
      await t.post(`${P}/scripts/`, { name: uniqueName(), data: 'x', start: '2099-02-01T00:00:00', end: '2099-01-01T00:00:00' }),
      400,
      'Cannot create a rule with start after end. start=[2099-02-01 00:00:00] end=[2099-01-01 00:00:00].',
    );
  });

  it('refuses a missing name and unknown attributes', async () => {
    expectFault(await t.post(`${P}/scripts/`, { data: 'x' }), 400, "Invalid input for field/attribute name. Value: 'None'. Mandatory field missing.");
    expectFault(await t.post(`${P}/scripts/`, { name: uniqueName(), data: 'x', language: 'py' }), 400, 'Unknown attribute for argument script_data: language');
  });

  it('refuses a name used by a live script (409), but a soft-deleted name can be reused', async () => {
    const name = uniqueName('unique');
    const first = await createScript({ name, data: 'a' });
    expectFault(await t.post(`${P}/scripts/`, { name, data: 'b' }), 409, `Script ${name} already exists (UUID: ${first.script_id})`);
    expect((await t.del(`${P}/scripts/${first.script_id}`)).status).toBe(204);
    const second = await createScript({ name, data: 'b' });
    expect(second.script_id).not.toBe(first.script_id);
    expect(second.name).toBe(name);
    // And the new one blocks the name again.
    expectFault(await t.post(`${P}/scripts/`, { name, data: 'c' }), 409, `Script ${name} already exists (UUID: ${second.script_id})`);
  });
});

describe('POST scripts: a name shared by versions (fix: CloudKitty refused a new version with the name of the ended one)', () => {
  it('lets a script take the name of one it follows, at or after its end, and refuses an intersecting one', async () => {
    const name = uniqueName('versioned');
    const first = await createScript({ name, data: 'a = 1', start: '2099-01-01T00:00:00', end: '2099-06-01T00:00:00' });
    const next = await createScript({ name, data: 'a = 2', start: '2099-06-01T00:00:00', end: '2099-09-01T00:00:00' });
    const later = await createScript({ name, data: 'a = 3', start: '2099-10-01T00:00:00' });
    const before = await createScript({ name, data: 'a = 0', start: '2098-01-01T00:00:00', end: '2099-01-01T00:00:00' });
    expect(new Set([first.script_id, next.script_id, later.script_id, before.script_id]).size).toBe(4);
    expectFault(
      await t.post(`${P}/scripts/`, { name, data: 'b', start: '2099-05-31T23:59:59', end: '2099-06-01T00:00:01' }),
      409,
      `Script ${name} already exists (UUID: ${first.script_id})`,
    );
    expectFault(
      await t.post(`${P}/scripts/`, { name, data: 'b', start: '2100-01-01T00:00:00' }),
      409,
      `Script ${name} already exists (UUID: ${later.script_id})`,
    );
    // The gap [2099-09-01, 2099-10-01) is free.
    await createScript({ name, data: 'a = 2.5', start: '2099-09-01T00:00:00', end: '2099-10-01T00:00:00' });
    const listed = await t.get(`${P}/scripts/?no_data=true`);
    expect(listed.body.scripts.filter((script: { name: string }) => script.name === name)).toHaveLength(5);
  });

  it('lets a script starting now take the name of one that is over', async () => {
    const name = uniqueName('ended');
    await createScript({ name, data: 'a = 1', start: daysFromNow(-10), end: daysFromNow(-1) }, { query: '?force=true' });
    const now = await createScript({ name, data: 'a = 2' });
    expect(now.name).toBe(name);
    expectFault(await t.post(`${P}/scripts/`, { name, data: 'c', start: daysFromNow(30) }), 409, `Script ${name} already exists (UUID: ${now.script_id})`);
  });

  it('refuses an update moving the interval onto that of a script with the same name, and stores nothing', async () => {
    const name = uniqueName('moved');
    const first = await createScript({ name, data: 'a = 1', start: '2099-01-01T00:00:00', end: '2099-02-01T00:00:00' });
    const next = await createScript({ name, data: 'a = 2', start: '2099-02-01T00:00:00', end: '2099-03-01T00:00:00' });
    expectFault(
      await t.put(`${P}/scripts/${next.script_id}`, { start: '2099-01-31T23:59:59', data: 'a = 3' }),
      409,
      `Script ${name} already exists (UUID: ${first.script_id})`,
    );
    expectFault(await t.put(`${P}/scripts/${first.script_id}`, { end: null }), 409, `Script ${name} already exists (UUID: ${next.script_id})`);
    expect(await getScript(next.script_id)).toEqual(next);
    expect(await getScript(first.script_id)).toEqual(first);
    // Other changes do not look at the name; moving apart or meeting exactly is fine.
    expect((await t.put(`${P}/scripts/${next.script_id}`, { data: 'a = 4', description: 'v2' })).status).toBe(200);
    expect((await t.put(`${P}/scripts/${next.script_id}`, { start: '2099-02-15T00:00:00' })).status).toBe(200);
    expect((await t.put(`${P}/scripts/${first.script_id}`, { end: '2099-02-15T00:00:00' })).status).toBe(200);
  });

  it('refuses a running script a new end that overlaps the next version (409)', async () => {
    const name = uniqueName('succeeded');
    const running = await createScript({ name, data: 'a = 1', end: daysFromNow(10) });
    const next = await createScript({ name, data: 'a = 2', start: running.end });
    const clash = `Script ${name} already exists (UUID: ${next.script_id})`;
    expectFault(await t.put(`${P}/scripts/${running.script_id}`, { end: daysFromNow(11) }), 409, clash);
    expectFault(await t.put(`${P}/scripts/${running.script_id}`, { end: null }), 409, clash);
    expect((await getScript(running.script_id)).end).toBe(running.end);
    const earlier = daysFromNow(5);
    const ended = await t.put(`${P}/scripts/${running.script_id}`, { end: earlier });
    expect(ended.status, ended.text).toBe(200);
    expect(ended.body.end).toBe(earlier);
  });
});

describe('GET scripts/{id}', () => {
  it('answers 404 for an unknown id, a non-UUID id and a soft-deleted script', async () => {
    const unknown = randomUUID();
    expectFault(await t.get(`${P}/scripts/${unknown}`), 404, `No such script: None (UUID: ${unknown})`);
    expectFault(await t.get(`${P}/scripts/42`), 404, 'No such script: None (UUID: 42)');
    const script = await createScript({ name: uniqueName(), data: 'x' });
    expect((await t.del(`${P}/scripts/${script.script_id}`)).status).toBe(204);
    expectFault(await t.get(`${P}/scripts/${script.script_id}`), 404, `No such script: None (UUID: ${script.script_id})`);
  });
});

describe('PUT scripts/{id}: update', () => {
  it('changes data of a script not started yet and recomputes the checksum (client echo without checksum)', async () => {
    const created = await createScript({ name: uniqueName(), data: 'old = 1', start: daysFromNow(1), description: 'keep' });
    const response = await t.put(`${P}/scripts/${created.script_id}`, await clientEcho(created.script_id, { data: 'new = 2' }), { 'x-user-id': 'bob' });
    expect(response.status, response.text).toBe(200);
    const expected = { ...created, data: 'new = 2', checksum: sha512('new = 2'), updated_by: 'bob' };
    expect(response.body).toEqual(expected);
    expect(response.headers.location).toBe(`http://localhost:80${P}/scripts/${created.script_id}`);
    expect(await getScript(created.script_id)).toEqual(expected);
  });

  it('changes start, end and description of a script not started yet; absent attributes keep their values', async () => {
    const created = await createScript({ name: uniqueName(), data: 'x = 1', start: '2099-01-01T00:00:00', end: '2099-06-01T00:00:00', description: 'd1' });
    const moved = await t.put(`${P}/scripts/${created.script_id}`, { start: '2099-02-01T00:00:00', end: '2099-03-01', description: 'd2' });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toEqual({ ...created, start: '2099-02-01T00:00:00+00:00', end: '2099-03-01T23:59:59+00:00', description: 'd2', updated_by: 'unknown' });
    const dataOnly = await t.put(`${P}/scripts/${created.script_id}`, { data: 'y = 2' });
    expect(dataOnly.status).toBe(200);
    expect(dataOnly.body).toEqual({ ...moved.body, data: 'y = 2', checksum: sha512('y = 2') });
  });

  it('accepts an echoed checksum equal to the stored or to the new data, refuses another one', async () => {
    const created = await createScript({ name: uniqueName(), data: 'a', start: daysFromNow(1) });
    const unchanged = await t.put(`${P}/scripts/${created.script_id}`, await getScript(created.script_id));
    expect(unchanged.status, unchanged.text).toBe(200);
    expect(unchanged.body.checksum).toBe(sha512('a'));
    const matching = await t.put(`${P}/scripts/${created.script_id}`, { data: 'b', checksum: sha512('b') });
    expect(matching.status, matching.text).toBe(200);
    expect(matching.body.checksum).toBe(sha512('b'));
    const staleWithNewData = await t.put(`${P}/scripts/${created.script_id}`, { data: 'c', checksum: sha512('b') });
    expect(staleWithNewData.status, staleWithNewData.text).toBe(200);
    expect(staleWithNewData.body.checksum).toBe(sha512('c'));
    expectFault(
      await t.put(`${P}/scripts/${created.script_id}`, { data: 'd', checksum: 'abc' }),
      400,
      "Invalid input for field/attribute checksum. Value: 'abc'. Cannot set read only field.",
    );
    expect((await getScript(created.script_id)).data).toBe('c');
  });

  it('may set data to empty', async () => {
    const created = await createScript({ name: uniqueName(), data: 'a', start: daysFromNow(1) });
    const response = await t.put(`${P}/scripts/${created.script_id}`, { data: '' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ data: '', checksum: sha512('') });
  });

  it('refuses a changed name or script_id, naming it', async () => {
    const created = await createScript({ name: uniqueName(), data: 'a', start: daysFromNow(1) });
    expectFault(
      await t.put(`${P}/scripts/${created.script_id}`, { name: 'renamed' }),
      400,
      "Invalid input for field/attribute name. Value: 'renamed'. Cannot set read only field.",
    );
    const other = randomUUID();
    expectFault(
      await t.put(`${P}/scripts/${created.script_id}`, { script_id: other }),
      400,
      `Invalid input for field/attribute script_id. Value: '${other}'. Cannot set read only field.`,
    );
    expect(await getScript(created.script_id)).toEqual(created);
  });

  it('applies the create checks again to a script not started yet', async () => {
    const created = await createScript({ name: uniqueName(), data: 'a', start: '2099-01-01T00:00:00' });
    const response = await t.put(`${P}/scripts/${created.script_id}`, { start: '2020-01-01T00:00:00' });
    expect(response.status).toBe(400);
    expect(response.body.faultstring).toMatch(/^Cannot create a rule with start in the past\. start=\[2020-01-01 00:00:00\] current time=\[/);
    expectFault(
      await t.put(`${P}/scripts/${created.script_id}`, { end: '2098-01-01T00:00:00' }),
      400,
      'Cannot create a rule with start after end. start=[2099-01-01 00:00:00] end=[2098-01-01 00:00:00].',
    );
  });

  it('refuses an end in the past for a running script', async () => {
    const created = await createScript({ name: uniqueName(), data: 'a' });
    const end = daysFromNow(-1);
    const response = await t.put(`${P}/scripts/${created.script_id}`, { end });
    expect(response.status).toBe(400);
    expect(response.body.faultstring).toMatch(
      new RegExp(`^End date must be in the future\\. end=\\[${messageForm(end)}\\] current time=\\[${MESSAGE_TIME}\\]$`),
    );
  });

  it('refuses any update of a script that is over', async () => {
    const created = await createScript({ name: uniqueName(), data: 'a', start: daysFromNow(-10), end: daysFromNow(-5) }, { query: '?force=true' });
    const message = 'Cannot update a rule that was already processed and has a defined end date.';
    expectFault(await t.put(`${P}/scripts/${created.script_id}`, { end: daysFromNow(5) }), 400, message);
    expectFault(await t.put(`${P}/scripts/${created.script_id}`, await clientEcho(created.script_id, {})), 400, message);
  });

  it('answers 404 for a deleted or unknown script', async () => {
    const created = await createScript({ name: uniqueName(), data: 'a', start: daysFromNow(1) });
    await t.del(`${P}/scripts/${created.script_id}`);
    expectFault(await t.put(`${P}/scripts/${created.script_id}`, { data: 'b' }), 404, `No such script: None (UUID: ${created.script_id})`);
    const unknown = randomUUID();
    expectFault(await t.put(`${P}/scripts/${unknown}`, { data: 'b' }), 404, `No such script: None (UUID: ${unknown})`);
  });

  it('also takes the id from the body on the collection URL', async () => {
    const created = await createScript({ name: uniqueName(), data: 'a', start: daysFromNow(1) });
    const response = await t.put(`${P}/scripts/`, { script_id: created.script_id, data: 'b' });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toBe('b');
  });
});

describe('PUT scripts/{id}: a running script with TARIFF_RUNNING_RULE_UPDATES=refuse (CloudKitty 23)', () => {
  withAppFor(
    { config: { runningRuleUpdates: 'refuse' } },
    () => t,
    (app) => (t = app),
  );

  it('lets a running script change only its end, more than once', async () => {
    const created = await createScript({ name: uniqueName(), data: 'a = 1' });
    const message = `You are allowed to update only the attribute [end] as this rule is already running as it started on [${messageForm(created.start)}]`;
    expectFault(await t.put(`${P}/scripts/${created.script_id}`, await clientEcho(created.script_id, { data: 'a = 2' })), 400, message);
    expectFault(await t.put(`${P}/scripts/${created.script_id}`, { description: 'new' }), 400, message);
    expectFault(await t.put(`${P}/scripts/${created.script_id}`, { start: daysFromNow(2) }), 400, message);
    // The plain client echo (nothing changed) is fine.
    const echoed = await t.put(`${P}/scripts/${created.script_id}`, await clientEcho(created.script_id, {}));
    expect(echoed.status, echoed.text).toBe(200);
    expect(echoed.body).toEqual({ ...created, updated_by: 'unknown' });
    const end = daysFromNow(7);
    const ended = await t.put(`${P}/scripts/${created.script_id}`, await clientEcho(created.script_id, { end }), { 'x-user-id': 'carol' });
    expect(ended.status, ended.text).toBe(200);
    expect(ended.body).toEqual({ ...created, end, updated_by: 'carol' });
    const later = daysFromNow(14);
    const again = await t.put(`${P}/scripts/${created.script_id}`, { end: later });
    expect(again.status).toBe(200);
    expect(again.body.end).toBe(later);
    expect((await getScript(created.script_id)).data).toBe('a = 1');
  });
});

describe('DELETE scripts: soft delete', () => {
  it('soft-deletes through the item URL without a body; a second delete is 404', async () => {
    const created = await createScript({ name: uniqueName(), data: 'a' });
    const deleted = await t.request('DELETE', `${P}/scripts/${created.script_id}`, undefined, { 'x-user-id': 'dave' });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expectFault(await t.del(`${P}/scripts/${created.script_id}`), 404, `No such script: None (UUID: ${created.script_id})`);
    const listed = await t.get(`${P}/scripts/?deleted=true&deleted_by=dave`);
    expect(listed.body.scripts).toHaveLength(1);
    expect(listed.body.scripts[0]).toEqual({ ...created, deleted: expect.stringMatching(API_DATETIME), deleted_by: 'dave' });
    expectNow(listed.body.scripts[0].deleted);
  });

  it('also deletes through the collection URL with the id in the body', async () => {
    const created = await createScript({ name: uniqueName(), data: 'a' });
    expect((await t.del(`${P}/scripts/`, { script_id: created.script_id })).status).toBe(204);
    expectFault(await t.get(`${P}/scripts/${created.script_id}`), 404, `No such script: None (UUID: ${created.script_id})`);
  });
});

describe('GET scripts: list', () => {
  let l: TestApp;
  const ids: Record<string, string> = {};

  async function post(body: unknown, query = '', user?: string): Promise<any> {
    const response = await l.post(`${P}/scripts/${query}`, body, user ? { 'x-user-id': user } : {});
    expect(response.status, response.text).toBe(201);
    return response.body;
  }
  async function labels(query: string): Promise<string[]> {
    const response = await l.get(`${P}/scripts/${query}`);
    expect(response.status, response.text).toBe(200);
    const byId = Object.fromEntries(Object.entries(ids).map(([label, id]) => [id, label]));
    return response.body.scripts.map((script: { script_id: string }) => byId[script.script_id] ?? script.script_id);
  }

  beforeAll(async () => {
    l = await startTestApp();
    // s1: running, by alice.
    ids.s1 = (await post({ name: 's1', data: 'one', description: 'Weekend 50% OFF' }, '', 'alice')).script_id;
    // s2: future bounded.
    ids.s2 = (await post({ name: 's2', data: 'two', description: 'night_rate', start: '2099-01-01T00:00:00', end: '2099-06-01T00:00:00' })).script_id;
    // s3: over (forced).
    ids.s3 = (await post({ name: 's3', data: 'three', start: daysFromNow(-10), end: daysFromNow(-5) }, '?force=true')).script_id;
    // s4: running, end moved by carol.
    ids.s4 = (await post({ name: 's4', data: 'four' })).script_id;
    expect((await l.put(`${P}/scripts/${ids.s4}`, { end: daysFromNow(30) }, { 'x-user-id': 'carol' })).status).toBe(200);
    // s5: deleted by dave.
    ids.s5 = (await post({ name: 's5', data: 'five', description: 'gone' })).script_id;
    expect((await l.request('DELETE', `${P}/scripts/${ids.s5}`, undefined, { 'x-user-id': 'dave' })).status).toBe(204);
  });
  afterAll(() => l.close());

  it('lists live scripts with their data, in creation order', async () => {
    const response = await l.get(`${P}/scripts/`);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['scripts']);
    expect(response.body.scripts.map((script: { name: string; data: string; checksum: string }) => [script.name, script.data, script.checksum])).toEqual([
      ['s1', 'one', sha512('one')],
      ['s2', 'two', sha512('two')],
      ['s3', 'three', sha512('three')],
      ['s4', 'four', sha512('four')],
    ]);
    expect(response.body.scripts[0]).toEqual(await (await l.get(`${P}/scripts/${ids.s1}`)).body);
  });

  it('leaves the data key out with no_data=True, and keeps it with no_data=false', async () => {
    const response = await l.get(`${P}/scripts/?no_data=True`);
    expect(response.status).toBe(200);
    expect(response.body.scripts).toHaveLength(4);
    for (const script of response.body.scripts) {
      expect('data' in script).toBe(false);
      expect(Object.keys(script).sort()).toEqual(SCRIPT_KEYS.filter((key) => key !== 'data'));
    }
    expect(response.body.scripts[1].checksum).toBe(sha512('two'));
    const withData = await l.get(`${P}/scripts/?no_data=false`);
    expect(withData.body.scripts.map((script: { data: string }) => script.data)).toEqual(['one', 'two', 'three', 'four']);
  });

  it('filters by deleted', async () => {
    expect(await labels('?deleted=true')).toEqual(['s1', 's2', 's3', 's4', 's5']);
    expect(await labels('?deleted=False')).toEqual(['s1', 's2', 's3', 's4']);
  });

  it('filters by start and end', async () => {
    expect(await labels('?start=2099-01-01T00:00:00Z')).toEqual(['s2']);
    expect(await labels('?start=2099-01-01T00:00:01Z')).toEqual([]);
    expect(await labels('?end=2099-06-01T00:00:01Z')).toEqual(['s2', 's3', 's4']);
    expect(await labels(`?end=${encodeURIComponent(daysFromNow(0))}`)).toEqual(['s3']);
    expectFault(
      await l.get(`${P}/scripts/?start=yesterday`),
      400,
      "Invalid input for field/attribute start. Value: 'yesterday'. Value must be an ISO 8601 datetime such as 2026-12-01T10:00:00+00:00.",
    );
  });

  it('filters by created_by, updated_by and deleted_by', async () => {
    expect(await labels('?created_by=alice')).toEqual(['s1']);
    expect(await labels('?created_by=unknown')).toEqual(['s2', 's3', 's4']);
    expect(await labels('?updated_by=carol')).toEqual(['s4']);
    expect(await labels('?deleted_by=dave')).toEqual([]);
    expect(await labels('?deleted_by=dave&deleted=True')).toEqual(['s5']);
  });

  it('filters by description, case-insensitive, % and _ literal', async () => {
    expect(await labels('?description=weekend')).toEqual(['s1']);
    expect(await labels(`?description=${encodeURIComponent('50% off')}`)).toEqual(['s1']);
    expect(await labels(`?description=${encodeURIComponent('%')}`)).toEqual(['s1']);
    expect(await labels('?description=_')).toEqual(['s2']);
    expect(await labels('?description=gone')).toEqual([]);
  });

  it('filters by is_active', async () => {
    expect(await labels('?is_active=True')).toEqual(['s1', 's4']);
    expect(await labels('?is_active=false')).toEqual(['s2', 's3']);
    expect(await labels('?is_active=0&deleted=1')).toEqual(['s2', 's3', 's5']);
  });

  it('combines no_data with filters', async () => {
    const response = await l.get(`${P}/scripts/?no_data=True&is_active=true&created_by=alice`);
    expect(response.body.scripts).toHaveLength(1);
    expect(response.body.scripts[0].name).toBe('s1');
    expect('data' in response.body.scripts[0]).toBe(false);
  });

  it('refuses unknown parameters and invalid booleans', async () => {
    expectFault(await l.get(`${P}/scripts/?service_id=${randomUUID()}`), 400, 'Unknown argument: "service_id"');
    expectFault(
      await l.get(`${P}/scripts/?no_data=yes`),
      400,
      "Invalid input for field/attribute no_data. Value: 'yes'. Value should be one of: true, True, 1, false, False, 0",
    );
  });
});
