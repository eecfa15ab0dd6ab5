/**
 * A private InfluxDB 1.x (Debian's `influxdb`, 1.6.7) for CloudKitty 17's v2 storage: the storage
 * the simulation reads through `GET /v2/dataframes`. CloudKitty 17 serves no `/v2` route at all on
 * its v1 SQL storage (`cloudkitty/api/app.py`: "v1 storage is used, disabling v2 API"; measured:
 * 404 text/html for `GET` and `POST /v2/dataframes`), so its v2 API needs a v2 storage, and
 * InfluxDB is its default one.
 *
 * One server per test file, on a free loopback port, its data in a temporary directory; a
 * watchdog process kills it and removes the directory if the test process dies first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../helpers/server.js';

export const INFLUXD = '/usr/bin/influxd';

/** Whether Debian's InfluxDB server is installed. */
export function influxDbAvailable(): boolean {
  return existsSync(INFLUXD);
}

/** A running InfluxDB. */
export interface InfluxDb {
  port: number;
  url: string;
  /** The database CloudKitty writes to (created). */
  database: string;
  /** One InfluxQL statement (or several, `;`-separated) through its HTTP API; the parsed answer. */
  query(text: string): Promise<any>;
  stop(): Promise<void>;
}

/** Kills `child` and removes `directory` when the test process dies (its stdin closes). */
function watchdog(pid: number, directory: string): ChildProcess {
  const script = `
    process.stdin.resume();
    process.stdin.on('close', () => {
      try { process.kill(${pid}, 'SIGKILL'); } catch {}
      require('node:fs').rmSync(${JSON.stringify(directory)}, { recursive: true, force: true });
      process.exit(0);
    });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'ignore', 'ignore'] });
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  child.stdin?.on('error', () => {});
  return child;
}

/** Starts InfluxDB with an empty database `cloudkitty`; waits until it answers `/ping` (30 s at most). */
export async function startInfluxDb(): Promise<InfluxDb> {
  const directory = mkdtempSync(join(tmpdir(), 'tariff-influxdb-'));
  const [port, rpcPort] = [await freePort(), await freePort()];
  const configFile = join(directory, 'influxdb.conf');
  writeFileSync(
    configFile,
    [
      'reporting-disabled = true',
      `bind-address = "127.0.0.1:${rpcPort}"`,
      '[meta]',
      `  dir = "${join(directory, 'meta')}"`,
      '[data]',
      `  dir = "${join(directory, 'data')}"`,
      `  wal-dir = "${join(directory, 'wal')}"`,
      '  query-log-enabled = false',
      '[http]',
      `  bind-address = "127.0.0.1:${port}"`,
      '  log-enabled = false',
      '[monitor]',
      '  store-enabled = false',
      '',
    ].join('\n'),
  );
  const child = spawn(INFLUXD, ['-config', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk) => (output = (output + chunk).slice(-20_000)));
  child.stderr?.on('data', (chunk) => (output = (output + chunk).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const guard = watchdog(child.pid!, directory);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.race([exited, sleep(10_000)]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    guard.stdin?.end();
    rmSync(directory, { recursive: true, force: true });
  };
  const query = async (text: string) => {
    const response = await fetch(`${url}/query`, { method: 'POST', body: new URLSearchParams({ q: text, db: 'cloudkitty' }) });
    const body = await response.text();
    if (!response.ok) throw new Error(`InfluxDB ${text} → ${response.status} ${body}`);
    return JSON.parse(body);
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/ping`)).status === 204) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`InfluxDB did not start: ${output}`);
    }
    await sleep(100);
  }
  await query('CREATE DATABASE cloudkitty');
  return { port, url, database: 'cloudkitty', query, stop };
}
