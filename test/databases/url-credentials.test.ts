/**
 * The database URL's credentials never leave a real process (issue 24, finding 8): a server on a
 * URL whose password holds `@` and `:` and whose query names a `password`, shown by
 * `/healthcheck?detailed` (anyone's in noauth mode), the start-up log line, and
 * `tariff status upgrade check`. PostgreSQL only: its trust authentication (127.0.0.1) lets any
 * password in, where MariaDB's root has none and SQLite has no credentials to leak.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseIs } from '../helpers/database-kind.js';
import { createScratchDatabase, type ScratchDatabase } from '../helpers/databases.js';
import { runTariffWith, startServerProcess, type ServerProcess } from '../helpers/server.js';

const PASSWORD = 'Qz7p@ss:w@rdKx9';
const QUERY_SECRET = 'Qq5query%40secretZz1';

function expectNoSecret(text: string): void {
  for (const piece of ['Qz7', 'Kx9', 'p@ss', 'w@rd', 'Qq5', 'Zz1']) expect(text).not.toContain(piece);
}

describe.runIf(databaseIs('postgres'))('a database URL with credentials, in a server process', () => {
  let directory: string;
  let database: ScratchDatabase;
  let url: string;
  let server: ServerProcess;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-url-credentials-'));
    database = await createScratchDatabase(directory);
    const plain = new URL(database.url);
    url = `postgres://${plain.username || 'postgres'}:${PASSWORD}@${plain.host}${plain.pathname}?password=${QUERY_SECRET}&application_name=tariff`;
    server = await startServerProcess(url, { TARIFF_LOG_LEVEL: 'info', TARIFF_AUTH: 'noauth', TARIFF_HEALTHCHECK_DATABASE: 'true' });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('/healthcheck?detailed names the host and database, not the password', async () => {
    const response = await fetch(`${server.url}/healthcheck?detailed`, { headers: { accept: 'application/json' } });
    const text = await response.text();
    expect(response.status).toBe(200);
    expectNoSecret(text);
    const name = new URL(database.url).pathname;
    expect(text).toContain(`postgres://***@127.0.0.1:5432${name}?password=***&application_name=tariff`);
  });

  it('the start-up log names the database without the password', () => {
    const started = server
      .output()
      .split('\n')
      .find((line) => line.includes('Tariff is serving the rating API'));
    expect(started).toContain('postgres://***@127.0.0.1:5432');
    expectNoSecret(server.output());
  });

  it('tariff status upgrade check names the database without the password', async () => {
    const { stdout, stderr } = await runTariffWith(url, { TARIFF_AUTH: 'noauth' }, 'status', 'upgrade', 'check');
    expect(stdout).toContain('postgres://***@127.0.0.1:5432');
    expectNoSecret(stdout + stderr);
  });
});
