/**
 * How every process learns whether scripts need the sandbox's workers (issue 26): an app that
 * watches its rules (the server's, `watchRules`) tells the pyscripts module its scripts and state
 * at start and after every change, its own or another process's on the same database, within
 * about a second, without a quote asking. A recording sandbox stands in for the real one here; the
 * real workers follow the scripts in `test/sandbox/demand.test.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { TariffApp } from '../../src/http/app.js';
import { buildTariffApp, ratingModules } from '../../src/application.js';
import { openDatabase, type Database } from '../../src/database/connection.js';
import { migrateToLatest } from '../../src/database/migrate.js';
import { TEST_HEADERS } from '../helpers/headers.js';

const P = '/v1/rating/module_config/pyscripts';

/** A stand-in sandbox that records what it is told. */
function recordingSandbox() {
  const demands: boolean[] = [];
  return {
    demands,
    run: async <T>(_scripts: unknown, dataframe: T) => dataframe,
    compile: async () => ({ ok: true as const }),
    setDemand: (needed: boolean) => demands.push(needed),
  };
}

let directory: string;
const databases: Database[] = [];
const apps: TariffApp[] = [];
const watched = recordingSandbox();
const other = recordingSandbox();
let writer: TariffApp;

async function open(sandbox: ReturnType<typeof recordingSandbox>, watchRules: boolean): Promise<TariffApp> {
  const config = loadConfig({ TARIFF_DATABASE_URL: `sqlite:${join(directory, 'tariff.db')}` });
  const database = openDatabase(config.databaseUrl);
  databases.push(database);
  const modules = ratingModules({ sandbox });
  await migrateToLatest(database, modules.migrations());
  const app = await buildTariffApp({ config, database, modules, logger: false, watchRules });
  await app.ready();
  apps.push(app);
  return app;
}

async function send(app: TariffApp, method: 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) {
  const answer = await app.inject({ method, url, payload: body === undefined ? undefined : JSON.stringify(body), headers: TEST_HEADERS });
  return { status: answer.statusCode, body: answer.body ? JSON.parse(answer.body) : undefined };
}

/** Waits until the watched app's last word is `needed` (at most 10 s: the watch looks once a second). */
async function told(needed: boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (watched.demands.at(-1) !== needed) {
    if (Date.now() > deadline) throw new Error(`the watched app was not told ${needed}: ${JSON.stringify(watched.demands)}`);
    await sleep(50);
  }
}

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'tariff-rules-watch-'));
  writer = await open(other, false);
  await open(watched, true);
});

afterAll(async () => {
  for (const app of apps) await app.close();
  for (const database of databases) await database.close();
  rmSync(directory, { recursive: true, force: true });
});

it("follows another process's changes: needed only while pyscripts is enabled and has a script", async () => {
  // At start: disabled, no script.
  await told(false);
  expect(await send(writer, 'PUT', '/v2/rating/modules/pyscripts', { enabled: true })).toMatchObject({ status: 204 });
  await sleep(1500);
  expect(watched.demands.at(-1)).toBe(false);
  const created = await send(writer, 'POST', `${P}/scripts`, { name: 'any', data: 'x = 1\n' });
  expect(created.status).toBe(201);
  await told(true);
  expect((await send(writer, 'DELETE', `${P}/scripts/${created.body.script_id}`)).status).toBe(204);
  await told(false);
  expect((await send(writer, 'POST', `${P}/scripts`, { name: 'again', data: 'x = 1\n' })).status).toBe(201);
  await told(true);
  expect((await send(writer, 'PUT', '/v2/rating/modules/pyscripts', { enabled: false })).status).toBe(204);
  await told(false);
  // An app that does not watch its rules tells nothing (the tests' apps drive their sandboxes).
  expect(other.demands).toEqual([]);
});

it('stops looking when the app closes', async () => {
  const app = apps.pop() as TariffApp;
  await app.close();
  const count = watched.demands.length;
  expect((await send(writer, 'PUT', '/v2/rating/modules/pyscripts', { enabled: true })).status).toBe(204);
  await sleep(2500);
  expect(watched.demands).toHaveLength(count);
});
