/**
 * The drain on SIGTERM (issue 15), with real server processes on SQLite and one sandbox worker.
 * Under a steady load of creates and reads from several keep-alive clients, with a slow quote
 * (a script running ~2 s) in flight, SIGTERM: no request the server accepted fails (each one it
 * logged as incoming was answered, in full, with a 2xx), every request that got no answer was never
 * accepted (refused, or its idle connection closed before the server read it), every mapping
 * answered 201 is in the database afterwards, the in-flight quote is answered with
 * `Connection: close`, the process exits 0 within TARIFF_SHUTDOWN_TIMEOUT and its sandbox worker
 * is gone. A request outliving the timeout is cut, and the process exits 1, again leaving no worker.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { databaseIs } from '../helpers/database-kind.js';
import { callServer, startServerProcess, type ServerProcess } from '../helpers/server.js';
import { alive, childrenOf } from '../helpers/child-processes.js';

const HASHMAP = '/v1/rating/module_config/hashmap';
const PYSCRIPTS = '/v1/rating/module_config/pyscripts';
const SHUTDOWN_TIMEOUT_SECONDS = 10;
const CLIENTS = 4;

/** Busy for `seconds` on a point of flavor `slow`, instantly otherwise. */
function slowScript(seconds: number): string {
  return [
    'import time',
    "for point in data['usage'].get('compute', []):",
    "    if point['groupby'].get('flavor') == 'slow':",
    `        end = time.time() + ${seconds}`,
    '        while time.time() < end:',
    '            pass',
  ].join('\n');
}

function quoteBody(flavor: string) {
  return { usage: { compute: [{ vol: { unit: 'instance', qty: '1' }, groupby: { flavor }, metadata: {} }] } };
}

/** What became of one request: a full answer, or a transport error (and whether an answer had begun). */
interface Outcome {
  requestId: string;
  method: string;
  path: string;
  status?: number;
  body?: any;
  connection?: string;
  error?: string;
  answerBegun: boolean;
}

/** Sends one JSON request on `agent` with its own OpenStack request id, never throwing. */
function send(server: ServerProcess, agent: Agent, method: string, path: string, body?: unknown): Promise<Outcome> {
  const requestId = `req-${randomUUID()}`;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve) => {
    const outcome: Outcome = { requestId, method, path, answerBegun: false };
    const request = httpRequest(
      `${server.url}${path}`,
      { method, agent, headers: { 'content-type': 'application/json', 'x-openstack-request-id': requestId }, timeout: 30_000 },
      (response) => {
        outcome.answerBegun = true;
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => {
          outcome.status = response.statusCode;
          outcome.connection = response.headers.connection;
          outcome.body = text && response.headers['content-type']?.includes('json') ? JSON.parse(text) : text;
          resolve(outcome);
        });
        response.on('error', (error: NodeJS.ErrnoException) => resolve({ ...outcome, error: error.code ?? error.message }));
      },
    );
    request.on('timeout', () => request.destroy(new Error('client timeout')));
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ ...outcome, error: error.code ?? error.message }));
    request.end(payload);
  });
}

/**
 * The request ids the server logged as incoming (a debug line), and as completed with their
 * status (the access log's one line per request, src/http/request-log.ts).
 */
function serverLog(output: string): { incoming: Set<string>; completed: Map<string, number> } {
  const incoming = new Set<string>();
  const completed = new Map<string, number>();
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: string; reqId?: string; status?: number };
    if (!entry.reqId) continue;
    if (entry.msg === 'incoming request') incoming.add(entry.reqId);
    if (entry.msg === 'request completed') completed.set(entry.reqId, entry.status ?? 0);
  }
  return { incoming, completed };
}

