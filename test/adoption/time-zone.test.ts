/**
 * One time zone with CloudKitty (docs/operators/deploying-next-to-cloudkitty.md), on adoption: a CloudKitty 17 database written by
 * CloudKitty on a host in Asia/Tokyo (`TZ`, and `PGTZ` for its PostgreSQL sessions) is upgraded
 * by `tariff db upgrade` with `TARIFF_CLOUDKITTY_TIMEZONE=Asia/Tokyo`: the zone is recorded, the
 * adopted rules get the times CloudKitty 23's own migrations would store on that host, and Tariff
 * serves them at the instants CloudKitty reads them as.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseHas, perServer, type PerServer } from '../helpers/database-kind.js';
import { createScratchDatabase, testDatabaseKind, type ScratchDatabase } from '../helpers/databases.js';
import { callServer, runTariffWith, startServerProcess, type ServerProcess } from '../helpers/server.js';
import { cloudKittyAvailable, startCloudKitty } from './cloudkitty.js';
import { selectRows } from './database.js';

const kind = testDatabaseKind();
const ZONE = 'Asia/Tokyo';
const H = '/v1/rating/module_config/hashmap';
const P = '/v1/rating/module_config/pyscripts';

/** `tariff ARGS` on `databaseUrl` with `TARIFF_CLOUDKITTY_TIMEZONE=zone`. */
function tariff(databaseUrl: string, zone: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runTariffWith(databaseUrl, { TARIFF_CLOUDKITTY_TIMEZONE: zone }, ...args);
}

/** A datetime column as `YYYY-MM-DD HH:MM:SS` text. */
function asText(column: string): string {
  return perServer({ postgres: `to_char(${column}, 'YYYY-MM-DD HH24:MI:SS')`, mysql: `date_format(${column}, '%Y-%m-%d %H:%i:%s')` });
}

/**
 * CloudKitty compat: migration 8a591f85865f sets an aware UTC epoch; psycopg2 sends it as a
 * timestamptz, stored as the session zone's wall time; pymysql drops the offset.
 */
const MAPPING_START: PerServer<{ stored: string; served: string }> = {
  postgres: { stored: '1970-01-01 09:00:00', served: '1970-01-01T00:00:00+00:00' },
  mysql: { stored: '1970-01-01 00:00:00', served: '1969-12-31T15:00:00+00:00' },
};

describe.skipIf(!databaseHas('cloudKittyProduction') || !cloudKittyAvailable())(`adopting a CloudKitty 17 database written in ${ZONE}, on ${kind}`, () => {
  let directory: string;
  let scratch: ScratchDatabase;
  let server: ServerProcess | undefined;
  let mappingId: string;
  let scriptId: string;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-adopt-zone-'));
    scratch = await createScratchDatabase(directory);
    const ck = await startCloudKitty(scratch.url, { TZ: ZONE, PGTZ: ZONE });
    try {
      const service = await ck.call('POST', `${H}/services/`, { name: 'compute' });
      mappingId = (await ck.call('POST', `${H}/mappings/`, { service_id: service.service_id, cost: '1.5', type: 'flat' })).mapping_id;
      scriptId = (await ck.call('POST', `${P}/scripts/`, { name: 'noop', data: 'x = 1\n' })).script_id;
    } finally {
      await ck.stop();
    }
  }, 900_000);

  afterAll(async () => {
    await server?.stop();
    await scratch?.drop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('db upgrade --dry-run shows the zone it assumes and the start it will write', async () => {
    const dryRun = await tariff(scratch.url, ZONE, 'db', 'upgrade', '--dry-run');
    expect(dryRun.code, dryRun.stderr).toBe(0);
    expect(dryRun.stdout).toContain(`hold wall time in ${ZONE} (to be recorded by migration 0006_time_zone)`);
    expect(dryRun.stdout).toContain(`every existing mapping gets a generated name, start ${perServer(MAPPING_START).stored} (${ZONE})`);
    expect(dryRun.stdout).toContain(`every existing script gets start 2014-01-01 00:00:00 (${ZONE})`);
  });

  it("db upgrade stores what CloudKitty's own migrations would on a Tokyo host and records the zone", async () => {
    const upgrade = await tariff(scratch.url, ZONE, 'db', 'upgrade');
    expect(upgrade.code, upgrade.stderr).toBe(0);
    expect(await selectRows(scratch.url, 'select name, value from tariff_settings')).toEqual([{ name: 'cloudkitty_timezone', value: ZONE }]);
    const [mapping] = await selectRows(scratch.url, `select ${asText('start')} as start, ${asText('created_at')} as created_at from hashmap_mappings`);
    expect(mapping.start).toBe(perServer(MAPPING_START).stored);
    // created_at: now, as Tokyo's wall time (CloudKitty: its server's now()).
    expect(Math.abs(Date.parse(`${String(mapping.created_at).replace(' ', 'T')}+09:00`) - Date.now())).toBeLessThan(300_000);
    const [script] = await selectRows(scratch.url, `select ${asText('start')} as start, ${asText('created_at')} as created_at from pyscripts_scripts`);
    expect(script.start).toBe('2014-01-01 00:00:00');
    expect(Math.abs(Date.parse(`${String(script.created_at).replace(' ', 'T')}+09:00`) - Date.now())).toBeLessThan(300_000);
  });

  it('serves the adopted rules at the instants CloudKitty reads them as, and refuses another zone', async () => {
    const refused = await startServerProcess(scratch.url).then(
      (started) => started.stop().then(() => 'started'),
      (error: Error) => error.message,
    );
    expect(refused).toContain(`records time zone ${ZONE} for its naive datetimes, but TARIFF_CLOUDKITTY_TIMEZONE is UTC`);
    server = await startServerProcess(scratch.url, { TARIFF_CLOUDKITTY_TIMEZONE: ZONE });
    const mapping = await callServer(server, 'GET', `${H}/mappings/${mappingId}`);
    expect(mapping.body).toMatchObject({ start: perServer(MAPPING_START).served, end: null, created_by: 'migration' });
    expect(Math.abs(Date.parse(mapping.body.created_at) - Date.now())).toBeLessThan(300_000);
    const script = await callServer(server, 'GET', `${P}/scripts/${scriptId}`);
    expect(script.body).toMatchObject({ start: '2013-12-31T15:00:00+00:00', created_by: 'migration' });
    expect((await callServer(server, 'PUT', '/v2/rating/modules/hashmap', { enabled: true })).status).toBe(204);
    expect((await callServer(server, 'PUT', '/v2/rating/modules/pyscripts', { enabled: false })).status).toBe(204);
    const quote = await callServer(server, 'POST', '/v2/rating/quote', { usage: { compute: [{ vol: { unit: 'u', qty: '1' } }] } });
    expect(quote.body.total).toBe('1.5');
  });
});
