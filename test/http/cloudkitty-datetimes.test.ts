/**
 * Datetimes on CloudKitty's v1 routes as CloudKitty master answers them (api.md §1, issue 23
 * class 3): naive ISO text holding wall time in `TARIFF_CLOUDKITTY_TIMEZONE`, so the text a client
 * sends is the text it gets back (master's tempest compares them); naive input is that zone's wall
 * time; `X-Tariff-Datetimes: offset` keeps UTC with `+00:00`; Tariff's own routes keep offsets.
 * These requests send no such header (the other suites do, test/helpers/headers.ts).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, P, startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';

const NAIVE = { 'x-tariff-datetimes': '' };
const OFFSET = { 'x-tariff-datetimes': 'offset' };
const NAIVE_TEXT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

function send(t: TestApp, method: string, url: string, body?: unknown, headers: Record<string, string> = NAIVE): Promise<TestResponse> {
  return t.request(method, url, body, headers);
}

async function newService(t: TestApp, name: string): Promise<string> {
  const response = await send(t, 'POST', `${H}/services/`, { name });
  expect(response.status, response.text).toBe(201);
  return response.body.service_id as string;
}

/** A wall time (whole seconds) from 2001 to 2998 as naive text. */
const wallTimes = fc
  .date({ min: new Date('2001-01-01T00:00:00Z'), max: new Date('2998-12-31T23:59:59Z'), noInvalidDate: true })
  .map((date) => new Date(Math.floor(date.getTime() / 1000) * 1000).toISOString().slice(0, 19));

describe.each([
  ['UTC', 0],
  ['Asia/Tokyo', 9],
])('CloudKitty zone %s', (zone, hoursEast) => {
  let t: TestApp;
  let serviceId: string;
  let runs = 0;
  beforeAll(async () => {
    t = await startTestApp({ config: { cloudKittyTimeZone: zone } });
    serviceId = await newService(t, 'compute');
  });
  afterAll(() => t.close());

  it('answers the naive text it was sent, on create, get, list and the mapping group route', async () => {
    await fc.assert(
      fc.asyncProperty(wallTimes, wallTimes, async (first, second) => {
        const [start, end] = first < second ? [first, second] : [second, first];
        const tenant = `tenant-${++runs}`;
        const created = await send(t, 'POST', `${H}/mappings/?force=true`, { service_id: serviceId, cost: 1, start, end, tenant_id: tenant });
        expect(created.status, created.text).toBe(201);
        expect([created.body.start, created.body.end]).toEqual([start, end]);
        expect(created.body.created_at).toMatch(NAIVE_TEXT);
        expect(created.body.deleted).toBeNull();
        const read = await send(t, 'GET', `${H}/mappings/${created.body.mapping_id}`);
        expect(read.body).toEqual(created.body);
        const listed = await send(t, 'GET', `${H}/mappings/?service_id=${serviceId}&filter_tenant=true&tenant_id=${tenant}`);
        expect(listed.body.mappings).toEqual([created.body]);
      }),
      { numRuns: 40 },
    );
  });

  it('reads naive input as the zone wall time: the instant is that wall time less the offset', async () => {
    const created = await send(t, 'POST', `${H}/mappings/?force=true`, { service_id: serviceId, cost: 1, start: '2999-01-01T09:00:00', tenant_id: 'instant' });
    const withOffsets = await send(t, 'GET', `${H}/mappings/${created.body.mapping_id}`, undefined, OFFSET);
    const expected = new Date(Date.parse('2999-01-01T09:00:00Z') - hoursEast * 3_600_000).toISOString().slice(0, 19);
    expect(withOffsets.body.start).toBe(`${expected}+00:00`);
    // Text with an offset is that instant, answered as the zone's wall time.
    const explicit = await send(t, 'POST', `${H}/mappings/?force=true`, {
      service_id: serviceId,
      cost: 1,
      start: '2999-02-01T00:00:00Z',
      tenant_id: 'explicit',
    });
    expect(explicit.body.start).toBe(new Date(Date.parse('2999-02-01T00:00:00Z') + hoursEast * 3_600_000).toISOString().slice(0, 19));
    // A date alone is the zone's midnight for a start and 23:59:59 for an end.
    const dates = await send(t, 'POST', `${H}/mappings/?force=true`, {
      service_id: serviceId,
      cost: 1,
      start: '2999-05-01',
      end: '2999-05-02',
      tenant_id: 'dates',
    });
    expect([dates.body.start, dates.body.end]).toEqual(['2999-05-01T00:00:00', '2999-05-02T23:59:59']);
    // A list filter takes the same naive text.
    const filtered = await send(t, 'GET', `${H}/mappings/?service_id=${serviceId}&start=2999-01-01T09:00:00&end=2999-01-01T09:00:01`);
    expect(filtered.status, filtered.text).toBe(200);
  });

  it('accepts the whole object echoed back with its naive datetimes, and scripts answer the same way', async () => {
    const created = await send(t, 'POST', `${H}/mappings/`, { service_id: serviceId, cost: 1, start: '2999-03-01T10:00:00', tenant_id: 'echo' });
    const echoed = await send(t, 'PUT', `${H}/mappings/`, { ...created.body, end: '2999-04-01T00:00:00' });
    expect(echoed.status, echoed.text).toBe(302);
    expect((await send(t, 'GET', `${H}/mappings/${created.body.mapping_id}`)).body).toEqual({
      ...created.body,
      end: '2999-04-01T00:00:00',
      updated_by: 'unknown',
    });
    const script = await send(t, 'POST', `${P}/scripts/`, { name: `echo-${zone}`, data: 'a = 1', start: '2999-03-01T10:00:00' });
    expect([script.body.start, script.body.end]).toEqual(['2999-03-01T10:00:00', null]);
    const updated = await send(t, 'PUT', `${P}/scripts/${script.body.script_id}`, { ...script.body, end: '2999-03-02T00:00:00' });
    expect(updated.status, updated.text).toBe(201);
    expect(updated.body.end).toBe('2999-03-02T00:00:00');
    const scripts = await send(t, 'GET', `${P}/scripts/`);
    expect(scripts.body.scripts.find((item: { script_id: string }) => item.script_id === script.body.script_id).start).toBe('2999-03-01T10:00:00');
  });

  it("keeps offsets on Tariff's own routes and on request (X-Tariff-Datetimes: offset)", async () => {
    const changes = await send(t, 'GET', '/v2/rating/changes?limit=1');
    expect(changes.body.changes[0].at).toMatch(/\+00:00$/);
    const mappings = await send(t, 'GET', `${H}/mappings/?service_id=${serviceId}`, undefined, OFFSET);
    expect(mappings.body.mappings.length).toBeGreaterThan(0);
    for (const mapping of mappings.body.mappings) expect(mapping.start).toMatch(/\+00:00$/);
  });
});
