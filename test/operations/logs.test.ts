/**
 * The log of a real server process (issue 26, "Logs"): a script that fails every quote shows its
 * error with the request id of the quote; one line per request, nothing of `/healthcheck` and
 * `/metrics` at info; the start-up and shutdown lines at `TARIFF_LOG_LEVEL=warn`; readable text
 * lines with ISO times at `TARIFF_LOG_FORMAT=text`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callServer, startServerProcess, type ServerProcess } from '../helpers/server.js';

const PYSCRIPTS = '/v1/rating/module_config/pyscripts';
const QUOTE = { usage: { compute: [{ vol: { unit: 'instance', qty: '1' }, groupby: { flavor: 'm1.nano' }, metadata: {} }] } };

interface LogEntry {
  level: number;
  time: string;
  msg: string;
  reqId?: string;
  [field: string]: unknown;
}

/** The JSON lines `server` printed so far. */
function entriesOf(server: ServerProcess): LogEntry[] {
  return server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogEntry);
}

/** Waits (at most 10 s) until `server` has logged a line with request id `requestId`: it is written once the answer is sent. */
async function lineOf(server: ServerProcess, requestId: string): Promise<LogEntry[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const lines = entriesOf(server).filter((entry) => entry.reqId === requestId);
    if (lines.length > 0 || Date.now() > deadline) return lines;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const directory = mkdtempSync(join(tmpdir(), 'tariff-logs-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('the log of a server at info level', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServerProcess(`sqlite:${join(directory, 'info.db')}`, {
      TARIFF_LOG_LEVEL: 'info',
      TARIFF_SANDBOX_WORKERS: '1',
      TARIFF_SANDBOX_SPARE_WORKERS: '0',
      TARIFF_SANDBOX_QUEUE_WAIT_MS: '120000',
    });
  }, 120_000);
  afterAll(async () => {
    expect(await server?.stop()).toBe(0);
  });

  it("shows a failing script's error with the request id of the quote it failed", { timeout: 180_000 }, async () => {
    expect((await callServer(server, 'PUT', '/v2/rating/modules/pyscripts', { enabled: true })).status).toBe(204);
    const created = await callServer(server, 'POST', `${PYSCRIPTS}/scripts`, { name: 'evil', data: "import os\nos.system('true')\n" }, { timeoutMs: 120_000 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const quote = await callServer(server, 'POST', '/v2/rating/quote', QUOTE, { timeoutMs: 120_000 });
    expect(quote.status, JSON.stringify(quote.body)).toBe(422);
    const requestId = quote.headers.get('x-openstack-request-id')!;
    const lines = await lineOf(server, requestId);
    expect(lines, server.output().slice(-3000)).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, msg: 'request completed', method: 'POST', url: '/v2/rating/quote', status: 422 });
    expect(lines[0].fault).toMatch(/^Script evil failed: PermissionError: /);
    expect(lines[0].fault).toBe(quote.body.faultstring);
  });

  it('writes one line per request, and nothing of health checks and scrapes', async () => {
    const before = server.output().length;
    const requestIds: string[] = [];
    for (const path of ['/v1/rating/module_config', '/v2/rating/modules', '/v1/nowhere']) {
      const answer = await callServer(server, 'GET', path);
      requestIds.push(answer.headers.get('x-openstack-request-id')!);
    }
    for (let polls = 0; polls < 5; polls += 1) {
      expect((await fetch(`${server.url}/healthcheck`)).status).toBe(200);
      expect((await fetch(`${server.url}/metrics`)).status).toBe(200);
    }
    for (const requestId of requestIds) expect(await lineOf(server, requestId)).toHaveLength(1);
    const written = server.output().slice(before);
    expect(written).not.toContain('/healthcheck');
    expect(written).not.toContain('/metrics');
    expect(written).not.toContain('incoming request');
    const requestLines = written
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogEntry)
      .filter((entry) => entry.msg === 'request completed');
    expect(requestLines.map((entry) => entry.reqId)).toEqual(requestIds);
  });
});

describe('the log of a server', () => {
  let server: ServerProcess | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('writes its start-up and shutdown lines at TARIFF_LOG_LEVEL=warn, and no request', { timeout: 120_000 }, async () => {
    server = await startServerProcess(`sqlite:${join(directory, 'warn.db')}`, { TARIFF_LOG_LEVEL: 'warn' });
    expect((await callServer(server, 'GET', '/v1/nowhere')).status).toBe(404);
    expect(await server.stop()).toBe(0);
    const messages = entriesOf(server).map((entry) => entry.msg);
    expect(messages).toContain('Tariff is serving the rating API');
    expect(messages.slice(-3)).toEqual(['shutting down', 'draining: no new connections, finishing the requests in flight', 'stopped']);
    expect(messages).not.toContain('request completed');
  });

  it('writes readable lines with ISO times at TARIFF_LOG_FORMAT=text', { timeout: 120_000 }, async () => {
    server = await startServerProcess(`sqlite:${join(directory, 'text.db')}`, { TARIFF_LOG_LEVEL: 'info', TARIFF_LOG_FORMAT: 'text' });
    const answer = await callServer(server, 'GET', '/v1/nowhere', undefined, { headers: { 'X-User-Id': 'alice' } });
    expect(await server.stop()).toBe(0);
    const lines = server.output().trim().split('\n');
    const iso = String.raw`\[\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\]`;
    for (const line of lines) expect(line).toMatch(new RegExp(`^${iso} (INFO|WARN|ERROR): `));
    expect(lines.find((line) => line.includes('Tariff is serving the rating API'))).toBeDefined();
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^${iso} INFO: GET /v1/nowhere 404 [\\d.]+ ms user=alice: Resource not found: GET /v1/nowhere \\{"reqId":"${answer.headers.get('x-openstack-request-id')}"\\}$`,
        ),
      ),
    );
  });
});