/** Starts a server with one sandbox worker, pyscripts enabled with `script`, and a field to map; waits for the worker. */
async function startWithScript(directory: string, script: string, environment: Record<string, string>): Promise<{ server: ServerProcess; fieldId: string }> {
  const server = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`, {
    // debug: the "incoming request" lines that show which requests were accepted.
    TARIFF_LOG_LEVEL: 'debug',
    TARIFF_SANDBOX_WORKERS: '1',
    TARIFF_SANDBOX_SPARE_WORKERS: '0',
    TARIFF_SANDBOX_QUEUE_WAIT_MS: '120000',
    TARIFF_SCRIPT_TIMEOUT_MS: '20000',
    ...environment,
  });
  const service = await callServer(server, 'POST', `${HASHMAP}/services`, { name: 'compute' });
  const field = await callServer(server, 'POST', `${HASHMAP}/fields`, { service_id: service.body.service_id, name: 'flavor' });
  expect(field.status).toBe(201);
  expect((await callServer(server, 'PUT', '/v2/rating/modules/pyscripts', { enabled: true })).status).toBe(204);
  const created = await callServer(server, 'POST', `${PYSCRIPTS}/scripts`, { name: 'slow', data: script }, { timeoutMs: 120_000 });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const warm = await callServer(server, 'POST', '/v2/rating/quote', quoteBody('fast'), { timeoutMs: 120_000 });
  expect(warm.status, JSON.stringify(warm.body)).toBe(200);
  return { server, fieldId: field.body.field_id };
}

describe.runIf(databaseIs('sqlite'))('the drain on SIGTERM', () => {
  let directory: string | undefined;
  let server: ServerProcess | undefined;

  afterEach(async () => {
    await server?.kill();
    if (directory) rmSync(directory, { recursive: true, force: true });
    server = undefined;
    directory = undefined;
  });

  it('under load: nothing accepted fails, every acknowledged write is stored, exit 0 within the timeout, no worker left', async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-drain-'));
    const started = await startWithScript(directory, slowScript(2), { TARIFF_SHUTDOWN_TIMEOUT: String(SHUTDOWN_TIMEOUT_SECONDS) });
    server = started.server;
    const workers = childrenOf(server.child.pid!);
    expect(workers.length).toBeGreaterThan(0);

    const outcomes: Outcome[] = [];
    let refused = 0;
    let sigtermAt = Infinity;
    const client = async (index: number) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let counter = 0; ; counter += 1) {
          const outcome =
            counter % 3 === 2
              ? await send(server!, agent, 'GET', `${HASHMAP}/fields/${started.fieldId}`)
              : await send(server!, agent, 'POST', `${HASHMAP}/mappings`, { field_id: started.fieldId, value: `c${index}-${counter}`, cost: '1.5' });
          outcomes.push(outcome);
          if (outcome.error === 'ECONNREFUSED') {
            refused += 1;
            return;
          }
          // Give up a few seconds after SIGTERM: the process may be gone without a refusal seen yet.
          if (Date.now() > sigtermAt + 15_000) return;
        }
      } finally {
        agent.destroy();
      }
    };
    const clients = Promise.all(Array.from({ length: CLIENTS }, (_, index) => client(index)));
    await sleep(1000);
    const quoteAgent = new Agent({ keepAlive: true });
    const slowQuote = send(server, quoteAgent, 'POST', '/v2/rating/quote', quoteBody('slow'));
    await sleep(500);
    sigtermAt = Date.now();
    const exitCode = await server.stop();
    const drainMs = Date.now() - sigtermAt;
    await clients;
    const quote = await slowQuote;
    quoteAgent.destroy();

    expect(exitCode, server.output().slice(-3000)).toBe(0);
    expect(drainMs).toBeLessThan(SHUTDOWN_TIMEOUT_SECONDS * 1000);
    // The quote was in flight at SIGTERM: answered in full, telling the client to close.
    expect([quote.status, quote.error, quote.connection]).toEqual([200, undefined, 'close']);

    const log = serverLog(server.output());
    const answered = outcomes.filter((outcome) => outcome.error === undefined);
    const unanswered = outcomes.filter((outcome) => outcome.error !== undefined);
    // Every request the server accepted was answered, and every answer was a success.
    for (const id of log.incoming) expect(log.completed.has(id), `request ${id} accepted but never completed`).toBe(true);
    for (const outcome of answered) expect(outcome.status, JSON.stringify(outcome)).toBeLessThan(300);
    // A request without an answer was never accepted: refused, or sent on a connection closed idle.
    for (const outcome of unanswered) {
      expect(outcome.answerBegun, JSON.stringify(outcome)).toBe(false);
      expect(['ECONNREFUSED', 'ECONNRESET', 'EPIPE'], JSON.stringify(outcome)).toContain(outcome.error);
      expect(log.incoming.has(outcome.requestId), `unanswered request ${outcome.requestId} had been accepted`).toBe(false);
    }
    expect(refused).toBeGreaterThan(0);

    const acknowledged = answered.filter((outcome) => outcome.method === 'POST' && outcome.status === 201).map((outcome) => outcome.body.mapping_id as string);
    expect(acknowledged.length).toBeGreaterThan(10);
    const database = new DatabaseSync(join(directory, 'tariff.db'), { readOnly: true });
    try {
      const stored = new Set(
        (
          database
            .prepare(`select mapping_id from hashmap_mappings where mapping_id in (${acknowledged.map(() => '?').join(',')})`)
            .all(...acknowledged) as Array<{ mapping_id: string }>
        ).map((row) => row.mapping_id),
      );
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    } finally {
      database.close();
    }
    await sleep(200);
    expect(workers.filter(alive)).toEqual([]);
  }, 180_000);

  it('cuts a request that outlives TARIFF_SHUTDOWN_TIMEOUT and exits 1, leaving no worker', async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-drain-'));
    const started = await startWithScript(directory, slowScript(15), { TARIFF_SHUTDOWN_TIMEOUT: '1' });
    server = started.server;
    const workers = childrenOf(server.child.pid!);
    const agent = new Agent({ keepAlive: true });
    const slowQuote = send(server, agent, 'POST', '/v2/rating/quote', quoteBody('slow'));
    await sleep(500);
    const sigtermAt = Date.now();
    const exitCode = await server.stop();
    const drainMs = Date.now() - sigtermAt;
    const quote = await slowQuote;
    agent.destroy();
    expect(exitCode, server.output().slice(-3000)).toBe(1);
    expect(drainMs).toBeLessThan(8000);
    expect(quote.status).toBeUndefined();
    expect(['ECONNRESET', 'socket hang up']).toContain(quote.error);
    expect(server.output()).toContain('drain timeout: cutting the connections of the requests still in flight');
    await sleep(200);
    expect(workers.filter(alive)).toEqual([]);
  }, 180_000);
});
