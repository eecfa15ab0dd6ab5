/**
 * Small local HTTP servers standing in for CloudKitty's API where the real one cannot show a
 * behaviour: one that echoes what it received, one that never answers, one that streams a large
 * answer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running local upstream. */
export interface Upstream {
  url: string;
  port: number;
  /** The requests received so far. */
  received: ReceivedRequest[];
  close(): Promise<void>;
}

/** What the echoing upstream saw of one request. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  /** Raw header lines, names as sent. */
  rawHeaders: string[];
  bodyBytes: number;
  body: string;
}

async function listen(handler: (request: IncomingMessage, response: ServerResponse) => void, port = 0): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

/**
 * Answers every request 200 with JSON `{method, url, headers, body}` of what it received (the
 * body's first 64 KiB as text, and its length), plus hop-by-hop headers of its own in the answer
 * (`Keep-Alive`, `Connection: X-Upstream-Private`, `X-Upstream-Private`) that must not
 * reach the caller. A path ending in `/status/<code>` answers that code.
 */
export async function echoUpstream(port = 0): Promise<Upstream> {
  const received: ReceivedRequest[] = [];
  const { server, port: bound } = await listen((request, response) => {
    const chunks: Buffer[] = [];
    let bodyBytes = 0;
    request.on('data', (chunk: Buffer) => {
      bodyBytes += chunk.length;
      if (bodyBytes <= 65536) chunks.push(chunk);
    });
    request.on('end', () => {
      const seen: ReceivedRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        rawHeaders: request.rawHeaders,
        bodyBytes,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(seen);
      const status = /\/status\/(\d{3})$/.exec(request.url ?? '')?.[1];
      response.writeHead(status ? Number(status) : 200, {
        'content-type': 'application/json; charset=UTF-8',
        'keep-alive': 'timeout=5',
        connection: 'X-Upstream-Private',
        'x-upstream-private': 'hop',
        'x-upstream-public': 'end-to-end',
        'x-openstack-request-id': 'req-00000000-0000-0000-0000-000000000000',
      });
      response.end(JSON.stringify(seen));
    });
  }, port);
  return { url: `http://127.0.0.1:${bound}`, port: bound, received, close: closer(server) };
}

/** Accepts connections and reads requests but never answers. */
export async function silentUpstream(): Promise<Upstream> {
  const received: ReceivedRequest[] = [];
  const { server, port } = await listen((request) => {
    received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, rawHeaders: request.rawHeaders, bodyBytes: 0, body: '' });
    request.resume();
  });
  return { url: `http://127.0.0.1:${port}`, port, received, close: closer(server) };
}

/**
 * Answers every request with `bytes` bytes (`application/octet-stream`, with a `Content-Length`),
 * written as fast as the reader takes them: Node's stream back-pressure keeps at most a few
 * 64 KiB pieces ahead of the reader.
 */
export async function streamingUpstream(bytes: number): Promise<Upstream> {
  const piece = Buffer.alloc(64 * 1024, 'x');
  const { server, port } = await listen((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes) });
    let left = bytes;
    const pump = (): void => {
      while (left > 0) {
        const size = Math.min(left, piece.length);
        left -= size;
        const more = response.write(size === piece.length ? piece : piece.subarray(0, size));
        if (left === 0) response.end();
        else if (!more) {
          response.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
  return { url: `http://127.0.0.1:${port}`, port, received: [], close: closer(server) };
}

/** A stand-in for InfluxDB 1.x, enough for CloudKitty's v2 storage to run with nothing stored. */
export interface FakeInfluxDb extends Upstream {
  /** Line-protocol bodies received by `/write`. */
  writes: string[];
}

/**
 * InfluxDB 1.x's HTTP API as CloudKitty's `influxdb` storage uses it, storing nothing: `/ping`
 * 204, `/write` 204 (its body kept), `/query` an empty result for each `;`-separated statement.
 * The real CloudKitty then serves its v2 API (summary, dataframes, scope) instead of switching it
 * off as it does on the v1 storage.
 */
export async function fakeInfluxDb(): Promise<FakeInfluxDb> {
  const writes: string[] = [];
  const { server, port } = await listen((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://influxdb');
      const headers = { 'x-influxdb-version': '1.8.10' };
      if (url.pathname === '/ping') return response.writeHead(204, headers).end();
      if (url.pathname === '/write') {
        writes.push(body);
        return response.writeHead(204, headers).end();
      }
      const query = url.searchParams.get('q') ?? new URLSearchParams(body).get('q') ?? '';
      const statements = Math.max(1, query.split(';').filter((statement) => statement.trim()).length);
      response.writeHead(200, { ...headers, 'content-type': 'application/json' });
      response.end(JSON.stringify({ results: Array.from({ length: statements }, (_, index) => ({ statement_id: index })) }));
    });
  });
  return { url: `http://127.0.0.1:${port}`, port, received: [], writes, close: closer(server) };
}
