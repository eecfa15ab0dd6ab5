/**
 * CloudKitty's options and the `[tariff]` section as fallbacks of the TARIFF_* variables: the
 * mapping, the order (defaults < files in order < environment), oslo.config's file order and
 * policy-file lookup, `$` references, and refusals naming the file and line.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigurationError, TARIFF_SETTINGS } from '../../src/config.js';
import { loadConfiguration, splitConfigFileArguments } from '../../src/config-file/load.js';
import { fileSettings } from '../../src/config-file/settings.js';

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'tariff-config-file-'));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

function write(name: string, lines: string[]): string {
  const path = join(folder, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

/** The error's message, or 'no error'. */
function refusal(load: () => unknown): string {
  try {
    load();
    return 'no error';
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as Error).message;
  }
}

/** kolla-ansible's cloudkitty.conf.j2 (2025.1), rendered by hand for one API host. */
function kollaFile(): string[] {
  return [
    '[DEFAULT]',
    'debug = False',
    '',
    'log_dir = /var/log/kolla/cloudkitty',
    '',
    '# Force cloudkitty-api.log or will use app.wsgi',
    'log_file = /var/log/kolla/cloudkitty/cloudkitty-api.log',
    '',
    'transport_url = rabbit://openstack:rabbitpw@10.0.0.10:5672//',
    '',
    '[database]',
    'connection = mysql+pymysql://cloudkitty:ck-db-pw@10.0.0.10:3306/cloudkitty',
    'connection_recycle_time = 10',
    'max_pool_size = 1',
    'max_retries = -1',
    '',
    '[keystone_authtoken]',
    'service_type = rating',
    'www_authenticate_uri = http://10.0.0.10:5000',
    'auth_url = http://10.0.0.10:5000',
    'auth_type = password',
    'project_domain_id = default',
    'user_domain_id = default',
    'project_name = service',
    'username = cloudkitty',
    'password = ck-ks-pw',
    'region_name = RegionOne',
    'cafile = ',
    '',
    'memcache_security_strategy = ENCRYPT',
    'memcache_secret_key = secret',
    'memcached_servers = 10.0.0.10:11211',
    '',
    '[oslo_middleware]',
    'enable_proxy_headers_parsing = True',
    '',
    '[oslo_concurrency]',
    'lock_path = /var/lib/cloudkitty/tmp',
    '',
    '[oslo_policy]',
    'policy_file = cloudkitty-policy.yaml',
    '',
    '[collect]',
    'collector = prometheus',
    '',
    '[fetcher]',
    'backend = keystone',
    '',
    '[api]',
    'host_ip = 10.0.0.11',
    'port = 8889',
    '',
    '[orchestrator]',
    'coordination_url = mysql://cloudkitty:ck-db-pw@10.0.0.10/cloudkitty',
    'max_workers = 2',
    '',
    '[storage]',
    'backend = sqlalchemy',
    'version = 1',
  ];
}

