/**
 * Issue 11, items 1-5, on every database: what a hostile caller sends — decimals with unbounded
 * exponents, prototype names, deep nesting, invalid text, over-limit bodies — gets a 4xx fault (or
 * the right price), never a 5xx, and a refused request writes nothing. Inputs are generated with
 * fast-check (fixed seed, bounded runs); the whole-API fuzzer is test/fuzz/.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, P, startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { createField, createService } from '../helpers/fixtures.js';

const SEED = 1124;
const TABLES = ['hashmap_services', 'hashmap_fields', 'hashmap_groups', 'hashmap_mappings', 'hashmap_thresholds', 'pyscripts_scripts'] as const;
/** Names that are properties of every plain JavaScript object. */
const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];

let t: TestApp;
let serviceId: string;

/** Row counts of the rating tables and the configuration counter: what a write changes. */
async function fingerprint(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of [...TABLES, 'tariff_config_version'] as const) {
    const row = await t.tables
      .selectFrom(table as 'hashmap_services')
      .select(sql<number>`count(*)`.as('n'))
      .executeTakeFirstOrThrow();
    counts[table] = Number(row.n);
  }
  const version = await t.tables
    .selectFrom('tariff_config_version' as 'hashmap_services')
    .select(sql<number>`max(version)`.as('v'))
    .executeTakeFirst();
  counts.version = Number(version?.v ?? 0);
  return counts;
}

/** A client fault with the WSME body; the message must match. */
function expectClientFault(response: TestResponse, status: number, message: RegExp): void {
  expect(response.status, response.text).toBe(status);
  expect(response.body).toEqual({ faultcode: 'Client', faultstring: expect.stringMatching(message), debuginfo: null });
}

/** Sends, expects a client fault, and checks that nothing was written. */
async function refused(send: () => Promise<TestResponse>, status: number, message: RegExp): Promise<void> {
  const before = await fingerprint();
  expectClientFault(await send(), status, message);
  expect(await fingerprint()).toEqual(before);
}

beforeAll(async () => {
  t = await startTestApp({ config: { bodyLimitBytes: 64 * 1024, quoteBodyLimitBytes: 256 * 1024, bodyDrainLimitBytes: 1024 * 1024 } });
  serviceId = await createService(t, 'volume.size');
  expect((await t.post(`${H}/mappings/`, { service_id: serviceId, type: 'flat', cost: '0.001' })).status).toBe(201);
  expect((await t.post(`${H}/thresholds/`, { service_id: serviceId, level: '200', type: 'rate', cost: '0.95' })).status).toBe(201);
  const fieldId = await createField(t, serviceId, 'iops');
  expect((await t.post(`${H}/thresholds/`, { field_id: fieldId, level: '1000', type: 'flat', cost: '0.5' })).status).toBe(201);
  expect((await t.put('/v1/rating/modules/hashmap', { module_id: 'hashmap', enabled: true })).status).toBe(200);
});

afterAll(async () => {
  await t?.close();
});

describe('decimals with unbounded exponents (item 1)', () => {
  it('prices quantities in range exactly and refuses the others with a 400 naming the attribute', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }), fc.integer({ min: 1, max: 9 }), async (exponent, digit) => {
        const volume = `${digit}e${exponent}`;
        const v1 = await t.post('/v1/rating/quote', { resources: [{ service: 'volume.size', volume, desc: {} }] });
        const v2 = await t.post('/v2/rating/quote', { usage: { 'volume.size': [{ vol: { qty: volume } }] } });
        if (exponent < 100 && exponent >= -100) {
          expect(v1.status, v1.text).toBe(200);
          expect(v2.status, v2.text).toBe(200);
          expect(Number(v2.body.total)).toBe(v1.body);
        } else {
          expectClientFault(v1, 400, /^Invalid input for field\/attribute resources\[0\]\.volume\. .*TARIFF_DECIMAL_MAX_EXPONENT/);
          expectClientFault(v2, 400, /^Invalid input for field\/attribute usage\.volume\.size\[0\]\.vol\.qty\. /);
        }
      }),
      {
        seed: SEED,
        numRuns: 60,
        examples: [
          [300000, 1],
          [100000000, 1],
          [999999999, 1],
          [-300000, 1],
          [99, 9],
          [-100, 1],
        ],
      },
    );
  });

  it('compares desc values of any exponent or length with field threshold levels, in linear time', async () => {
    const quote = async (iops: unknown) =>
      (await t.post('/v2/rating/quote', { usage: { 'volume.size': [{ vol: { qty: '1' }, metadata: { iops } }] } })).body.total;
    expect(await quote('1e300000')).toBe('0.501');
    expect(await quote('1e-300000')).toBe('0.001');
    expect(await quote(`1e${'9'.repeat(300)}`)).toBe('0.501');
    expect(await quote(`${'9'.repeat(100000)}`)).toBe('0.501');
    expect(await quote(`0.${'0'.repeat(100000)}1`)).toBe('0.001');
    expect(await quote(1e308)).toBe('0.501');
    expect(await quote('999.99999999999999999999999999999999999')).toBe('0.001');
    expect(await quote('1000.0000000000000000000000000000000000000')).toBe('0.501');
  });

  it('keeps the answer small: a 48-byte quote never answers megabytes', async () => {
    const response = await t.post('/v2/rating/quote', { usage: { x: [{ vol: { qty: '9.99e99' } }] } });
    expect(response.status).toBe(200);
    expect(response.text.length).toBeLessThan(1000);
  });
});

