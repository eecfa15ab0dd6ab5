/**
 * One time zone with CloudKitty (docs/operators/deploying-next-to-cloudkitty.md): with `TARIFF_CLOUDKITTY_TIMEZONE`, the naive datetime
 * columns hold that zone's wall time, as CloudKitty's processor on a host in that zone writes and
 * compares them, while the API keeps answering in UTC. Real HTTP (inject) on a real database.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, startTestApp, type TestApp } from '../helpers/app.js';

/** A stored datetime as text, the same on every database. */
async function storedText(t: TestApp, column: 'start' | 'end' | 'created_at' | 'deleted', mappingId: string): Promise<string | null> {
  const row = await t.tables
    .selectFrom('hashmap_mappings')
    .select(sql.ref<string | null>(column).as('value'))
    .where('mapping_id', '=', mappingId)
    .executeTakeFirstOrThrow();
  return row.value === null ? null : String(row.value).slice(0, 19);
}

/** `epochMs` as wall-time text in `zone`. */
function wallText(epochMs: number, zone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(epochMs)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}

/** Inserts a mapping the way CloudKitty does: naive wall-time text written by SQL. */
async function insertAsCloudKitty(t: TestApp, serviceId: string, mappingId: string, cost: string, start: string, end: string | null): Promise<void> {
  const service = await t.tables.selectFrom('hashmap_services').select('id').where('service_id', '=', serviceId).executeTakeFirstOrThrow();
  await t.tables
    .insertInto('hashmap_mappings')
    .values({
      mapping_id: mappingId,
      name: mappingId.replaceAll('-', ''),
      value: null,
      cost,
      map_type: 'flat',
      service_id: service.id,
      field_id: null,
      group_id: null,
      tenant_id: null,
      start,
      end,
      created_at: start,
      created_by: 'ck-admin',
    })
    .execute();
  // Tariff caches rules per configuration version (CloudKitty's writes do not bump it): count a write.
  t.database.writes.count += 1;
}

function quoteTotal(t: TestApp, service: string, body: Record<string, unknown>): Promise<string> {
  return t.post('/v2/rating/quote', { usage: { [service]: [{ vol: { unit: 'u', qty: '1' } }] }, ...body }).then((answer) => {
    expect(answer.status, answer.text).toBe(200);
    return answer.body.total;
  });
}

