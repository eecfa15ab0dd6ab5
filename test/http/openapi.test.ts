/**
 * The OpenAPI document lists the errors (issue 12): every operation declares at least one 4xx
 * with its body schema, and the fault bodies still come out exactly as CloudKitty's WSME faults
 * (all three keys, `debuginfo: null`) now that their statuses have a response schema.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, startTestApp, type TestApp } from '../helpers/app.js';

interface Operation {
  responses: Record<string, { description?: string; content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> }>;
}

describe('GET /v1/openapi.json lists the errors', () => {
  let t: TestApp;
  let paths: Record<string, Record<string, Operation>>;
  beforeAll(async () => {
    t = await startTestApp();
    paths = (await t.get('/v1/openapi.json')).body.paths;
  });
  afterAll(() => t.close());

  const propertiesOf = (operation: Operation, status: string) =>
    Object.keys(operation.responses[status]?.content?.['application/json']?.schema?.properties ?? {}).sort();

  it('every operation lists a 4xx with the fault body (v2 modules: {"message"} or the fault)', () => {
    const operations = Object.entries(paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));
    expect(operations.length).toBeGreaterThan(20);
    for (const { path, method, operation } of operations) {
      const faults = Object.keys(operation.responses).filter((status) => /^4\d\d$/.test(status));
      expect(faults, `${method} ${path}`).not.toEqual([]);
      for (const status of faults) {
        expect(operation.responses[status].description, `${method} ${path} ${status}`).toBeTruthy();
        const properties = propertiesOf(operation, status);
        // The price list's 400 (and its simulation's) adds `problems` (every problem of a document, docs/price-list.md §2, §4).
        if ((path === '/v2/rating/price_list' || path === '/v2/rating/price_list/simulation') && method === 'post' && status === '400') {
          expect(properties).toEqual(['debuginfo', 'faultcode', 'faultstring', 'problems']);
          continue;
        }
        expect([['debuginfo', 'faultcode', 'faultstring'], ['message']], `${method} ${path} ${status}`).toContainEqual(properties);
        if (!path.startsWith('/v2/rating/modules')) expect(properties, `${method} ${path} ${status}`).toEqual(['debuginfo', 'faultcode', 'faultstring']);
      }
    }
  });

  it('lists the specific statuses of a few routes', () => {
    const statuses = (path: string, method: string) => Object.keys(paths[path][method].responses);
    expect(statuses(`${H}/mappings`, 'post')).toEqual(expect.arrayContaining(['201', '400', '409', '413', '415']));
    expect(statuses(`${H}/mappings/{mapping_id}`, 'get')).toEqual(expect.arrayContaining(['200', '404']));
    expect(statuses(`${H}/mappings/{mapping_id}`, 'delete')).toEqual(expect.arrayContaining(['204', '404']));
    expect(paths[`${H}/mappings/{mapping_id}`].delete.responses['204'].content).toBeUndefined();
    expect(statuses('/v2/rating/quote', 'post')).toEqual(expect.arrayContaining(['200', '400', '422', '503']));
    expect(statuses('/v1/rating/quote', 'post')).toEqual(expect.arrayContaining(['200', '400', '422', '503']));
    expect(propertiesOf(paths['/v2/rating/modules/{module_id}'].get, '404')).toEqual(['message']);
    expect(propertiesOf(paths['/v2/rating/modules/{module_id}'].put, '400')).toEqual(['message']);
  });

  it('fault bodies are sent as before: all three keys, debuginfo null; 204 without a body', async () => {
    const missing = await t.get(`${H}/mappings/${randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(Object.keys(missing.body)).toEqual(['faultcode', 'faultstring', 'debuginfo']);
    expect(missing.body).toMatchObject({ faultcode: 'Client', debuginfo: null });
    const bad = await t.post(`${H}/services`, { name: 'compute', colour: 'red' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ faultcode: 'Client', faultstring: 'Unknown attribute for argument service_data: colour', debuginfo: null });
    const service = await t.post(`${H}/services`, { name: 'compute' });
    const duplicate = await t.post(`${H}/services`, { name: 'compute' });
    expect(duplicate.status).toBe(409);
    expect(Object.keys(duplicate.body)).toEqual(['faultcode', 'faultstring', 'debuginfo']);
    const deleted = await t.del(`${H}/services/${service.body.service_id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const v2 = await t.get('/v2/rating/modules/nope');
    expect(v2.status).toBe(404);
    expect(v2.body).toEqual({ message: "Module 'nope' not found" });
    const v2Bad = await t.put('/v2/rating/modules/hashmap', { enabled: 'yes' });
    expect(v2Bad.status).toBe(400);
    expect(Object.keys(v2Bad.body)).toEqual(['message']);
  });
});
