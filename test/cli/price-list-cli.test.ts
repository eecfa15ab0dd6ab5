/**
 * `tariff price-list export|diff|apply`, the built CLI (`node bin/tariff.js`) against a real Tariff
 * server process on SQLite (docs/price-list.md): export in YAML and JSON, a diff's plan and exit
 * codes, apply --yes, a document on stdin, a refused document's problems with their lines, a stale
 * --if-revision, and the confirmation typed on a real terminal (util-linux `script`).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../helpers/server.js';
import { cleanEnvironment, runCli, type CliRun } from '../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = '/usr/bin/script';

/** Runs `node bin/tariff.js <args>` with `input` on stdin (a pipe, never a terminal). */
function tariff(environment: Record<string, string>, args: string[], input = ''): Promise<CliRun> {
  return runCli(cleanEnvironment(environment), args, input);
}

const V1 = `modules:
  hashmap: { enabled: true, priority: 1 }
services:
  instance:
    fields:
      flavor_name:
        mappings:
          - { value: m1.large, type: flat, cost: 0.05 }
`;
const V2 = V1.replace('cost: 0.05', 'cost: 0.06');

describe('tariff price-list against a real server', () => {
  let directory: string;
  let server: ServerProcess;
  let environment: Record<string, string>;
  const file = (name: string, text: string) => {
    const path = join(directory, name);
    writeFileSync(path, text);
    return path;
  };

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-price-list-cli-'));
    server = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`);
    environment = { TARIFF_URL: server.url };
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('exports an empty configuration as YAML by default, JSON with --format json', async () => {
    // One `at` for both: two exports a second apart differ in it.
    const at = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();
    const yaml = await tariff(environment, ['price-list', 'export', '--at', at]);
    expect(yaml).toMatchObject({ code: 0, stderr: '' });
    expect(parseYaml(yaml.stdout)).toMatchObject({ revision: 0, services: {}, groups: [] });
    const json = await tariff(environment, ['price-list', 'export', '--format', 'json', '--at', at, '--url', server.url], '');
    expect(JSON.parse(json.stdout)).toEqual(parseYaml(yaml.stdout));
  });

  it('diffs a new document: the plan, exit 2, nothing written', async () => {
    const run = await tariff(environment, ['price-list', 'diff', file('v1.yaml', V1)]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(2);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toContain('~ modules[hashmap]  enabled false → true');
    expect(lines).toContain('+ services[instance]  (new service)');
    expect(lines).toContain('+ services[instance].fields[flavor_name]  (new field)');
    expect(lines.find((line) => line.startsWith('+ services[instance].fields[flavor_name].mappings[value=m1.large]  type flat, cost 0.05, '))).toBeDefined();
    expect(lines.at(-1)).toMatch(/^Plan: 1 to add, 0 to replace, 0 to end, 0 to delete, 1 to update, 2 to create \(effective \S+, against revision 0\)\.$/);
    expect(parseYaml((await tariff(environment, ['price-list', 'export'])).stdout).revision).toBe(0);
  });

  it('applies with --yes, after which the same document diffs clean (exit 0)', async () => {
    const path = file('v1.yaml', V1);
    const applied = await tariff(environment, ['price-list', 'apply', path, '--yes']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /^Applied: 1 added, 0 replaced, 0 ended, 0 deleted, 1 updated, 2 created, effective \S+; the configuration is now at revision 1\.$/,
    );
    const again = await tariff(environment, ['price-list', 'diff', path]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^No changes: the price list matches the configuration in force at \S+ \(revision 1\)\.\n$/);
    const exported = parseYaml((await tariff(environment, ['price-list', 'export'])).stdout);
    expect(exported.services.instance.fields.flavor_name.mappings).toEqual([expect.objectContaining({ value: 'm1.large', cost: '0.05' })]);
  });

  it('shows a changed cost as before → after, and refuses to apply it without --yes when stdin is no terminal', async () => {
    const path = file('v2.yaml', V2);
    const diff = await tariff(environment, ['price-list', 'diff', path]);
    expect(diff.code).toBe(2);
    expect(diff.stdout).toContain('~ services[instance].fields[flavor_name].mappings[value=m1.large]  cost 0.05 → 0.06\n');
    expect(diff.stdout).toContain('Plan: 0 to add, 1 to replace, 0 to end, 0 to delete, 0 to update, 0 to create');
    const refused = await tariff(environment, ['price-list', 'apply', path]);
    expect(refused).toMatchObject({
      code: 1,
      stderr: 'tariff: Not applied: stdin is not a terminal, so no one can confirm. Review the plan, then pass --yes.\n',
    });
    expect(parseYaml((await tariff(environment, ['price-list', 'export'])).stdout).revision).toBe(1);
  });

  it('refuses a stale --if-revision with the 409 explained', async () => {
    const run = await tariff(environment, ['price-list', 'diff', file('v2.yaml', V2), '--if-revision', '0']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      "tariff: The configuration changed meanwhile (409): nothing was written. The configuration changed since revision 0: it is at revision 1. Export it again and review the diff. Run 'tariff price-list diff' again and review the new plan.\n",
    );
  });

  it("lists a refused document's problems as FILE:line:column: path: message", async () => {
    const path = file('bad.yaml', 'services:\n  x:\n    mappings:\n      - { cost: abc }\n      - { cost: 1, bogus: 2 }\n');
    const run = await tariff(environment, ['price-list', 'diff', path]);
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')).toEqual([
      `tariff: ${path}: the server refused the price list, 3 problems:`,
      `${path}:4:11: services[x].mappings[0].cost: Invalid input for field/attribute cost. Value: 'abc'. Value must be a finite decimal number.`,
      `${path}:5:9: services[x].mappings[1]: duplicate of services[x].mappings[0]: same parent, value, tenant_id and group, valid at the same time`,
      `${path}:5:20: services[x].mappings[1].bogus: unknown key`,
      '',
    ]);
  });

  it('reads the document from stdin with -, and applies a JSON file as JSON', async () => {
    const fromStdin = await tariff(environment, ['price-list', 'apply', '-', '--yes'], V2);
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.stdout).toContain('the configuration is now at revision 2.');
    const exported = JSON.parse((await tariff(environment, ['price-list', 'export', '--format', 'json'])).stdout);
    expect(exported.services.instance.fields.flavor_name.mappings).toEqual([expect.objectContaining({ cost: '0.06' })]);
    const json = file('same.json', JSON.stringify(exported));
    expect(await tariff(environment, ['price-list', 'diff', json])).toMatchObject({ code: 0, stderr: '' });
  });

  it('exports at a past time with --at', async () => {
    const run = await tariff(environment, ['price-list', 'export', '--at', '2000-01-01T00:00:00Z']);
    expect(run.code).toBe(0);
    expect(parseYaml(run.stdout)).toMatchObject({ at: '2000-01-01T00:00:00+00:00' });
  });

  it.skipIf(!existsSync(SCRIPT))('asks "Apply these changes? [y/N]" on a terminal and applies on y', async () => {
    const path = file('v3.yaml', V2.replace('cost: 0.06', 'cost: 0.07'));
    const command = [process.execPath, `${ROOT}/bin/tariff.js`, 'price-list', 'apply', path].map((word) => `'${word}'`).join(' ');
    const child = spawn(SCRIPT, ['-qec', command, '/dev/null'], { env: cleanEnvironment(environment), timeout: 60_000 });
    let output = '';
    // The answer may come after script(1) has exited (a failed run): a write then fails with EPIPE, which the assertions below report.
    child.stdin.on('error', () => {});
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Apply these changes? [y/N] ') && child.stdin.writable) child.stdin.write('y\n');
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(output).toContain('cost 0.06 → 0.07');
    expect(output).toContain('the configuration is now at revision 3.');
    expect(code).toBe(0);
  });
});
