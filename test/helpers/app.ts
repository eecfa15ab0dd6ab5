/**
 * Test harness: a real Tariff app on a real database (a fresh SQLite file by default; PostgreSQL
 * or MariaDB scratch databases when TARIFF_TEST_DATABASES names them), driven through inject().
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
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
import { TEST_HEADERS } from './headers.js';
import type { ScriptSandbox } from '../../src/rating/pyscripts/sandbox/index.js';

export const H = '/v1/rating/module_config/hashmap';
export const P = '/v1/rating/module_config/pyscripts';

/** A response as the tests see it. */
export interface TestResponse {
  status: number;
  /** For {@link TestApp.put}: the status the PUT itself answered (before the client-like follow-up). */
  wireStatus?: number;
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
  /**
   * Updates the way the CloudKitty client does (api.md §1): PUT; on CloudKitty's 302 the redirect
   * is followed once (a PUT to `Location`, which must answer 302 without a `Location`) and the
   * object read back; a 201
   * (scripts) carries the object. A successful update answers `status` 200 with the object and
   * `wireStatus` the PUT's own code (302, 201 or 200); a refused one is the PUT's answer as is.
   */
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
    const response = await app.inject({ method: method as 'GET', url, payload, headers: { ...TEST_HEADERS, ...headers } });
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
    put: (url, body, headers) => update(request, url, body, headers),
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

type Send = (method: string, url: string, body?: unknown, headers?: Record<string, string>) => Promise<TestResponse>;

/** {@link TestApp.put}: an update as keystoneauth and cloudkittyclient make it. */
async function update(send: Send, url: string, body: unknown, headers?: Record<string, string>): Promise<TestResponse> {
  const response = await send('PUT', url, body, headers);
  if (response.status === 201) return { ...response, status: 200, wireStatus: 201 };
  if (response.status !== 302) return { ...response, wireStatus: response.status };
  const location = new URL(String(response.headers.location));
  const followUp = await send('PUT', `${location.pathname}${location.search}`, body, headers);
  if (followUp.status !== 302 || followUp.headers.location !== undefined) {
    throw new Error(
      `the follow-up PUT ${location.pathname}${location.search} answered ${followUp.status} (Location ${String(followUp.headers.location)}): ${followUp.text}`,
    );
  }
  const read = await send('GET', location.pathname, undefined, headers);
  return { ...read, headers: response.headers, wireStatus: 302 };
}

/**
 * Within a `describe`: its tests run on an app started with `options` (e.g. another setting), put
 * in place of the file's app through `use` before them, closed and the file's app put back after.
 */
export function withAppFor(options: Parameters<typeof startTestApp>[0], current: () => TestApp, use: (app: TestApp) => void): void {
  let previous: TestApp;
  beforeAll(async () => {
    previous = current();
    use(await startTestApp(options));
  });
  afterAll(async () => {
    await current().close();
    use(previous);
  });
}
