/**
 * The real CloudKitty 17 API (Debian's `cloudkitty-api`) behind Tariff for the forwarding tests:
 * started by `../shared/anchors/cloudkitty/setup.sh` (noauth, SQLite, 2 uWSGI processes × 4
 * threads), then restarted on the v2 storage (`influxdb`, pointed at a stand-in) so that its v2
 * API is on too. It can be killed (SIGKILL, as a crash) and started again on the same port.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runCloudkittyNoauth, type CloudkittyCliRun } from '../helpers/cloudkitty-cli.js';
import { freePort } from '../helpers/server.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ANCHOR = join(ROOT, '..', 'shared', 'anchors', 'cloudkitty');
const UWSGI = existsSync('/usr/bin/uwsgi_python3') ? '/usr/bin/uwsgi_python3' : '/usr/bin/uwsgi';

/** Why the real CloudKitty cannot run here, or undefined when it can. */
export function cloudKittyMissing(): string | undefined {
  if (!existsSync(join(ANCHOR, 'setup.sh'))) return `${ANCHOR}/setup.sh is missing (CI puts ../shared beside the project)`;
  if (!existsSync('/usr/bin/cloudkitty-dbsync')) return "Debian's cloudkitty-api is not installed";
  return undefined;
}

/** A running CloudKitty API. */
export interface CloudKitty17 {
  url: string;
  port: number;
  /** SIGKILL to the uWSGI master and its workers: CloudKitty gone at once, as in a crash. */
  kill(): Promise<void>;
  /** Starts uWSGI again on the same port and waits until it answers (at most 60 s). */
  start(): Promise<void>;
  /** Stops it for good (the anchor's stop.sh). */
  stop(): Promise<void>;
}

/** Starts CloudKitty 17 with its v2 storage on the InfluxDB at `influxPort`. */
export async function startCloudKitty17(influxPort: number): Promise<CloudKitty17> {
  const directory = mkdtempSync(join(tmpdir(), 'tariff-forward-ck-'));
  const port = await freePort();
  const environment = { ...process.env, CK_ANCHOR_DIR: directory, CK_DB: 'sqlite', CK_PORT: String(port), CK_PROCESSES: '2', CK_THREADS: '4' };
  const url = `http://127.0.0.1:${port}`;
  const pidFile = join(directory, 'uwsgi.pid');
  const stop = async () => {
    await run('bash', [join(ANCHOR, 'stop.sh')], { env: environment, timeout: 60_000 }).catch(() => undefined);
  };
  const answers = async () => {
    try {
      return (await fetch(`${url}/`, { signal: AbortSignal.timeout(2000) })).ok;
    } catch {
      return false;
    }
  };
  const start = async () => {
    await run(UWSGI, ['--ini', join(directory, 'uwsgi.ini')], { timeout: 60_000 });
    const deadline = Date.now() + 60_000;
    while (!(await answers())) {
      if (Date.now() > deadline) throw new Error(`CloudKitty did not start again: ${readFileSync(join(directory, 'log', 'uwsgi.log'), 'utf8').slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  try {
    await run('bash', [join(ANCHOR, 'setup.sh')], { env: environment, timeout: 600_000 });
    await stop();
    const configFile = join(directory, 'cloudkitty.conf');
    const config = readFileSync(configFile, 'utf8')
      .replace(/^version = 1$/m, 'version = 2')
      .replace(/^backend = sqlalchemy$/m, 'backend = influxdb');
    writeFileSync(configFile, `${config}\n[storage_influxdb]\nhost = 127.0.0.1\nport = ${influxPort}\n`);
    await start();
  } catch (error) {
    await stop();
    throw new Error(`CloudKitty did not start: ${String(error)}`);
  }
  return {
    url,
    port,
    async kill() {
      const master = Number(readFileSync(pidFile, 'utf8').trim());
      // The workers: the master's children, from /proc (no procps needed).
      let children = '';
      try {
        children = readFileSync(`/proc/${master}/task/${master}/children`, 'utf8');
      } catch {
        // the master is gone already
      }
      for (const pid of [master, ...children.split(/\s+/).filter(Boolean).map(Number)]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
      while (await answers()) await new Promise((resolve) => setTimeout(resolve, 50));
    },
    start,
    stop,
  };
}

/**
 * Another build of the `cloudkitty` client to compare with (an executable, e.g. a wrapper running
 * upstream master's python-cloudkittyclient from a checkout outside the project); default Debian's.
 */
export const CLOUDKITTY_CLI = process.env.TARIFF_TEST_CLOUDKITTY_CLI || '/usr/bin/cloudkitty';

/**
 * Runs `cloudkitty <args>` ({@link CLOUDKITTY_CLI}) in noauth mode against `endpoint`, in the test
 * file's long-lived Python runner when it is a Python script (stop it with `stopCloudkittyCli`).
 */
export function cloudkittyCli(endpoint: string, home: string, ...args: string[]): Promise<CloudkittyCliRun> {
  return runCloudkittyNoauth(endpoint, home, args, CLOUDKITTY_CLI);
}
