/**
 * `tariff serve --config-file`, real processes with no TARIFF_* variable: a good file serves (and
 * shows the version everywhere it is promised); generated broken files stop start-up with one line
 * naming the file and the broken line.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/server.js';
import { runTariffCommand, serveWithFiles } from './processes.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'tariff-serve-files-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A noauth cloudkitty.conf on an SQLite file, listening on `port`. */
function goodLines(port: number): string[] {
  return [
    '[DEFAULT]',
    'auth_strategy = noauth',
    'log_dir = /var/log/cloudkitty',
    '',
    '[database]',
    `connection = sqlite:///${join(folder, 'tariff.db')}`,
    '',
    '[api]',
    'host_ip = 127.0.0.1',
    `port = ${port}`,
    '',
    '[tariff]',
    'sandbox_workers = 0',
    'log_level = info',
  ];
}

describe('tariff serve --config-file', () => {
  it('serves from the file alone, logs the unused options once, and shows its version in --version, the start-up line, /healthcheck?detailed and tariff_build_info', async () => {
    const port = await freePort();
    const base = join(folder, 'cloudkitty.conf');
    writeFileSync(base, goodLines(port).join('\n'));
    writeFileSync(join(folder, 'override.conf'), '[keystone_authtoken]\nmemcached_servers = 127.0.0.1:11211\n');
    const server = await serveWithFiles(['--config-file', base, '--config-file', join(folder, 'override.conf')], `http://127.0.0.1:${port}/healthcheck`);
    try {
      const detailed = await fetch(`http://127.0.0.1:${port}/healthcheck?detailed`, { headers: { accept: 'application/json' } });
      expect(((await detailed.json()) as { version: string }).version).toBe(VERSION);
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics).toContain(`tariff_build_info{version="${VERSION}",node_version="${process.version}"} 1`);
      const services = await fetch(`http://127.0.0.1:${port}/v1/rating/module_config/hashmap/services`);
      expect(services.status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const lines = server
      .output()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const fileLines = lines.filter((line) => 'unused_options' in line);
    expect(fileLines).toHaveLength(1);
    expect(fileLines[0]).toMatchObject({
      config_files: [base, join(folder, 'override.conf')],
      unused_options: ['DEFAULT.log_dir', 'keystone_authtoken.memcached_servers'],
    });
    expect(lines.find((line) => line.msg === 'Tariff is serving the rating API')).toMatchObject({ version: VERSION, url: `http://127.0.0.1:${port}` });
    expect(await runTariffCommand(['--version'])).toEqual({ code: 0, stdout: `tariff ${VERSION}\n`, stderr: '' });
  });

  /** Broken lines, each with the lines it needs before it and the problem it is refused for. */
  const brokenLine = fc.oneof(
    fc.stringMatching(/^[a-z_]{1,12}$/).map((word) => ({ lines: [word], problem: `no ':' or '=' in "${word}"` })),
    fc.stringMatching(/^[a-z_]{1,12}$/).map((name) => ({ lines: [`[${name}`], problem: "a section header must end with ']'" })),
    fc.constant({ lines: ['[]'], problem: 'the section name is empty' }),
    fc.constantFrom('=1', ': x').map((line) => ({ lines: [line], problem: 'the key is empty' })),
    fc.stringMatching(/^[a-z]{1,8}$/).map((word) => ({ lines: ['', `  ${word} = 1`], problem: 'an indented line continues no option' })),
    fc
      .constantFrom('db_timeot', 'database_url_', 'log')
      .map((key) => ({ lines: ['[tariff]', `${key} = 1`], problem: `[tariff] ${key} is not a Tariff setting` })),
    fc
      .constantFrom('eighty', '-1', '70000')
      .map((port) => ({ lines: ['[api]', `port = ${port}`], problem: '[api] port: TARIFF_PORT must be a TCP port number' })),
    fc
      .constantFrom('ldap', 'Keystone')
      .map((strategy) => ({ lines: ['[DEFAULT]', `auth_strategy = ${strategy}`], problem: '[DEFAULT] auth_strategy must be noauth or keystone' })),
    fc
      .constantFrom('mssql://u:p@db/ck', 'mysql://u@db/ck?ssl_ca=/x')
      .map((url) => ({ lines: ['[database]', `connection = ${url}`], problem: '[database] connection: ' })),
  );

  it('stops with one line naming the file and the broken line, and a non-zero exit code, for generated broken files', async () => {
    const port = await freePort();
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 14 }), brokenLine, async (at, broken) => {
        const lines = goodLines(port);
        // A broken option must come after the file's own setting of it to be the one that counts.
        const position = broken.lines[0].startsWith('[') && broken.lines.length > 1 ? lines.length : at;
        lines.splice(position, 0, ...broken.lines);
        const file = join(folder, 'broken.conf');
        writeFileSync(file, lines.join('\n') + '\n');
        const finished = await runTariffCommand(['serve', '--config-file', file]);
        const brokenLineNumber = position + broken.lines.length;
        expect(finished.code, finished.stderr).not.toBe(0);
        expect(finished.stdout).toBe('');
        expect(finished.stderr.endsWith('\n') && finished.stderr.indexOf('\n') === finished.stderr.length - 1, finished.stderr).toBe(true);
        expect(finished.stderr.startsWith(`tariff: ${file}:${brokenLineNumber}: `), finished.stderr).toBe(true);
        expect(finished.stderr).toContain(broken.problem);
      }),
      { numRuns: 8, seed: 23 },
    );
    // Nothing was left listening.
    await expect(fetch(`http://127.0.0.1:${port}/healthcheck`)).rejects.toThrow();
  }, 180_000);
});
