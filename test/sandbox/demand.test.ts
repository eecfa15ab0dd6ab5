/**
 * Sandbox workers only while scripts need them (issue 26, "Memory"), on real server processes
 * (`tariff serve`, SQLite): a process with pyscripts disabled, or enabled without a script, starts
 * no worker and stays under {@link RSS_BOUND_MB} after a 10,000-point quote; creating a script
 * starts the workers (a quote needing it succeeds), deleting it or disabling the module stops
 * them, also in a second process sharing the database, which learns of it through the rules'
 * watch; each worker's command line is short; a stop while the workers load logs no error.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callServer, startServerProcess, waitForOutput, spawnServerProcess, type ServerProcess } from '../helpers/server.js';
import { alive, childrenOf } from '../helpers/child-processes.js';

const PYSCRIPTS = '/v1/rating/module_config/pyscripts';
/** The bound of issue 26 for a process without scripts (README "Limits": ~130 MB idle). */
const RSS_BOUND_MB = 200;
/** A worker's whole command line, NUL-separated (it was 38 KB of inlined source). */
const CMDLINE_BOUND_BYTES = 2048;
/** How long workers may take to start on a loaded machine (pyodide: ~3 s idle, 20 s and more loaded). */
const WORKER_START_MS = 120_000;
/** How long a process may take to notice a change and stop its workers (the watch looks once a second). */
const WORKER_STOP_MS = 15_000;

/** The sandbox settings of these servers: one worker and no spare keep a loaded machine's boots short. */
const SANDBOX = { TARIFF_SANDBOX_WORKERS: '1', TARIFF_SANDBOX_SPARE_WORKERS: '0', TARIFF_SANDBOX_QUEUE_WAIT_MS: '120000', TARIFF_LOG_LEVEL: 'info' };

function rssMegabytes(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1] ?? 0) / 1024;
}

