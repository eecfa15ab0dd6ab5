/**
 * Persistence with real server processes on one SQLite file: what a client was told is written
 * (201) survives a clean restart and a `kill -9` in the middle of a burst of creates; the file
 * opens cleanly afterwards with consistent rows; SIGTERM lets requests in flight finish.
 */
import { Agent, request as httpRequest } from 'node:http';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { H, P, daysFromNow } from '../helpers/app.js';
import { TEST_HEADERS } from '../helpers/headers.js';
import { callServer as call, startServerProcess, type Answer, type ServerProcess } from '../helpers/server.js';

async function created(server: ServerProcess, path: string, body: unknown): Promise<any> {
  const answer = await call(server, 'POST', path, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body;
}

/** Everything the API shows, deleted rules included. */
async function everything(server: ServerProcess): Promise<Record<string, unknown>> {
  const services = (await call(server, 'GET', `${H}/services/`)).body.services;
  const fields = [];
  for (const service of services) fields.push(...(await call(server, 'GET', `${H}/fields/?service_id=${service.service_id}`)).body.fields);
  return {
    services,
    fields,
    groups: (await call(server, 'GET', `${H}/groups/`)).body.groups,
    mappings: (await call(server, 'GET', `${H}/mappings/?deleted=true`)).body.mappings,
    thresholds: (await call(server, 'GET', `${H}/thresholds/`)).body.thresholds,
    scripts: (await call(server, 'GET', `${P}/scripts/?deleted=true`)).body.scripts,
  };
}

/** Opens the file directly (no server running) and checks it is a sound SQLite database. */
function inspectFile(path: string): { integrity: string; foreignKeyViolations: unknown[]; counts: Record<string, number> } {
  const sqlite = new DatabaseSync(path);
  try {
    const integrity = String(sqlite.prepare('PRAGMA integrity_check').get()?.integrity_check);
    const foreignKeyViolations = sqlite.prepare('PRAGMA foreign_key_check').all();
    const counts: Record<string, number> = {};
    for (const table of ['hashmap_services', 'hashmap_fields', 'hashmap_groups', 'hashmap_mappings', 'hashmap_thresholds', 'pyscripts_scripts']) {
      counts[table] = (sqlite.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
    }
    return { integrity, foreignKeyViolations, counts };
  } finally {
    sqlite.close();
  }
}

describe('persistence across server processes', () => {
  let directory: string;
  let file: string;
  let databaseUrl: string;
  const servers: ServerProcess[] = [];

  async function start(): Promise<ServerProcess> {
    const server = await startServerProcess(databaseUrl);
    servers.push(server);
    return server;
  }

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-persistence-'));
    file = join(directory, 'tariff.db');
    databaseUrl = `sqlite:${file}`;
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.kill();
    rmSync(directory, { recursive: true, force: true });
  });

  it('data survives a clean restart; SIGTERM exits 0 and closes the database', async () => {
    const first = await start();
    const service = await created(first, `${H}/services/`, { name: 'compute' });
    const field = await created(first, `${H}/fields/`, { service_id: service.service_id, name: 'flavor' });
    const group = await created(first, `${H}/groups/`, { name: 'instances' });
    await created(first, `${H}/mappings/`, {
      field_id: field.field_id,
      value: 'm1.small',
      cost: '0.1',
      type: 'rate',
      group_id: group.group_id,
      tenant_id: 'project-a',
      description: 'small flavor — été',
      start: daysFromNow(2),
      end: daysFromNow(40),
      name: 'small',
    });
    await created(first, `${H}/mappings/`, { service_id: service.service_id, cost: -1.25 });
    const doomed = await created(first, `${H}/mappings/`, { field_id: field.field_id, value: 'm1.large', cost: 9 });
    expect((await call(first, 'DELETE', `${H}/mappings/`, { mapping_id: doomed.mapping_id })).status).toBe(204);
    await created(first, `${H}/thresholds/`, { service_id: service.service_id, level: '10.5', cost: '0.01', group_id: group.group_id });
    await created(first, `${P}/scripts/`, { name: 'policy', data: 'import decimal\n# ünïcödé ✓\nrate = 1\n', description: 'script' });
    const before = await everything(first);
    expect((before.mappings as unknown[]).length).toBe(3);

    expect(await first.stop()).toBe(0);
    expect(first.output()).not.toMatch(/"level":(50|60)/); // no error or fatal log lines
    expect(existsSync(`${file}-wal`), 'a clean shutdown checkpoints and removes the WAL').toBe(false);
    expect(inspectFile(file).integrity).toBe('ok');

    const second = await start();
    expect(await everything(second)).toEqual(before);
    const after = (await call(second, 'GET', `${H}/mappings/${doomed.mapping_id}`)).status;
    expect(after, 'a soft-deleted mapping stays deleted').toBe(404);
    expect(await second.stop()).toBe(0);
  });

  it('kill -9 in the middle of 300 concurrent creates: every 201 is there, the file is sound, rows are whole', async () => {
    const TOTAL = 300;
    const CONCURRENCY = 16;
    const KILL_AFTER = 100;
    const first = await start();
    const service = await created(first, `${H}/services/`, { name: 'compute' });
    const field = await created(first, `${H}/fields/`, { service_id: service.service_id, name: 'flavor' });

    const bodyOf = (index: number) => ({
      field_id: field.field_id,
      value: `v${index}`,
      cost: `${index}.5`,
      tenant_id: 'load',
      description: `request ${index}`,
      name: `load-${index}`,
    });
    const acknowledged = new Map<number, any>();
    const failures: number[] = [];
    const unexpected: string[] = [];
    let sent = 0;
    let killing: Promise<void> | undefined;

    async function worker(): Promise<void> {
      while (sent < TOTAL && killing === undefined) {
        const index = sent++;
        try {
          const answer = await call(first, 'POST', `${H}/mappings/`, bodyOf(index));
          if (answer.status === 201) acknowledged.set(index, answer.body);
          else unexpected.push(`${index}: ${answer.status} ${JSON.stringify(answer.body)}`);
        } catch {
          failures.push(index);
        }
        if (acknowledged.size >= KILL_AFTER && killing === undefined) killing = first.kill();
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    await killing;
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(unexpected).toEqual([]);
    expect(acknowledged.size).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(sent, 'the kill came part-way').toBeLessThan(TOTAL);

    // The file opens cleanly in a new process, which serves everything it acknowledged.
    const second = await start();
    const listed = (await call(second, 'GET', `${H}/mappings/?field_id=${field.field_id}&deleted=true`)).body.mappings as any[];
    const byValue = new Map(listed.map((mapping) => [mapping.value, mapping]));
    expect(byValue.size, 'no duplicates').toBe(listed.length);
    for (const [index, acknowledgedMapping] of acknowledged) {
      expect(byValue.get(`v${index}`), `acknowledged request ${index}`).toEqual(acknowledgedMapping);
      expect((await call(second, 'GET', `${H}/mappings/${acknowledgedMapping.mapping_id}`)).body).toEqual(acknowledgedMapping);
    }
    // Requests cut off by the kill may or may not have committed, but nothing else appears.
    expect(listed.length).toBeGreaterThanOrEqual(acknowledged.size);
    expect(listed.length).toBeLessThanOrEqual(sent);
    // Every row is whole: all its attributes belong to the same request.
    for (const mapping of listed) {
      const index = Number(/^v(\d+)$/.exec(mapping.value)?.[1]);
      expect(Number.isInteger(index) && index < sent, `unexpected row ${JSON.stringify(mapping)}`).toBe(true);
      expect(mapping).toMatchObject({
        type: 'flat',
        cost: `${index}.5000000000000000000000000000`,
        field_id: field.field_id,
        service_id: null,
        group_id: null,
        tenant_id: 'load',
        name: `load-${index}`,
        description: `request ${index}`,
        end: null,
        deleted: null,
        created_by: 'unknown',
      });
      expect(mapping.mapping_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(mapping.start).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    }
    // The restarted server goes on writing, and the names of rows cut off stay usable or clash, never break.
    const next = await call(second, 'POST', `${H}/mappings/`, { ...bodyOf(TOTAL), name: 'after-restart' });
    expect(next.status, JSON.stringify(next.body)).toBe(201);
    expect(await second.stop()).toBe(0);

    const inspected = inspectFile(file);
    expect(inspected.integrity).toBe('ok');
    expect(inspected.foreignKeyViolations).toEqual([]);
    expect(inspected.counts).toEqual({
      hashmap_services: 1,
      hashmap_fields: 1,
      hashmap_groups: 0,
      hashmap_mappings: listed.length + 1,
      hashmap_thresholds: 0,
      pyscripts_scripts: 0,
    });
  }, 60_000);

  it('SIGTERM lets a request whose body is still arriving finish, closes its keep-alive connection and exits 0 at once', async () => {
    const first = await start();
    const service = await created(first, `${H}/services/`, { name: 'compute' });
    const body = JSON.stringify({ service_id: service.service_id, cost: '2.5', description: 'in flight' });
    const half = Math.floor(body.length / 2);

    let exited: Promise<number | null> | undefined;
    // A client that keeps idle connections for a minute, as load balancers do.
    const agent = new Agent({ keepAlive: true, timeout: 60_000 });
    const answer = new Promise<Pick<Answer, 'status' | 'body'>>((resolve, reject) => {
      const request = httpRequest(`${first.url}${H}/mappings/`, {
        agent,
        method: 'POST',
        headers: { ...TEST_HEADERS, 'content-length': Buffer.byteLength(body) },
      });
      request.on('response', (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
      });
      request.on('error', reject);
      request.write(body.slice(0, half));
      // Let the server see the request line and headers, then stop it before the body is complete.
      // (SIGTERM is sent once: a second one would be a demand to stop at once.)
      setTimeout(() => {
        exited = first.stop();
        setTimeout(() => request.end(body.slice(half)), 300);
      }, 300);
    });
    const response = await answer;
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body.description).toBe('in flight');
    expect(exited).toBeDefined();
    // The connection was keep-alive: answering it with `Connection: close` lets the process go now.
    const outcome = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('still running after 3 s'), 3000))]);
    expect(outcome).toBe(0);
    agent.destroy();

    const second = await start();
    expect((await call(second, 'GET', `${H}/mappings/${response.body.mapping_id}`)).body).toEqual(response.body);
    expect(await second.stop()).toBe(0);
  });

  it('SIGTERM during a burst: every request is answered 201 or refused, and exactly the 201s are stored', async () => {
    const first = await start();
    const service = await created(first, `${H}/services/`, { name: 'compute' });
    const TOTAL = 60;
    const results: (Answer | 'refused')[] = [];
    let exited: Promise<number | null> | undefined;
    const all = Array.from({ length: TOTAL }, async (_unused, index) => {
      try {
        const answer = await call(first, 'POST', `${H}/mappings/`, { service_id: service.service_id, cost: 1, tenant_id: `t${index}` });
        results[index] = answer;
      } catch {
        results[index] = 'refused';
      }
      exited ??= first.stop();
    });
    await Promise.all(all);
    const outcome = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('still running after 3 s'), 3000))]);
    expect(outcome).toBe(0);

    const answers = results.filter((result): result is Answer => result !== 'refused');
    const acknowledged = answers.filter((answer) => answer.status === 201);
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const answer of answers) expect([201, 503], JSON.stringify(answer.body)).toContain(answer.status);

    const second = await start();
    const stored = (await call(second, 'GET', `${H}/mappings/?service_id=${service.service_id}`)).body.mappings as any[];
    expect(stored.map((mapping) => mapping.mapping_id).sort()).toEqual(acknowledged.map((answer) => answer.body.mapping_id).sort());
    expect(await second.stop()).toBe(0);
  });
});
