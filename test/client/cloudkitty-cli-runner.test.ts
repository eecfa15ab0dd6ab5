/**
 * test/helpers/cloudkitty-cli.ts: one Python process runs the real `cloudkitty` CLI's command lines
 * as fresh processes would. Each run is checked against a real process of the same command line
 * (exit code, stdout and stderr to the byte but for object addresses, which differ between two
 * processes too), and the runner's own promises: one environment per call, calls serialised, a
 * time-out, the fallback to a process for what is not a Python script.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEBIAN_CLOUDKITTY_CLI, runCloudkittyCli, stopCloudkittyCli, type CloudkittyCliRun } from '../helpers/cloudkitty-cli.js';
import { freePort } from '../helpers/server.js';

const CLI_AVAILABLE = existsSync(DEBIAN_CLOUDKITTY_CLI);
if (!CLI_AVAILABLE)
  console.warn(`test/unit/cloudkitty-cli-runner.test.ts skipped: ${DEBIAN_CLOUDKITTY_CLI} is missing (install Debian's python3-cloudkittyclient)`);

/** Python's start-up for the real processes compared with. */
const SLOW = 120_000;

/** The rows a fake CloudKitty answers `GET /v1/rating/modules/` with. */
const MODULES = { modules: [{ module_id: 'hashmap', description: 'Hashmap', enabled: true, 'hot-config': false, priority: 3 }] };

