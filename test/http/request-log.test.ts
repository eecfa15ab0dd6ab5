/**
 * The access log (src/http/request-log.ts) through `inject`, with the process's real logger
 * (kernel/logger.ts) writing into the test: one line per request with method, URL, route, status,
 * duration, request id and acting user; every fault's message on it, a 4xx at info, a 5xx at
 * error with its error's stack, a 503 that sheds load at warn without one; `/healthcheck` and
 * `/metrics` only at debug; nothing of Fastify's own "incoming request" at info.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildApp, type TariffApp } from '../../src/http/app.js';
import { createLoggers } from '../../src/kernel/logger.js';
import { TariffError } from '../../src/kernel/errors.js';
import { TariffMetrics } from '../../src/kernel/metrics.js';

interface LogEntry {
  level: number;
  msg: string;
  reqId?: string;
  [field: string]: unknown;
}

let app: TariffApp | undefined;

/** An app whose routes fail as asked, logging at `level` into the returned list. */
async function loggingApp(level: string): Promise<{ app: TariffApp; entries: LogEntry[] }> {
  const entries: LogEntry[] = [];
  const { logger } = createLoggers({ logLevel: level, logFormat: 'json' }, { write: (line: string) => void entries.push(JSON.parse(line)) });
  const busy = Object.assign(new TariffError(503, 'Too many price-list reads at once; try again shortly.'), { retryAfterSeconds: 2 });
  app = await buildApp({
    config: loadConfig({}),
    loggerInstance: logger,
    metrics: new TariffMetrics(),
    routes: async (instance) => {
      instance.get('/test/ok', async () => ({ ok: true }));
      instance.get('/test/bug', async () => {
        throw new TypeError("Cannot read properties of undefined (reading 'cost')");
      });
      instance.get('/test/unavailable', async () => {
        throw new TariffError(503, 'The PyScripts sandbox failed: worker crashed');
      });
      instance.get('/test/busy', async () => {
        throw busy;
      });
      instance.get('/test/refused/:name', async (request) => {
        throw new TariffError(422, `Script ${(request.params as { name: string }).name} failed: PermissionError: [Errno 63] Operation not permitted`);
      });
    },
  });
  await app.ready();
  return { app, entries };
}

afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** The access-log lines of the request `requestId`. */
function linesOf(entries: LogEntry[], requestId: string): LogEntry[] {
  return entries.filter((entry) => entry.reqId === requestId);
}

describe('the access log', () => {
  it('writes one line per request, with method, URL, route, status, duration, request id and user', async () => {
    const { app, entries } = await loggingApp('info');
    const answer = await app.inject({ method: 'GET', url: '/test/ok?x=1', headers: { 'x-user-id': 'alice' } });
    expect(answer.statusCode).toBe(200);
    const requestId = String(answer.headers['x-openstack-request-id']);
    const lines = linesOf(entries, requestId);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, msg: 'request completed', method: 'GET', url: '/test/ok?x=1', route: '/test/ok', status: 200, user: 'alice' });
    expect(lines[0].duration_ms).toEqual(expect.any(Number));
    expect(lines[0]).not.toHaveProperty('fault');
    expect(entries.some((entry) => entry.msg === 'incoming request')).toBe(false);
  });

  it("logs a 4xx fault's message at info, on the request's line", async () => {
    const { app, entries } = await loggingApp('info');
    const refused = await app.inject({ method: 'GET', url: '/test/refused/evil' });
    expect(refused.statusCode).toBe(422);
    const unknown = await app.inject({ method: 'GET', url: '/nowhere' });
    expect(unknown.statusCode).toBe(404);
    expect(linesOf(entries, String(refused.headers['x-openstack-request-id']))).toEqual([
      expect.objectContaining({
        level: 30,
        status: 422,
        fault: 'Script evil failed: PermissionError: [Errno 63] Operation not permitted',
      }),
    ]);
    expect(linesOf(entries, String(unknown.headers['x-openstack-request-id']))).toEqual([
      expect.objectContaining({ level: 30, status: 404, fault: 'Resource not found: GET /nowhere' }),
    ]);
  });

  it("logs a 5xx at error with its error's stack, and a 503 that sheds load at warn without one", async () => {
    const { app, entries } = await loggingApp('info');
    const bug = await app.inject({ method: 'GET', url: '/test/bug' });
    expect(bug.statusCode).toBe(500);
    const [bugLine] = linesOf(entries, String(bug.headers['x-openstack-request-id']));
    expect(bugLine).toMatchObject({ level: 50, status: 500, fault: 'The server could not complete the request; the error is in its log.' });
    expect(bugLine.err).toMatchObject({ type: 'TypeError', message: "Cannot read properties of undefined (reading 'cost')" });
    expect((bugLine.err as { stack: string }).stack).toMatch(/\n\s+at /);

    const unavailable = await app.inject({ method: 'GET', url: '/test/unavailable' });
    expect(linesOf(entries, String(unavailable.headers['x-openstack-request-id']))).toEqual([
      expect.objectContaining({
        level: 50,
        status: 503,
        fault: 'The PyScripts sandbox failed: worker crashed',
        err: expect.objectContaining({ type: 'TariffError' }),
      }),
    ]);

    const busy = await app.inject({ method: 'GET', url: '/test/busy' });
    expect(busy.headers['retry-after']).toBe('2');
    const busyLines = linesOf(entries, String(busy.headers['x-openstack-request-id']));
    expect(busyLines).toEqual([expect.objectContaining({ level: 40, status: 503, fault: 'Too many price-list reads at once; try again shortly.' })]);
    expect(busyLines[0]).not.toHaveProperty('err');
  });

  it('writes the health checks and scrapes only at debug level', async () => {
    const quiet = await loggingApp('info');
    for (const url of ['/healthcheck', '/healthcheck/', '/metrics']) expect((await quiet.app.inject({ method: 'GET', url })).statusCode).toBe(200);
    expect((await quiet.app.inject({ method: 'HEAD', url: '/healthcheck' })).statusCode).toBe(204);
    expect(quiet.entries).toEqual([]);
    await quiet.app.close();

    const verbose = await loggingApp('debug');
    const answer = await verbose.app.inject({ method: 'GET', url: '/healthcheck' });
    const lines = linesOf(verbose.entries, String(answer.headers['x-openstack-request-id']));
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      [20, 'incoming request'],
      [20, 'request completed'],
    ]);
  });

  it('logs nothing of a request at warn unless it failed on the server', async () => {
    const { app, entries } = await loggingApp('warn');
    await app.inject({ method: 'GET', url: '/test/ok' });
    await app.inject({ method: 'GET', url: '/test/refused/evil' });
    expect(entries).toEqual([]);
    await app.inject({ method: 'GET', url: '/test/bug' });
    expect(entries.map((entry) => [entry.level, entry.status])).toEqual([[50, 500]]);
  });
});
