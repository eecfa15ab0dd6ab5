/**
 * Issue 16: one database with CloudKitty's processor. Tariff creates the database and writes a
 * rule set through its API; CloudKitty master's `cloudkitty-dbsync upgrade` accepts it as it is;
 * master's HashMap processor then prices generated points (numbers of every JSON form, three
 * tenants, rating times on both sides of every boundary) exactly as Tariff's v2 quote does; and
 * Tariff still serves afterwards. PostgreSQL and MariaDB (CloudKitty's production databases).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseHas } from '../helpers/database-kind.js';
import { testDatabaseKind } from '../helpers/databases.js';
import { callServer } from '../helpers/server.js';
import { compareWithMaster } from './agreement.js';
import { SharedDatabase } from './shared-database.js';
import { dbsync, masterAvailable, masterPrices } from './master.js';
import { generatePoints, usageText } from './points.js';
import { ratingTimes, TENANTS, writeRuleSet } from './rule-set.js';

const kind = testDatabaseKind();
const SEED = Number(process.env.TARIFF_FUZZ_SEED ?? 11);
/** Points per dataframe; each is priced for every tenant and rating time. */
const POINTS = Number(process.env.TARIFF_MASTER_POINTS ?? 120);

describe.skipIf(!databaseHas('cloudKittyProduction') || !masterAvailable())(`CloudKitty master's processor on a database Tariff created, on ${kind}`, () => {
  let shared: SharedDatabase;

  beforeAll(async () => {
    shared = await SharedDatabase.create();
    await shared.start();
    await writeRuleSet(shared.call);
  }, 120_000);

  afterAll(() => shared?.dispose());

  it('cloudkitty-dbsync upgrade accepts the database and has nothing to run', async () => {
    const run = await dbsync(shared.url, 'upgrade');
    expect(run.code, run.stderr.slice(-3000)).toBe(0);
    expect(run.stderr).not.toContain('Running upgrade');
  }, 300_000);

  it('master prices every generated point as Tariff quotes it, for every tenant and rating time', async () => {
    const points = generatePoints(POINTS, SEED);
    const runs = TENANTS.flatMap((tenant) => ratingTimes().map((at) => ({ tenant, at })));
    const { compared, disagreements } = await compareWithMaster(shared.server!.url, shared.url, points, runs);
    expect(compared).toBe(POINTS * runs.length);
    expect(disagreements.slice(0, 10)).toEqual([]);
  }, 600_000);

  it('the documented fix: a non-numeric value of a field with thresholds is priced by Tariff, where master raises', async () => {
    const usage = usageText([{ service: 'compute', qty: '1', groupby: [['flavor', '"m1.tiny"']], metadata: [['vcpus', '"many"']] }]);
    const master = await masterPrices(shared.url, `{"usage": ${usage}}`, { tenant: null, at: '2030-07-01T00:00:00+00:00' });
    expect(master).toHaveProperty('error');
    const quote = await callServer(shared.server!, 'POST', '/v2/rating/quote', JSON.parse(`{"usage": ${usage}, "at": "2030-07-01T00:00:00+00:00"}`));
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    // flavor m1.tiny (1.42, group instance) + compute's second price (1.5); vcpus reaches no level.
    expect(quote.body.total).toBe('2.92');
  }, 120_000);

  it('Tariff still serves the database after CloudKitty migrated it, also after a restart', async () => {
    const server = await shared.start();
    const services = await callServer(server, 'GET', '/v1/rating/module_config/hashmap/services');
    expect(services.status).toBe(200);
    expect(services.body.services.map((service: { name: string }) => service.name).sort()).toEqual(['compute', 'image', 'volume']);
    const created = await callServer(server, 'POST', '/v1/rating/module_config/hashmap/services', { name: 'network' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }, 120_000);
});
