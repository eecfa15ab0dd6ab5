/**
 * The connection time-outs (src/http/http-server.ts; issue 24, findings 2 and 3), over raw TCP to a
 * real server process with small settings: a body that stops coming is a 408 fault after
 * TARIFF_STALL_TIMEOUT and its bytes are freed; a body that keeps trickling is a 408 at
 * TARIFF_REQUEST_TIMEOUT; a head that stops coming is a 408; an answer the client stops reading is
 * cut after TARIFF_STALL_TIMEOUT (logged with its request id, counted), while a slow reader that
 * keeps reading gets all of it; an idle keep-alive connection is closed after
 * TARIFF_KEEP_ALIVE_TIMEOUT; a handler working longer than the stall time-out is not a stall (an
 * app of its own with a slow route). Not database-specific: SQLite.
 */
import { mkdtempSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../helpers/server.js';
import { connectionTimeouts, tariffServerFactory } from '../../src/http/http-server.js';

const STALL_SECONDS = 1;
const REQUEST_SECONDS = 4;
const KEEP_ALIVE_SECONDS = 2;
/** Slack for a loaded 2-core machine on every upper bound. */
const SLACK_MS = 4000;

let server: ServerProcess;

beforeAll(async () => {
  const directory = mkdtempSync(join(tmpdir(), 'tariff-connection-timeouts-'));
  server = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`, {
    TARIFF_LOG_LEVEL: 'info',
    TARIFF_STALL_TIMEOUT: String(STALL_SECONDS),
    TARIFF_REQUEST_TIMEOUT: String(REQUEST_SECONDS),
    TARIFF_KEEP_ALIVE_TIMEOUT: String(KEEP_ALIVE_SECONDS),
    TARIFF_LINGER_TIMEOUT: '1',
    // Room for 20 stalled uploads of 20 MiB and for a large answer: the quote admission is not under test.
    TARIFF_QUOTE_BYTES_IN_FLIGHT_MB: '2048',
    TARIFF_QUOTE_TENANT_BYTES_MB: '2048',
    TARIFF_QUOTE_ANSWER_GROWTH: '1000',
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

/** A raw client connection that records what it receives and when it closes. */
interface RawClient {
  socket: Socket;
  received(): Buffer;
  /** Resolves with the milliseconds from connecting to the close. */
  closed: Promise<number>;
}

function rawClient(): RawClient {
  const started = performance.now();
  const socket = connect({ port: server.port, host: '127.0.0.1' });
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - started)));
  return { socket, received: () => Buffer.concat(chunks), closed };
}

/** The status line's code and the body of a raw answer. */
function statusAndBody(answer: string): { status: number; body: string } {
  const [head, ...rest] = answer.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), body: rest.join('\r\n\r\n') };
}

/** The value of a sample of `/metrics`, e.g. `tariff_connections_cut_total{reason="write_stall"}`. */
async function metric(sample: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${sample} `));
  return Number(line?.split(' ')[1] ?? NaN);
}

/** A v2 quote body of `points` points each carrying `padding` characters, as the answer echoes them. */
function quoteBody(points: number, padding: number): string {
  const point = { vol: { unit: 'instance', qty: '1' }, groupby: { note: 'x'.repeat(padding) }, metadata: {} };
  return JSON.stringify({ usage: { compute: Array.from({ length: points }, () => point) } });
}

