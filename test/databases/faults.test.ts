/**
 * Database faults (issue 3): when the database becomes unreachable under load, requests fail
 * within the configured timeout with 503 and a fault body (no hang, no crash); when it comes back
 * the same process serves again; every acknowledged write is in the database. Start-up waits for
 * the database with a log line. The database is cut by a TCP proxy in front of the shared server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, testDatabaseKind, type ScratchDatabase } from '../helpers/databases.js';
import { startDatabaseProxy, type DatabaseProxy } from '../helpers/proxy.js';
import { startServerProcess, type ServerProcess } from '../helpers/server.js';

const H = '/v1/rating/module_config/hashmap';
const kind = testDatabaseKind();
const TIMEOUT_S = 2;

interface Answer {
  status: number;
  body: any;
  milliseconds: number;
}

async function call(server: ServerProcess, method: string, path: string, body?: unknown): Promise<Answer> {
  const started = Date.now();
  try {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, milliseconds: Date.now() - started };
  } catch (error) {
    return { status: 0, body: String(error), milliseconds: Date.now() - started };
  }
}

describe.skipIf(kind === 'sqlite')(`${kind} becomes unreachable and comes back`, () => {
  let directory: string;
  let scratch: ScratchDatabase;
  let proxy: DatabaseProxy;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-faults-'));
    scratch = await createScratchDatabase(directory);
    const url = new URL(scratch.url);
    proxy = await startDatabaseProxy(Number(url.port || (kind === 'postgres' ? 5432 : 3306)));
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    await scratch?.drop();
    rmSync(directory, { recursive: true, force: true });
  });

  function proxiedUrl(): string {
    const url = new URL(scratch.url);
    url.port = String(proxy.port);
    return url.toString();
  }

  it('start-up waits for the database, saying so, then serves', async () => {
    await proxy.cut();
    const starting = startServerProcess(proxiedUrl(), { TARIFF_DB_TIMEOUT: String(TIMEOUT_S), TARIFF_DB_START_TIMEOUT: '30', TARIFF_LOG_LEVEL: 'info' });
    await sleep(1500);
    await proxy.restore();
    server = await starting;
    expect(server.output()).toContain('waiting for the database');
    expect((await call(server, 'GET', `${H}/services`)).status).toBe(200);
  });

  it('answers 503 within the timeout while the database is away, then 2xx again, losing no acknowledged write', async () => {
    const live = server!;
    const created = await call(live, 'POST', `${H}/services`, { name: 'compute' });
    const field = await call(live, 'POST', `${H}/fields`, { name: 'flavor', service_id: created.body.service_id });
    expect(field.status).toBe(201);

    const acknowledged: string[] = [];
    const answers: Answer[] = [];
    let counter = 0;
    let running = true;
    const worker = async () => {
      while (running) {
        counter += 1;
        const answer = await call(live, 'POST', `${H}/mappings`, { field_id: field.body.field_id, value: `v${counter}`, cost: '1.5' });
        answers.push(answer);
        if (answer.status === 201) acknowledged.push(answer.body.mapping_id);
        if (answer.status !== 201) await sleep(50);
      }
    };
    const load = Promise.all([worker(), worker(), worker(), worker()]);

    await sleep(1000);
    await proxy.cut();
    const cutAt = answers.length;
    await sleep((TIMEOUT_S + 2) * 1000);
    const duringOutage = answers.slice(cutAt);
    await proxy.restore();

    // Back: the same process answers 2xx again within a few seconds.
    let recovered = false;
    for (let attempt = 0; attempt < 40 && !recovered; attempt += 1) {
      const probe = await call(live, "GET", `${H}/services`);
      recovered = probe.status === 200;
      if (!recovered && attempt % 10 === 0) console.log("probe", probe.status, JSON.stringify(probe.body).slice(0, 200));
      if (!recovered) await sleep(250);
    }
    running = false;
    await load;
    if (!recovered) console.log("server output", live.output().slice(-3000));
    const serverFaults = live.output().split("\n").filter((line) => line.includes("unexpected server fault"));
    if (serverFaults.length) console.log("server faults", serverFaults.slice(0, 2).join("\n").slice(0, 1500));
    expect(recovered).toBe(true);

    const failures = duringOutage.filter((answer) => answer.status !== 201);
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) {
      expect(failure.status, JSON.stringify(failure.body)).toBe(503);
      expect(failure.body).toMatchObject({ faultcode: 'Server', debuginfo: null });
      expect(failure.body.faultstring).toMatch(/^The database is unavailable/);
      expect(failure.milliseconds).toBeLessThan((TIMEOUT_S + 1.5) * 1000);
    }
    expect(answers.filter((answer) => answer.status !== 201 && answer.status !== 503)).toEqual([]);
    expect(live.child.exitCode).toBeNull();

    const after = await call(live, 'POST', `${H}/mappings`, { field_id: field.body.field_id, value: 'after', cost: 1 });
    expect(after.status).toBe(201);
    const listed = await call(live, 'GET', `${H}/mappings?field_id=${field.body.field_id}`);
    const stored = new Set(listed.body.mappings.map((mapping: any) => mapping.mapping_id));
    for (const id of acknowledged) expect(stored.has(id), `acknowledged mapping ${id} is stored`).toBe(true);
  }, 60_000);
});
