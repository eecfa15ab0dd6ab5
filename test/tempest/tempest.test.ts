/**
 * Issue 23, "Tempest in CI": CloudKitty's own tempest plugin (Debian's cloudkitty-tempest-plugin
 * with python3-tempest, or the checkout TARIFF_TEMPEST_PLUGIN_DIR names) runs through the real
 * Keystone against CloudKitty 17 (region CloudKitty17) and against Tariff with that CloudKitty
 * behind it (region RegionOne); every test must end the same way on both (a skip counts unless
 * CloudKitty skips it too). The two result lists, the differences and, per difference, the request
 * that failed with both answers go to TARIFF_TEMPEST_REPORT_DIR (default test-results/tempest/):
 * report.md, differences.json, cloudkitty/ and tariff/ (tempest.conf, tempest.log, results.json).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminLogin, cloudUnavailable, startCloud, type Cloud } from '../cloud/cloud.js';
import { compareRuns, renderReport } from './compare.js';
import { pluginDirectory, runTempest, tempestUnavailable } from './tempest.js';

const REPORT = process.env.TARIFF_TEMPEST_REPORT_DIR || fileURLToPath(new URL('../../test-results/tempest/', import.meta.url));

const missing = tempestUnavailable() ?? cloudUnavailable();
if (missing) console.warn(`test/tempest/tempest.test.ts skipped: ${missing}`);

describe.skipIf(Boolean(missing))(`CloudKitty's tempest plugin (${pluginDirectory()}) against Tariff and CloudKitty 17`, () => {
  let cloud: Cloud | undefined;

  beforeAll(async () => {
    mkdirSync(REPORT, { recursive: true });
    for (const name of ['cloudkitty', 'tariff', 'report.md', 'differences.json']) rmSync(join(REPORT, name), { recursive: true, force: true });
    cloud = await startCloud({ directory: join(REPORT, 'cloud') });
  }, 900_000);

  afterAll(async () => {
    // The logs stay in the report; the servers stop and their databases go.
    await cloud?.stop();
    // (ports.env too: the next run takes free ports again.)
    for (const name of [
      'keystone/keystone.db',
      'keystone/fernet-keys',
      'keystone/credential-keys',
      'cloudkitty/cloudkitty.sqlite',
      'tariff/tariff.db',
      'ports.env',
    ]) {
      rmSync(join(REPORT, 'cloud', name), { recursive: true, force: true });
    }
  }, 120_000);

  it("has each region's rating endpoint on its own server, both asking for a token, and keeps them running when set up again", async () => {
    const { token, catalog } = await adminLogin(cloud!);
    const rating = catalog.filter((endpoint) => endpoint.type === 'rating' && endpoint.interface === 'public');
    expect(Object.fromEntries(rating.map((endpoint) => [endpoint.region, endpoint.url]))).toEqual({
      [cloud!.tariffRegion]: cloud!.tariffUrl,
      [cloud!.cloudkittyRegion]: cloud!.cloudkittyUrl,
    });
    const identityRegions = new Set(catalog.filter((endpoint) => endpoint.type === 'identity').map((endpoint) => endpoint.region));
    expect(identityRegions).toEqual(new Set([cloud!.tariffRegion, cloud!.cloudkittyRegion]));
    for (const url of [cloud!.tariffUrl, cloud!.cloudkittyUrl]) {
      expect((await fetch(`${url}/v1/rating/modules`)).status, url).toBe(401);
      const modules = (await (await fetch(`${url}/v1/rating/modules`, { headers: { 'x-auth-token': token } })).json()) as {
        modules: { module_id: string; enabled: boolean }[];
      };
      expect(
        modules.modules.filter((module) => module.enabled).map((module) => module.module_id),
        url,
      ).toEqual(expect.arrayContaining(['hashmap', 'pyscripts']));
    }
    const pids = () => ['TARIFF_PID_FILE', 'CK_PID_FILE', 'KEYSTONE_PID_FILE'].map((name) => readFileSync(cloud!.env[name], 'utf8').trim());
    const before = pids();
    const again = await startCloud({ directory: cloud!.directory });
    expect(again.env).toEqual(cloud!.env);
    // Tariff restarts only when what dist/ holds changed meanwhile (another build, in a shared work tree).
    const tariffLine = readFileSync(join(cloud!.directory, 'setup.log'), 'utf8')
      .match(/\[cloud\] (tariff already running|restarting tariff)[^\n]*/g)!
      .pop()!;
    const rebuilt = tariffLine.endsWith('dist/ changed');
    expect(rebuilt || tariffLine.startsWith('[cloud] tariff already running'), tariffLine).toBe(true);
    expect(pids().slice(rebuilt ? 1 : 0)).toEqual(before.slice(rebuilt ? 1 : 0));
  }, 300_000);

  it('ends every test against Tariff as against CloudKitty 17', async () => {
    // One after the other: CloudKitty 17 on SQLite answers "database is locked" to concurrent writes.
    const cloudkitty = await runTempest(cloud!, { region: cloud!.cloudkittyRegion, workspace: join(REPORT, 'cloudkitty') });
    const tariff = await runTempest(cloud!, { region: cloud!.tariffRegion, workspace: join(REPORT, 'tariff') });
    const differences = compareRuns(tariff, cloudkitty);
    writeFileSync(join(REPORT, 'differences.json'), `${JSON.stringify(differences, null, 1)}\n`);
    writeFileSync(join(REPORT, 'report.md'), renderReport(tariff, cloudkitty, differences));
    console.info(
      `tempest report: ${join(REPORT, 'report.md')} (Tariff ${JSON.stringify(tariff.summary)}, CloudKitty 17 ${JSON.stringify(cloudkitty.summary)})`,
    );

    // The harness works: the plugin's tests ran on both sides and CloudKitty passes some.
    expect(Object.keys(cloudkitty.tests).length).toBeGreaterThan(0);
    expect(cloudkitty.summary.pass).toBeGreaterThan(0);
    expect(
      differences,
      `tests ending otherwise against Tariff than against CloudKitty 17: ${join(REPORT, 'report.md')} has each failing request with both answers`,
    ).toEqual([]);
  }, 900_000);
});
