/**
 * Forwarding on the wire (issue 23, class 6), a real Tariff process in front of a local upstream
 * that echoes what it receives: which headers cross each way, bodies of every method, the path and
 * query verbatim under the URL's path prefix, Tariff's own routes and unknown paths never
 * forwarded, CloudKitty's error answers passed once (no retries), the upload limit, and the 404
 * naming the setting when it is unset.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../helpers/server.js';
import { echoUpstream, type ReceivedRequest, type Upstream } from './upstreams.js';
import { send } from './http.js';

const REQUEST_ID = 'req-0b5c2f7e-8a52-4c1e-9d3a-6f1e2d3c4b5a';

describe('forwarding on the wire', () => {
  let directory: string;
  let upstream: Upstream;
  let tariff: ServerProcess;
  let unset: ServerProcess;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-forward-wire-'));
    upstream = await echoUpstream();
    [tariff, unset] = await Promise.all([
      startServerProcess(`sqlite:${join(directory, 'forwarding.db')}`, {
        TARIFF_CLOUDKITTY_API_URL: `${upstream.url}/rating/`,
        TARIFF_CLOUDKITTY_BODY_LIMIT_MB: '1',
      }),
      startServerProcess(`sqlite:${join(directory, 'unset.db')}`),
    ]);
  });

  afterAll(async () => {
    await Promise.all([tariff?.stop(), unset?.stop()]);
    await upstream?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  /** The one request the upstream received for `call`. */
  async function received(call: () => Promise<unknown>): Promise<ReceivedRequest> {
    const before = upstream.received.length;
    await call();
    expect(upstream.received.length - before).toBe(1);
    return upstream.received[upstream.received.length - 1];
  }

  it('passes the end-to-end headers and drops the hop-by-hop ones, both ways', async () => {
    let answer: Awaited<ReturnType<typeof send>> | undefined;
    const seen = await received(async () => {
      answer = await send(tariff.url, 'GET', '/v1/report/summary?tenant_id=abc&groupby=res_type', {
        headers: {
          'X-Auth-Token': 'gAAAAAB-a-token-of-the-caller',
          'X-Openstack-Request-Id': REQUEST_ID,
          Accept: 'application/json',
          'Accept-Language': 'fr',
          'User-Agent': 'python-cloudkittyclient',
          'X-Roles': 'admin',
          Connection: 'keep-alive, X-Caller-Private',
          'X-Caller-Private': 'for Tariff only',
          'Keep-Alive': 'timeout=300',
          TE: 'trailers',
          'Proxy-Authorization': 'Basic c2VjcmV0',
          'Proxy-Connection': 'keep-alive',
        },
      });
    });
    expect(seen.method).toBe('GET');
    expect(seen.url).toBe('/rating/v1/report/summary?tenant_id=abc&groupby=res_type');
    expect(seen.headers['x-auth-token']).toBe('gAAAAAB-a-token-of-the-caller');
    expect(seen.headers['x-openstack-request-id']).toBe(REQUEST_ID);
    expect(seen.headers.accept).toBe('application/json');
    expect(seen.headers['accept-language']).toBe('fr');
    expect(seen.headers['user-agent']).toBe('python-cloudkittyclient');
    expect(seen.headers['x-roles']).toBe('admin');
    expect(seen.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen.headers['x-forwarded-proto']).toBe('http');
    expect(seen.headers['x-forwarded-host']).toBe(`127.0.0.1:${tariff.port}`);
    expect(seen.headers.host).toBe(`127.0.0.1:${upstream.port}`);
    for (const name of ['x-caller-private', 'keep-alive', 'te', 'proxy-authorization', 'proxy-connection']) {
      expect(seen.headers[name], name).toBeUndefined();
    }
    expect(answer!.status).toBe(200);
    expect(answer!.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(answer!.headers['x-upstream-public']).toBe('end-to-end');
    expect(answer!.headers['x-upstream-private']).toBeUndefined();
    // Tariff's own keep-alive answer, not the upstream's `timeout=5`.
    expect(answer!.headers['keep-alive']).not.toBe('timeout=5');
    expect(answer!.headers['x-openstack-request-id']).toBe(REQUEST_ID);
    expect(JSON.parse(answer!.text).url).toBe(seen.url);
  });

  it("keeps the console's session cookie from CloudKitty, handing its token on as X-Auth-Token", async () => {
    const seen = await received(() =>
      send(tariff.url, 'GET', '/v1/report/total', {
        headers: { Cookie: 'theme=dark; tariff_session=gAAAAAB-session-token; lang=fr', 'X-Tariff-Console': '1' },
      }),
    );
    expect(seen.headers['x-auth-token']).toBe('gAAAAAB-session-token');
    expect(seen.headers.cookie).toBe('theme=dark; lang=fr');
    // Without the console's header the cookie stands for nothing, but is still Tariff's alone.
    const plain = await received(() => send(tariff.url, 'GET', '/v1/report/total', { headers: { Cookie: 'tariff_session=gAAAAAB-session-token' } }));
    expect(plain.headers['x-auth-token']).toBeUndefined();
    expect(plain.headers.cookie).toBeUndefined();
    // An X-Auth-Token sent wins over the cookie, as in Tariff's own routes.
    const both = await received(() =>
      send(tariff.url, 'GET', '/v1/report/total', {
        headers: { Cookie: 'tariff_session=gAAAAAB-session-token', 'X-Tariff-Console': '1', 'X-Auth-Token': 'gAAAAAB-header' },
      }),
    );
    expect(both.headers['x-auth-token']).toBe('gAAAAAB-header');
  });

  it("sends Tariff's request id upstream and back when the caller's is missing or malformed", async () => {
    let answer: Awaited<ReturnType<typeof send>> | undefined;
    const seen = await received(async () => {
      answer = await send(tariff.url, 'GET', '/v1/info/config', { headers: { 'X-Openstack-Request-Id': 'not-a-request-id' } });
    });
    expect(seen.headers['x-openstack-request-id']).toMatch(/^req-[0-9a-f-]{36}$/);
    expect(answer!.headers['x-openstack-request-id']).toBe(seen.headers['x-openstack-request-id']);
  });

  it("forwards the bodies of every method: a GET's (WSME reads it), a DELETE's, a PUT's, a chunked POST's", async () => {
    const state = await received(() =>
      send(tariff.url, 'GET', '/v1/collector/states/', { headers: { 'Content-Type': 'application/json' }, body: '{"name": "gnocchi"}' }),
    );
    expect([state.method, state.url, state.headers['content-type'], state.body]).toEqual([
      'GET',
      '/rating/v1/collector/states/',
      'application/json',
      '{"name": "gnocchi"}',
    ]);

    const removal = await received(() =>
      send(tariff.url, 'DELETE', '/v1/collector/mappings', { headers: { 'Content-Type': 'application/json' }, body: '{"service": "compute"}' }),
    );
    expect([removal.method, removal.body]).toEqual(['DELETE', '{"service": "compute"}']);

    const update = await received(() => send(tariff.url, 'PUT', '/v2/scope', { headers: { 'Content-Type': 'application/json' }, body: '{"scope_id": "s"}' }));
    expect([update.method, update.body]).toEqual(['PUT', '{"scope_id": "s"}']);

    // Streamed in pieces without a length: CloudKitty gets every byte, whatever the content type.
    const pieces = Array.from({ length: 64 }, (_, index) => `${String(index).padStart(1000, '.')}\n`);
    const upload = await received(() => send(tariff.url, 'POST', '/v2/dataframes', { headers: { 'Content-Type': 'text/csv' }, body: Readable.from(pieces) }));
    expect([upload.method, upload.headers['content-type'], upload.bodyBytes]).toEqual(['POST', 'text/csv', 64 * 1001]);
    expect(upload.body).toBe(pieces.join(''));

    const unparsed = await received(() => send(tariff.url, 'PATCH', '/v2/scope', { body: 'not json at all' }));
    expect([unparsed.method, unparsed.body]).toEqual(['PATCH', 'not json at all']);
  });

  it('passes an answer of CloudKitty in error as it is, once (no retry of a 503)', async () => {
    const before = upstream.received.length;
    const answer = await send(tariff.url, 'GET', '/v2/summary/status/503');
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.text).url).toBe('/rating/v2/summary/status/503');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(upstream.received.length - before).toBe(1);
    expect((await send(tariff.url, 'POST', '/v1/collector/mappings/status/409', { body: '{}' })).status).toBe(409);
  });

  it("keeps Tariff's own routes and leaves paths CloudKitty does not serve a 404", async () => {
    const before = upstream.received.length;
    const modules = await send(tariff.url, 'GET', '/v1/rating/modules');
    expect(modules.status).toBe(200);
    expect(JSON.parse(modules.text).modules.map((module: { module_id: string }) => module.module_id)).toContain('hashmap');
    expect((await send(tariff.url, 'GET', '/v2/rating/modules')).status).toBe(200);
    for (const path of ['/v2/summaryx', '/v1/reports', '/v3/summary', '/v1/rating/report']) {
      const answer = await send(tariff.url, 'GET', path);
      expect(answer.status, path).toBe(404);
      expect(JSON.parse(answer.text).faultstring).toBe(`Resource not found: GET ${path}`);
    }
    expect(upstream.received.length).toBe(before);
  });

  it("never reaches CloudKitty's other paths through a dot-dot segment", async () => {
    const before = upstream.received.length;
    for (const path of ['/v1/info/%2e%2e/rating/modules', '/v1/report/%2E%2E/%2E%2E/v1/rating/module_config/hashmap/services']) {
      const answer = await send(tariff.url, 'GET', path);
      expect(answer.status, path).toBe(400);
      expect(JSON.parse(answer.text).faultcode).toBe('Client');
    }
    expect(upstream.received.length).toBe(before);
  });

  it('refuses an upload over TARIFF_CLOUDKITTY_BODY_LIMIT_MB with a 413, forwarding nothing', async () => {
    const before = upstream.received.length;
    const declared = await send(tariff.url, 'POST', '/v2/dataframes', {
      headers: { 'Content-Type': 'application/json' },
      body: Buffer.alloc(1024 * 1024 + 1, 'x'),
    });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.text)).toEqual({
      faultcode: 'Client',
      faultstring: 'Request body is too large: at most 1048576 bytes are accepted here.',
      debuginfo: null,
    });
    expect(upstream.received.length).toBe(before);
    // Streamed without a length, the forwarding has begun when the limit is crossed: the caller
    // still gets the 413 and CloudKitty a request cut short, never the whole body.
    const streamed = await send(tariff.url, 'POST', '/v2/dataframes', { body: Readable.from(Array.from({ length: 40 }, () => Buffer.alloc(64 * 1024, 'y'))) });
    expect(streamed.status).toBe(413);
    expect(upstream.received.slice(before).every((request) => request.bodyBytes <= 1024 * 1024)).toBe(true);
  });

  it('answers a 404 naming TARIFF_CLOUDKITTY_API_URL when it is not set', async () => {
    for (const [method, path] of [
      ['GET', '/v1/report/summary'],
      ['GET', '/v1/info/config/'],
      ['POST', '/v1/collector/mappings'],
      ['GET', '/v2/summary'],
      ['DELETE', '/v2/task/reprocesses'],
    ]) {
      const answer = await send(unset.url, method, path, { headers: { 'Content-Type': 'application/json' }, body: method === 'GET' ? undefined : '{"a": 1}' });
      expect(answer.status, path).toBe(404);
      expect(JSON.parse(answer.text)).toEqual({
        faultcode: 'Client',
        faultstring: `Resource not found: ${method} ${path}; CloudKitty's API is not configured (TARIFF_CLOUDKITTY_API_URL).`,
        debuginfo: null,
      });
    }
    expect((await send(unset.url, 'GET', '/v1/rating/modules')).status).toBe(200);
  });
});