describe('prototype names as caller text (item 2)', () => {
  it('serves services, fields, mappings, groups, tenants and quotes named after Object.prototype', async () => {
    for (const name of PROTOTYPE_NAMES) {
      const service = await createService(t, name);
      const field = await createField(t, service, name);
      const group = (await t.post(`${H}/groups/`, { name })).body.group_id;
      expect((await t.post(`${H}/mappings/`, { service_id: service, cost: '1', group_id: group })).status).toBe(201);
      expect((await t.post(`${H}/mappings/`, { field_id: field, value: name, cost: '2', tenant_id: name })).status).toBe(201);
      expect((await t.post(`${H}/mappings/`, { field_id: field, value: name, cost: '3' })).status).toBe(201);
      // A JSON key `__proto__` is refused (below): that field's value cannot be sent.
      const desc = name === '__proto__' ? {} : { [name]: name };
      const global = await t.post('/v1/rating/quote', { resources: [{ service: name, volume: '1', desc }] });
      expect(global.status, global.text).toBe(200);
      expect(global.body).toBe(name === '__proto__' ? 1 : 4);
      if (name !== '__proto__') {
        const tenant = await t.post('/v2/rating/quote', { tenant_id: name, usage: { [name]: [{ vol: { qty: '1' }, groupby: desc }] } });
        expect(tenant.status, tenant.text).toBe(200);
        expect(tenant.body.total).toBe('3');
        expect(Object.keys(tenant.body.usage)).toEqual([name]);
      }
      const listed = await t.get(`${H}/mappings/?field_id=${field}&tenant_id=${encodeURIComponent(name)}&filter_tenant=true`);
      expect(listed.body.mappings.map((mapping: { cost: string }) => mapping.cost)).toEqual(['2.0000000000000000000000000000']);
      expect((await t.post(`${P}/scripts/`, { name, data: '' })).status).toBe(201);
      expect((await t.post(`${P}/scripts/`, { name, data: '' })).status).toBe(409);
      expectClientFault(
        await t.get(`${H}/services/?${encodeURIComponent(name)}=1`),
        400,
        name === '__proto__' ? /^Invalid input in query: a key's name must not be __proto__\.$/ : new RegExp(`^Unknown argument: "${name}"$`),
      );
    }
  });

  it('never fails on generated service names, desc keys and values in quotes', async () => {
    const text = fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.string({ maxLength: 12 }));
    await fc.assert(
      fc.asyncProperty(
        text.filter((name) => name !== '__proto__' && name !== ''),
        fc.dictionary(
          text.filter((key) => key !== '__proto__'),
          fc.oneof(text, fc.double(), fc.boolean(), fc.constant(null)),
        ),
        async (service, desc) => {
          const v1 = await t.post('/v1/rating/quote', { resources: [{ service, volume: '1', desc }] });
          expect(v1.status, v1.text).toBe(200);
          const v2 = await t.post('/v2/rating/quote', { tenant_id: service, usage: { [service]: [{ vol: { qty: 2 }, groupby: desc, metadata: desc }] } });
          expect(v2.status, v2.text).toBe(200);
        },
      ),
      { seed: SEED, numRuns: 80 },
    );
  });

  it('refuses __proto__ keys with a 400 naming the place', async () => {
    await refused(
      () => t.post(`${H}/services/`, '{"name": "x", "__proto__": {"name": "y"}}'),
      400,
      /^Invalid input in body: a key's name must not be __proto__\.$/,
    );
    await refused(
      () => t.post('/v2/rating/quote', '{"usage": {"__proto__": []}}'),
      400,
      /^Invalid input in body\.usage: a key's name must not be __proto__\.$/,
    );
  });
});

