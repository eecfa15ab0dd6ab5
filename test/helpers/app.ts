/**
 * Test harness: a real Tariff app on a real database (a fresh SQLite file by default; PostgreSQL
 * or MariaDB scratch databases when TARIFF_TEST_DATABASES names them), driven through inject().
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TariffApp } from '../../src/http/app.js';
import { buildTariffApp, ratingModules, type ModuleList } from '../../src/application.js';
import type { Kysely } from 'kysely';
import { openDatabase, type Database } from '../../src/database/connection.js';
import type { TariffTables } from '../../src/database/tables.js';
import type { HashmapTables } from '../../src/rating/hashmap/tables.js';
import type { PyscriptsTables } from '../../src/rating/pyscripts/tables.js';
import { migrateToLatest } from '../../src/database/migrate.js';
import { loadConfig, type TariffConfig } from '../../src/config.js';
import { createScratchDatabase } from './databases.js';
import type { ScriptSandbox } from '../../src/rating/pyscripts/sandbox/index.js';

export const H = '/v1/rating/module_config/hashmap';
export const P = '/v1/rating/module_config/pyscripts';

/** A response as the tests see it. */
export interface TestResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or undefined when empty. */
  body: any;
  text: string;
}

export interface TestApp {
  app: TariffApp;
  database: Database;
  /** `database.db` typed with the built-in rating modules' tables too, for tests that look at rows. */
  tables: Kysely<TariffTables & HashmapTables & PyscriptsTables>;
  databaseUrl: string;
  /** Sends a request the way the CloudKitty client does (JSON content type on every request). */
  request(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  get(url: string): Promise<TestResponse>;
  post(url: string, body: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  put(url: string, body: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  del(url: string, body?: unknown): Promise<TestResponse>;
  close(): Promise<void>;
}

/**
 * Starts an app on a fresh database of the kind named by `TARIFF_TEST_DATABASE` (`sqlite`, the
 * default: a new file; `postgres` / `mysql`: a new scratch database on the local server), or on
 * `databaseUrl` when given; `config` overrides settings (limits); `modules` replaces the registry's
 * list of rating modules (migrated and served as the real server does).
 */
export async function startTestApp(
  options: { databaseUrl?: string; sandbox?: ScriptSandbox; config?: Partial<TariffConfig>; modules?: ModuleList } = {},
): Promise<TestApp> {
  const directory = mkdtempSync(join(tmpdir(), 'tariff-test-'));
  const scratch = options.databaseUrl ? undefined : await createScratchDatabase(directory);
  const databaseUrl = options.databaseUrl ?? scratch!.url;
  // A generous query timeout: these tests are about behaviour, and a busy CI machine has been seen
  // to stall a 5,000-row read past the 5 s default. The timeout itself is tested on real server
  // processes (test/databases/faults.test.ts).
  const config = { ...loadConfig({}), ...options.config, databaseUrl };
  const database = openDatabase(databaseUrl, { timeoutMs: 30_000, cloudKittyTimeZone: config.cloudKittyTimeZone });
  const modules = ratingModules({ sandbox: options.sandbox }, options.modules);
  await migrateToLatest(database, modules.migrations());
  const app = await buildTariffApp({ config, database, modules, logger: false });
  await app.ready();

  async function request(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<TestResponse> {
    const payload = body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    const response = await app.inject({ method: method as 'GET', url, payload, headers: { 'content-type': 'application/json', ...headers } });
    let parsed: unknown;
    try {
      parsed = response.body === '' ? undefined : JSON.parse(response.body);
    } catch {
      parsed = undefined;
    }
    return { status: response.statusCode, headers: response.headers as TestResponse['headers'], body: parsed, text: response.body };
  }

  return {
    app,
    database,
    tables: database.db.withTables<HashmapTables & PyscriptsTables>(),
    databaseUrl,
    request,
    get: (url) => request('GET', url),
    post: (url, body, headers) => request('POST', url, body, headers),
    put: (url, body, headers) => request('PUT', url, body, headers),
    del: (url, body) => request('DELETE', url, body),
    async close() {
      await app.close();
      await database.close();
      await scratch?.drop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** An ISO datetime `days` from now (negative: in the past), whole seconds, UTC. */
export function daysFromNow(days: number): string {
  return new Date(Math.floor(Date.now() / 1000) * 1000 + days * 86_400_000).toISOString().replace('.000Z', '+00:00');
}
