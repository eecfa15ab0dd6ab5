/**
 * The database dropped under a running server (issue 24): PostgreSQL's `DROP DATABASE ... WITH
 * (FORCE)` ends the server's connections (57P01) and every new one is refused with 3D000
 * (`invalid_catalog_name`); MariaDB's `DROP DATABASE` leaves the connections open on a database
 * that is gone (1146, 1049 on a new one). Each was a 500; like every other database outage it is
 * a 503 with the fault body, and the process lives on. Reads (a quote, a listing) and writes,
 * several times each, so that both the pooled connections and new ones are seen. PostgreSQL and
 * MariaDB only: SQLite keeps reading a deleted file it has open.
 */
import { describe, expect, it } from 'vitest';
import { databaseHas } from '../helpers/database-kind.js';
import { testDatabaseKind } from '../helpers/databases.js';
import { useScratchServers } from '../helpers/scratch-servers.js';
import { callServer, type ServerProcess } from '../helpers/server.js';

const H = '/v1/rating/module_config/hashmap';
const kind = testDatabaseKind();

describe.runIf(databaseHas('server'))(`a ${kind} database dropped under a running server`, () => {
  const running = useScratchServers('dropped', 1, { TARIFF_DB_TIMEOUT: '3' });
  const server = (): ServerProcess => running.servers[0];

  it('answers 503 with the fault body, never 500, and lives on', { timeout: 90_000 }, async () => {
    expect((await callServer(server(), 'POST', `${H}/services`, { name: 'compute' })).status).toBe(201);
    // Several pooled connections open before the drop.
    await Promise.all(Array.from({ length: 6 }, () => callServer(server(), 'GET', `${H}/services`)));
    await running.scratch.drop();
    const requests: [string, string, unknown][] = [
      ['GET', `${H}/services`, undefined],
      ['POST', `${H}/services`, { name: 'storage' }],
      ['POST', '/v2/rating/quote', { usage: { compute: [{ vol: { unit: 'instance', qty: '1' } }] } }],
      ['GET', '/v1/rating/reload_modules', undefined],
      ['POST', '/v2/rating/quote', { usage: { compute: [{ vol: { unit: 'instance', qty: '1' } }] } }],
      ['GET', '/v2/rating/price_list', undefined],
    ];
    const answers = [];
    for (let round = 0; round < 3; round += 1) {
      for (const [method, path, body] of requests) answers.push({ method, path, ...(await callServer(server(), method, path, body)) });
    }
    const refused = answers.filter((answer) => answer.status !== 204);
    for (const answer of refused) {
      const context = `${answer.method} ${answer.path}: ${answer.status} ${JSON.stringify(answer.body)}`;
      expect(answer.status, context).toBe(503);
      expect(answer.body, context).toMatchObject({
        faultcode: 'Server',
        faultstring: expect.stringMatching(/^The database is unavailable: .*Try again later\.$/),
      });
    }
    expect(server().child.exitCode).toBeNull();
  });
});
