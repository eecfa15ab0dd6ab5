/**
 * Starting and stopping Tariff from a checkout as an operator does (issue 26): `tariff --version`,
 * the Node options `tariff serve` gives itself, `npm start` (no rebuild when dist/ is current; a
 * SIGTERM to npm stops the server, none is orphaned), and the one clear line of each start-up
 * failure: a port in use, a checkout never built, and a dry run that creates nothing.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/server.js';
import { alive, childrenOf, descendantsOf } from '../helpers/child-processes.js';
import { commandLine, NODE_FOLDER, operatorEnvironment, run, start, waitForHealth, type Started } from './processes.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TARIFF = join(ROOT, 'bin', 'tariff.js');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** A test here starts one to four Tariff processes: seconds each on a loaded machine. */
const PROCESS_TEST_MS = 120_000;

let directory: string;
const started: Started[] = [];
const listeners: Server[] = [];
const accepted: Socket[] = [];

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'tariff-start-stop-'));
});

afterEach(async () => {
  for (const handle of started.splice(0)) {
    // A test that failed midway leaves npm's server too: killing npm alone would orphan it.
    for (const pid of descendantsOf(handle.child.pid!)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    if (handle.child.exitCode === null && handle.child.signalCode === null) handle.child.kill('SIGKILL');
    await handle.ended;
  }
  for (const socket of accepted.splice(0)) socket.destroy();
  for (const listener of listeners.splice(0)) await new Promise((resolve) => listener.close(resolve));
});

afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** The settings of a test server: loopback, a database of its own, no sandbox workers, warnings only. */
function serverEnvironment(port: number, extra: Record<string, string> = {}): Record<string, string> {
  return operatorEnvironment({
    TARIFF_HOST: '127.0.0.1',
    TARIFF_PORT: String(port),
    TARIFF_DATABASE_URL: `sqlite:${join(mkdtempSync(join(directory, 'database-')), 'tariff.db')}`,
    TARIFF_SANDBOX_WORKERS: '0',
    TARIFF_LOG_LEVEL: 'warn',
    ...extra,
  });
}

/** Something else listening on a free loopback port. */
async function busyPort(): Promise<number> {
  const listener = createServer();
  listeners.push(listener);
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  return (listener.address() as { port: number }).port;
}

describe('tariff --version', () => {
  it("prints package.json's version, with --version and -V, also in a checkout not built yet", async () => {
    const unbuilt = mkdtempSync(join(directory, 'unbuilt-'));
    mkdirSync(join(unbuilt, 'bin'));
    copyFileSync(TARIFF, join(unbuilt, 'bin', 'tariff.js'));
    copyFileSync(join(ROOT, 'package.json'), join(unbuilt, 'package.json'));
    for (const tariff of [TARIFF, join(unbuilt, 'bin', 'tariff.js')]) {
      for (const flag of ['--version', '-V']) {
        expect(await run(process.execPath, [tariff, flag], { cwd: directory, env: operatorEnvironment() }), `${tariff} ${flag}`).toMatchObject({
          code: 0,
          stdout: `tariff ${VERSION}\n`,
          stderr: '',
        });
      }
    }
  });
});

describe("tariff serve's Node options", () => {
  it(
    'started as plain `node bin/tariff.js serve`, the server process (same pid) runs with --expose-gc and --max-semi-space-size=64',
    async () => {
      const port = await freePort();
      const server = start(process.execPath, [TARIFF, 'serve'], { cwd: directory, env: serverEnvironment(port) });
      started.push(server);
      await waitForHealth(server, `http://127.0.0.1:${port}`);
      const line = commandLine(server.child.pid!);
      expect(line?.slice(1, 3)).toEqual(['--max-semi-space-size=64', '--expose-gc']);
      expect(line?.slice(-2)).toEqual([TARIFF, 'serve']);
      server.child.kill('SIGTERM');
      expect(await server.ended).toEqual({ code: 0, signal: null });
    },
    PROCESS_TEST_MS,
  );

  it(
    "keeps an operator's own --max-semi-space-size from NODE_OPTIONS, and adds only --expose-gc",
    async () => {
      const port = await freePort();
      const server = start(process.execPath, [TARIFF, 'serve'], { cwd: directory, env: serverEnvironment(port, { NODE_OPTIONS: '--max-semi-space-size=32' }) });
      started.push(server);
      await waitForHealth(server, `http://127.0.0.1:${port}`);
      const line = commandLine(server.child.pid!)!;
      expect(line).toContain('--expose-gc');
      expect(line.some((argument) => argument.startsWith('--max-semi-space-size'))).toBe(false);
    },
    PROCESS_TEST_MS,
  );

  it('the other commands are not re-executed: a price-list command runs without them', async () => {
    // A server that never answers keeps the command waiting while its command line is read.
    // Its accepted sockets are destroyed after the test: a killed client's end was seen to never
    // reach them here, which held close() past the hook's limit.
    const listener = createServer((socket) => accepted.push(socket));
    listeners.push(listener);
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(listener.address() as { port: number }).port}`;
    const client = start(process.execPath, [TARIFF, 'price-list', 'export'], { cwd: directory, env: operatorEnvironment({ TARIFF_URL: url }) });
    started.push(client);
    await sleep(1000);
    expect(commandLine(client.child.pid!)).toEqual([process.execPath, TARIFF, 'price-list', 'export']);
  });
});

describe('npm start', () => {
  it('serves without rebuilding a current dist/, as the server itself (npm -> node), and SIGTERM to npm stops the server: none is orphaned', async () => {
    const port = await freePort();
    const npm = start('npm', ['start'], { cwd: ROOT, env: { ...serverEnvironment(port), PATH: `${NODE_FOLDER}:${process.env.PATH}` } });
    started.push(npm);
    await waitForHealth(npm, `http://127.0.0.1:${port}`, 120_000);
    expect(npm.output()).not.toMatch(/building/);
    // npm's one child is the server: the shell exec'd scripts/start.js, which became bin/tariff.js.
    const children = childrenOf(npm.child.pid!);
    expect(children).toHaveLength(1);
    const server = children[0];
    expect(commandLine(server)).toEqual([expect.stringMatching(/node$/), '--max-semi-space-size=64', '--expose-gc', TARIFF, 'serve']);
    npm.child.kill('SIGTERM');
    expect(await npm.ended).toEqual({ code: 0, signal: null });
    for (let waited = 0; alive(server) && waited < 30_000; waited += 100) await sleep(100);
    expect(alive(server)).toBe(false);
  }, 150_000);
});

