// The real CloudKitty 17 API (Debian's cloudkitty-api) for benches that compare with it: started
// by /work/shared/anchors/cloudkitty/setup.sh on a given SQLAlchemy URL (CK_DB=url: its own
// migrations, hashmap and pyscripts enabled, uWSGI daemonized), stopped by stop.sh, as
// test/adoption/cloudkitty.ts does. A last-resort exit hook stops any still running.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from './processes.js';

const run = promisify(execFile);
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ANCHOR = process.env.CK_ANCHOR_SCRIPTS ?? path.join(REPO, '..', 'shared', 'anchors', 'cloudkitty');

const running = new Set();
process.on('exit', () => {
  for (const env of running) {
    try {
      execFileSync('bash', [path.join(ANCHOR, 'stop.sh')], { env, timeout: 30_000, stdio: 'ignore' });
    } catch {
      // best effort
    }
  }
});

export function cloudKittyAvailable() {
  return existsSync(path.join(ANCHOR, 'setup.sh'));
}

/**
 * Starts CloudKitty 17 on `databaseUrl` (SQLAlchemy URL of an existing, empty database).
 * @returns {Promise<{url: string, dir: string, pid: number|null, call(method, path, body?): Promise<any>, stop(): Promise<void>}>}
 */
export async function startCloudKitty17(databaseUrl, { processes = 1, threads = 4 } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tariff-bench-ck-'));
  const port = await freePort();
  const env = {
    ...process.env,
    CK_ANCHOR_DIR: dir,
    CK_DB: 'url',
    CK_DB_URL: databaseUrl,
    CK_PORT: String(port),
    CK_PROCESSES: String(processes),
    CK_THREADS: String(threads),
    CK_SKIP_APT: process.env.CK_SKIP_APT ?? '1',
  };
  running.add(env);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await run('bash', [path.join(ANCHOR, 'stop.sh')], { env, timeout: 60_000 }).catch(() => undefined);
    running.delete(env);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await run('bash', [path.join(ANCHOR, 'setup.sh')], { env, timeout: 600_000 });
  } catch (error) {
    const log = (name) => (existsSync(path.join(dir, 'log', name)) ? readFileSync(path.join(dir, 'log', name), 'utf8').slice(-2000) : '');
    const message = `CloudKitty 17 did not start on ${databaseUrl}: ${String(error.stderr ?? error).slice(-2000)}\n${log('dbsync.log')}\n${log('uwsgi.log')}`;
    await stop();
    throw new Error(message);
  }
  const url = `http://127.0.0.1:${port}`;
  const pidFile = path.join(dir, 'uwsgi.pid');
  const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) || null : null;
  return {
    url,
    dir,
    pid,
    async call(method, urlPath, body) {
      const response = await fetch(`${url}${urlPath}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-roles': 'admin' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(120_000),
        redirect: 'manual',
      });
      const text = await response.text();
      if (response.status >= 400) throw new Error(`CloudKitty ${method} ${urlPath} → ${response.status} ${text.slice(0, 300)}`);
      return text && response.status < 300 ? JSON.parse(text) : undefined;
    },
    stop,
  };
}
