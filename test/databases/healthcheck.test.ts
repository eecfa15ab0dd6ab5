/**
 * `/healthcheck` of a real server process follows its database and the disable file (issue 15).
 * PostgreSQL and MariaDB: a private server the test stops, then starts again, flips the detailed
 * check 200 → 503 `DATABASE UNREACHABLE` → 200, each answer within the check's timeout. SQLite
 * has no server to stop (the database lives in the process; test/unit/healthcheck.test.ts fails
 * its handle instead). The disable file flips the check on every database.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseHas, databaseServerKind } from '../helpers/database-kind.js';
import { testDatabaseKind } from '../helpers/databases.js';
import { startPrivateDatabase, type PrivateDatabase } from '../helpers/private-database.js';
import { startServerProcess, type ServerProcess } from '../helpers/server.js';

const kind = testDatabaseKind();
const CHECK_TIMEOUT_SECONDS = 1;
/** The longest a health answer may take: the check's timeout plus slack for a loaded machine. */
const ANSWER_LIMIT_MS = (CHECK_TIMEOUT_SECONDS + 2) * 1000;

interface HealthAnswer {
  status: number;
  /** `check: reason` of each check, from the detailed JSON. */
  reasons: string[];
  details: string[];
  milliseconds: number;
}

async function detailedHealth(server: ServerProcess): Promise<HealthAnswer> {
  const started = Date.now();
  const response = await fetch(`${server.url}/healthcheck?detailed`, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(15_000) });
  const body = (await response.json()) as { reasons: Array<{ check: string; reason: string; details: string }> };
  return {
    status: response.status,
    reasons: body.reasons.map((reason) => `${reason.check}: ${reason.reason}`),
    details: body.reasons.map((reason) => reason.details),
    milliseconds: Date.now() - started,
  };
}

/** Polls the detailed check until its status is `status` (at most `limitMs`); every answer must come within {@link ANSWER_LIMIT_MS}. */
async function waitForHealth(server: ServerProcess, status: number, limitMs: number): Promise<HealthAnswer> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const answer = await detailedHealth(server);
    expect(answer.milliseconds, JSON.stringify(answer)).toBeLessThan(ANSWER_LIMIT_MS);
    if (answer.status === status) return answer;
    if (Date.now() > deadline) throw new Error(`the health check stayed ${answer.status} (${answer.reasons.join(', ')}), expected ${status}`);
    await sleep(200);
  }
}

const HEALTHY = ['disable_by_file: OK', 'database: OK'];
const UNREACHABLE = ['disable_by_file: OK', 'database: DATABASE UNREACHABLE'];

describe(`/healthcheck of a server process on ${kind}`, () => {
  let directory: string;
  let disableFile: string;
  let database: PrivateDatabase | undefined;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-health-'));
    disableFile = join(directory, 'healthcheck_disable');
    if (databaseHas('server')) database = await startPrivateDatabase(databaseServerKind());
    server = await startServerProcess(database?.url ?? `sqlite:${join(directory, 'tariff.db')}`, {
      TARIFF_HEALTHCHECK_DATABASE: 'true',
      TARIFF_HEALTHCHECK_DATABASE_TIMEOUT: String(CHECK_TIMEOUT_SECONDS),
      TARIFF_HEALTHCHECK_DISABLE_FILE: disableFile,
      TARIFF_DB_TIMEOUT: '2',
    });
  }, 90_000);

  afterAll(async () => {
    await server?.kill();
    await database?.destroy();
    rmSync(directory, { recursive: true, force: true });
  });

  it.runIf(databaseHas('server'))(
    'flips 200 → 503 DATABASE UNREACHABLE → 200 as the database server stops and starts again',
    async () => {
      expect((await detailedHealth(server!)).reasons).toEqual(HEALTHY);
      await database!.stop();
      const down = await waitForHealth(server!, 503, 10_000);
      expect(down.reasons).toEqual(UNREACHABLE);
      expect(down.details[1]).toContain(`127.0.0.1:${database!.port}`);
      const plain = await fetch(`${server!.url}/healthcheck`);
      expect([plain.status, await plain.text()]).toEqual([503, 'OK\nDATABASE UNREACHABLE']);
      await database!.start();
      expect((await waitForHealth(server!, 200, 20_000)).reasons).toEqual(HEALTHY);
    },
    90_000,
  );

  it('flips 200 → 503 DISABLED BY FILE → 200 as the disable file is created and removed', async () => {
    await waitForHealth(server!, 200, 20_000);
    writeFileSync(disableFile, '');
    const disabled = await waitForHealth(server!, 503, 5000);
    expect(disabled.reasons).toEqual(['disable_by_file: DISABLED BY FILE', 'database: OK']);
    const plain = await fetch(`${server!.url}/healthcheck`);
    expect([plain.status, await plain.text()]).toEqual([503, 'DISABLED BY FILE\nOK']);
    const head = await fetch(`${server!.url}/healthcheck`, { method: 'HEAD' });
    expect(head.status).toBe(503);
    rmSync(disableFile);
    expect((await waitForHealth(server!, 200, 5000)).reasons).toEqual(HEALTHY);
    expect((await fetch(`${server!.url}/healthcheck`, { method: 'HEAD' })).status).toBe(204);
  }, 30_000);
});