describe('configuration files', () => {
  it("maps kolla-ansible's cloudkitty.conf: keystone by default, domain ids, the MySQL URL, the policy file beside it, the API address; the rest named as unused", () => {
    const conf = write('cloudkitty.conf', kollaFile());
    write('cloudkitty-policy.yaml', ['"rating:module_config": "role:admin"']);
    const { config, fileSettings: settings } = loadConfiguration({ files: [conf], dirs: [] }, {});
    expect(config.auth).toBe('keystone');
    expect(config.keystone).toMatchObject({
      authUrl: 'http://10.0.0.10:5000/v3',
      wwwAuthenticateUri: 'http://10.0.0.10:5000',
      username: 'cloudkitty',
      password: 'ck-ks-pw',
      projectName: 'service',
      userDomainId: 'default',
      projectDomainId: 'default',
    });
    expect(config.databaseUrl).toBe('mysql://cloudkitty:ck-db-pw@10.0.0.10:3306/cloudkitty');
    expect(config.policyFile).toBe(join(folder, 'cloudkitty-policy.yaml'));
    expect([config.host, config.port, config.logLevel]).toEqual(['10.0.0.11', 8889, 'info']);
    expect(settings.files).toEqual([conf]);
    expect(settings.unusedOptions).toEqual([
      'DEFAULT.log_dir',
      'DEFAULT.log_file',
      'DEFAULT.transport_url',
      'database.connection_recycle_time',
      'database.max_pool_size',
      'database.max_retries',
      'keystone_authtoken.service_type',
      'keystone_authtoken.auth_type',
      'keystone_authtoken.region_name',
      'keystone_authtoken.cafile',
      'keystone_authtoken.memcache_security_strategy',
      'keystone_authtoken.memcache_secret_key',
      'keystone_authtoken.memcached_servers',
      'oslo_middleware.enable_proxy_headers_parsing',
      'oslo_concurrency.lock_path',
      'collect.collector',
      'fetcher.backend',
      'orchestrator.coordination_url',
      'orchestrator.max_workers',
      'storage.backend',
      'storage.version',
    ]);
  });

  it('orders defaults < files (later wins, then --config-dir in name order) < environment (a non-empty variable)', () => {
    const first = write('a.conf', ['[DEFAULT]', 'auth_strategy = noauth', '[api]', 'port = 1001', 'host_ip = 127.0.0.2', '[tariff]', 'db_timeout = 7']);
    const second = write('b.conf', ['[api]', 'port = 1002']);
    write('d/20.conf', ['[api]', 'port = 1020']);
    write('d/10.conf', ['[api]', 'port = 1010', 'host_ip = 127.0.0.10']);
    write('d/30.conf.off', ['[api]', 'port = 1030']);
    const load = (environment: NodeJS.ProcessEnv, dirs = [join(folder, 'd')]) => loadConfiguration({ files: [first, second], dirs }, environment).config;
    expect(load({}, [])).toMatchObject({ port: 1002, host: '127.0.0.2', databaseTimeoutMs: 7000, auth: 'noauth' });
    expect(load({})).toMatchObject({ port: 1020, host: '127.0.0.10' });
    expect(load({ TARIFF_PORT: '2000', TARIFF_DB_TIMEOUT: '' })).toMatchObject({ port: 2000, databaseTimeoutMs: 7000 });
    // Without files, nothing changes: Tariff's own defaults.
    expect(loadConfiguration({ files: [], dirs: [] }, {}).config).toMatchObject({ port: 8889, auth: 'noauth', databaseUrl: 'sqlite:./data/tariff.db' });
  });

  it('takes --config-file and --config-dir anywhere on the command line, as oslo.config does', () => {
    expect(splitConfigFileArguments(['--config-file', 'a.conf', 'status', 'upgrade', '--config-file=b.conf', 'check', '--config-dir', 'd', '--json'])).toEqual({
      rest: ['status', 'upgrade', 'check', '--json'],
      configFiles: { files: ['a.conf', 'b.conf'], dirs: ['d'] },
    });
    expect(refusal(() => splitConfigFileArguments(['serve', '--config-file']))).toBe('--config-file needs a path');
  });

  it('names the file, line and option when a value is refused, here or by config.ts', () => {
    const conf = (lines: string[]) => ({ files: [write('c.conf', lines)], dirs: [] });
    const path = join(folder, 'c.conf');
    expect(refusal(() => loadConfiguration(conf(['[DEFAULT]', 'auth_strategy = noauth', '[api]', 'port = eighty']), {}))).toBe(
      `${path}:4: [api] port: TARIFF_PORT must be a TCP port number, got 'eighty'`,
    );
    expect(refusal(() => loadConfiguration(conf(['[DEFAULT]', 'auth_strategy = ldap']), {}))).toBe(
      `${path}:2: [DEFAULT] auth_strategy must be noauth or keystone, got 'ldap'`,
    );
    expect(refusal(() => loadConfiguration(conf(['[DEFAULT]', 'debug = maybe']), {}))).toBe(`${path}:2: [DEFAULT] debug must be true or false, got 'maybe'`);
    expect(refusal(() => loadConfiguration(conf(['[database]', 'connection = oracle://u:p@db/ck']), {}))).toBe(
      `${path}:2: [database] connection: Tariff serves SQLite, PostgreSQL and MySQL/MariaDB, not 'oracle' (mysql+pymysql://, postgresql+psycopg2://, sqlite:///)`,
    );
    expect(refusal(() => loadConfiguration(conf(['[DEFAULT]', 'auth_strategy = noauth', '', '[tariff]', 'database_timeout = 5']), {}))).toBe(
      `${path}:5: [tariff] database_timeout is not a Tariff setting (a key is a TARIFF_ variable's name without TARIFF_, lowercased: db_timeout for TARIFF_DB_TIMEOUT)`,
    );
    expect(refusal(() => loadConfiguration(conf(['[tariff]', 'DB_TIMEOUT = 5']), {}))).toMatch(/c\.conf:2: \[tariff\] DB_TIMEOUT is not a Tariff setting/);
    // CloudKitty's default strategy is keystone: a file without it and without credentials says where keystone came from.
    expect(refusal(() => loadConfiguration(conf(['[DEFAULT]', 'debug = true']), {}))).toBe(
      `${path}: [DEFAULT] auth_strategy unset, CloudKitty's default keystone: TARIFF_KEYSTONE_AUTH_URL is required with TARIFF_AUTH=keystone`,
    );
    // The environment's value is not the file's: no file named.
    expect(refusal(() => loadConfiguration(conf(['[DEFAULT]', 'auth_strategy = noauth', '[api]', 'port = 1']), { TARIFF_PORT: 'x' }))).toBe(
      "TARIFF_PORT must be a TCP port number, got 'x'",
    );
    expect(refusal(() => loadConfiguration({ files: [join(folder, 'missing.conf')], dirs: [] }, {}))).toBe(
      `${join(folder, 'missing.conf')}: cannot read the configuration file: no such file`,
    );
  });

  it('sets every TARIFF_* variable from [tariff] by its lowercased name, and names every variable config.ts reads', () => {
    const source = readFileSync(new URL('../../src/config.ts', import.meta.url), 'utf8');
    const read = new Set([...source.matchAll(/'(TARIFF_[A-Z0-9_]+)'|environment\.(TARIFF_[A-Z0-9_]+)/g)].map((match) => match[1] ?? match[2]));
    expect([...TARIFF_SETTINGS].sort(), 'every TARIFF_* variable src/config.ts reads must be listed in its TARIFF_SETTINGS (the [tariff] keys)').toEqual(
      [...read].sort(),
    );
    fc.assert(
      fc.property(fc.constantFrom(...TARIFF_SETTINGS), fc.stringMatching(/^[\w./:-]{1,20}$/), (variable, value) => {
        const conf = write('t.conf', ['[DEFAULT]', 'auth_strategy = noauth', '[tariff]', `${variable.slice('TARIFF_'.length).toLowerCase()} = ${value}`]);
        const settings = fileSettings({ files: [conf], dirs: [] }, TARIFF_SETTINGS);
        expect(settings.variables[variable]).toBe(value);
        expect(settings.origins[variable]).toEqual({ file: conf, line: 4, option: `[tariff] ${variable.slice('TARIFF_'.length).toLowerCase()}` });
      }),
      { numRuns: 200 },
    );
  });

  it("finds policy_file as oslo.config's find_file: --config-dir first, then the files' folders (the last file's first); refuses one found nowhere", () => {
    const first = write('etc1/cloudkitty.conf', ['[DEFAULT]', 'auth_strategy = noauth', '[oslo_policy]', 'policy_file = policy.yaml']);
    const second = write('etc2/override.conf', ['[DEFAULT]', 'debug = true']);
    write('etc1/policy.yaml', ['{}']);
    const policy = (files: string[], dirs: string[] = []) => loadConfiguration({ files, dirs }, {}).config.policyFile;
    expect(policy([first, second])).toBe(join(folder, 'etc1/policy.yaml'));
    write('etc2/policy.yaml', ['{}']);
    expect(policy([first, second])).toBe(join(folder, 'etc2/policy.yaml'));
    write('conf.d/policy.yaml', ['{}']);
    expect(policy([first, second], [join(folder, 'conf.d')])).toBe(join(folder, 'conf.d/policy.yaml'));
    // Unset: CloudKitty's default name, policy.yaml, when one is found; nothing otherwise.
    const plain = write('etc3/cloudkitty.conf', ['[DEFAULT]', 'auth_strategy = noauth']);
    expect(policy([plain])).toBeUndefined();
    write('etc3/policy.yaml', ['{}']);
    expect(policy([plain])).toBe(join(folder, 'etc3/policy.yaml'));
    const absolute = write('etc4/cloudkitty.conf', [
      '[DEFAULT]',
      'auth_strategy = noauth',
      '[oslo_policy]',
      `policy_file = ${join(folder, 'etc1/policy.yaml')}`,
    ]);
    expect(policy([absolute])).toBe(join(folder, 'etc1/policy.yaml'));
    const missing = write('etc5/cloudkitty.conf', ['[DEFAULT]', 'auth_strategy = noauth', '[oslo_policy]', 'policy_file = nowhere.yaml']);
    expect(refusal(() => policy([missing]))).toMatch(
      new RegExp(`^${missing}:4: \\[oslo_policy\\] policy_file 'nowhere.yaml' is in none of the folders oslo.policy looks in`),
    );
  });

  it("substitutes oslo.config's $ references in the values Tariff reads, and refuses one to an option no file sets", () => {
    const conf = write('s.conf', [
      '[DEFAULT]',
      'auth_strategy = noauth',
      'db_host = 10.0.0.7',
      '[database]',
      'password = pa$$word',
      'connection = mysql+pymysql://ck:$password@${DEFAULT.db_host}/ck',
      '[api]',
      'port = \\$1',
    ]);
    const settings = fileSettings({ files: [conf], dirs: [] }, TARIFF_SETTINGS);
    expect(settings.variables.TARIFF_DATABASE_URL).toBe('mysql://ck:pa%24word@10.0.0.7/ck');
    expect(settings.variables.TARIFF_PORT).toBe('$1');
    const broken = write('r.conf', ['[DEFAULT]', 'auth_strategy = noauth', '[database]', 'connection = mysql://ck:$dbpass@db/ck']);
    expect(refusal(() => fileSettings({ files: [broken], dirs: [] }, TARIFF_SETTINGS))).toBe(
      `${broken}:4: $dbpass refers to an option no configuration file sets (Tariff does not know CloudKitty's defaults): write the value, or '$$' for a '$'`,
    );
  });

  it('maps debug, the older auth_uri, the token cache and timeout, and the policy enforcement switches', () => {
    const conf = write('m.conf', [
      '[DEFAULT]',
      'debug = True',
      'auth_strategy = noauth',
      '[keystone_authtoken]',
      'auth_uri = http://keystone/identity',
      'http_connect_timeout = 3',
      'token_cache_time = 60',
      '[oslo_policy]',
      'enforce_new_defaults = false',
      'enforce_scope = False',
    ]);
    expect(fileSettings({ files: [conf], dirs: [] }, TARIFF_SETTINGS).variables).toEqual({
      TARIFF_AUTH: 'noauth',
      TARIFF_LOG_LEVEL: 'debug',
      TARIFF_KEYSTONE_WWW_AUTHENTICATE_URI: 'http://keystone/identity',
      TARIFF_KEYSTONE_TIMEOUT: '3',
      TARIFF_TOKEN_CACHE_TIME: '60',
      TARIFF_POLICY_ENFORCE_NEW_DEFAULTS: 'false',
      TARIFF_POLICY_ENFORCE_SCOPE: 'False',
    });
    // Tariff's own section wins over the CloudKitty option mapped to the same variable, wherever it is written.
    const both = write('both.conf', [
      '[tariff]',
      'log_level = warn',
      'port = 7001',
      '[DEFAULT]',
      'debug = true',
      'auth_strategy = noauth',
      '[api]',
      'port = 7000',
    ]);
    expect(loadConfiguration({ files: [both], dirs: [] }, {}).config).toMatchObject({ logLevel: 'warn', port: 7001 });
  });
});
