/**
 * Lengths and ranges the database enforces (issue 24, finding 13; api.md §1 "Stored limits"): every
 * stored attribute is checked against what its column holds after Tariff's conversions (time-zone
 * shift to CloudKitty's wall time, a number's source text), through the v1 routes and the price
 * list alike. Generated values at and past each limit: past it, a 400 naming the attribute and
 * nothing stored; at it, stored and read back exactly. The expected outcome is a model of the
 * input alone, so the three databases (this file runs on each) answer the same.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, P, startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { fingerprintChanges, openFingerprinter, type DatabaseFingerprinter } from '../helpers/database-fingerprint.js';
import { COLUMN_WIDTH, DESCRIPTION_LENGTH } from '../../src/database/column-widths.js';
import { COST_COLUMN, LEVEL_COLUMN, type DecimalColumn } from '../../src/rating/common/decimal.js';

const SEED = 24_013;
const PRICE_LIST = '/v2/rating/price_list';
const HOUR_MS = 3_600_000;

/** Epoch milliseconds of 1 January of `year`, UTC (any year, 1-99 included). */
function yearStart(year: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, 0, 1);
  return date.getTime();
}

/** API text of an instant: `9999-12-31T10:00:00+00:00`. */
function apiText(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 19)}+00:00`;
}

/** A fixed-offset zone of the tz database, and its offset: fixed, so the limits are plain arithmetic. */
interface FixedZone {
  name: string;
  offsetHours: number;
}

/** UTC+14: the latest wall clock, so the upper limit comes first (9999-12-31T10:00:00Z is 10000-01-01 00:00). */
const AHEAD: FixedZone = { name: 'Etc/GMT-14', offsetHours: 14 };
/** UTC-12: the earliest wall clock, so the lower limit comes last (0001-01-01T11:59:59Z is 0000-12-31 23:59:59). */
const BEHIND: FixedZone = { name: 'Etc/GMT+12', offsetHours: -12 };

/** Whether the database can store the instant in `zone`: its UTC year and its wall time's year within 1-9999. */
function storable(epochMs: number, zone: FixedZone): boolean {
  const wall = epochMs + zone.offsetHours * HOUR_MS;
  const inRange = (ms: number) => ms >= yearStart(1) && ms < yearStart(10_000);
  return inRange(epochMs) && inRange(wall);
}

/** The stored wall text of an instant in `zone`: `YYYY-MM-DD HH:MM:SS`. */
function wallText(epochMs: number, zone: FixedZone): string {
  return new Date(epochMs + zone.offsetHours * HOUR_MS).toISOString().slice(0, 19).replace('T', ' ');
}

/** Instants within two days of the zone's limit, whole seconds, and the limit itself on both sides. */
function instantsNear(zone: FixedZone): fc.Arbitrary<number> {
  const limit = zone.offsetHours > 0 ? yearStart(10_000) - zone.offsetHours * HOUR_MS : yearStart(1) - zone.offsetHours * HOUR_MS;
  return fc.oneof(
    fc.constantFrom(limit - 1000, limit, limit + 1000),
    fc.integer({ min: -2 * 86_400, max: 2 * 86_400 }).map((seconds) => limit + seconds * 1000),
  );
}

/** Expects a 400 whose fault names `attribute` (a price list: a problem at a path ending in it). */
function expectRefused(response: TestResponse, attribute: string): void {
  expect(response.status, response.text.slice(0, 600)).toBe(400);
  const fault = String(response.body?.faultstring);
  if (Array.isArray(response.body?.problems)) {
    expect(response.body.problems.map((problem: { path: string }) => problem.path).join(' ')).toContain(attribute);
  } else {
    expect(fault).toContain(`field/attribute ${attribute}.`);
  }
}

/** Runs `send`; refused: nothing stored (every table's fingerprint unchanged). */
async function unchangedWhenRefused(fingerprints: DatabaseFingerprinter, send: () => Promise<TestResponse>): Promise<TestResponse> {
  const before = await fingerprints.take();
  const response = await send();
  if (response.status >= 400) expect(fingerprintChanges(before, await fingerprints.take())).toEqual([]);
  return response;
}

async function stored(t: TestApp, table: 'hashmap_mappings' | 'pyscripts_scripts', idColumn: 'mapping_id' | 'script_id', id: string, column: 'start' | 'end') {
  const row = await t.tables
    .selectFrom(table)
    .select(column)
    .where(idColumn as 'mapping_id', '=', id)
    .executeTakeFirstOrThrow();
  const value = (row as Record<string, unknown>)[column];
  if (value instanceof Date) throw new Error('the driver returned a Date: Tariff reads datetimes as text');
  return String(value).slice(0, 19);
}

describe.each([AHEAD, BEHIND])('datetimes at the limit of the stored years, TARIFF_CLOUDKITTY_TIMEZONE=$name', (zone) => {
  let t: TestApp;
  let fingerprints: DatabaseFingerprinter;
  let serviceId: string;
  let run = 0;

  beforeAll(async () => {
    t = await startTestApp({ config: { cloudKittyTimeZone: zone.name } });
    fingerprints = openFingerprinter(t.databaseUrl);
    expect((await t.put('/v2/rating/modules/hashmap', { enabled: true })).status).toBe(204);
    serviceId = (await t.post(`${H}/services`, { name: 'limits' })).body.service_id;
  });
  afterAll(async () => {
    await fingerprints?.close();
    await t?.close();
  });

  /** The attributes a client gives a datetime in, each sent with `at` (an instant near the limit). */
  const targets: { what: string; attribute: string; send: (at: number) => Promise<{ response: TestResponse; readBack?: () => Promise<void> }> }[] = [
    {
      what: 'POST mapping start',
      attribute: 'start',
      async send(at) {
        const response = await t.post(`${H}/mappings?force=true`, { service_id: serviceId, cost: '1', tenant_id: `run-${(run += 1)}`, start: apiText(at) });
        return {
          response,
          readBack: async () => {
            expect(response.body.start).toBe(apiText(at));
            expect((await t.get(`${H}/mappings/${response.body.mapping_id}`)).body.start).toBe(apiText(at));
            expect(await stored(t, 'hashmap_mappings', 'mapping_id', response.body.mapping_id, 'start')).toBe(wallText(at, zone));
          },
        };
      },
    },
    {
      what: 'POST script start',
      attribute: 'start',
      async send(at) {
        const response = await t.post(`${P}/scripts?force=true`, { name: `limits-${(run += 1)}`, data: 'x = 1\n', start: apiText(at) });
        return {
          response,
          readBack: async () => {
            expect((await t.get(`${P}/scripts/${response.body.script_id}`)).body.start).toBe(apiText(at));
            expect(await stored(t, 'pyscripts_scripts', 'script_id', response.body.script_id, 'start')).toBe(wallText(at, zone));
          },
        };
      },
    },
    {
      what: 'GET mappings?start= (a list filter, compared with the stored text)',
      attribute: 'start',
      send: async (at) => ({ response: await t.get(`${H}/mappings?start=${encodeURIComponent(apiText(at))}`) }),
    },
    {
      what: 'GET price_list?at=',
      attribute: 'at',
      send: async (at) => ({ response: await t.get(`${PRICE_LIST}?at=${encodeURIComponent(apiText(at))}`) }),
    },
  ];
  // A future end, effective time and document start exist only where the limit is the upper one.
  if (zone.offsetHours > 0) {
    targets.push(
      {
        what: 'POST mapping end',
        attribute: 'end',
        async send(at) {
          const response = await t.post(`${H}/mappings`, { service_id: serviceId, cost: '1', tenant_id: `run-${(run += 1)}`, end: apiText(at) });
          return {
            response,
            readBack: async () => {
              expect((await t.get(`${H}/mappings/${response.body.mapping_id}`)).body.end).toBe(apiText(at));
              expect(await stored(t, 'hashmap_mappings', 'mapping_id', response.body.mapping_id, 'end')).toBe(wallText(at, zone));
            },
          };
        },
      },
      {
        what: 'PUT mapping end',
        attribute: 'end',
        async send(at) {
          const created = await t.post(`${H}/mappings`, { service_id: serviceId, cost: '1', tenant_id: `run-${(run += 1)}` });
          expect(created.status, created.text).toBe(201);
          const id = created.body.mapping_id;
          const response = await unchangedWhenRefused(fingerprints, () => t.put(`${H}/mappings/${id}`, { end: apiText(at) }));
          return { response, readBack: async () => expect((await t.get(`${H}/mappings/${id}`)).body.end).toBe(apiText(at)) };
        },
      },
      {
        what: 'POST price_list?effective_at=',
        attribute: 'effective_at',
        send: async (at) => ({
          response: await t.post(`${PRICE_LIST}?dry_run=true&effective_at=${encodeURIComponent(apiText(at))}`, '{"groups": []}', {
            'content-type': 'application/json',
          }),
        }),
      },
      {
        what: 'price list mapping start',
        attribute: 'start',
        async send(at) {
          const document = { groups: [], services: { limits: { mappings: [{ cost: 1, tenant_id: 'price-list', start: apiText(at) }] } } };
          return { response: await t.post(`${PRICE_LIST}?dry_run=true`, JSON.stringify(document), { 'content-type': 'application/json' }) };
        },
      },
      {
        what: 'price list script end',
        attribute: 'end',
        async send(at) {
          const document = { scripts: [{ name: 'limits', data: 'x = 1\n', end: apiText(at) }] };
          return { response: await t.post(`${PRICE_LIST}?dry_run=true`, JSON.stringify(document), { 'content-type': 'application/json' }) };
        },
      },
    );
  }

  it.each(targets.map((target) => [target.what, target] as const))('%s: a 400 naming it past the limit, stored exactly at it', async (_what, target) => {
    await fc.assert(
      fc.asyncProperty(instantsNear(zone), async (at) => {
        const before = await fingerprints.take();
        const { response, readBack } = await target.send(at);
        if (storable(at, zone)) {
          expect(response.status, response.text.slice(0, 600)).toBeLessThan(300);
          await readBack?.();
        } else {
          expectRefused(response, target.attribute);
          if (!target.what.startsWith('PUT')) expect(fingerprintChanges(before, await fingerprints.take())).toEqual([]);
        }
      }),
      { seed: SEED, numRuns: 12 },
    );
  });
});

it("the issue's example: 9999-12-31T23:00:00Z in Asia/Tokyo is 10000-01-01 08:00, refused", async () => {
  const tokyo = await startTestApp({ config: { cloudKittyTimeZone: 'Asia/Tokyo' } });
  try {
    const service = await tokyo.post(`${H}/services`, { name: 'tokyo' });
    const response = await tokyo.post(`${H}/mappings`, { service_id: service.body.service_id, cost: 1, start: '9999-12-31T23:00:00Z' });
    expectRefused(response, 'start');
    expect(response.body.faultstring).toContain('its year is 10000');
    expect(response.body.faultstring).toContain('1 to 9999');
    const document = JSON.stringify({ services: { tokyo: { mappings: [{ cost: 1, start: '9999-12-31T23:00:00Z' }] } } });
    expectRefused(await tokyo.post(PRICE_LIST, document, { 'content-type': 'application/json' }), 'services[tokyo].mappings[0].start');
    const effective = await tokyo.post(`${PRICE_LIST}?effective_at=9999-12-31T23:00:00Z`, '{"groups": []}', { 'content-type': 'application/json' });
    expectRefused(effective, 'effective_at');
  } finally {
    await tokyo.close();
  }
});

/** Text of exactly `length` code points: the run's number, then characters from one to two UTF-16 units. */
function textOf(length: number, run: number): fc.Arbitrary<string> {
  const prefix = `${run}-`;
  return fc
    .array(fc.constantFrom('a', 'Z', '9', 'é', '€', 'ж', '😀', '𝄞', '中'), { minLength: length - prefix.length, maxLength: length - prefix.length })
    .map((characters) => prefix + characters.join(''));
}

/** At the width (accepted), or one to three past it (refused). */
const lengthCase = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3 }));

describe('text at the width of its column', () => {
  let t: TestApp;
  let fingerprints: DatabaseFingerprinter;
  let fieldId: string;
  let serviceId: string;
  let run = 0;

  beforeAll(async () => {
    t = await startTestApp();
    fingerprints = openFingerprinter(t.databaseUrl);
    expect((await t.put('/v2/rating/modules/hashmap', { enabled: true })).status).toBe(204);
    serviceId = (await t.post(`${H}/services`, { name: 'widths' })).body.service_id;
    fieldId = (await t.post(`${H}/fields`, { name: 'flavor', service_id: serviceId })).body.field_id;
  });
  afterAll(async () => {
    await fingerprints?.close();
    await t?.close();
  });

  /** Each stored text attribute of the v1 routes: how to create a resource with it, and where to read it back. */
  const v1: { attribute: string; width: number; create: (text: string) => Promise<TestResponse>; read: (created: any) => Promise<unknown> }[] = [
    {
      attribute: 'name',
      width: COLUMN_WIDTH.name,
      create: (name) => t.post(`${H}/services`, { name }),
      read: async (c) => (await t.get(`${H}/services/${c.service_id}`)).body.name,
    },
    {
      attribute: 'name',
      width: COLUMN_WIDTH.name,
      create: (name) => t.post(`${H}/fields`, { name, service_id: serviceId }),
      read: async (c) => (await t.get(`${H}/fields/${c.field_id}`)).body.name,
    },
    {
      attribute: 'name',
      width: COLUMN_WIDTH.name,
      create: (name) => t.post(`${H}/groups`, { name }),
      read: async (c) => (await t.get(`${H}/groups/${c.group_id}`)).body.name,
    },
    {
      attribute: 'value',
      width: COLUMN_WIDTH.mappingValue,
      create: (value) => t.post(`${H}/mappings`, { field_id: fieldId, value, cost: 1 }),
      read: async (c) => (await t.get(`${H}/mappings/${c.mapping_id}`)).body.value,
    },
    {
      attribute: 'tenant_id',
      width: COLUMN_WIDTH.tenantId,
      create: (tenant) => t.post(`${H}/mappings`, { service_id: serviceId, tenant_id: tenant, cost: 1 }),
      read: async (c) => (await t.get(`${H}/mappings/${c.mapping_id}`)).body.tenant_id,
    },
    {
      attribute: 'name',
      width: COLUMN_WIDTH.mappingName,
      create: (name) => t.post(`${H}/mappings`, { field_id: fieldId, value: `named ${name}`, name, cost: 1 }),
      read: async (c) => (await t.get(`${H}/mappings/${c.mapping_id}`)).body.name,
    },
    {
      attribute: 'description',
      width: DESCRIPTION_LENGTH,
      create: (description) => t.post(`${H}/mappings`, { field_id: fieldId, value: `described-${(run += 1)}`, description, cost: 1 }),
      read: async (c) => (await t.get(`${H}/mappings/${c.mapping_id}`)).body.description,
    },
    {
      attribute: 'tenant_id',
      width: COLUMN_WIDTH.tenantId,
      create: (tenant) => t.post(`${H}/thresholds`, { service_id: serviceId, tenant_id: tenant, level: 1, cost: 1 }),
      read: async (c) => (await t.get(`${H}/thresholds/${c.threshold_id}`)).body.tenant_id,
    },
    {
      attribute: 'name',
      width: COLUMN_WIDTH.name,
      create: (name) => t.post(`${P}/scripts`, { name, data: 'x = 1\n' }),
      read: async (c) => (await t.get(`${P}/scripts/${c.script_id}`)).body.name,
    },
    {
      attribute: 'description',
      width: DESCRIPTION_LENGTH,
      create: (description) => t.post(`${P}/scripts`, { name: `described-${(run += 1)}`, data: 'x = 1\n', description }),
      read: async (c) => (await t.get(`${P}/scripts/${c.script_id}`)).body.description,
    },
  ];

  it.each(v1.map((target, index) => [`${index}: ${target.attribute} (${target.width})`, target] as const))(
    'v1 %s: past the width a 400 naming it, at it stored and read back exactly',
    async (_name, target) => {
      await fc.assert(
        fc.asyncProperty(
          lengthCase.chain((over) => textOf(target.width + over, (run += 1)).map((text) => ({ over, text }))),
          async ({ over, text }) => {
            const response = await unchangedWhenRefused(fingerprints, () => target.create(text));
            if (over === 0) {
              expect(response.status, response.text.slice(0, 600)).toBe(201);
              expect(await target.read(response.body)).toBe(text);
            } else {
              expectRefused(response, target.attribute);
              expect(response.body.faultstring).toContain(String(target.width));
            }
          },
        ),
        { seed: SEED, numRuns: 8 },
      );
    },
  );

  /** A price-list document with one text of the run in the attribute under test, and where the refusal's problem is. */
  const documents: { what: string; width: number; path: string | ((text: string) => string); document: (text: string) => Record<string, unknown> }[] = [
    { what: 'service name', width: COLUMN_WIDTH.name, path: (name) => `services[${name}]`, document: (name) => ({ services: { [name]: {} } }) },
    {
      what: 'field name',
      width: COLUMN_WIDTH.name,
      path: (name) => `services[widths].fields[${name}]`,
      document: (name) => ({ services: { widths: { fields: { [name]: {} } } } }),
    },
    { what: 'group name', width: COLUMN_WIDTH.name, path: 'groups', document: (name) => ({ groups: [name] }) },
    {
      what: 'mapping value',
      width: COLUMN_WIDTH.mappingValue,
      path: 'value',
      document: (value) => ({ services: { widths: { fields: { flavor: { mappings: [{ value, cost: 1 }] } } } } }),
    },
    {
      what: 'mapping tenant_id',
      width: COLUMN_WIDTH.tenantId,
      path: 'tenant_id',
      document: (tenant) => ({ services: { widths: { mappings: [{ tenant_id: tenant, cost: 1 }] } } }),
    },
    { what: 'mapping name', width: COLUMN_WIDTH.mappingName, path: 'name', document: (name) => ({ services: { widths: { mappings: [{ name, cost: 1 }] } } }) },
    {
      what: 'mapping description',
      width: DESCRIPTION_LENGTH,
      path: 'description',
      document: (description) => ({ services: { widths: { mappings: [{ description, cost: 1 }] } } }),
    },
    { what: 'script name', width: COLUMN_WIDTH.name, path: 'name', document: (name) => ({ scripts: [{ name, data: 'x = 1\n' }] }) },
    {
      what: 'script description',
      width: DESCRIPTION_LENGTH,
      path: 'description',
      document: (description) => ({ scripts: [{ name: 's', data: 'x = 1\n', description }] }),
    },
  ];

  it.each(documents.map((target) => [target.what, target] as const))('price list %s: refused past the width, applied exactly at it', async (_what, target) => {
    await fc.assert(
      fc.asyncProperty(
        lengthCase.chain((over) => textOf(target.width + over, (run += 1)).map((text) => ({ over, text }))),
        async ({ over, text }) => {
          const body = JSON.stringify(target.document(text));
          const response = await unchangedWhenRefused(fingerprints, () => t.post(PRICE_LIST, body, { 'content-type': 'application/json' }));
          if (over === 0) {
            expect(response.status, response.text.slice(0, 600)).toBe(200);
            expect(JSON.stringify((await t.get(PRICE_LIST)).body)).toContain(JSON.stringify(text));
          } else {
            expectRefused(response, typeof target.path === 'string' ? target.path : target.path(text));
            expect(response.body.problems.map((problem: { message: string }) => problem.message).join(' ')).toContain(`more than ${target.width} characters`);
          }
        },
      ),
      { seed: SEED, numRuns: 6 },
    );
  });

  it('price list: a numeric mapping value is its source text, refused past 255 characters, stored exactly at them', async () => {
    await fc.assert(
      fc.asyncProperty(lengthCase, fc.stringMatching(/^[1-9][0-9]{300}$/), fc.constantFrom('', '.5', 'e7'), async (over, digits, tail) => {
        const source = digits.slice(0, COLUMN_WIDTH.mappingValue + over - tail.length) + tail;
        const body = `{"services": {"widths": {"fields": {"flavor": {"mappings": [{"value": ${source}, "cost": 1}]}}}}}`;
        const response = await unchangedWhenRefused(fingerprints, () => t.post(PRICE_LIST, body, { 'content-type': 'application/json' }));
        if (over === 0) {
          expect(response.status, response.text.slice(0, 600)).toBe(200);
          const values = (await t.get(`${H}/mappings?field_id=${fieldId}`)).body.mappings.map((mapping: { value: string }) => mapping.value);
          expect(values).toContain(source);
        } else {
          expectRefused(response, 'value');
          expect(response.body.faultstring).toContain(`more than ${COLUMN_WIDTH.mappingValue} characters`);
        }
      }),
      { seed: SEED, numRuns: 10 },
    );
  });

  /**
   * A decimal of `integerDigits` (a nonzero first one) and up to `scale` fraction digits, negative
   * or not: nothing to round, so the value the column holds is the text itself, padded.
   */
  function decimalText(column: DecimalColumn) {
    const widest = column.precision - column.scale;
    return fc
      .record({
        integerDigits: fc.integer({ min: widest - 1, max: widest + 1 }),
        fraction: fc.stringMatching(new RegExp(`^[0-9]{0,${column.scale}}$`)),
        digits: fc.stringMatching(/^[1-9][0-9]{14}$/),
        negative: fc.boolean(),
      })
      .map(({ integerDigits, fraction, digits, negative }) => {
        const integer = digits.slice(0, integerDigits);
        const text = `${negative ? '-' : ''}${integer}${fraction === '' ? '' : `.${fraction}`}`;
        const fixed = `${negative ? '-' : ''}${integer}.${fraction.padEnd(column.scale, '0')}`;
        return { text, fixed, fits: integerDigits <= widest && (column.signed || !negative) };
      });
  }

  it('decimals at and past their columns (cost NUMERIC(40,28), level NUMERIC(20,8)), v1 and price list alike', async () => {
    await fc.assert(
      fc.asyncProperty(decimalText(LEVEL_COLUMN), decimalText(COST_COLUMN), fc.boolean(), async (level, cost, viaPriceList) => {
        const tenant = `decimals-${(run += 1)}`;
        const response = await unchangedWhenRefused(fingerprints, () =>
          viaPriceList
            ? t.post(PRICE_LIST, JSON.stringify({ services: { widths: { thresholds: [{ level: level.text, cost: cost.text, tenant_id: tenant }] } } }), {
                'content-type': 'application/json',
              })
            : t.post(`${H}/thresholds`, { service_id: serviceId, level: level.text, cost: cost.text, tenant_id: tenant }),
        );
        if (level.fits && cost.fits) {
          expect(response.status, response.text.slice(0, 600)).toBeLessThan(300);
          const thresholds = (await t.get(`${H}/thresholds?service_id=${serviceId}&tenant_id=${tenant}&filter_tenant=true`)).body.thresholds;
          expect(thresholds.map((threshold: { level: string; cost: string }) => [threshold.level, threshold.cost])).toEqual([[level.fixed, cost.fixed]]);
        } else {
          expectRefused(response, level.fits ? 'cost' : 'level');
        }
      }),
      { seed: SEED, numRuns: 16 },
    );
  });
});