describe('start-up failures: one line each, no stack trace', () => {
  it(
    'a port in use names the address and TARIFF_PORT, and exits 1',
    async () => {
      const port = await busyPort();
      const failed = await run(process.execPath, [TARIFF, 'serve'], { cwd: directory, env: serverEnvironment(port) });
      expect(failed).toMatchObject({
        code: 1,
        stderr: `tariff: 127.0.0.1:${port} is already in use by another process: stop it, or set TARIFF_PORT to a free port\n`,
      });
    },
    PROCESS_TEST_MS,
  );

  it(
    'a metrics port in use names TARIFF_METRICS_PORT',
    async () => {
      const [port, metricsPort] = [await freePort(), await busyPort()];
      const failed = await run(process.execPath, [TARIFF, 'serve'], {
        cwd: directory,
        env: serverEnvironment(port, { TARIFF_METRICS: 'true', TARIFF_METRICS_PORT: String(metricsPort) }),
      });
      expect(failed.code).toBe(1);
      expect(failed.stderr).toBe(`tariff: 127.0.0.1:${metricsPort} is already in use by another process: stop it, or set TARIFF_METRICS_PORT to a free port\n`);
    },
    PROCESS_TEST_MS,
  );

  it('a checkout that was never built says to run npm run build', async () => {
    const checkout = mkdtempSync(join(directory, 'checkout-'));
    mkdirSync(join(checkout, 'bin'));
    copyFileSync(TARIFF, join(checkout, 'bin', 'tariff.js'));
    for (const args of [['serve'], ['db', 'upgrade'], ['price-list', 'export']]) {
      const failed = await run(process.execPath, [join(checkout, 'bin', 'tariff.js'), ...args], { cwd: checkout, env: operatorEnvironment() });
      expect(failed, args.join(' ')).toMatchObject({
        code: 1,
        stdout: '',
        stderr: `tariff: ${join(checkout, 'dist')}/ is not built; run npm run build in ${checkout}/\n`,
      });
    }
  });

  it(
    'db upgrade --dry-run creates no folder and no file, for the default database and a nested path',
    async () => {
      const workingDirectory = mkdtempSync(join(directory, 'dry-run-'));
      const environment = operatorEnvironment();
      const defaultRun = await run(process.execPath, [TARIFF, 'db', 'upgrade', '--dry-run'], { cwd: workingDirectory, env: environment });
      expect(defaultRun.code, defaultRun.stderr).toBe(0);
      expect(defaultRun.stdout.split('\n')[0]).toBe(
        `sqlite:${join(workingDirectory, 'data', 'tariff.db')} (does not exist yet; the dry run did not create it): an empty database`,
      );
      expect(defaultRun.stdout).toMatch(/^Tariff migrations \(pending\): 0001_rating_tables, /m);
      expect(defaultRun.stdout).toMatch(/^dry run: nothing was changed$/m);
      const nested = join(workingDirectory, 'a', 'b', 'tariff.db');
      const nestedRun = await run(process.execPath, [TARIFF, 'db', 'upgrade', '--dry-run'], {
        cwd: workingDirectory,
        env: { ...environment, TARIFF_DATABASE_URL: `sqlite:${nested}` },
      });
      expect(nestedRun.code, nestedRun.stderr).toBe(0);
      expect(readdirSync(workingDirectory)).toEqual([]);
      // The real upgrade creates it; a dry run on it then reads the file and finds nothing to do.
      const upgraded = await run(process.execPath, [TARIFF, 'db', 'upgrade'], {
        cwd: workingDirectory,
        env: { ...environment, TARIFF_DATABASE_URL: `sqlite:${nested}` },
      });
      expect(upgraded.code, upgraded.stderr).toBe(0);
      expect(existsSync(nested)).toBe(true);
      const again = await run(process.execPath, [TARIFF, 'db', 'upgrade', '--dry-run'], {
        cwd: workingDirectory,
        env: { ...environment, TARIFF_DATABASE_URL: `sqlite:${nested}` },
      });
      expect(again.stdout.split('\n')[0]).toBe(`sqlite:${nested}: Tariff's tables`);
      expect(again.stdout).toMatch(/^already up to date$/m);
    },
    PROCESS_TEST_MS,
  );
});
