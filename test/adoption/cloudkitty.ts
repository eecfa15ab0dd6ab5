/**
 * The real CloudKitty 17 (Debian's `cloudkitty-api`) for the adoption tests: started on a scratch
 * database by `../shared/anchors/cloudkitty/setup.sh` (CK_DB=url), written to through its own
 * API, asked for prices through its own rating modules (cloudkitty_prices.py), then stopped.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '../helpers/server.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ANCHOR = join(ROOT, '..', 'shared', 'anchors', 'cloudkitty');
const UWSGI = existsSync('/usr/bin/uwsgi_python3') ? '/usr/bin/uwsgi_python3' : '/usr/bin/uwsgi';

/** A running CloudKitty API. */
export interface CloudKitty {
  url: string;
  /** Its configuration file (points at the database). */
  configFile: string;
  /** Its uWSGI master's pid (workers: its children). */
  pid(): number;
  /** One JSON request; throws on a non-2xx answer, naming it. */
  call(method: string, path: string, body?: unknown): Promise<any>;
  stop(): Promise<void>;
}

/** The SQLAlchemy URL CloudKitty needs for a Tariff database URL. */
export function sqlalchemyUrl(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const driver = url.protocol.startsWith('postgres') ? 'postgresql+psycopg2' : 'mysql+pymysql';
  return `${driver}://${url.username}${url.password ? `:${url.password}` : ''}@${url.host}${url.pathname}`;
}

/** Whether the anchor scripts are beside the project (CI puts `../shared` there). */
export function cloudKittyAvailable(): boolean {
  return existsSync(join(ANCHOR, 'setup.sh'));
}

/** CloudKitty's v2 storage on an InfluxDB 1.x (test/simulation/influxdb.ts), instead of the v1 SQL storage. */
export interface InfluxStorage {
  port: number;
  database: string;
}

/**
 * Starts CloudKitty on `databaseUrl` (a Tariff-style postgres:// or mysql:// URL of an empty
 * database): its own migrations, hashmap and pyscripts enabled, one uWSGI process; `extra` is
 * added to its environment (`TZ`, `PGTZ`: the host's zone). With `options.influxDb`, it is then
 * restarted on the v2 storage on that InfluxDB: CloudKitty 17 serves its v2 API (`/v2/dataframes`)
 * only on a v2 storage. `options.processes` (default 1) is the number of uWSGI processes.
 */
export async function startCloudKitty(
  databaseUrl: string,
  extra: Record<string, string> = {},
  options: { influxDb?: InfluxStorage; processes?: number } = {},
): Promise<CloudKitty> {
  const directory = mkdtempSync(join(tmpdir(), 'tariff-ck-'));
  const port = await freePort();
  const environment = {
    ...process.env,
    ...extra,
    CK_ANCHOR_DIR: directory,
    CK_DB: 'url',
    CK_DB_URL: sqlalchemyUrl(databaseUrl),
    CK_PORT: String(port),
    CK_PROCESSES: String(options.processes ?? 1),
    CK_THREADS: '4',
  };
  const stop = async () => {
    await run('bash', [join(ANCHOR, 'stop.sh')], { env: environment, timeout: 60_000 }).catch(() => undefined);
  };
  try {
    await run('bash', [join(ANCHOR, 'setup.sh')], { env: environment, timeout: 600_000 });
  } catch (error) {
    await stop();
    const log = (name: string) => (existsSync(join(directory, 'log', name)) ? readFileSync(join(directory, 'log', name), 'utf8').slice(-2000) : '');
    throw new Error(`CloudKitty did not start: ${String(error)}\n${log('dbsync.log')}\n${log('uwsgi.log')}`);
  }
  const url = `http://127.0.0.1:${port}`;
  const configFile = join(directory, 'cloudkitty.conf');
  if (options.influxDb) {
    try {
      await stop();
      const config = readFileSync(configFile, 'utf8')
        .replace(/^version = 1$/m, 'version = 2')
        .replace(/^backend = sqlalchemy$/m, 'backend = influxdb');
      writeFileSync(configFile, `${config}\n[storage_influxdb]\nhost = 127.0.0.1\nport = ${options.influxDb.port}\ndatabase = ${options.influxDb.database}\n`);
      await run('cloudkitty-storage-init', ['--config-file', configFile], { env: environment, timeout: 120_000 });
      await run(UWSGI, ['--ini', join(directory, 'uwsgi.ini')], { env: environment, timeout: 60_000 });
      const deadline = Date.now() + 60_000;
      for (;;) {
        const answered = await fetch(`${url}/`, { signal: AbortSignal.timeout(2000) }).then(
          (response) => response.ok,
          () => false,
        );
        if (answered) break;
        if (Date.now() > deadline) throw new Error(readFileSync(join(directory, 'log', 'uwsgi.log'), 'utf8').slice(-2000));
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    } catch (error) {
      await stop();
      throw new Error(`CloudKitty did not start on its v2 storage: ${String(error)}`);
    }
  }
  return {
    url,
    configFile,
    pid: () => Number(readFileSync(join(directory, 'uwsgi.pid'), 'utf8').trim()),
    async call(method, path, body) {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-roles': 'admin' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(60_000),
        // CloudKitty answers a module PUT with a 302 to the module itself, once written.
        redirect: 'manual',
      });
      const text = await response.text();
      if (response.status >= 400) throw new Error(`CloudKitty ${method} ${path} → ${response.status} ${text}`);
      return text && response.status < 300 ? JSON.parse(text) : undefined;
    },
    stop,
  };
}

/** A point to price: service, quantity and desc. */
export interface PricedPoint {
  service: string;
  qty: string;
  metadata: Record<string, unknown>;
  groupby: Record<string, unknown>;
}

/** Prices points with CloudKitty's own enabled rating modules, reading the rules from its database. */
export async function cloudKittyPrices(configFile: string, tenant: string | null, points: PricedPoint[]): Promise<{ prices: string[]; modules: string[] }> {
  const child = execFile('/usr/bin/python3', [join(ROOT, 'test', 'adoption', 'cloudkitty_prices.py'), configFile], { timeout: 120_000 });
  const output = new Promise<string>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`cloudkitty_prices.py exited ${code}: ${stderr.slice(-2000)}`))));
  });
  child.stdin!.end(JSON.stringify({ tenant, points }));
  return JSON.parse(await output);
}
