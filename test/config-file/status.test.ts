/**
 * `tariff status upgrade check`: oslo.upgradecheck's table and JSON, compared with the real
 * `cloudkitty-status` and Python's textwrap; then the real command on SQLite files, given only a
 * configuration file, through each outcome and exit code.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DatabaseSync } from 'node:sqlite';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckCode, exitCode, reportJson, reportTable, type CheckResult } from '../../src/status/report.js';
import { wrapText } from '../../src/auth/policy/textwrap.js';
import { freePort } from '../helpers/server.js';
import { debianPythonMissing, runPython } from './debian-python.js';
import { runTariffCommand } from './processes.js';

const run = promisify(execFile);

const TEXTWRAP = `
import json, sys, textwrap
print(json.dumps([textwrap.wrap(text, 60, subsequent_indent='  ') for text in json.load(sys.stdin)]))
`;

describe.skipIf(debianPythonMissing !== undefined)("oslo.upgradecheck's report", () => {
  it("wraps details as Python's textwrap.wrap(details, 60, subsequent_indent='  ')", () => {
    const word = fc.oneof(
      fc.constantFrom(
        'the',
        'database',
        'YAML-formatted',
        'backwards-compatible',
        '``oslopolicy-convert-json-to-yaml``',
        'a-b',
        '--',
        'x-',
        '-y',
        '/etc/cloudkitty/',
      ),
      fc.constantFrom(
        'https://docs.openstack.org/oslo.policy/latest/cli/oslopolicy-convert-json-to-yaml.html.',
        'mysql://root@127.0.0.1:3306/tariff_test_0a1b2c3d4e5f',
      ),
      fc.array(fc.constantFrom(...'abcdefghij-_./:0'.split('')), { minLength: 1, maxLength: 90 }).map((characters) => characters.join('')),
    );
    const texts = fc.sample(
      fc
        .array(fc.tuple(word, fc.constantFrom(' ', ' ', ' ', '  ', '\t', '\n')), { maxLength: 30 })
        .map((pairs) => pairs.map(([text, space]) => text + space).join('')),
      { numRuns: 2000, seed: 9 },
    );
    const python = runPython<string[][]>(TEXTWRAP, texts);
    texts.forEach((text, index) => expect(wrapText(text, 60, { subsequent: '  ' }), JSON.stringify(text)).toEqual(python[index]));
  });

  it("prints cloudkitty-status's own table and JSON for cloudkitty-status's results, byte for byte", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'tariff-ck-status-'));
    try {
      writeFileSync(join(folder, 'cloudkitty.conf'), '[DEFAULT]\n[oslo_policy]\npolicy_file = policy.json\n');
      writeFileSync(join(folder, 'policy.json'), '{"rating:module_config": "role:admin"}\n');
      const status = (...extra: string[]) =>
        run('cloudkitty-status', ['--config-file', join(folder, 'cloudkitty.conf'), 'upgrade', 'check', ...extra]).then(
          ({ stdout }) => ({ code: 0, stdout }),
          (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
        );
      const json = await status('--json');
      const table = await status();
      const parsed = JSON.parse(json.stdout) as { checks: { check: string; result: CheckCode; details: string | null }[] };
      const results: CheckResult[] = parsed.checks.map((check) => ({ name: check.check, code: check.result, details: check.details }));
      expect(results.map((result) => result.code)).toEqual([CheckCode.Success, CheckCode.Failure]);
      expect(reportTable(results)).toBe(table.stdout);
      expect(reportJson(results)).toBe(json.stdout);
      expect(exitCode(results)).toBe(table.code);
      expect(exitCode(results)).toBe(2);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

/** The checks' codes by name, from `--json`. */
function codes(stdout: string): Record<string, number> {
  const report = JSON.parse(stdout) as { name: string; checks: { check: string; result: number }[] };
  expect(report.name).toBe('Upgrade Check Results');
  return Object.fromEntries(report.checks.map((check) => [check.check, check.result]));
}