/** `depth` nested arrays or objects around a scalar. */
function nested(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

describe('deep nesting (item 3)', () => {
  it('refuses JSON deeper than TARIFF_JSON_MAX_DEPTH on every JSON endpoint, writing nothing', async () => {
    const document = (await t.get('/v1/openapi.json')).body as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
    const writes = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([method]) => ['post', 'put', 'delete'].includes(method))
        .map(([method]) => ({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000') }))
        // The simulation's query is checked before its body is read: it gets a valid one.
        .map((route) => (route.path.endsWith('/simulation') ? { ...route, path: `${route.path}?begin=2026-01-01T00:00:00Z&end=2026-01-02T00:00:00Z` } : route)),
    );
    expect(writes.length).toBeGreaterThan(10);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...writes),
        fc.integer({ min: 33, max: 10000 }),
        fc.constantFrom('array', 'object'),
        fc.boolean(),
        async (route, depth, kind, wrapped) => {
          const body = wrapped ? `{"name": ${nested(depth - 1, kind)}}` : nested(depth, kind);
          const message = /^Invalid input in body: JSON nested deeper than 32 levels \(TARIFF_JSON_MAX_DEPTH\)\.$/;
          // The v2 module routes answer flask-style `{"message"}` (rating.md §2), the others the WSME fault.
          if (route.path.startsWith('/v2/rating/modules')) {
            const before = await fingerprint();
            const answer = await t.request(route.method, route.path, body);
            expect(answer.status).toBe(400);
            expect((answer.body as { message: string }).message).toMatch(message);
            expect(await fingerprint()).toEqual(before);
          } else {
            await refused(() => t.request(route.method, route.path, body), 400, message);
          }
        },
      ),
      { seed: SEED, numRuns: 60, examples: [[writes[0], 5000, 'array', false]] },
    );
  });

  it('takes nesting up to the bound to validation, which answers it', async () => {
    const deepest = await t.post('/v2/rating/quote', `{"usage": {"volume.size": [{"vol": {"qty": "1"}, "metadata": {"iops": ${nested(27, 'object')}}}]}}`);
    expect(deepest.status, deepest.text).toBe(200);
    const tooDeep = await t.post('/v2/rating/quote', `{"usage": {"volume.size": [{"vol": {"qty": "1"}, "metadata": {"iops": ${nested(28, 'object')}}}]}}`);
    expectClientFault(tooDeep, 400, /JSON nested deeper than 32 levels/);
  });
});

/** Byte sequences that are not UTF-8: stray continuation bytes, overlong forms, encoded surrogates, truncated sequences, bytes never used. */
const invalidUtf8 = fc.oneof(
  fc.integer({ min: 0x80, max: 0xbf }).map((byte) => [byte]),
  fc.constantFrom([0xc0, 0x80], [0xc1, 0xbf], [0xe0, 0x80, 0x80], [0xf0, 0x80, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf], [0xf4, 0x90, 0x80, 0x80]),
  fc.constantFrom([0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xc3]),
  fc.integer({ min: 0xf5, max: 0xff }).map((byte) => [byte]),
);

describe('invalid text (item 4)', () => {
  it('refuses invalid UTF-8 anywhere in a body, storing nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 8 }), invalidUtf8, fc.string({ maxLength: 8 }), async (before, bytes, after) => {
        const body = Buffer.concat([
          Buffer.from(`{"name": "${JSON.stringify(before).slice(1, -1)}`),
          Buffer.from(bytes),
          Buffer.from(`${JSON.stringify(after).slice(1, -1)}"}`),
        ]);
        for (const path of [`${H}/services/`, `${H}/groups/`, `${P}/scripts/`]) {
          await refused(() => t.post(path, body), 400, /^Request body is not valid UTF-8 text\.$/);
        }
      }),
      { seed: SEED, numRuns: 40 },
    );
  });

  it('refuses lone surrogates in values and keys, and invalid percent-encoding in query strings', async () => {
    const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => `\\u${code.toString(16)}`);
    await fc.assert(
      fc.asyncProperty(
        loneSurrogate,
        fc.string({ maxLength: 6 }).map((text) => JSON.stringify(text).slice(1, -1)),
        async (surrogate, text) => {
          await refused(
            () => t.post(`${H}/groups/`, `{"name": "${text}${surrogate}"}`),
            400,
            /^Invalid input in body\.name: text must not contain a lone surrogate/,
          );
          await refused(
            () => t.post(`${H}/mappings/`, `{"service_id": "${serviceId}", "cost": 1, "description": "${surrogate}${text}"}`),
            400,
            /lone surrogate/,
          );
          await refused(
            () => t.post('/v2/rating/quote', `{"usage": {"volume.size": [{"vol": {"qty": 1}, "groupby": {"${surrogate}": 1}}]}}`),
            400,
            /^Invalid input in body\.usage\.volume\.size\[0\]\.groupby: a key's text must not contain a lone surrogate/,
          );
        },
      ),
      { seed: SEED, numRuns: 30 },
    );
    // A surrogate pair is fine; its halves apart are not.
    expect((await t.post(`${H}/groups/`, '{"name": "\\ud83d\\ude00"}')).status).toBe(201);
    await refused(() => t.post(`${H}/groups/`, '{"name": "\\ude00\\ud83d"}'), 400, /lone surrogate/);
    for (const query of ['description=%FF', 'description=%ED%A0%80', '%C0%80=1', 'description=%E2%82']) {
      expectClientFault(await t.get(`${H}/mappings/?service_id=${serviceId}&${query}`), 400, /is not valid percent-encoded UTF-8/);
    }
    await refused(
      () => t.post(`${H}/mappings/`, { service_id: serviceId, cost: 1 }, { 'x-user-id': Buffer.from([0xc3, 0x28]).toString('latin1') }),
      400,
      /X-User-Id: not valid UTF-8/,
    );
    const accented = await t.post(
      `${H}/mappings/`,
      { service_id: serviceId, cost: 1, tenant_id: 'émile' },
      { 'x-user-id': Buffer.from('émile', 'utf8').toString('latin1') },
    );
    expect(accented.body.created_by).toBe('émile');
  });
});

