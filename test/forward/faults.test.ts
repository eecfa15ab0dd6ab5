/**
 * Forwarding when CloudKitty's API is down, slow or breaks off (issue 23, "Forwarding under
 * faults"), a real Tariff process in front of local upstreams: nothing listening → 502 at once; a
 * listener that never accepts → 502 within TARIFF_CLOUDKITTY_CONNECT_TIMEOUT; one that never
 * answers → 504 within TARIFF_CLOUDKITTY_TIMEOUT while Tariff's own routes answer; back → forwarded
 * again without a restart; an answer cut midway cuts the caller's; each counted in
 * `tariff_forward_errors_total`. And a 200 MB answer passes with Tariff's memory bounded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startServerProcess, type ServerProcess } from '../helpers/server.js';
import { echoUpstream, silentUpstream, streamingUpstream, type Upstream } from './upstreams.js';
import { send, seriesValue } from './http.js';

/** `tariff_forward_errors_total` of `kind` in the server's metrics. */
async function forwardErrors(server: ServerProcess, kind: string): Promise<number> {
  const text = (await send(server.url, 'GET', '/metrics')).text;
  return seriesValue(text, `tariff_forward_errors_total{kind="${kind}"}`);
}

/** A field of /proc/<pid>/status in bytes (`VmRSS`, `VmHWM`). */
function memoryOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((candidate) => candidate.startsWith(`${field}:`));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? NaN) * 1024;
}

/**
 * A TCP listener that never accepts, its backlog filled by connections held open: a further
 * connection is neither accepted nor refused, as a host that drops packets (Python: Node's
 * servers always accept).
 */