describe('a request that stops coming', () => {
  it('uploads stalled halfway get a 408 after TARIFF_STALL_TIMEOUT, and their bodies are freed', { timeout: 180_000 }, async () => {
    const declared = 20 * 1024 * 1024;
    const sent = Buffer.alloc(5 * 1024 * 1024, ' ');
    sent.write('{"usage": {"compute": [');
    /** 20 uploads of 5 MiB of a declared 20 MiB, then silence; checks each one's 408. */
    const wave = async () => {
      const uploads = Array.from({ length: 20 }, () => {
        const client = rawClient();
        client.socket.write(`POST /v2/rating/quote HTTP/1.1\r\nHost: tariff\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`);
        client.socket.write(sent);
        return client;
      });
      const closedAfter = await Promise.all(uploads.map((client) => client.closed));
      for (const [index, client] of uploads.entries()) {
        const { status, body } = statusAndBody(client.received().toString('utf8'));
        expect(status, `upload ${index}`).toBe(408);
        expect(JSON.parse(body)).toEqual({
          faultcode: 'Client',
          faultstring: `The request stalled: nothing of it came for ${STALL_SECONDS} s (TARIFF_STALL_TIMEOUT).`,
          debuginfo: null,
        });
        expect(closedAfter[index]).toBeGreaterThanOrEqual(STALL_SECONDS * 1000 - 50);
        expect(closedAfter[index]).toBeLessThan(STALL_SECONDS * 1000 + 1000 + SLACK_MS);
      }
    };
    await wave();
    const afterOne = await metric('nodejs_external_memory_bytes');
    // A second wave of 100 MiB: the first one's buffers, released, are collected on the way (V8
    // collects as external memory grows), so the process does not hold both.
    await wave();
    const afterTwo = await metric('nodejs_external_memory_bytes');
    console.info(`external memory after one wave of 100 MiB: ${(afterOne / 2 ** 20).toFixed(0)} MiB, after two: ${(afterTwo / 2 ** 20).toFixed(0)} MiB`);
    expect(afterTwo).toBeLessThan(170 * 1024 * 1024);
    expect(await metric('tariff_connections_cut_total{reason="read_stall"}')).toBeGreaterThanOrEqual(40);
  });

  it('a body that keeps trickling is a 408 at TARIFF_REQUEST_TIMEOUT', { timeout: 60_000 }, async () => {
    const client = rawClient();
    client.socket.write(`POST /v2/rating/quote HTTP/1.1\r\nHost: tariff\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`);
    // A byte each 300 ms: never a stall, never the whole body.
    const trickle = setInterval(() => client.socket.writable && client.socket.write(' '), 300);
    const closedAfter = await client.closed;
    clearInterval(trickle);
    const { status, body } = statusAndBody(client.received().toString('utf8'));
    expect(status).toBe(408);
    expect((JSON.parse(body) as { faultstring: string }).faultstring).toBe(
      `The request was not received in time: its line and headers must arrive within ${REQUEST_SECONDS} s, ` +
        `and the whole request within ${REQUEST_SECONDS} s (TARIFF_REQUEST_TIMEOUT).`,
    );
    expect(closedAfter).toBeGreaterThanOrEqual(REQUEST_SECONDS * 1000 - 50);
    expect(closedAfter).toBeLessThan(REQUEST_SECONDS * 1000 + 1000 + SLACK_MS);
    expect(await metric('tariff_connections_cut_total{reason="request_timeout"}')).toBeGreaterThanOrEqual(1);
  });

  it('a request line and headers that stop coming are a 408', { timeout: 60_000 }, async () => {
    const client = rawClient();
    client.socket.write('GET /healthcheck HTTP/1.1\r\nHost: tariff\r\n');
    const closedAfter = await client.closed;
    expect(statusAndBody(client.received().toString('utf8')).status).toBe(408);
    expect(closedAfter).toBeLessThan(STALL_SECONDS * 1000 + 1000 + SLACK_MS);
  });
});