describe('TARIFF_CLOUDKITTY_TIMEZONE=Asia/Tokyo', () => {
  let t: TestApp;
  let serviceId: string;

  beforeAll(async () => {
    t = await startTestApp({ config: { cloudKittyTimeZone: 'Asia/Tokyo' } });
    expect((await t.put('/v2/rating/modules/hashmap', { enabled: true })).status).toBe(204);
    const service = await t.post(`${H}/services`, { name: 'tokyo' });
    serviceId = service.body.service_id;
  });
  afterAll(() => t?.close());

  it('records the zone in tariff_settings', async () => {
    const rows = await sql<{ name: string; value: string }>`select name, value from tariff_settings`.execute(t.database.db);
    expect(rows.rows).toEqual([{ name: 'cloudkitty_timezone', value: 'Asia/Tokyo' }]);
  });

  it("stores a mapping's start as Tokyo wall time, serves it in UTC and applies it at exactly that instant", async () => {
    const created = await t.post(`${H}/mappings?force=true`, {
      service_id: serviceId,
      cost: '2',
      type: 'flat',
      start: '2026-12-01T00:00:00+00:00',
      end: '2026-12-02T00:00:00Z',
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ start: '2026-12-01T00:00:00+00:00', end: '2026-12-02T00:00:00+00:00' });
    const id = created.body.mapping_id;
    expect(await storedText(t, 'start', id)).toBe('2026-12-01 09:00:00');
    expect(await storedText(t, 'end', id)).toBe('2026-12-02 09:00:00');
    expect((await t.get(`${H}/mappings/${id}`)).body).toMatchObject({ start: '2026-12-01T00:00:00+00:00', end: '2026-12-02T00:00:00+00:00' });
    // created_at is Tokyo's wall time now; the API answers the same instant in UTC.
    const createdAt = (await storedText(t, 'created_at', id))!;
    expect(Math.abs(Date.parse(`${createdAt.replace(' ', 'T')}+09:00`) - Date.now())).toBeLessThan(60_000);
    expect(Math.abs(Date.parse(created.body.created_at) - Date.now())).toBeLessThan(60_000);

    expect(await quoteTotal(t, 'tokyo', { at: '2026-11-30T23:59:59+00:00' })).toBe('0');
    expect(await quoteTotal(t, 'tokyo', { at: '2026-12-01T00:00:00+00:00' })).toBe('2');
    expect(await quoteTotal(t, 'tokyo', { at: '2026-12-01T09:00:00+09:00' })).toBe('2');
    expect(await quoteTotal(t, 'tokyo', { period: { begin: '2026-11-30T23:59:59Z', end: '2026-12-01T00:59:59Z' } })).toBe('0');
    expect(await quoteTotal(t, 'tokyo', { period: { begin: '2026-12-01T00:00:00Z', end: '2026-12-01T01:00:00Z' } })).toBe('2');
    expect(await quoteTotal(t, 'tokyo', { at: '2026-12-01T23:59:59Z' })).toBe('2');
    expect(await quoteTotal(t, 'tokyo', { at: '2026-12-02T00:00:00Z' })).toBe('0');
    // List filters compare in the stored zone too.
    const listed = await t.get(`${H}/mappings?service_id=${serviceId}&start=2026-12-01T00:00:00Z&end=2026-12-02T00:00:01Z`);
    expect(listed.body.mappings.map((mapping: { mapping_id: string }) => mapping.mapping_id)).toEqual([id]);
    expect((await t.get(`${H}/mappings?service_id=${serviceId}&start=2026-12-01T00:00:01Z`)).body.mappings).toEqual([]);
  });

  it('serves a row CloudKitty wrote as naive Tokyo wall time at the right UTC instant', async () => {
    const id = '3f1f5e0a-0000-4000-8000-00000000a001';
    await insertAsCloudKitty(t, serviceId, id, '5', '2027-01-01 09:00:00', null);
    expect((await t.get(`${H}/mappings/${id}`)).body).toMatchObject({ start: '2027-01-01T00:00:00+00:00', end: null, created_at: '2027-01-01T00:00:00+00:00' });
    expect(await quoteTotal(t, 'tokyo', { at: '2026-12-31T23:59:59Z' })).toBe('0');
    expect(await quoteTotal(t, 'tokyo', { at: '2027-01-01T00:00:00Z' })).toBe('5');
  });

  it('ends and deletes with Tokyo wall times', async () => {
    const created = await t.post(`${H}/mappings?force=true`, { service_id: serviceId, cost: '3', start: '2020-01-01T00:00:00Z', end: '2021-01-01T00:00:00Z' });
    expect(created.status, created.text).toBe(201);
    const id = created.body.mapping_id;
    expect(await storedText(t, 'end', id)).toBe('2021-01-01 09:00:00');
    expect((await t.del(`${H}/mappings/${id}`)).status).toBe(204);
    const deleted = (await storedText(t, 'deleted', id))!;
    expect(Math.abs(Date.parse(`${deleted.replace(' ', 'T')}+09:00`) - Date.now())).toBeLessThan(60_000);
    const served = (await t.get(`${H}/mappings?service_id=${serviceId}&deleted=true`)).body.mappings.find(
      (mapping: { mapping_id: string }) => mapping.mapping_id === id,
    );
    expect(Math.abs(Date.parse(served.deleted) - Date.now())).toBeLessThan(60_000);
    expect(served.deleted).toMatch(/\+00:00$/);
  });

  it('stores a script start as Tokyo wall time too', async () => {
    const created = await t.post('/v1/rating/module_config/pyscripts/scripts?force=true', { name: 'tokyo-script', data: '', start: '2026-12-01T00:00:00Z' });
    expect(created.status, created.text).toBe(201);
    expect(created.body.start).toBe('2026-12-01T00:00:00+00:00');
    const row = await t.tables
      .selectFrom('pyscripts_scripts')
      .select(sql<string>`start`.as('start'))
      .where('script_id', '=', created.body.script_id)
      .executeTakeFirstOrThrow();
    expect(String(row.start).slice(0, 19)).toBe('2026-12-01 09:00:00');
  });
});

