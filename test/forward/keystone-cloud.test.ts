/**
 * Forwarding in Keystone mode with the real Keystone and the real CloudKitty 17 (docs/api.md §13's
 * decision): Tariff validates the token before forwarding, so a CloudKitty on a network only Tariff
 * reaches — here even in `auth_strategy = noauth` — is not opened to callers without a valid token;
 * a member's or reader's token is forwarded and answered by CloudKitty; the real client, logging
 * in with a password and finding Tariff in the catalog, prints what CloudKitty itself prints.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCloudkittyCli, stopCloudkittyCli } from '../helpers/cloudkitty-cli.js';
import { freePort, startServerProcess, type ServerProcess } from '../helpers/server.js';
import { keystoneModeEnvironment, passwordClientArguments, type Keystone, type KeystoneUser } from '../keystone/keystone.js';
import { sharedKeystone } from '../keystone/shared.js';
import { fakeInfluxDb, type FakeInfluxDb } from './upstreams.js';
import { send } from './http.js';
import { cloudKittyMissing, cloudkittyCli, startCloudKitty17, type CloudKitty17 } from './cloudkitty17.js';

const missing = cloudKittyMissing();
if (missing) console.warn(`test/forward/keystone-cloud.test.ts skipped: ${missing}`);

describe.skipIf(missing !== undefined)('forwarding in Keystone mode, real Keystone and CloudKitty 17', () => {
  let directory: string;
  let keystone: Keystone;
  let influx: FakeInfluxDb;
  let cloudKitty: CloudKitty17;
  let tariff: ServerProcess;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-forward-keystone-'));
    const port = await freePort();
    influx = await fakeInfluxDb();
    [keystone, cloudKitty] = await Promise.all([sharedKeystone({ ratingEndpointUrl: `http://127.0.0.1:${port}` }), startCloudKitty17(influx.port)]);
    tariff = await startServerProcess(
      `sqlite:${join(directory, 'tariff.db')}`,
      keystoneModeEnvironment(keystone, { TARIFF_PORT: String(port), TARIFF_CLOUDKITTY_API_URL: cloudKitty.url, TARIFF_TOKEN_CACHE_TIME: '1' }),
    );
  }, 900_000);

  afterAll(async () => {
    await stopCloudkittyCli();
    await tariff?.stop();
    await Promise.all([keystone?.release(), cloudKitty?.stop()]);
    await influx?.close();
    if (directory) rmSync(directory, { recursive: true, force: true });
  }, 120_000);

  it('forwards a valid token of any role, and answers 401 itself to none, a forged one or a revoked one', async () => {
    const direct = await send(cloudKitty.url, 'GET', '/v1/info/config');
    expect(direct.status).toBe(200);
    for (const user of ['MEMBER', 'READER', 'ADMIN'] as const) {
      const answer = await send(tariff.url, 'GET', '/v1/info/config', { headers: { 'X-Auth-Token': await keystone.token(user) } });
      expect([answer.status, answer.text], user).toEqual([200, direct.text]);
    }
    const anonymous = await send(tariff.url, 'GET', '/v2/summary');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toMatch(/^Keystone uri="http:\/\/127\.0\.0\.1:\d+/);
    expect(JSON.parse(anonymous.text).faultstring).toBe('The request you have made requires authentication.');
    expect((await send(tariff.url, 'GET', '/v2/summary', { headers: { 'X-Auth-Token': 'gAAAAABforged-token-0123456789' } })).status).toBe(401);

    const token = await keystone.token('MEMBER');
    expect((await send(tariff.url, 'GET', '/v1/report/total', { headers: { 'X-Auth-Token': token } })).status).toBe(200);
    await keystone.revoke(token);
    // Past TARIFF_TOKEN_CACHE_TIME (1 s here) Tariff asks Keystone again.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect((await send(tariff.url, 'GET', '/v1/report/total', { headers: { 'X-Auth-Token': token } })).status).toBe(401);
  }, 120_000);

  it('lets the real client, logging in with a password and finding Tariff in the catalog, print what CloudKitty prints', async () => {
    const env = keystone.env;
    const client = async (user: KeystoneUser, project: string, ...args: string[]) => {
      const run = await runCloudkittyCli([...passwordClientArguments(env, user, project), ...args], {
        env: { PATH: '/usr/bin:/bin', HOME: directory, LANG: 'C.UTF-8' },
      });
      if (run.code !== 0) throw new Error(`cloudkitty ${args.join(' ')} exited with ${run.code}: ${run.stderr}`);
      return run;
    };
    for (const command of [
      ['info', 'config', 'get', '-f', 'json'],
      ['summary', 'get', '-f', 'json'],
      ['--os-rating-api-version', '2', 'summary', 'get', '-f', 'json'],
    ]) {
      const direct = await cloudkittyCli(cloudKitty.url, directory, ...command);
      expect(direct.code, direct.stderr).toBe(0);
      const through = await client('MEMBER', env.KEYSTONE_DEMO_PROJECT, ...command);
      expect(through.stdout, command.join(' ')).toBe(direct.stdout);
    }
  }, 300_000);
});