async function until(what: string, condition: () => boolean, limitMs: number, server: ServerProcess): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${limitMs / 1000} s: ${server.output().slice(-3000)}`);
    await sleep(100);
  }
}

/** A v2 quote of `points` compute points of 1 instance each. */
function quote(points: number) {
  const usage = Array.from({ length: points }, (_, index) => ({
    vol: { unit: 'instance', qty: '1' },
    groupby: { id: `vm-${index}` },
    metadata: { flavor: 'm1.small' },
  }));
  return { usage: { compute: usage }, explain: false };
}

/** Prices each compute point at 0.25. */
const PRICING_SCRIPT = "from decimal import Decimal\nfor point in data['usage'].get('compute', []):\n    point['rating']['price'] = Decimal('0.25')\n";

async function enablePyscripts(server: ServerProcess, enabled: boolean): Promise<void> {
  expect((await callServer(server, 'PUT', '/v2/rating/modules/pyscripts', { enabled })).status).toBe(204);
}

describe('sandbox workers follow the scripts', () => {
  let directory: string;
  const servers: ServerProcess[] = [];

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-demand-'));
  });

  afterEach(async () => {
    for (const server of servers.splice(0)) await server.kill();
    rmSync(directory, { recursive: true, force: true });
  });

  const start = async (environment: Record<string, string> = {}) => {
    const server = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`, { ...SANDBOX, ...environment });
    servers.push(server);
    return server;
  };

  it('no worker and a small process without scripts; workers with a script, in every process; gone when not needed', { timeout: 600_000 }, async () => {
    const first = await start();
    const pid = first.child.pid!;
    // Disabled (the default): a 10,000-point quote, and still no worker.
    await sleep(2500);
    expect((await callServer(first, 'POST', '/v2/rating/quote', quote(10_000), { timeoutMs: 60_000 })).status).toBe(200);
    expect(childrenOf(pid)).toEqual([]);
    const disabledRss = rssMegabytes(pid);
    expect(disabledRss).toBeLessThanOrEqual(RSS_BOUND_MB);

    // Enabled without a script: the same.
    await enablePyscripts(first, true);
    await sleep(2500);
    expect((await callServer(first, 'POST', '/v2/rating/quote', quote(10_000), { timeoutMs: 60_000 })).status).toBe(200);
    expect(childrenOf(pid)).toEqual([]);
    const enabledRss = rssMegabytes(pid);
    expect(enabledRss).toBeLessThanOrEqual(RSS_BOUND_MB);
    console.log(`server RSS after a 10,000-point quote: ${disabledRss.toFixed(0)} MB (pyscripts disabled), ${enabledRss.toFixed(0)} MB (enabled, no script)`);

    // A second process on the same database, never asked anything about scripts.
    const second = await start();
    await sleep(2500);
    expect(childrenOf(second.child.pid!)).toEqual([]);

    // A script: workers in both processes (the second learns of it by itself), and quotes use it.
    const created = await callServer(first, 'POST', `${PYSCRIPTS}/scripts`, { name: 'flat', data: PRICING_SCRIPT }, { timeoutMs: WORKER_START_MS });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await until('a worker in the first process', () => childrenOf(pid).length === 1, WORKER_START_MS, first);
    await until('a worker in the second process', () => childrenOf(second.child.pid!).length === 1, WORKER_STOP_MS, second);
    await waitForOutput(second, 'pyscripts sandbox ready');
    for (const server of [first, second]) {
      const priced = await callServer(server, 'POST', '/v2/rating/quote', quote(2), { timeoutMs: WORKER_START_MS });
      expect(priced.status, JSON.stringify(priced.body)).toBe(200);
      expect(priced.body.total).toBe('0.5');
    }
    for (const worker of childrenOf(pid)) {
      const commandLine = readFileSync(`/proc/${worker}/cmdline`);
      expect(commandLine.length, commandLine.toString('utf8').replaceAll('\0', ' ')).toBeLessThan(CMDLINE_BOUND_BYTES);
    }

    // Deleted: the workers stop in both processes.
    expect((await callServer(first, 'DELETE', `${PYSCRIPTS}/scripts/${created.body.script_id}`)).status).toBe(204);
    await until('no worker in the first process', () => childrenOf(pid).length === 0, WORKER_STOP_MS, first);
    await until('no worker in the second process', () => childrenOf(second.child.pid!).length === 0, WORKER_STOP_MS, second);

    // A script again, then the module disabled through the second process: stopped in both.
    const again = await callServer(first, 'POST', `${PYSCRIPTS}/scripts`, { name: 'flat', data: PRICING_SCRIPT }, { timeoutMs: WORKER_START_MS });
    expect(again.status).toBe(201);
    await until('a worker again', () => childrenOf(pid).length === 1 && childrenOf(second.child.pid!).length === 1, WORKER_START_MS, first);
    // The first process's worker may still be the one its compile check started while nothing
    // needed it (it would then stay its 30 s linger): a quote loads the rules with the script.
    expect((await callServer(first, 'POST', '/v2/rating/quote', quote(2), { timeoutMs: WORKER_START_MS })).body.total).toBe('0.5');
    await enablePyscripts(second, false);
    await until('no worker after disabling', () => childrenOf(pid).length === 0 && childrenOf(second.child.pid!).length === 0, WORKER_STOP_MS, first);
    // Disabled, a quote does not run the script: 0, and no worker starts.
    const unpriced = await callServer(first, 'POST', '/v2/rating/quote', quote(2));
    expect(unpriced.body.total).toBe('0');
    expect(childrenOf(pid)).toEqual([]);
    expect(first.output()).not.toMatch(/failed to start/);
  });

  it('a quote needing a script waits for the workers a process starts with, and a stop while they load logs no error', { timeout: 600_000 }, async () => {
    const setup = await start();
    await enablePyscripts(setup, true);
    expect((await callServer(setup, 'POST', `${PYSCRIPTS}/scripts`, { name: 'flat', data: PRICING_SCRIPT }, { timeoutMs: WORKER_START_MS })).status).toBe(201);
    await setup.stop();
    servers.splice(0);

    // A fresh process: its first quote waits for the workers it starts, then succeeds.
    const fresh = await start();
    const priced = await callServer(fresh, 'POST', '/v2/rating/quote', quote(3), { timeoutMs: WORKER_START_MS });
    expect(priced.status, JSON.stringify(priced.body)).toBe(200);
    expect(priced.body.total).toBe('0.75');
    await fresh.stop();
    servers.splice(0);

    // Stopped while its workers load: exit 0, no error line, no worker left.
    const stopped = await spawnServerProcess(`sqlite:${join(directory, 'tariff.db')}`, SANDBOX);
    servers.push(stopped);
    await waitForOutput(stopped, 'Tariff is serving the rating API');
    await until('a worker booting', () => childrenOf(stopped.child.pid!).length === 1, WORKER_STOP_MS, stopped);
    const workers = childrenOf(stopped.child.pid!);
    expect(stopped.output()).not.toContain('pyscripts sandbox ready');
    expect(await stopped.stop()).toBe(0);
    expect(stopped.output()).not.toMatch(/failed to start|"level":50/);
    expect(workers.filter(alive)).toEqual([]);
  });
});
