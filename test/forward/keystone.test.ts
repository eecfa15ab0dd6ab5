/**
 * Forwarded routes in Keystone mode (docs/api.md "Forwarded routes"): Tariff asks a valid token
 * before forwarding, as it does for every route but the public ones, and leaves the policy to
 * CloudKitty, which receives the token and validates it again. Keystone's answers come from a
 * stand-in validator (the route → rule table is what is checked here; test/keystone/ drives the
 * real Keystone).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { TariffApp } from '../../src/http/app.js';
import { buildTariffApp, ratingModules } from '../../src/application.js';
import { openDatabase, type Database } from '../../src/database/connection.js';
import { migrateToLatest } from '../../src/database/migrate.js';
import type { KeystoneIdentity } from '../../src/auth/keystone.js';
import { CLOUDKITTY_FORWARDED_PREFIXES, policyRuleFor } from '../../src/auth/route-policy.js';
import { FORWARDED_ROUTE_PATTERNS } from '../../src/http/cloudkitty-forward/index.js';
import { testIdentity } from '../helpers/keystone-identity.js';
import { echoUpstream, type Upstream } from './upstreams.js';

const TOKEN = 'gAAAAABa-member-token-0123456789';

describe('forwarded routes in Keystone mode', () => {
  let upstream: Upstream;
  let directory: string;
  let app: TariffApp | undefined;
  let database: Database | undefined;
  let validations = 0;

  beforeAll(async () => {
    upstream = await echoUpstream();
    directory = mkdtempSync(join(tmpdir(), 'tariff-forward-keystone-'));
  });

  afterEach(async () => {
    await app?.close();
    await database?.close();
    app = undefined;
    database = undefined;
  });

  afterAll(async () => {
    await upstream.close();
    rmSync(directory, { recursive: true, force: true });
  });

  async function start(environment: Record<string, string>): Promise<TariffApp> {
    const config = loadConfig({
      TARIFF_AUTH: 'keystone',
      TARIFF_KEYSTONE_AUTH_URL: 'http://keystone.invalid:5000',
      TARIFF_KEYSTONE_USERNAME: 'tariff',
      TARIFF_KEYSTONE_PASSWORD: 'secret',
      TARIFF_DATABASE_URL: `sqlite:${join(directory, `tariff-${Date.now()}.db`)}`,
      ...environment,
    });
    database = openDatabase(config.databaseUrl);
    const modules = ratingModules();
    await migrateToLatest(database, modules.migrations());
    const validate = async (token: string): Promise<KeystoneIdentity | null> => {
      validations += 1;
      // A member: no admin role, which CloudKitty's policy, not Tariff's, decides upon.
      return token === TOKEN ? testIdentity(['member']) : null;
    };
    app = await buildTariffApp({ config, database, modules, logger: false, keystoneClient: { validate } });
    return app;
  }

  it('needs a valid token, any role, and hands it on to CloudKitty', async () => {
    const server = await start({ TARIFF_CLOUDKITTY_API_URL: upstream.url });
    const before = upstream.received.length;
    const anonymous = await server.inject({ method: 'GET', url: '/v1/report/summary' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Keystone uri="http://keystone.invalid:5000"');
    const refused = await server.inject({ method: 'GET', url: '/v2/summary', headers: { 'x-auth-token': 'gAAAAABnot-a-valid-token-000' } });
    expect(refused.statusCode).toBe(401);
    expect(upstream.received.length).toBe(before);

    validations = 0;
    for (const url of ['/v1/report/summary', '/v2/summary?groupby=type', '/v1/info/config/', '/v2/task/reprocesses']) {
      const answer = await server.inject({ method: 'GET', url, headers: { 'x-auth-token': TOKEN } });
      expect(answer.statusCode, url).toBe(200);
      const seen = upstream.received[upstream.received.length - 1];
      expect(seen.url).toBe(url);
      expect(seen.headers['x-auth-token']).toBe(TOKEN);
    }
    // One validation, then the token cache: forwarding costs no Keystone round trip per call.
    expect(validations).toBe(1);
  });

  it('answers the 404 naming the setting only to a valid token when CloudKitty is not configured', async () => {
    const server = await start({});
    expect((await server.inject({ method: 'GET', url: '/v1/report/summary' })).statusCode).toBe(401);
    const answer = await server.inject({ method: 'GET', url: '/v1/report/summary', headers: { 'x-auth-token': TOKEN } });
    expect(answer.statusCode).toBe(404);
    expect(answer.json().faultstring).toBe("Resource not found: GET /v1/report/summary; CloudKitty's API is not configured (TARIFF_CLOUDKITTY_API_URL).");
  });

  it('gives every forwarded route pattern no rule of its own (CloudKitty applies its policy), and is served', async () => {
    const server = await start({ TARIFF_CLOUDKITTY_API_URL: upstream.url });
    expect(FORWARDED_ROUTE_PATTERNS).toHaveLength(2 * CLOUDKITTY_FORWARDED_PREFIXES.length);
    for (const pattern of FORWARDED_ROUTE_PATTERNS) {
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        expect(policyRuleFor(method, pattern), `${method} ${pattern}`).toBeNull();
        expect(server.hasRoute({ method, url: pattern }), `${method} ${pattern}`).toBe(true);
      }
    }
    // Neighbours stay closed by default.
    expect(policyRuleFor('GET', '/v1/reports')).toBe('context_is_admin');
    expect(policyRuleFor('GET', '/v2/summary/:id')).toBe('context_is_admin');
  });
});
