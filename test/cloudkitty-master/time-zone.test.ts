/**
 * Issue 16, one time zone: with `TARIFF_CLOUDKITTY_TIMEZONE=Asia/Tokyo`, rules Tariff writes are
 * read by CloudKitty master's processor running under `TZ=Asia/Tokyo` (its orchestrator passes
 * the period start in the host's zone; on PostgreSQL the session zone is the same, `PGTZ`), and
 * Tariff's quote agrees with it on both sides of every boundary; rules master's own hashmap
 * database API writes under `TZ=Asia/Tokyo` are served by Tariff at the right instants.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseHas, perServer } from '../helpers/database-kind.js';
import { testDatabaseKind } from '../helpers/databases.js';
import { callServer } from '../helpers/server.js';
import { selectRows } from '../adoption/database.js';
import { compareWithMaster } from './agreement.js';
import { SharedDatabase } from './shared-database.js';
import { masterAvailable, masterPython, sqlalchemyUrl } from './master.js';
import { generatePoints } from './points.js';
import { BOUNDARIES, ratingTimes, TENANTS, writeRuleSet } from './rule-set.js';

const kind = testDatabaseKind();
const SEED = Number(process.env.TARIFF_FUZZ_SEED ?? 11);
const POINTS = Number(process.env.TARIFF_MASTER_POINTS ?? 120);
const ZONE = 'Asia/Tokyo';
const TOKYO = { TZ: ZONE, PGTZ: ZONE };

/** `iso` (UTC) as Tokyo's wall time with its offset, as CloudKitty's orchestrator passes it on a Tokyo host. */
function inTokyo(iso: string): string {
  const wall = new Date(new Date(iso).getTime() + 9 * 3600_000).toISOString().slice(0, 19);
  return `${wall}+09:00`;
}

/** Writes one service and two mappings with master's own hashmap database API, as CloudKitty's API would on a host in `TZ`. */
const WRITE_WITH_MASTER = `
import datetime, json, sys
from oslo_config import cfg
from cloudkitty.rating import hash as _hash  # registers [database]
from cloudkitty.rating.hash.db import api as hash_db_api
cfg.CONF([], project='cloudkitty', default_config_files=[])
cfg.CONF.set_override('connection', sys.argv[1], group='database')
hashmap = hash_db_api.get_instance()
service = hashmap.create_service('storage')
# CloudKitty keeps naive local wall times: the instant's local time on this host.
start = datetime.datetime.fromtimestamp(int(sys.argv[2]))
end = datetime.datetime.fromtimestamp(int(sys.argv[3]))
scheduled = hashmap.create_mapping(cost='0.5', map_type='flat', service_id=service.service_id, start=start, end=end, created_by='ck-admin')
print(json.dumps({'service_id': service.service_id, 'mapping_id': scheduled.mapping_id}))
`;

describe.skipIf(!databaseHas('cloudKittyProduction') || !masterAvailable())(`one time zone with CloudKitty master (${ZONE}), on ${kind}`, () => {
  let shared: SharedDatabase;

  beforeAll(async () => {
    shared = await SharedDatabase.create();
    await shared.start({ TARIFF_CLOUDKITTY_TIMEZONE: ZONE });
    await writeRuleSet(shared.call);
  }, 120_000);

  afterAll(() => shared?.dispose());

  it("stores Tokyo's wall time in CloudKitty's naive columns and answers in UTC", async () => {
    const text = await selectRows(
      shared.url,
      perServer({
        postgres: "select to_char(start, 'YYYY-MM-DD HH24:MI:SS') as start from hashmap_mappings where description = 'second price'",
        mysql: "select date_format(start, '%Y-%m-%d %H:%i:%s') as start from hashmap_mappings where description = 'second price'",
      }),
    );
    expect(text).toEqual([{ start: '2030-06-01 09:00:00' }]);
  });

  it("master's processor under TZ=Asia/Tokyo prices as Tariff quotes, on both sides of every boundary", async () => {
    const points = generatePoints(POINTS, SEED + 2);
    const runs = TENANTS.flatMap((tenant) => ratingTimes().map((at) => ({ tenant, at, masterAt: inTokyo(at) })));
    const { compared, disagreements } = await compareWithMaster(shared.server!.url, shared.url, points, runs, TOKYO);
    expect(compared).toBe(POINTS * runs.length);
    expect(disagreements.slice(0, 10)).toEqual([]);
  }, 600_000);

  it("rules written by master's hashmap database API under TZ=Asia/Tokyo are served at the right instants", async () => {
    const start = new Date(BOUNDARIES.smallEnds).getTime() / 1000;
    const end = start + 3600;
    const written = await masterPython(WRITE_WITH_MASTER, [sqlalchemyUrl(shared.url), String(start), String(end)], TOKYO);
    expect(written.code, written.stderr.slice(-3000)).toBe(0);
    const { mapping_id: mappingId } = JSON.parse(written.stdout.trim().split('\n').at(-1)!);
    // CloudKitty's writes do not count in Tariff's configuration revision: its cached rules are
    // dropped as CloudKitty's own are, by reload_modules (docs/operators/deploying-next-to-cloudkitty.md: One time zone with CloudKitty).
    expect((await callServer(shared.server!, 'GET', '/v1/rating/reload_modules')).status).toBe(204);
    const served = await callServer(shared.server!, 'GET', `/v1/rating/module_config/hashmap/mappings/${mappingId}`);
    expect(served.status).toBe(200);
    expect(served.body).toMatchObject({ start: BOUNDARIES.smallEnds, end: '2031-03-01T13:30:45+00:00', created_by: 'ck-admin' });
    // CloudKitty stamps created_at with its host's naive now(): Tariff reads it as the instant it was.
    expect(Math.abs(new Date(served.body.created_at).getTime() - Date.now())).toBeLessThan(300_000);
    const price = async (at: string) => {
      const quote = await callServer(shared.server!, 'POST', '/v2/rating/quote', { usage: { storage: [{ vol: { unit: 'GiB', qty: '1' } }] }, at });
      expect(quote.status, JSON.stringify(quote.body)).toBe(200);
      return quote.body.total;
    };
    expect(await price('2031-03-01T12:30:44+00:00')).toBe('0');
    expect(await price(BOUNDARIES.smallEnds)).toBe('0.5');
    expect(await price('2031-03-01T13:30:44+00:00')).toBe('0.5');
    expect(await price('2031-03-01T13:30:45+00:00')).toBe('0');
  }, 120_000);
});