describe('tariff status upgrade check, given only a configuration file', () => {
  let folder: string;
  let cloudKitty: Server;
  let cloudKittyUrl: string;
  /** Writes `name` in the folder and returns its path. */
  const write = (name: string, text: string) => {
    writeFileSync(join(folder, name), text);
    return join(folder, name);
  };
  /** A noauth cloudkitty.conf on `database` (a file name in the folder) with `extra` lines. */
  const conf = (database: string, ...extra: string[]) =>
    write(
      'cloudkitty.conf',
      ['[DEFAULT]', 'auth_strategy = noauth', '[database]', `connection = sqlite:///${join(folder, database)}`, ...extra, ''].join('\n'),
    );

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'tariff-status-'));
    cloudKitty = createServer((_request, response) => response.end('{"versions": []}'));
    const port = await freePort();
    await new Promise<void>((resolve) => cloudKitty.listen(port, '127.0.0.1', resolve));
    cloudKittyUrl = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => cloudKitty?.close(resolve));
    rmSync(folder, { recursive: true, force: true });
  });

  it('succeeds on a new database and after db upgrade, printing the table oslo prints', async () => {
    const file = conf('new.db');
    const first = await runTariffCommand(['status', 'upgrade', 'check', '--config-file', file]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^\+-+\+\n\| Upgrade Check Results +\|\n\+-+\+\n\| Check: Database +\|\n\| Result: Success +\|\n\| Details: sqlite:/);
    const firstJson = await runTariffCommand(['status', 'upgrade', 'check', '--json', '--config-file', file]);
    expect(firstJson.stdout).toContain("no rating tables yet: 'tariff serve' creates them");
    expect(firstJson.stdout).toContain("not recorded yet: the next 'tariff serve' or 'tariff db upgrade' records it");
    expect((await runTariffCommand(['db', 'upgrade', '--config-file', file])).code).toBe(0);
    const second = await runTariffCommand(['--config-file', file, 'status', 'upgrade', 'check', '--json']);
    expect(second.code).toBe(0);
    expect(codes(second.stdout)).toEqual({
      Database: 0,
      'Time zone of stored datetimes': 0,
      'Policy File JSON to YAML Migration': 0,
      'Policy rules': 0,
      Keystone: 0,
      'CloudKitty API': 0,
    });
    expect(second.stdout).toContain("Tariff's tables, up to date");
    expect(second.stdout).toContain('naive datetimes hold wall time in UTC (recorded in tariff_settings)');
  });

  it('fails on a JSON policy file as cloudkitty-status does, and on rules that do not parse; a YAML file passes', async () => {
    const checkWithPolicyFile = (file: string) =>
      runTariffCommand(['status', 'upgrade', 'check', '--json', '--config-file', conf('policy.db', '[oslo_policy]', `policy_file = ${file}`)]);
    write('policy.json', '{"rating:module_config": "role:admin"}');
    const json = await checkWithPolicyFile('policy.json');
    expect(json.code).toBe(2);
    expect(codes(json.stdout)).toMatchObject({ 'Policy File JSON to YAML Migration': 2, 'Policy rules': 0 });
    write('policy.yaml', '"rating:module_config": "role:admin or"\n');
    const broken = await checkWithPolicyFile('policy.yaml');
    expect(broken.code).toBe(2);
    expect(codes(broken.stdout)).toMatchObject({ 'Policy File JSON to YAML Migration': 0, 'Policy rules': 2 });
    write('policy.yaml', '"rating:module_config": "role:admin or role:rating"\n');
    const yaml = await checkWithPolicyFile('policy.yaml');
    expect(codes(yaml.stdout)).toMatchObject({ 'Policy File JSON to YAML Migration': 0, 'Policy rules': 0 });
    expect(yaml.code).toBe(0);
  });

  it('fails on a time zone other than the recorded one, and on a database it does not recognise', async () => {
    const file = conf('zoned.db');
    expect((await runTariffCommand(['db', 'upgrade', '--config-file', file])).code).toBe(0);
    const other = await runTariffCommand([
      'status',
      'upgrade',
      'check',
      '--json',
      '--config-file',
      conf('zoned.db', '[tariff]', 'cloudkitty_timezone = Asia/Tokyo'),
    ]);
    expect(other.code).toBe(2);
    expect(codes(other.stdout)).toMatchObject({ Database: 0, 'Time zone of stored datetimes': 2 });
    expect(other.stdout).toContain('records time zone UTC, but TARIFF_CLOUDKITTY_TIMEZONE is Asia/Tokyo');
    const stranger = new DatabaseSync(join(folder, 'stranger.db'));
    stranger.exec('create table hashmap_services (id integer primary key, name text)');
    stranger.close();
    const unknown = await runTariffCommand(['status', 'upgrade', 'check', '--json', '--config-file', conf('stranger.db')]);
    expect(unknown.code).toBe(2);
    expect(codes(unknown.stdout)).toMatchObject({ Database: 2, 'Time zone of stored datetimes': 2 });
  });

  it('checks the CloudKitty API behind Tariff when the file names one: reachable passes, unreachable fails', async () => {
    const reachable = await runTariffCommand([
      'status',
      'upgrade',
      'check',
      '--json',
      '--config-file',
      conf('api.db', '[tariff]', `cloudkitty_api_url = ${cloudKittyUrl}`),
    ]);
    expect(codes(reachable.stdout)['CloudKitty API']).toBe(0);
    expect(reachable.stdout).toContain(`${cloudKittyUrl}/ answered 200 in`);
    const closed = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await runTariffCommand([
      'status',
      'upgrade',
      'check',
      '--json',
      '--config-file',
      conf('api.db', '[tariff]', `cloudkitty_api_url = ${closed}`),
    ]);
    expect(unreachable.code).toBe(2);
    expect(codes(unreachable.stdout)['CloudKitty API']).toBe(2);
    expect(unreachable.stdout).toContain(`${closed}/ did not answer: connect ECONNREFUSED`);
  });

  it('stops with one line naming the file and line, exit code 255, when the file is malformed', async () => {
    const file = write('broken.conf', '[DEFAULT]\nauth_strategy = noauth\n[database\nconnection = sqlite:///x.db\n');
    const finished = await runTariffCommand(['status', 'upgrade', 'check', '--config-file', file]);
    expect(finished).toEqual({ code: 255, stdout: '', stderr: `tariff: ${file}:3: a section header must end with ']': "[database"\n` });
    const usage = await runTariffCommand(['status', 'upgrade']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: tariff status upgrade check [--json]');
  });
});
