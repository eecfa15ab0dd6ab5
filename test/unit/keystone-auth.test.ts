/**
 * Keystone mode's moving parts without a Keystone: the token cache (one validation per token per
 * cache period, shared by concurrent requests, never past the token's expiry; a refused token refused again
 * without asking for TARIFF_INVALID_TOKEN_CACHE_TIME), the route → rule
 * table covering every route Tariff serves, and configuration errors.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigurationError, loadConfig } from '../../src/config.js';
import type { TariffApp } from '../../src/http/app.js';
import { buildTariffApp, ratingModules } from '../../src/application.js';
import { openDatabase, type Database } from '../../src/database/connection.js';
import { migrateToLatest } from '../../src/database/migrate.js';
import { IdentityUnavailableError, type KeystoneIdentity } from '../../src/auth/keystone.js';
import { PUBLIC_ROUTES, policyRuleFor } from '../../src/auth/route-policy.js';
import { CLOUDKITTY_DEFAULT_RULES } from '../../src/auth/policy/defaults.js';
import { testIdentity } from '../helpers/keystone-identity.js';

const KEYSTONE_ENVIRONMENT = {
  TARIFF_AUTH: 'keystone',
  TARIFF_KEYSTONE_AUTH_URL: 'http://keystone.invalid:5000',
  TARIFF_KEYSTONE_USERNAME: 'tariff',
  TARIFF_KEYSTONE_PASSWORD: 'secret',
};

const identity = testIdentity;

describe('Keystone mode without a Keystone', () => {
  let app: TariffApp | undefined;
  let database: Database | undefined;
  let directory: string | undefined;

  afterEach(async () => {
    await app?.close();
    await database?.close();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  async function start(validate: (token: string) => Promise<KeystoneIdentity | null>, environment: Record<string, string> = {}) {
    directory = mkdtempSync(join(tmpdir(), 'tariff-auth-'));
    const config = loadConfig({ ...KEYSTONE_ENVIRONMENT, ...environment, TARIFF_DATABASE_URL: `sqlite:${join(directory, 'tariff.db')}` });
    database = openDatabase(config.databaseUrl);
    const modules = ratingModules();
    await migrateToLatest(database, modules.migrations());
    app = await buildTariffApp({ config, database, modules, logger: false, keystoneClient: { validate } });
    return app;
  }

  const TOKEN = 'gAAAAABtoken-for-tests-0123456789';

  it('validates a token once per cache period, sharing one validation among concurrent requests', async () => {
    const asked: string[] = [];
    const server = await start(async (token) => {
      asked.push(token);
      await new Promise((resolve) => setTimeout(resolve, 50));
      return identity(['admin']);
    });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => server.inject({ method: 'GET', url: '/v1/rating/modules', headers: { 'x-auth-token': TOKEN } })),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(20).fill(200));
    await server.inject({ method: 'GET', url: '/v1/rating/modules', headers: { 'x-auth-token': TOKEN } });
    expect(asked).toEqual([TOKEN]);
  });

  it('asks again once the token expired, and then refuses it', async () => {
    let calls = 0;
    const server = await start(async () => {
      calls += 1;
      return calls === 1 ? identity(['admin'], 300) : null;
    });
    const headers = { 'x-auth-token': TOKEN };
    expect((await server.inject({ method: 'GET', url: '/v1/rating/modules', headers })).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 350));
    const refused = await server.inject({ method: 'GET', url: '/v1/rating/modules', headers });
    expect(refused.statusCode).toBe(401);
    expect(calls).toBe(2);
  });

  it('trusts a token no longer than TARIFF_TOKEN_CACHE_TIME', async () => {
    let calls = 0;
    const server = await start(
      async () => {
        calls += 1;
        return identity(['admin']);
      },
      { TARIFF_TOKEN_CACHE_TIME: '0.2' },
    );
    const headers = { 'x-auth-token': TOKEN };
    await server.inject({ method: 'GET', url: '/v1/rating/modules', headers });
    await server.inject({ method: 'GET', url: '/v1/rating/modules', headers });
    expect(calls).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 250));
    await server.inject({ method: 'GET', url: '/v1/rating/modules', headers });
    expect(calls).toBe(2);
  });

  it('refuses a token Keystone refused again without asking, for TARIFF_INVALID_TOKEN_CACHE_TIME, and never remembers an unreachable Keystone', async () => {
    const asked: string[] = [];
    let unreachable = false;
    const server = await start(
      async (token) => {
        asked.push(token);
        if (unreachable) throw new IdentityUnavailableError('http://keystone.invalid:5000/v3: Keystone is down');
        return null;
      },
      { TARIFF_INVALID_TOKEN_CACHE_TIME: '0.3' },
    );
    const call = (token: string) => server.inject({ method: 'GET', url: '/v1/rating/modules', headers: { 'x-auth-token': token } });
    const made = Array.from({ length: 5 }, (_, index) => `gAAAAABmade-up-token-${index}-0123456789`);
    for (const token of [...made, ...made, ...made]) expect((await call(token)).statusCode).toBe(401);
    expect(asked).toEqual(made);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await call(made[0])).statusCode).toBe(401);
    expect(asked).toHaveLength(6);
    // A validation that failed (Keystone unreachable: 503) is asked again at once.
    unreachable = true;
    const other = 'gAAAAABanother-token-0123456789';
    expect((await call(other)).statusCode).toBe(503);
    expect((await call(other)).statusCode).toBe(503);
    expect(asked.filter((token) => token === other)).toHaveLength(2);
  });

  it('asks Keystone for every refused token with TARIFF_INVALID_TOKEN_CACHE_TIME=0', async () => {
    let calls = 0;
    const server = await start(
      async () => {
        calls += 1;
        return null;
      },
      { TARIFF_INVALID_TOKEN_CACHE_TIME: '0' },
    );
    for (let index = 0; index < 3; index += 1) {
      await server.inject({ method: 'GET', url: '/v1/rating/modules', headers: { 'x-auth-token': TOKEN } });
    }
    expect(calls).toBe(3);
  });

  it('refuses a TARIFF_INVALID_TOKEN_CACHE_TIME that is not 0 to 300 seconds', () => {
    for (const value of ['-1', '301', 'soon'])
      expect(() => loadConfig({ ...KEYSTONE_ENVIRONMENT, TARIFF_INVALID_TOKEN_CACHE_TIME: value })).toThrow(
        new ConfigurationError(`TARIFF_INVALID_TOKEN_CACHE_TIME must be a number of seconds from 0 to 300, got '${value}'`),
      );
    expect(loadConfig(KEYSTONE_ENVIRONMENT).keystone?.invalidTokenCacheMs).toBe(30_000);
  });

  it('guards every route with a known rule, none falling back to the closed default', async () => {
    const server = await start(async () => null);
    const known = new Set(CLOUDKITTY_DEFAULT_RULES.map((rule) => rule.name));
    const routes = servedRoutes(server);
    expect(routes.length).toBeGreaterThan(60);
    for (const route of routes) {
      const rule = policyRuleFor(route.method, route.url);
      expect(rule, `${route.method} ${route.url}`).not.toBe('context_is_admin');
      expect(known.has(rule!), `${route.method} ${route.url} → ${rule}`).toBe(true);
    }
    expect(policyRuleFor('GET', '/v1/rating/something_new')).toBe('context_is_admin');
    for (const route of PUBLIC_ROUTES) expect(server.hasRoute({ method: 'GET', url: route }), route).toBe(true);
  });

  it('answers an unknown route 401 without a valid token and 404 with one', async () => {
    const server = await start(async (token) => (token === TOKEN ? identity(['member']) : null));
    const anonymous = await server.inject({ method: 'GET', url: '/v1/rating/nothing_here' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Keystone uri="http://keystone.invalid:5000"');
    const known = await server.inject({ method: 'GET', url: '/v1/rating/nothing_here', headers: { 'x-auth-token': TOKEN } });
    expect(known.statusCode).toBe(404);
    const wrongMethod = await server.inject({ method: 'PATCH', url: '/v1/rating/modules', headers: { 'x-auth-token': 'gAAAAABsomeone-else-0123456789' } });
    expect(wrongMethod.statusCode).toBe(401);
  });

  it('refuses an incomplete Keystone configuration and a policy file that does not parse', async () => {
    expect(() => loadConfig({ TARIFF_AUTH: 'keystone' })).toThrow(new ConfigurationError('TARIFF_KEYSTONE_AUTH_URL is required with TARIFF_AUTH=keystone'));
    expect(() => loadConfig({ ...KEYSTONE_ENVIRONMENT, TARIFF_KEYSTONE_PASSWORD: '' })).toThrow('TARIFF_KEYSTONE_PASSWORD is required');
    expect(loadConfig(KEYSTONE_ENVIRONMENT).keystone?.authUrl).toBe('http://keystone.invalid:5000/v3');
    await expect(start(async () => null, { TARIFF_POLICY_FILE: '/nonexistent/policy.yaml' })).rejects.toThrow(ConfigurationError);
  });
});

/** Every (method, pattern) of ROUTE_PATTERNS the app serves, under /v1/rating, /v1/billing and /v2/rating; each pattern must be served. */
function servedRoutes(app: TariffApp): { method: string; url: string }[] {
  const routes: { method: string; url: string }[] = [];
  const patterns = [
    ...ROUTE_PATTERNS,
    ...ROUTE_PATTERNS.filter((url) => url.startsWith('/v1/rating/')).map((url) => url.replace('/v1/rating/', '/v1/billing/')),
  ];
  for (const url of patterns) {
    const methods = ['GET', 'POST', 'PUT', 'DELETE'].filter((method) => app.hasRoute({ method, url }));
    expect(methods, url).not.toEqual([]);
    routes.push(...methods.map((method) => ({ method, url })));
  }
  return routes;
}

