/**
 * Issue 23's demonstration: a cloudkitty.conf in the shape kolla-ansible renders (its
 * cloudkitty.conf.j2: database on MariaDB, Keystone, a policy file beside it, CloudKitty's
 * processor options) is all Tariff is given — no TARIFF_* variable. CloudKitty 17's own
 * `cloudkitty-dbsync` creates the database from the same file; `tariff status upgrade check`
 * warns until `tariff db upgrade` has run; Tariff serves with the real Keystone (tokens, the policy
 * file) and the check then passes.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createConnection } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MYSQL_ADMIN_URL } from '../helpers/databases.js';
import { freePort } from '../helpers/server.js';
import type { Keystone } from '../keystone/keystone.js';
import { sharedKeystone } from '../keystone/shared.js';
import { runTariffCommand, serveWithFiles, type ServingTariff } from './processes.js';

const run = promisify(execFile);

/** Keystone comes from Debian (test/keystone/setup.sh installs it with apt-get when missing). */
const keystoneMissing = !existsSync('/usr/bin/keystone-manage') && !existsSync('/usr/bin/apt-get');
if (keystoneMissing) console.warn('Keystone is not installed and apt-get is missing: the kolla-ansible cloudkitty.conf test is skipped');
/** CloudKitty 17's migrations (Debian's cloudkitty-api); without them the database starts empty. */
const dbsyncMissing = !existsSync('/usr/bin/cloudkitty-dbsync');

/** kolla-ansible's ansible/roles/cloudkitty/templates/cloudkitty.conf.j2, rendered for one API host. */
function kollaCloudKittyConf(options: { keystone: Keystone; database: string; port: number; folder: string }): string {
  const { env } = options.keystone;
  const keystoneInternalUrl = env.KEYSTONE_URL.replace(/\/v3\/?$/, '');
  return `[DEFAULT]
debug = False

log_dir = ${options.folder}/log

# Force cloudkitty-api.log or will use app.wsgi
log_file = ${options.folder}/log/cloudkitty-api.log

transport_url = rabbit://openstack:rabbit-password@127.0.0.1:5672//

[database]
connection = mysql+pymysql://root@127.0.0.1:3306/${options.database}
connection_recycle_time = 10
max_pool_size = 1
max_retries = -1

[keystone_authtoken]
service_type = rating
www_authenticate_uri = ${keystoneInternalUrl}
auth_url = ${keystoneInternalUrl}
auth_type = password
project_domain_id = default
user_domain_id = default
project_name = ${env.KEYSTONE_SERVICE_PROJECT}
username = ${env.KEYSTONE_TARIFF_USER}
password = ${env.KEYSTONE_TARIFF_PASSWORD}
region_name = RegionOne
cafile = 

memcache_security_strategy = ENCRYPT
memcache_secret_key = memcache-secret
memcached_servers = 127.0.0.1:11211

[oslo_middleware]
enable_proxy_headers_parsing = True

[oslo_concurrency]
lock_path = ${options.folder}/tmp


[oslo_policy]
policy_file = cloudkitty-policy.yaml


[oslo_messaging_rabbit]
heartbeat_in_pthread = True

[collect]
collector = gnocchi


[collector_gnocchi]
auth_section = keystone_authtoken
region_name = RegionOne


[fetcher]
backend = keystone

[fetcher_keystone]
keystone_version = 3
auth_section = keystone_authtoken
cafile = 
region_name = RegionOne

[api]
host_ip = 127.0.0.1
port = ${options.port}

[orchestrator]
coordination_url = mysql://root@127.0.0.1/${options.database}
max_workers = 1

[storage]
backend = sqlalchemy
version = 1
`;
}

