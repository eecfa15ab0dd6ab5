/**
 * The drop-in cloud for the tempest and Horizon harnesses (README.md beside this file): the real
 * Keystone, the real CloudKitty 17 API and a Tariff process, both in Keystone mode, the catalog's
 * `rating` endpoint in two regions (one per server). Started and stopped by setup.sh / stop.sh.
 */
import { execFile, execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { passwordLogin } from '../keystone/keystone.js';

const run = promisify(execFile);
const HERE = fileURLToPath(new URL('.', import.meta.url));

/** The Debian packages the cloud needs (setup.sh installs Keystone's itself, when root). */
export const CLOUD_PACKAGES = ['cloudkitty-api', 'python3-cloudkitty', 'uwsgi-core', 'uwsgi-plugin-python3'] as const;

/**
 * Why the cloud cannot start on this machine (a missing Debian package), or null when it can.
 * `storage: 'influxdb'` (setup.sh's `CLOUD_CLOUDKITTY_STORAGE`) also needs Debian's influxdb.
 */
export function cloudUnavailable(options: { storage?: 'sqlalchemy' | 'influxdb' } = {}): string | null {
  const packages: string[] = [...CLOUD_PACKAGES, ...(options.storage === 'influxdb' ? ['influxdb'] : [])];
  const missing = packages.filter((name) => {
    try {
      return !execFileSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' }).includes('install ok installed');
    } catch {
      return true;
    }
  });
  return missing.length ? `Debian packages missing: ${missing.join(', ')} (apt-get install -y ${missing.join(' ')})` : null;
}

/** A running cloud: env.sh's values and how to stop it. */
export interface Cloud {
  /** Everything env.sh exports: `KEYSTONE_*` (test/keystone/README.md), `CLOUD_*`, `CK_*`, `TARIFF_PID_FILE`, `TARIFF_LOG`. */
  env: Record<string, string>;
  /** The state directory (keystone/, cloudkitty/, tariff/, env.sh). */
  directory: string;
  /** Region whose rating endpoint is Tariff (`CLOUD_TARIFF_REGION`, default RegionOne). */
  tariffRegion: string;
  /** Region whose rating endpoint is CloudKitty 17 (`CLOUD_CLOUDKITTY_REGION`, default CloudKitty17). */
  cloudkittyRegion: string;
  tariffUrl: string;
  cloudkittyUrl: string;
  /** Stops the three servers; `purge` also removes the directory. */
  stop(options?: { purge?: boolean }): Promise<void>;
}

/**
 * Starts the cloud (or reuses what runs in `directory` with the same settings: setup.sh is
 * idempotent). `environment` is passed to setup.sh: its knobs (`CLOUD_*`) and `TARIFF_*` settings
 * for the Tariff process. Needs dist/ built. setup.sh's progress is added to `<directory>/setup.log`.
 * Throws with setup.sh's last output when a server does not start (what started is stopped
 * again). The servers are stopped when this process ends without calling `stop` (setup.sh's
 * `CLOUD_OWNER_PID` watchdog). Takes ~25 s from nothing on an idle machine, ~5 s when running.
 */
export async function startCloud(options: { directory?: string; environment?: Record<string, string> } = {}): Promise<Cloud> {
  const directory = options.directory ?? mkdtempSync(join(tmpdir(), 'tariff-cloud-'));
  const stop = async (purge = false) => {
    await run('bash', [join(HERE, 'stop.sh'), ...(purge ? ['--purge'] : []), directory], { timeout: 120_000 }).catch(() => undefined);
  };
  let envFile: string;
  try {
    const { stdout, stderr } = await run('bash', [join(HERE, 'setup.sh')], {
      env: { ...process.env, CLOUD_OWNER_PID: String(process.pid), ...options.environment, CLOUD_DIR: directory },
      timeout: 900_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    envFile = stdout.trim().split('\n').pop()!;
    appendFileSync(join(directory, 'setup.log'), stderr);
  } catch (error: unknown) {
    await stop();
    const stderr = (error as { stderr?: string }).stderr;
    if (stderr) appendFileSync(join(directory, 'setup.log'), stderr);
    throw new Error(`the cloud did not start: ${stderr ? stderr.slice(-4000) : String(error)}`);
  }
  if (!existsSync(envFile)) throw new Error(`setup.sh printed no env.sh path: ${envFile}`);
  const env = readEnvFile(envFile);
  return {
    env,
    directory,
    tariffRegion: env.CLOUD_TARIFF_REGION,
    cloudkittyRegion: env.CLOUD_CLOUDKITTY_REGION,
    tariffUrl: env.CLOUD_TARIFF_URL,
    cloudkittyUrl: env.CLOUD_CLOUDKITTY_URL,
    stop: (stopOptions) => stop(stopOptions?.purge ?? false),
  };
}

/** The variables an env.sh exports, as bash sees them after sourcing it. */
export function readEnvFile(path: string): Record<string, string> {
  const printed = execFileSync('bash', ['-c', 'set -a; . "$1" && env -0', 'env', path], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  const env: Record<string, string> = {};
  for (const line of printed.split('\0')) {
    const at = line.indexOf('=');
    if (at > 0 && /^(KEYSTONE_|RATING_|CLOUD_|CK_|TARIFF_)/.test(line)) env[line.slice(0, at)] = line.slice(at + 1);
  }
  return env;
}

/** One endpoint of Keystone's catalog. */
export interface CatalogEndpoint {
  /** Service type (`rating`, `identity`). */
  type: string;
  interface: string;
  region: string;
  url: string;
}

/**
 * Logs the admin in (project admin, password) and returns the token and the catalog Keystone sent
 * with it, flattened. Throws when Keystone refuses.
 */
export async function adminLogin(cloud: Cloud): Promise<{ token: string; catalog: CatalogEndpoint[] }> {
  const { token, body } = await passwordLogin(cloud.env, 'ADMIN', { catalog: true, timeoutMs: 60_000 });
  const catalog = (
    body as { token: { catalog: { type: string; endpoints: { interface: string; region_id: string; url: string }[] }[] } }
  ).token.catalog.flatMap((service) =>
    service.endpoints.map((endpoint) => ({ type: service.type, interface: endpoint.interface, region: endpoint.region_id, url: endpoint.url })),
  );
  return { token, catalog };
}
