/**
 * A client that closes its connection before its request body is complete (issue 24, finding 10):
 * Node's `aborted` error carries `ECONNRESET`, which was read as a lost database connection: each
 * such upload raised `tariff_database_errors_total{kind="lost_connection"}` and logged "database
 * unavailable", even on SQLite, so any tenant could page the on-call. Now it is counted in
 * `tariff_client_aborts_total` and logged at info level as the client closing. Generated uploads
 * (route, declared length, bytes sent, how the client closes) over raw TCP to a real server
 * process, on each database of the run.
 */
import { connect } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testDatabaseKind } from '../helpers/databases.js';
import { useScratchServers } from '../helpers/scratch-servers.js';
import { callServer, type ServerProcess } from '../helpers/server.js';

const H = '/v1/rating/module_config/hashmap';

/** Routes that read a body, as a tenant or an operator may send them. */
const UPLOAD_ROUTES = ['/v2/rating/quote', '/v1/rating/quote', `${H}/services`, `${H}/groups`, '/v2/rating/price_list', '/v1/rating/modules/hashmap'];

/** The value of one sample line (`name{labels} value`) of a Prometheus text; 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/** One upload cut short: its headers declare `declared` bytes, `sent` of them come, then the client closes. */
interface CutUpload {
  route: string;
  method: 'POST' | 'PUT';
  declared: number;
  sent: number;
  /** `end`: the client ends its side (FIN); `destroy`: it drops the connection. */
  close: 'end' | 'destroy';
}

const cutUploads: fc.Arbitrary<CutUpload> = fc
  .record({
    route: fc.constantFrom(...UPLOAD_ROUTES),
    declared: fc.integer({ min: 2, max: 200_000 }),
    fraction: fc.double({ min: 0, max: 0.99, noNaN: true }),
    close: fc.constantFrom('end' as const, 'destroy' as const),
  })
  .map(({ route, declared, fraction, close }) => ({
    route,
    method: route.startsWith('/v1/rating/modules/') ? ('PUT' as const) : ('POST' as const),
    declared,
    sent: Math.min(declared - 1, Math.floor(declared * fraction)),
    close,
  }));

describe(`a client that closes before its body is complete, on ${testDatabaseKind()}`, () => {
  const running = useScratchServers('client-aborts', 1, { TARIFF_LOG_LEVEL: 'info' });
  const server = (): ServerProcess => running.servers[0];

  /** Sends the upload's head and first bytes, waits until they have left, and closes; resolves once the socket is closed. */
  function sendCut(upload: CutUpload): Promise<void> {
    return new Promise((resolve) => {
      const socket = connect({ port: server().port, host: '127.0.0.1' });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve());
      // Reads (and drops) whatever the server answers, so that its close is seen.
      socket.resume();
      const head =
        `${upload.method} ${upload.route} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` + `Content-Length: ${upload.declared}\r\n\r\n`;
      socket.write(head + '{'.padEnd(upload.sent, ' ').slice(0, upload.sent), () => {
        // Let the server start reading the body before the client goes.
        setTimeout(() => (upload.close === 'end' ? socket.end() : socket.destroy()), 20);
      });
    });
  }

  async function metrics(): Promise<string> {
    const answer = await callServer(server(), 'GET', '/metrics');
    expect(answer.status).toBe(200);
    return String(answer.body);
  }

  it('counts cut uploads as client aborts, never as database failures, and keeps serving', { timeout: 120_000 }, async () => {
    let uploads = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(cutUploads, { minLength: 1, maxLength: 5 }), async (batch) => {
        await Promise.all(batch.map((upload) => sendCut(upload)));
        uploads += batch.length;
      }),
      { numRuns: 20, endOnFailure: true },
    );
    // The server may see the close a moment after the client: wait until every abort is counted.
    let text = await metrics();
    for (let waited = 0; sample(text, 'tariff_client_aborts_total') < uploads && waited < 10_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      text = await metrics();
    }
    expect(sample(text, 'tariff_database_errors_total{kind="lost_connection"}')).toBe(0);
    expect(sample(text, 'tariff_database_errors_total{kind="timeout"}')).toBe(0);
    expect(server().output()).not.toContain('database unavailable');
    expect(sample(text, 'tariff_client_aborts_total')).toBe(uploads);
    expect(server().output()).toContain('client closed the connection before its request body was complete');
    // The database is fine and the server still answers.
    const created = await callServer(server(), 'POST', `${H}/services`, { name: 'compute' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  });
});