describe.skipIf(keystoneMissing)("kolla-ansible's cloudkitty.conf is all Tariff is given", () => {
  let folder: string;
  let keystone: Keystone;
  let server: ServingTariff | undefined;
  let port: number;
  let conf: string;
  const database = `tariff_kolla_${randomBytes(5).toString('hex')}`;
  const base = () => `http://127.0.0.1:${port}`;
  const check = (...extra: string[]) => runTariffCommand(['status', 'upgrade', 'check', '--config-file', conf, ...extra]);

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'tariff-kolla-'));
    port = await freePort();
    keystone = await sharedKeystone();
    const admin = await createConnection(MYSQL_ADMIN_URL);
    await admin.query(`create database ${database} character set utf8mb4`);
    await admin.end();
    mkdirSync(join(folder, 'log'));
    conf = join(folder, 'cloudkitty.conf');
    writeFileSync(conf, kollaCloudKittyConf({ keystone, database, port, folder }));
    // The operator's override, beside cloudkitty.conf as kolla copies it: readers may read the rating configuration.
    writeFileSync(join(folder, 'cloudkitty-policy.yaml'), '"rating:module_config": "role:admin or role:reader"\n');
  }, 900_000);

  afterAll(async () => {
    await server?.stop();
    await keystone?.release();
    const admin = await createConnection(MYSQL_ADMIN_URL).catch(() => undefined);
    await admin?.query(`drop database if exists ${database}`);
    await admin?.end();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it.skipIf(dbsyncMissing)(
    "CloudKitty 17's database from the same file: the check warns, serve refuses, db upgrade adopts it",
    async () => {
      await run('cloudkitty-dbsync', ['--config-file', conf, 'upgrade'], { timeout: 300_000 });
      const warned = await check('--json');
      expect(warned.code, warned.stdout + warned.stderr).toBe(1);
      const report = JSON.parse(warned.stdout) as { checks: { check: string; result: number; details: string }[] };
      expect(report.checks.find((entry) => entry.check === 'Database')).toMatchObject({ result: 1 });
      expect(report.checks.find((entry) => entry.check === 'Database')?.details).toContain("run 'tariff db upgrade'");
      const refused = await runTariffCommand(['serve', '--config-file', conf]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("run 'tariff db upgrade'");
      const upgraded = await runTariffCommand(['db', 'upgrade', '--config-file', conf]);
      expect(upgraded.code, upgraded.stderr).toBe(0);
      expect(upgraded.stdout).toContain(`mysql://***@127.0.0.1:3306/${database}: CloudKitty's rating tables`);
    },
    600_000,
  );

  it('serves with Keystone: tokens from that Keystone, the policy file beside the conf; unused options named once', async () => {
    server = await serveWithFiles(['--config-file', conf], `${base()}/healthcheck`);
    const services = '/v1/rating/module_config/hashmap/services';
    const call = async (path: string, token?: string, init: RequestInit = {}) =>
      fetch(`${base()}${path}`, { ...init, headers: { 'content-type': 'application/json', ...(token ? { 'x-auth-token': token } : {}) } });
    const anonymous = await call(services);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe(`Keystone uri="${keystone.env.KEYSTONE_URL.replace(/\/v3\/?$/, '')}"`);
    const adminToken = await keystone.token('ADMIN');
    const created = await call(services, adminToken, { method: 'POST', body: JSON.stringify({ name: 'compute' }) });
    expect(created.status).toBe(201);
    const listed = await call(services, adminToken);
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { services: { name: string }[] }).services.map((service) => service.name)).toEqual(['compute']);
    // The policy file kolla put beside cloudkitty.conf: a reader may read (the default rule is admin only).
    expect((await call(services, await keystone.token('READER'))).status).toBe(200);
    const fileLines = server
      .output()
      .split('\n')
      .filter((line) => line.includes('"unused_options"'));
    expect(fileLines).toHaveLength(1);
    const logged = JSON.parse(fileLines[0]) as { config_files: string[]; unused_options: string[] };
    expect(logged.config_files).toEqual([conf]);
    expect(logged.unused_options).toEqual(
      expect.arrayContaining(['keystone_authtoken.memcached_servers', 'keystone_authtoken.auth_type', 'DEFAULT.transport_url', 'storage.backend']),
    );
    expect(server.output()).not.toContain(keystone.env.KEYSTONE_TARIFF_PASSWORD);
  }, 300_000);

  it('passes tariff status upgrade check --config-file with exit code 0', async () => {
    const checked = await check();
    expect(checked.stderr).toBe('');
    expect(checked.stdout).not.toMatch(/Result: (Warning|Failure)/);
    expect(checked.stdout.match(/Result: Success/g)).toHaveLength(6);
    expect(checked.stdout).toContain(`Check: Keystone`);
    expect(checked.code).toBe(0);
    // The same file with a wrong service password: the Keystone check fails, naming Keystone's refusal.
    const wrong = join(folder, 'wrong-password.conf');
    writeFileSync(wrong, readFileSync(conf, 'utf8').replace(/^password = .*$/m, 'password = not-the-password'));
    const refused = await runTariffCommand(['status', 'upgrade', 'check', '--json', '--config-file', wrong]);
    expect(refused.code).toBe(2);
    const keystoneCheck = (JSON.parse(refused.stdout) as { checks: { check: string; result: number; details: string }[] }).checks.find(
      (entry) => entry.check === 'Keystone',
    );
    expect(keystoneCheck?.result).toBe(2);
    expect(keystoneCheck?.details).toContain(`service user ${keystone.env.KEYSTONE_TARIFF_USER} (project ${keystone.env.KEYSTONE_SERVICE_PROJECT})`);
    expect(keystoneCheck?.details).toContain('cannot log in');
  }, 120_000);
});
