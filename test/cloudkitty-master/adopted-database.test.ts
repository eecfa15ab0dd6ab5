/**
 * Issue 16, after adoption: a database made and filled by the real CloudKitty 17 is adopted by
 * `tariff db upgrade`; CloudKitty master's `cloudkitty-dbsync upgrade` then accepts it with
 * nothing to run, and master's HashMap processor prices generated points exactly as Tariff's v2
 * quote does, on both sides of the adopted rules' start (the epoch).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseHas } from '../helpers/database-kind.js';
import { testDatabaseKind } from '../helpers/databases.js';
import { runTariff } from '../helpers/server.js';
import { cloudKittyAvailable, startCloudKitty } from '../adoption/cloudkitty.js';
import { compareWithMaster } from './agreement.js';
import { SharedDatabase } from './shared-database.js';
import { dbsync, masterAvailable } from './master.js';
import { generatePoints } from './points.js';
import { TENANTS, writeCloudKitty17RuleSet } from './rule-set.js';

const kind = testDatabaseKind();
const SEED = Number(process.env.TARIFF_FUZZ_SEED ?? 11);
const POINTS = Number(process.env.TARIFF_MASTER_POINTS ?? 120);

describe.skipIf(!databaseHas('cloudKittyProduction') || !masterAvailable() || !cloudKittyAvailable())(
  `CloudKitty master on a database adopted from CloudKitty 17, on ${kind}`,
  () => {
    let shared: SharedDatabase;

    beforeAll(async () => {
      shared = await SharedDatabase.create();
      const cloudKitty = await startCloudKitty(shared.url);
      try {
        await writeCloudKitty17RuleSet((method, path, body) => cloudKitty.call(method, path, body));
      } finally {
        await cloudKitty.stop();
      }
      const upgrade = await runTariff(shared.url, 'db', 'upgrade');
      if (upgrade.code !== 0) throw new Error(`tariff db upgrade failed: ${upgrade.stderr}`);
      await shared.start();
    }, 900_000);

    afterAll(() => shared?.dispose());

    it('cloudkitty-dbsync upgrade accepts the adopted database and has nothing to run', async () => {
      const run = await dbsync(shared.url, 'upgrade');
      expect(run.code, run.stderr.slice(-3000)).toBe(0);
      expect(run.stderr).not.toContain('Running upgrade');
    }, 300_000);

    it('master prices every generated point as Tariff quotes it, before and from the adopted rules start', async () => {
      const points = generatePoints(POINTS, SEED + 1);
      const times = ['1969-12-31T23:59:59+00:00', '1970-01-01T00:00:00+00:00', '2026-12-01T00:00:00+00:00'];
      const runs = TENANTS.flatMap((tenant) => times.map((at) => ({ tenant, at })));
      const { compared, disagreements } = await compareWithMaster(shared.server!.url, shared.url, points, runs);
      expect(compared).toBe(POINTS * runs.length);
      expect(disagreements.slice(0, 10)).toEqual([]);
    }, 600_000);
  },
);
