/**
 * `tariff price-list` with Keystone credentials against a Tariff server in Keystone mode and a real
 * Keystone (test/keystone/setup.sh): password login from the `OS_*` variables openstackclient reads,
 * the server found as the catalog's `rating` endpoint (no --url), the member's 403 and a wrong
 * password explained in one line, and `OS_TOKEN` with `TARIFF_URL`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../helpers/cli.js';
import { freePort, startServerProcess, type ServerProcess } from '../helpers/server.js';
import { keystoneModeEnvironment, type Keystone } from '../keystone/keystone.js';
import { sharedKeystone } from '../keystone/shared.js';

/** Runs the built `tariff` with only `environment` beside PATH and HOME (no stray OS_* of the caller). */
function tariff(environment: Record<string, string>, ...args: string[]): Promise<CliRun> {
  return runCli({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), ...environment }, args);
}

describe('tariff price-list with Keystone credentials', () => {
  let directory: string;
  let keystone: Keystone;
  let server: ServerProcess;
  /** openstackclient's variables for a user, as an operator's openrc sets them. */
  let openrc: (user: 'ADMIN' | 'MEMBER', project: string) => Record<string, string>;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-cli-keystone-'));
    const port = await freePort();
    keystone = await sharedKeystone({ ratingEndpointUrl: `http://127.0.0.1:${port}` });
    server = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`, keystoneModeEnvironment(keystone, { TARIFF_PORT: String(port) }));
    openrc = (user, project) => ({
      OS_AUTH_URL: keystone.env.KEYSTONE_BASE_URL,
      OS_USERNAME: keystone.env[`KEYSTONE_${user}_USER`],
      OS_PASSWORD: keystone.env[`KEYSTONE_${user}_PASSWORD`],
      OS_PROJECT_NAME: project,
      OS_USER_DOMAIN_NAME: 'Default',
      OS_PROJECT_DOMAIN_NAME: 'Default',
      OS_REGION_NAME: keystone.env.KEYSTONE_REGION,
      OS_INTERFACE: 'public',
    });
  }, 900_000);

  afterAll(async () => {
    await server?.stop();
    await keystone?.release();
    rmSync(directory, { recursive: true, force: true });
  });

  it('exports and applies as the admin, finding the server in the catalog', async () => {
    const admin = openrc('ADMIN', keystone.env.KEYSTONE_ADMIN_PROJECT);
    const exported = await tariff(admin, 'price-list', 'export');
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    expect(parseYaml(exported.stdout)).toMatchObject({ revision: 0, services: {} });

    const path = join(directory, 'prices.yaml');
    writeFileSync(path, 'services:\n  instance:\n    mappings:\n      - { cost: 0.5 }\n');
    const applied = await tariff(admin, 'price-list', 'apply', path, '--yes');
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toContain('the configuration is now at revision 1.');
  });

  it('explains the 403 of a member and a wrong password in one line', async () => {
    const member = await tariff(openrc('MEMBER', keystone.env.KEYSTONE_DEMO_PROJECT), 'price-list', 'export');
    expect(member.code).toBe(1);
    expect(member.stderr).toMatch(/^tariff: Not allowed \(403\): the price list needs the rating:module_config policy rule .*\n$/);
    const wrong = await tariff({ ...openrc('ADMIN', keystone.env.KEYSTONE_ADMIN_PROJECT), OS_PASSWORD: 'not-the-password' }, 'price-list', 'export');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe(
      `tariff: Keystone refused the password login at ${keystone.env.KEYSTONE_BASE_URL}/v3 (OS_AUTH_URL, OS_USERNAME, OS_PASSWORD, OS_PROJECT_NAME) (HTTP 401): The request you have made requires authentication.\n`,
    );
  });

  it('sends OS_TOKEN as it is, to TARIFF_URL or to the catalog’s endpoint', async () => {
    const token = await keystone.token('ADMIN');
    const byUrl = await tariff({ OS_TOKEN: token, TARIFF_URL: server.url }, 'price-list', 'export', '--format', 'json');
    expect(JSON.parse(byUrl.stdout).revision).toBe(1);
    const byCatalog = await tariff({ OS_TOKEN: token, OS_AUTH_URL: keystone.env.KEYSTONE_URL }, 'price-list', 'export', '--format', 'json');
    expect(byCatalog.stderr).toBe('');
    expect(JSON.parse(byCatalog.stdout).revision).toBe(1);
    const none = await tariff({ TARIFF_URL: server.url }, 'price-list', 'export');
    expect(none.stderr).toMatch(/^tariff: Not authenticated \(401\)/);
  });
});
