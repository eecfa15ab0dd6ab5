/**
 * docs/price-list.md §2: in Keystone mode `rating:module_config` (CloudKitty's rule for
 * configuration) guards the price list: the export, the schema and the apply. A member's or
 * reader's token gets 403, the admin's 200. Policy does not depend on the database: SQLite only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseIs } from '../helpers/database-kind.js';
import { callServer, freePort, startServerProcess, type ServerProcess } from '../helpers/server.js';
import { keystoneModeEnvironment, type Keystone } from '../keystone/keystone.js';
import { sharedKeystone } from '../keystone/shared.js';
import { PRICE_LIST, SCHEMA } from './price-list.js';

const DENIED = { faultcode: 'Client', faultstring: "Policy doesn't allow rating:module_config to be performed.", debuginfo: null };

describe.runIf(databaseIs('sqlite'))('the price list under Keystone policy', () => {
  let directory: string;
  let keystone: Keystone;
  let server: ServerProcess;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-price-list-keystone-'));
    const port = await freePort();
    keystone = await sharedKeystone();
    server = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`, keystoneModeEnvironment(keystone, { TARIFF_PORT: String(port) }));
  }, 900_000);
  afterAll(async () => {
    await server?.stop();
    await keystone?.release();
    rmSync(directory, { recursive: true, force: true });
  });

  const document = { groups: ['by-admin'], services: { compute: { mappings: [{ cost: '1', name: 'base' }] } } };

  it('refuses members and readers with 403 and lets the admin export, read the schema and apply', { timeout: 120_000 }, async () => {
    const call = (token: string | undefined, method: string, path: string, body?: unknown) =>
      callServer(server, method, path, body, { headers: token ? { 'x-auth-token': token } : {}, timeoutMs: 30_000 });
    for (const user of ['MEMBER', 'READER'] as const) {
      const token = await keystone.token(user);
      for (const [method, path, body] of [
        ['GET', PRICE_LIST],
        ['GET', SCHEMA],
        ['POST', PRICE_LIST, document],
        ['POST', `${PRICE_LIST}?dry_run=true`, document],
      ] as const) {
        const answer = await call(token, method, path, body);
        expect({ user, method, path, status: answer.status, body: answer.body }).toEqual({ user, method, path, status: 403, body: DENIED });
      }
    }
    expect((await call(undefined, 'GET', PRICE_LIST)).status).toBe(401);

    const admin = await keystone.token('ADMIN');
    expect((await call(admin, 'GET', SCHEMA)).status).toBe(200);
    const before = await call(admin, 'GET', PRICE_LIST);
    expect(before.status).toBe(200);
    expect(before.body.revision).toBe(0);
    const applied = await call(admin, 'POST', PRICE_LIST, document);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(applied.body.revision).toBe(1);
    const after = await call(admin, 'GET', PRICE_LIST);
    expect(after.body.groups).toEqual(['by-admin']);
    // The rows name the acting user (created_by).
    const mappings = await call(
      admin,
      'GET',
      `/v1/rating/module_config/hashmap/mappings?service_id=${(await call(admin, 'GET', '/v1/rating/module_config/hashmap/services')).body.services[0].service_id}`,
    );
    expect(mappings.body.mappings.map((mapping: any) => mapping.created_by)).toEqual([keystone.env.KEYSTONE_ADMIN_USER_ID]);
  });
});