describe('TARIFF_CLOUDKITTY_TIMEZONE=Europe/Paris, around the daylight-saving transitions', () => {
  let t: TestApp;
  let serviceId: string;

  beforeAll(async () => {
    t = await startTestApp({ config: { cloudKittyTimeZone: 'Europe/Paris' } });
    expect((await t.put('/v2/rating/modules/hashmap', { enabled: true })).status).toBe(204);
    serviceId = (await t.post(`${H}/services`, { name: 'paris' })).body.service_id;
  });
  afterAll(() => t?.close());

  it('stores summer and winter wall times by the offset of the instant', async () => {
    // 2026-10-25 01:00 UTC: 03:00 CEST becomes 02:00 CET; 00:30Z and 01:30Z both read 02:30.
    const first = await t.post(`${H}/mappings?force=true`, { service_id: serviceId, cost: '1', start: '2026-10-25T00:30:00Z', end: '2026-10-25T01:30:00Z' });
    expect(first.status, first.text).toBe(201);
    expect(await storedText(t, 'start', first.body.mapping_id)).toBe('2026-10-25 02:30:00');
    expect(await storedText(t, 'end', first.body.mapping_id)).toBe('2026-10-25 02:30:00');
    expect(first.body).toMatchObject({ start: '2026-10-25T00:30:00+00:00' });
    expect(wallText(Date.parse('2026-10-25T01:30:00Z'), 'Europe/Paris')).toBe('2026-10-25 02:30:00');
    // Read back as Python reads a naive local time (fold=0): the repeated 02:30 is the earlier instant.
    expect((await t.get(`${H}/mappings/${first.body.mapping_id}`)).body).toMatchObject({
      start: '2026-10-25T00:30:00+00:00',
      end: '2026-10-25T00:30:00+00:00',
    });
  });

  it("reads CloudKitty's skipped and repeated wall times as Python does, and prices at those instants", async () => {
    // 2026-03-29 02:30 never happens in Paris: read with the offset before (+01:00), 01:30Z.
    const spring = '3f1f5e0a-0000-4000-8000-00000000b001';
    await insertAsCloudKitty(t, serviceId, spring, '4', '2026-03-29 02:30:00', '2026-03-29 04:00:00');
    expect((await t.get(`${H}/mappings/${spring}`)).body).toMatchObject({ start: '2026-03-29T01:30:00+00:00', end: '2026-03-29T02:00:00+00:00' });
    expect(await quoteTotal(t, 'paris', { at: '2026-03-29T01:29:59Z' })).toBe('0');
    expect(await quoteTotal(t, 'paris', { at: '2026-03-29T01:30:00Z' })).toBe('4');
    expect(await quoteTotal(t, 'paris', { at: '2026-03-29T01:59:59Z' })).toBe('4');
    expect(await quoteTotal(t, 'paris', { at: '2026-03-29T02:00:00Z' })).toBe('0');
    // 2026-10-25 02:15 happens twice: the earlier instant, 00:15Z (CEST).
    const autumn = '3f1f5e0a-0000-4000-8000-00000000b002';
    await insertAsCloudKitty(t, serviceId, autumn, '6', '2026-10-25 02:15:00', '2026-10-25 03:00:00');
    expect((await t.get(`${H}/mappings/${autumn}`)).body).toMatchObject({ start: '2026-10-25T00:15:00+00:00', end: '2026-10-25T02:00:00+00:00' });
    expect(await quoteTotal(t, 'paris', { at: '2026-10-25T00:14:59Z' })).toBe('0');
    expect(await quoteTotal(t, 'paris', { at: '2026-10-25T00:15:00Z' })).toBe('6');
    expect(await quoteTotal(t, 'paris', { at: '2026-10-25T01:59:59Z' })).toBe('6');
    expect(await quoteTotal(t, 'paris', { at: '2026-10-25T02:00:00Z' })).toBe('0');
  });
});