const HASHMAP = '/v1/rating/module_config/hashmap';
const ROUTE_PATTERNS = [
  '/v1/rating/modules',
  '/v1/rating/modules/:module_id',
  '/v1/rating/reload_modules',
  '/v1/rating/quote',
  '/v1/rating/module_config/noop',
  '/v1/rating/module_config/pyscripts/scripts',
  '/v1/rating/module_config/pyscripts/scripts/:script_id',
  `${HASHMAP}/services`,
  `${HASHMAP}/services/:service_id`,
  `${HASHMAP}/services/:service_id/fields`,
  `${HASHMAP}/services/:service_id/mappings`,
  `${HASHMAP}/fields`,
  `${HASHMAP}/fields/:field_id`,
  `${HASHMAP}/groups`,
  `${HASHMAP}/groups/mappings`,
  `${HASHMAP}/groups/thresholds`,
  `${HASHMAP}/groups/:group_id`,
  `${HASHMAP}/groups/:group_id/mappings`,
  `${HASHMAP}/groups/:group_id/thresholds`,
  `${HASHMAP}/types`,
  `${HASHMAP}/thresholds`,
  `${HASHMAP}/thresholds/group`,
  `${HASHMAP}/thresholds/:threshold_id`,
  `${HASHMAP}/mappings`,
  `${HASHMAP}/mappings/group`,
  `${HASHMAP}/mappings/:mapping_id`,
  '/v2/rating/modules',
  '/v2/rating/modules/:module_id',
  '/v2/rating/quote',
];