describe('an answer the client stops reading', () => {
  // About 24 MiB of answer: far more than the kernel's socket buffers hold.
  const body = quoteBody(3000, 8000);

  it('is cut after TARIFF_STALL_TIMEOUT (logged with its request id), and only what the kernel held reaches the client', { timeout: 120_000 }, async () => {
    const client = rawClient();
    client.socket.pause();
    client.socket.write(
      `POST /v2/rating/quote HTTP/1.1\r\nHost: tariff\r\nContent-Type: application/json\r\nX-Openstack-Request-Id: req-00000000-0000-4000-8000-00000000c0de\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    client.socket.write(body);
    const deadline = Date.now() + 60_000;
    while (!server.output().includes('answer cut') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    const line = server
      .output()
      .split('\n')
      .find((candidate) => candidate.includes('answer cut'));
    expect(line, server.output().slice(-2000)).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ level: 30, requestId: 'req-00000000-0000-4000-8000-00000000c0de' });
    client.socket.resume();
    await client.closed;
    // What the kernel buffers held on both sides, not the answer.
    expect(client.received().length).toBeLessThan(body.length / 2);
    expect(await metric('tariff_connections_cut_total{reason="write_stall"}')).toBeGreaterThanOrEqual(1);
  });

  it('is not cut while the client keeps reading, however slowly', { timeout: 120_000 }, async () => {
    const client = rawClient();
    client.socket.pause();
    client.socket.write(
      `POST /v2/rating/quote HTTP/1.1\r\nHost: tariff\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    client.socket.write(body);
    // One read (64 KiB at most) each 20 ms: seconds in all, longer than the stall time-out, but never a stall.
    client.socket.on('data', () => {
      client.socket.pause();
      setTimeout(() => client.socket.resume(), 20);
    });
    client.socket.resume();
    const closedAfter = await client.closed;
    expect(closedAfter).toBeGreaterThan(2 * STALL_SECONDS * 1000);
    const answer = client.received().toString('utf8');
    expect(statusAndBody(answer).status).toBe(200);
    expect(client.received().length).toBeGreaterThan(body.length);
    expect(answer.trimEnd().endsWith('}') || answer.endsWith('0\r\n\r\n')).toBe(true);
  });
});

describe('an idle keep-alive connection', () => {
  it('is closed after TARIFF_KEEP_ALIVE_TIMEOUT', { timeout: 60_000 }, async () => {
    const client = rawClient();
    client.socket.write('GET /healthcheck HTTP/1.1\r\nHost: tariff\r\n\r\n');
    const closedAfter = await client.closed;
    const answer = client.received().toString('utf8');
    expect(statusAndBody(answer).status).toBe(200);
    // Closed without a word: no 408 after the answer.
    expect(answer.match(/HTTP\/1\.1 /g), answer).toHaveLength(1);
    expect(closedAfter).toBeGreaterThanOrEqual(KEEP_ALIVE_SECONDS * 1000 - 50);
    expect(closedAfter).toBeLessThan(KEEP_ALIVE_SECONDS * 1000 + SLACK_MS);
  });
});

describe('a handler working longer than TARIFF_STALL_TIMEOUT', () => {
  it('is not a stall: its answer arrives whole', { timeout: 60_000 }, async () => {
    const app: FastifyInstance = Fastify({
      serverFactory: tariffServerFactory({
        timeouts: connectionTimeouts({ requestTimeoutMs: 4000, stallTimeoutMs: 500, keepAliveTimeoutMs: 2000 }),
        headerBytes: 16 * 1024,
        refusal: { drainBytes: 1024 * 1024, lingerMs: 1000 },
        log: () => app.log,
      }),
    });
    app.post('/slow', async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      return { echoed: (request.body as { text: string }).text.length };
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const address = app.server.address();
      const socket = connect({ port: typeof address === 'object' && address ? address.port : 0, host: '127.0.0.1' });
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      const started = performance.now();
      const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - started)));
      const body = JSON.stringify({ text: 'x'.repeat(1000) });
      socket.write(`POST /slow HTTP/1.1\r\nHost: tariff\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      // Read until the idle keep-alive connection is closed: one answer, the handler's, and nothing after it.
      const closedAfter = await closed;
      const answer = Buffer.concat(chunks).toString('utf8');
      expect(answer.match(/HTTP\/1\.1 /g), answer).toHaveLength(1);
      expect(statusAndBody(answer).status).toBe(200);
      expect(JSON.parse(statusAndBody(answer).body)).toEqual({ echoed: 1000 });
      expect(closedAfter).toBeGreaterThanOrEqual(2000 + 2000 - 50);
    } finally {
      await app.close();
    }
  });
});
