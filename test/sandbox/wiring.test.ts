/**
 * How the sandbox's queue is wired into Tariff (issue 11, item 6): its settings, read once by
 * `loadConfig`, and the key quotes are shared fairly by. A recording runner stands in for the
 * sandbox here, to see the key each quote passes; the queue itself runs on real workers in
 * `queue.test.ts` and `load.test.ts`.
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
import type { KeystoneIdentity } from '../../src/auth/keystone.js';
import type { JsonDataframe } from '../../src/rating/contract/dataframe.js';
import { ScriptSandbox } from '../../src/rating/pyscripts/sandbox/index.js';
import { testIdentity } from '../helpers/keystone-identity.js';

const P = '/v1/rating/module_config/pyscripts';

describe('settings', () => {
  it('defaults: a spare, 20 waiting runs, 10 s of wait, 10 runs per tenant', () => {
    expect(loadConfig({})).toMatchObject({
      sandboxSpareWorkers: 1,
      sandboxQueueLength: 20,
      sandboxQueueWaitMs: 10_000,
      sandboxTenantRuns: 10,
      sandboxStartTimeoutMs: 60_000,
    });
  });

  it('reads each from its variable; no spare is allowed', () => {
    const config = loadConfig({
      TARIFF_SANDBOX_SPARE_WORKERS: '0',
      TARIFF_SANDBOX_QUEUE_LENGTH: '5',
      TARIFF_SANDBOX_QUEUE_WAIT_MS: '2500',
      TARIFF_SANDBOX_TENANT_RUNS: '3',
      TARIFF_SANDBOX_START_TIMEOUT_MS: '30000',
    });
    expect(config).toMatchObject({
      sandboxSpareWorkers: 0,
      sandboxQueueLength: 5,
      sandboxQueueWaitMs: 2500,
      sandboxTenantRuns: 3,
      sandboxStartTimeoutMs: 30_000,
    });
  });

  it('refuses values that are not whole numbers in range, naming the variable', () => {
    for (const [name, value] of [
      ['TARIFF_SANDBOX_QUEUE_LENGTH', '0'],
      ['TARIFF_SANDBOX_QUEUE_WAIT_MS', '1.5'],
      ['TARIFF_SANDBOX_TENANT_RUNS', 'many'],
      ['TARIFF_SANDBOX_SPARE_WORKERS', '-1'],
      ['TARIFF_SANDBOX_START_TIMEOUT_MS', '0'],
    ]) {
      expect(() => loadConfig({ [name]: value }), name).toThrow(ConfigurationError);
      expect(() => loadConfig({ [name]: value }), name).toThrow(
        new RegExp(`^${name} must be a whole number of at least \\d, got '${value.replace('.', '\\.')}'$`),
      );
    }
  });

  it('a worker that does not start within its start timeout fails the calls waiting for it, naming the limit', async () => {
    const sandbox = new ScriptSandbox({ poolSize: 1, spareWorkers: 0, startTimeoutMs: 50 });
    try {
      await expect(sandbox.compile('late', 'x = 1\n')).rejects.toThrow(/^The PyScripts sandbox cannot start: the worker did not start within 50 ms$/);
    } finally {
      await sandbox.close();
    }
  });
});

describe('the fairness key of a quote', () => {
  let app: TariffApp | undefined;
  let database: Database | undefined;
  let directory: string | undefined;
  const tenants: Array<string | undefined> = [];

  afterEach(async () => {
    await app?.close();
    await database?.close();
    if (directory) rmSync(directory, { recursive: true, force: true });
    tenants.length = 0;
  });

  /** An app whose "sandbox" records the tenant of each run, with one active script. */
  async function start(environment: Record<string, string>, headers: Record<string, string>, identity?: KeystoneIdentity): Promise<TariffApp> {
    directory = mkdtempSync(join(tmpdir(), 'tariff-fairness-'));
    const config = loadConfig({ ...environment, TARIFF_DATABASE_URL: `sqlite:${join(directory, 'tariff.db')}` });
    database = openDatabase(config.databaseUrl);
    const recorder = {
      run: async (_scripts: unknown, dataframe: JsonDataframe, options?: { tenant?: string }) => {
        tenants.push(options?.tenant);
        return dataframe;
      },
      compile: async () => ({ ok: true as const }),
    };
    const modules = ratingModules({ sandbox: recorder });
    await migrateToLatest(database, modules.migrations());
    app = await buildTariffApp({ config, database, modules, logger: false, keystoneClient: identity ? { validate: async () => identity } : undefined });
    const send = (method: 'POST' | 'PUT', url: string, body: unknown) =>
      app!.inject({ method, url, payload: body as object, headers: { 'content-type': 'application/json', ...headers } });
    expect((await send('PUT', '/v2/rating/modules/pyscripts', { enabled: true })).statusCode).toBe(204);
    expect((await send('POST', `${P}/scripts`, { name: 'any', data: 'x = 1\n' })).statusCode).toBe(201);
    return app;
  }

  const v1 = { resources: [{ service: 'compute', volume: '1', desc: {} }] };
  const v2 = (tenant?: string) => ({
    ...(tenant ? { tenant_id: tenant } : {}),
    usage: { compute: [{ vol: { unit: 'instance', qty: '1' }, groupby: {}, metadata: {} }] },
  });

  it("noauth: the v2 quote's tenant_id, else the client's address", async () => {
    const server = await start({}, {});
    const quote = (url: string, body: unknown) => server.inject({ method: 'POST', url, payload: body as object, remoteAddress: '192.0.2.7' });
    expect((await quote('/v2/rating/quote', v2('tenant-a'))).statusCode).toBe(200);
    expect((await quote('/v2/rating/quote', v2())).statusCode).toBe(200);
    expect((await quote('/v1/rating/quote', v1)).statusCode).toBe(200);
    expect(tenants).toEqual(['tenant:tenant-a', 'address:192.0.2.7', 'address:192.0.2.7']);
  });

  it("Keystone: the token's project, whatever tenant the quote names", async () => {
    const token = { 'x-auth-token': 'gAAAAABtoken-for-tests-0123456789' };
    const identity = testIdentity(['admin']);
    const server = await start(
      {
        TARIFF_AUTH: 'keystone',
        TARIFF_KEYSTONE_AUTH_URL: 'http://keystone.invalid:5000',
        TARIFF_KEYSTONE_USERNAME: 'tariff',
        TARIFF_KEYSTONE_PASSWORD: 'secret',
      },
      token,
      identity,
    );
    const quote = (url: string, body: unknown) => server.inject({ method: 'POST', url, payload: body as object, headers: token });
    expect((await quote('/v2/rating/quote', v2('someone-else'))).statusCode).toBe(200);
    expect((await quote('/v1/rating/quote', v1)).statusCode).toBe(200);
    expect(tenants).toEqual(['project:p1', 'project:p1']);
  });
});