/** Sends `size` bytes to the listening app over a real socket, as a client that writes its whole body before reading. */
function sendWholeBody(port: number, path: string, size: number, chunked: boolean): Promise<{ status: number; body: string; error?: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    const finish = (error?: string) => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
      resolve({ status, body: received.split('\r\n\r\n').slice(1).join('\r\n\r\n'), error });
    };
    socket.on('error', (error) => finish(error.message));
    socket.on('close', () => finish());
    const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${size}`}\r\nConnection: close\r\n\r\n`;
    socket.write(head);
    const block = Buffer.alloc(16 * 1024, 'x');
    let sent = 0;
    let paused = false;
    const writeMore = (): void => {
      // A pause once the limit is passed: a server that answers and closes then (as Tariff did)
      // makes the writes that follow fail, whatever the machine's speed.
      if (!paused && sent >= size / 2) {
        paused = true;
        return void setTimeout(writeMore, 300);
      }
      while (sent < size) {
        if (!paused && sent >= size / 2) return writeMore();
        const part = block.subarray(0, Math.min(block.length, size - sent));
        sent += part.length;
        const framed = chunked ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]) : part;
        if (!socket.write(framed)) return void socket.once('drain', writeMore);
      }
      if (chunked) socket.write('0\r\n\r\n');
    };
    writeMore();
  });
}

describe('over-limit bodies (item 5)', () => {
  let port: number;
  beforeAll(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });

  it('reads an over-limit body to its end, then answers the 413 fault the client can read', async () => {
    for (const chunked of [false, true]) {
      for (const [path, size, limit] of [
        [`${P}/scripts/`, 512 * 1024, 64 * 1024],
        [`${H}/services/`, 64 * 1024 + 1, 64 * 1024],
        ['/v2/rating/quote', 1024 * 1024, 256 * 1024],
      ] as const) {
        const before = await fingerprint();
        const response = await sendWholeBody(port, path, size, chunked);
        expect(response.error, `${path} ${size} chunked=${chunked}`).toBeUndefined();
        expect(response.status).toBe(413);
        expect(JSON.parse(response.body.slice(response.body.indexOf('{')))).toEqual({
          faultcode: 'Client',
          faultstring: `Request body is too large: at most ${limit} bytes are accepted here.`,
          debuginfo: null,
        });
        expect(await fingerprint()).toEqual(before);
      }
    }
  });

  it('answers a body declared past the drain limit at once, without reading it', async () => {
    const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(
        {
          port,
          host: '127.0.0.1',
          method: 'POST',
          path: `${P}/scripts/`,
          headers: { 'content-type': 'application/json', 'content-length': String(512 * 1024 * 1024) },
        },
        (answer) => {
          let body = '';
          answer.on('data', (chunk) => (body += chunk));
          answer.on('end', () => {
            request.destroy();
            resolve({ status: answer.statusCode ?? 0, body });
          });
        },
      );
      request.on('error', reject);
      request.write('{"name": "x"');
    });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body).faultstring).toBe('Request body is too large: at most 65536 bytes are accepted here.');
  });
});
