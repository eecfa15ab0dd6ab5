import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, startTestApp, type TestApp } from '../helpers/app.js';

describe('smoke', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('creates and lists a service', async () => {
    const created = await t.post(`${H}/services/`, { name: 'compute' });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`http://localhost:80${H}/services/${created.body.service_id}`);
    const listed = await t.get(`${H}/services/`);
    expect(listed.body).toEqual({ services: [{ service_id: created.body.service_id, name: 'compute' }] });
  });
});