/** `program args` as a process of its own, as the tests ran the CLI before the runner. */
function realProcess(program: string, args: string[], env: Record<string, string>): Promise<CloudkittyCliRun> {
  return new Promise((resolve) => {
    const child = execFile(program, args, { env, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
    child.stdin?.end();
  });
}

/** The run with object addresses (`0x7f…`) masked: they differ from one process to another. */
const withoutAddresses = (run: CloudkittyCliRun) => ({
  ...run,
  stdout: run.stdout.replace(/0x[0-9a-f]+/g, '0x…'),
  stderr: run.stderr.replace(/0x[0-9a-f]+/g, '0x…'),
});

describe.skipIf(!CLI_AVAILABLE)('the cloudkitty CLI runner', () => {
  let home: string;
  let fakeCloudKitty: Server;
  let fakeUrl: string;
  let silent: Server;
  let silentUrl: string;
  let closedUrl: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'tariff-cli-runner-'));
    env = { PATH: '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' };
    fakeCloudKitty = createServer((request, response) => {
      const found = request.url === '/v1/rating/modules/';
      response.writeHead(found ? 200 : 404, { 'content-type': 'application/json' });
      response.end(JSON.stringify(found ? MODULES : { faultcode: 'Client', faultstring: `no ${request.url}`, debuginfo: null }));
    });
    silent = createServer(() => undefined);
    for (const server of [fakeCloudKitty, silent]) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fakeUrl = `http://127.0.0.1:${(fakeCloudKitty.address() as AddressInfo).port}`;
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    closedUrl = `http://127.0.0.1:${await freePort()}`;
  });
  afterAll(async () => {
    await stopCloudkittyCli();
    silent?.closeAllConnections();
    for (const server of [fakeCloudKitty, silent]) await new Promise((resolve) => server?.close(resolve));
    rmSync(home, { recursive: true, force: true });
  });

  const noauth = (url: string) => ['--os-auth-type', 'cloudkitty-noauth', '--os-endpoint', url];

  it('prints what a cloudkitty process prints, with its exit code', { timeout: SLOW }, async () => {
    // An answer (table), a fault of the server, a traceback and log lines (--debug), no credentials, a usage error.
    const cases: [string[], number][] = [
      [[...noauth(fakeUrl), 'module', 'list'], 0],
      [[...noauth(fakeUrl), 'module', 'get', 'noop'], 1],
      [['--debug', ...noauth(closedUrl), 'module', 'list'], 1],
      [['module', 'list'], 1],
      [['hashmap', 'service', 'create'], 2],
    ];
    // The real processes run side by side; the runner's calls one after the other.
    const reals = cases.map(([args]) => realProcess(DEBIAN_CLOUDKITTY_CLI, args, env));
    for (const [index, [args, code]] of cases.entries()) {
      const inProcess = await runCloudkittyCli(args, { env });
      const real = await reals[index];
      expect(withoutAddresses(inProcess), `cloudkitty ${args.join(' ')}`).toEqual(withoutAddresses(real));
      expect(inProcess.code, `cloudkitty ${args.join(' ')}\n${inProcess.stderr}`).toBe(code);
    }
    const listed = await runCloudkittyCli([...noauth(fakeUrl), 'module', 'list', '-f', 'json'], { env });
    expect(JSON.parse(listed.stdout)).toEqual([{ Module: 'hashmap', Enabled: true, Priority: 3 }]);
    const usage = await runCloudkittyCli(['hashmap', 'service', 'create'], { env });
    expect(usage.stderr).toMatch(/^cloudkitty hashmap service create: error: the following arguments are required: name$/m);
    expect(usage.stdout).toBe('');
  });

  it('gives each call exactly its environment: an OS_ variable of one call is not seen by the next', { timeout: SLOW }, async () => {
    const withVariables = { ...env, OS_AUTH_TYPE: 'cloudkitty-noauth', OS_ENDPOINT: fakeUrl };
    const first = await runCloudkittyCli(['module', 'list', '-f', 'json'], { env: withVariables });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual([{ Module: 'hashmap', Enabled: true, Priority: 3 }]);
    const second = await runCloudkittyCli(['module', 'list', '-f', 'json'], { env });
    expect(second).toEqual({ code: 1, stdout: '', stderr: 'Auth plugin requires parameters which were not given: auth_url\n' });
    // OS_PASSWORD makes the shell set OS_AUTH_TYPE=password in its own environment: not in the next call's.
    const withPassword = await runCloudkittyCli(['module', 'list'], { env: { ...env, OS_PASSWORD: 'secret' } });
    expect(withPassword.code).toBe(1);
    const third = await runCloudkittyCli(['module', 'list', '-f', 'json'], { env: { ...env, OS_ENDPOINT: fakeUrl, OS_AUTH_TYPE: 'cloudkitty-noauth' } });
    expect(third).toEqual(first);
  });

  it('runs concurrent calls one at a time, each answered with its own output', { timeout: SLOW }, async () => {
    const [listed, refused, version] = await Promise.all([
      runCloudkittyCli([...noauth(fakeUrl), 'module', 'list', '-f', 'value'], { env }),
      runCloudkittyCli([...noauth(closedUrl), 'module', 'list'], { env }),
      runCloudkittyCli(['--version'], { env }),
    ]);
    expect(listed).toEqual({ code: 0, stdout: 'hashmap True 3\n', stderr: '' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Unable to establish connection to ${closedUrl}/v1/rating/modules/`);
    expect(version).toEqual({ code: 0, stdout: expect.stringMatching(/^cloudkitty \d+\.\d+\.\d+\n$/), stderr: '' });
  });

  it('kills a call at its time-out (code -1) and runs the next call in a new runner', { timeout: SLOW }, async () => {
    const started = Date.now();
    const stalled = await runCloudkittyCli([...noauth(silentUrl), 'module', 'list'], { env, timeoutMs: 3000 });
    expect(stalled.code).toBe(-1);
    expect(Date.now() - started).toBeLessThan(15_000);
    const next = await runCloudkittyCli([...noauth(fakeUrl), 'module', 'list', '-f', 'value'], { env });
    expect(next).toEqual({ code: 0, stdout: 'hashmap True 3\n', stderr: '' });
  });

  it('runs any Python script as its process would: stdin, sys.exit with a message, an uncaught exception', { timeout: SLOW }, async () => {
    const script = join(home, 'script');
    writeFileSync(
      script,
      [
        '#!/usr/bin/python3',
        'import os, sys',
        'print("read:", sys.stdin.read().upper(), "seen:", os.environ.get("OS_SEEN"))',
        'print("to stderr", file=sys.stderr)',
        'if sys.argv[1:] == ["message"]: sys.exit("a message")',
        'if sys.argv[1:] == ["raise"]: raise ValueError("uncaught")',
        'sys.exit(int(sys.argv[1]))',
        '',
      ].join('\n'),
    );
    chmodSync(script, 0o755);
    for (const args of [['0'], ['3'], ['message'], ['raise']]) {
      const inProcess = await runCloudkittyCli(args, { env: { ...env, OS_SEEN: args[0] }, program: script, stdin: '' });
      expect(inProcess, args[0]).toEqual(await realProcess(script, args, { ...env, OS_SEEN: args[0] }));
    }
    expect(await runCloudkittyCli(['0'], { env, program: script, stdin: 'some input' })).toEqual({
      code: 0,
      stdout: 'read: SOME INPUT seen: None\n',
      stderr: 'to stderr\n',
    });
  });

  it('runs a program that is not a Python script as a process of its own', async () => {
    expect(await runCloudkittyCli(['-c', 'echo "$OS_X"; echo error >&2; exit 3'], { env: { ...env, OS_X: 'x' }, program: '/bin/sh' })).toEqual({
      code: 3,
      stdout: 'x\n',
      stderr: 'error\n',
    });
  });
});