async function unacceptingListener(): Promise<{ port: number; close(): void }> {
  const child: ChildProcess = spawn(
    'python3',
    ['-c', 'import socket,sys,time\ns=socket.socket();s.bind(("127.0.0.1",0));s.listen(0)\nprint(s.getsockname()[1],flush=True)\ntime.sleep(600)'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once('error', reject);
  });
  const held: Socket[] = [];
  for (let index = 0; index < 3; index += 1) {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    held.push(socket);
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  return {
    port,
    close() {
      for (const socket of held) socket.destroy();
      child.kill('SIGKILL');
    },
  };
}

describe('forwarding under faults', () => {
  let directory: string;
  const servers: ServerProcess[] = [];
  const upstreams: Upstream[] = [];

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-forward-faults-'));
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await Promise.all(upstreams.map((upstream) => upstream.close()));
    rmSync(directory, { recursive: true, force: true });
  });

  async function tariffBefore(url: string, environment: Record<string, string> = {}): Promise<ServerProcess> {
    const server = await startServerProcess(`sqlite:${join(directory, `tariff-${servers.length}.db`)}`, { TARIFF_CLOUDKITTY_API_URL: url, ...environment });
    servers.push(server);
    return server;
  }

  it('answers 502 at once while nothing listens, and forwards again once CloudKitty is back, without a restart', async () => {
    const port = await freePort();
    const tariff = await tariffBefore(`http://127.0.0.1:${port}`);
    const down = await send(tariff.url, 'GET', '/v1/report/summary');
    expect(down.status).toBe(502);
    expect(down.milliseconds).toBeLessThan(1000);
    expect(JSON.parse(down.text)).toEqual({
      faultcode: 'Server',
      faultstring: "CloudKitty's API is unreachable: connection refused (ECONNREFUSED, TARIFF_CLOUDKITTY_API_URL); GET /v1/report/summary was not forwarded.",
      debuginfo: null,
    });
    expect(down.headers['x-openstack-request-id']).toMatch(/^req-/);
    expect(await forwardErrors(tariff, 'unreachable')).toBe(1);
    // Tariff's own routes do not notice.
    expect((await send(tariff.url, 'GET', '/v1/rating/modules')).status).toBe(200);

    const upstream = await echoUpstream(port);
    upstreams.push(upstream);
    const back = await send(tariff.url, 'GET', '/v1/report/summary');
    expect(back.status).toBe(200);
    expect(JSON.parse(back.text).url).toBe('/v1/report/summary');
    expect(await forwardErrors(tariff, 'unreachable')).toBe(1);
  });

  it('answers 502 within TARIFF_CLOUDKITTY_CONNECT_TIMEOUT when connections are neither accepted nor refused', async () => {
    const listener = await unacceptingListener();
    try {
      const tariff = await tariffBefore(`http://127.0.0.1:${listener.port}`, { TARIFF_CLOUDKITTY_CONNECT_TIMEOUT: '1', TARIFF_CLOUDKITTY_TIMEOUT: '30' });
      const answer = await send(tariff.url, 'GET', '/v2/summary');
      expect(answer.status).toBe(502);
      expect(answer.milliseconds).toBeGreaterThanOrEqual(900);
      expect(answer.milliseconds).toBeLessThan(5000);
      expect(JSON.parse(answer.text).faultstring).toBe(
        "CloudKitty's API is unreachable: no connection within 1 s (TARIFF_CLOUDKITTY_CONNECT_TIMEOUT); GET /v2/summary was not forwarded.",
      );
      expect(await forwardErrors(tariff, 'unreachable')).toBe(1);
    } finally {
      listener.close();
    }
  });

  it("answers 504 within TARIFF_CLOUDKITTY_TIMEOUT when CloudKitty never answers, Tariff's routes answering meanwhile", async () => {
    const upstream = await silentUpstream();
    upstreams.push(upstream);
    const tariff = await tariffBefore(upstream.url, { TARIFF_CLOUDKITTY_TIMEOUT: '1.5' });
    const slow = Array.from({ length: 5 }, () => send(tariff.url, 'GET', '/v1/storage/dataframes'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const own = await send(tariff.url, 'GET', '/v1/rating/module_config/hashmap/services');
    expect(own.status).toBe(200);
    expect(own.milliseconds).toBeLessThan(1000);
    for (const answer of await Promise.all(slow)) {
      expect(answer.status).toBe(504);
      expect(answer.milliseconds).toBeGreaterThanOrEqual(1400);
      expect(answer.milliseconds).toBeLessThan(5000);
      expect(JSON.parse(answer.text)).toEqual({
        faultcode: 'Server',
        faultstring: "CloudKitty's API did not answer GET /v1/storage/dataframes within 1.5 s (TARIFF_CLOUDKITTY_TIMEOUT).",
        debuginfo: null,
      });
    }
    expect(upstream.received.length).toBe(5);
    expect(await forwardErrors(tariff, 'timeout')).toBe(5);
  });

  it('counts the wait for one of TARIFF_CLOUDKITTY_CONNECTIONS in TARIFF_CLOUDKITTY_TIMEOUT', async () => {
    const upstream = await silentUpstream();
    upstreams.push(upstream);
    const tariff = await tariffBefore(upstream.url, { TARIFF_CLOUDKITTY_TIMEOUT: '2', TARIFF_CLOUDKITTY_CONNECTIONS: '1' });
    const answers = await Promise.all(Array.from({ length: 3 }, () => send(tariff.url, 'GET', '/v2/scope')));
    // One connection, three requests: each 504 about 2 s after it was forwarded, the wait for the
    // connection included; timed from getting the connection they would end at 2, 4 and 6 s.
    for (const answer of answers) {
      expect(answer.status).toBe(504);
      expect(answer.milliseconds).toBeGreaterThanOrEqual(1900);
      expect(answer.milliseconds).toBeLessThan(3500);
    }
  });

  it("cuts the caller's connection when CloudKitty's answer breaks off midway, and counts it", async () => {
    const server: Server = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000000' });
      response.write('{"dataframes": [');
      setTimeout(() => response.socket?.destroy(), 100);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const tariff = await tariffBefore(`http://127.0.0.1:${port}`);
      const outcome = await send(tariff.url, 'GET', '/v1/storage/dataframes').then(
        (answer) => `answered ${answer.status} with ${answer.body.length} bytes`,
        (error: Error) => `cut: ${error.message}`,
      );
      expect(outcome).toMatch(/^cut: /);
      await expect.poll(() => forwardErrors(tariff, 'answer_cut')).toBe(1);
      expect((await send(tariff.url, 'GET', '/v1/rating/modules')).status).toBe(200);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('counts nothing against CloudKitty when the caller hangs up midway through its answer', async () => {
    const upstream = await streamingUpstream(64 * 1024 * 1024);
    upstreams.push(upstream);
    const tariff = await tariffBefore(upstream.url);
    const controller = new AbortController();
    const response = await fetch(`${tariff.url}/v1/storage/dataframes`, { signal: controller.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await forwardErrors(tariff, 'answer_cut')).toBe(0);
    expect((await send(tariff.url, 'GET', '/v1/storage/dataframes', { timeoutMs: 60_000 })).body.length).toBe(64 * 1024 * 1024);
  });

  it("passes a 200 MB answer with Tariff's memory growing by less than 50 MB", async () => {
    const size = 200 * 1024 * 1024;
    const upstream = await streamingUpstream(size);
    upstreams.push(upstream);
    const tariff = await tariffBefore(upstream.url);
    const pid = tariff.child.pid!;
    // Warm up the path (JIT, buffers), then measure from there.
    for (let index = 0; index < 3; index += 1) await (await fetch(`${tariff.url}/v2/dataframes`)).arrayBuffer();
    const rssBefore = memoryOf(pid, 'VmRSS');
    const peakBefore = memoryOf(pid, 'VmHWM');
    let rssHighest = rssBefore;
    const sampler = setInterval(() => (rssHighest = Math.max(rssHighest, memoryOf(pid, 'VmRSS'))), 20);
    let received = 0;
    try {
      const response = await fetch(`${tariff.url}/v2/dataframes`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-length')).toBe(String(size));
      for await (const chunk of response.body!) received += (chunk as Uint8Array).length;
    } finally {
      clearInterval(sampler);
    }
    const peakAfter = memoryOf(pid, 'VmHWM');
    expect(received).toBe(size);
    const growth = Math.max(rssHighest - rssBefore, peakAfter - peakBefore);
    console.log(
      `200 MB answer: Tariff RSS ${(rssBefore / 2 ** 20).toFixed(1)} MB before, at most ${(rssHighest / 2 ** 20).toFixed(1)} MB during; ` +
        `VmHWM ${(peakBefore / 2 ** 20).toFixed(1)} → ${(peakAfter / 2 ** 20).toFixed(1)} MB`,
    );
    expect(growth).toBeLessThan(50 * 1024 * 1024);
  }, 120_000);
});
