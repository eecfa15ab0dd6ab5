/**
 * The real CloudKitty CLI (Debian python3-cloudkittyclient 4.6.0, `/usr/bin/cloudkitty`) against a
 * running Tariff process: `module list/get/enable/disable/set priority`, with
 * `--os-rating-api-version 1` (GET → PUT of the whole module → GET on `/v1/rating/modules`) and `2`
 * (partial PUT → GET on `/v2/rating/modules`), checking what it prints (`-f json`) and the state the
 * server then holds. See /tmp/notes/client.md §1.3.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultModuleNames } from '../../src/rating/registry.js';
import { DEBIAN_CLOUDKITTY_CLI, runCloudkittyNoauth, stopCloudkittyCli, type CloudkittyCliRun as Run } from '../helpers/cloudkitty-cli.js';
import { callServer, startServerProcess, type ServerProcess } from '../helpers/server.js';

const CLI = DEBIAN_CLOUDKITTY_CLI;
const CLI_AVAILABLE = existsSync(CLI);
if (!CLI_AVAILABLE) {
  console.warn(`test/client/cloudkitty-modules.test.ts skipped: ${CLI} is missing (install Debian's python3-cloudkittyclient to run it)`);
}

/** Several CLI runs (one Python process runs them all: see test/helpers/cloudkitty-cli.ts); enable/disable are three requests. */
const SLOW = 90_000;

type Row = { Module: string; Enabled: boolean; Priority: number };
const row = (Module: string, Enabled = false, Priority = 1): Row => ({ Module, Enabled, Priority });

/** The rows of `module list`: every module of the registry, in name order, disabled with priority 1 but for `changed`. */
function listed(...changed: Row[]): Row[] {
  const names = defaultModuleNames();
  for (const { Module } of changed) expect(names).toContain(Module);
  return names.map((name) => changed.find((changedRow) => changedRow.Module === name) ?? row(name));
}

describe.skipIf(!CLI_AVAILABLE)('the cloudkitty CLI: rating modules', () => {
  let directory: string;
  let server: ServerProcess;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-cli-modules-'));
    server = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`);
  });
  afterAll(async () => {
    await stopCloudkittyCli();
    if (server) expect(await server.stop()).toBe(0);
    rmSync(directory, { recursive: true, force: true });
  });

  /** Runs the CLI in noauth mode with the given rating API version, in an environment free of OS_* variables. */
  function cloudkitty(version: '1' | '2', ...args: string[]): Promise<Run> {
    return runCloudkittyNoauth(server.url, directory, ['--os-rating-api-version', version, ...args]);
  }

  /** Runs a module command with `-f json`; it must succeed; returns the rows it printed. */
  async function rows(version: '1' | '2', ...args: string[]): Promise<Row[]> {
    const run = await cloudkitty(version, ...args, '-f', 'json');
    expect(run.code, `cloudkitty --os-rating-api-version ${version} ${args.join(' ')}\n${run.stderr}`).toBe(0);
    return JSON.parse(run.stdout);
  }

  /** The module's state as the server holds it, through both APIs (they must agree). */
  async function state(name: string): Promise<{ enabled: boolean; priority: number }> {
    const v1 = await callServer(server, 'GET', `/v1/rating/modules/${name}`);
    const v2 = await callServer(server, 'GET', `/v2/rating/modules/${name}`);
    expect(v1.status).toBe(200);
    expect(v2.status).toBe(200);
    expect({ enabled: v2.body.enabled, priority: v2.body.priority }).toEqual({ enabled: v1.body.enabled, priority: v1.body.priority });
    return { enabled: v1.body.enabled, priority: v1.body.priority };
  }

  for (const version of ['1', '2'] as const) {
    describe(`--os-rating-api-version ${version}`, () => {
      beforeEach(async () => {
        for (const name of defaultModuleNames()) {
          expect((await callServer(server, 'PUT', `/v2/rating/modules/${name}`, { enabled: false, priority: 1 })).status).toBe(204);
        }
      });

      it('module list', { timeout: SLOW }, async () => {
        expect(await rows(version, 'module', 'list')).toEqual(listed());
        // The listing follows the server's state.
        expect((await callServer(server, 'PUT', '/v2/rating/modules/pyscripts', { enabled: true, priority: 4 })).status).toBe(204);
        expect(await rows(version, 'module', 'list')).toEqual(listed(row('pyscripts', true, 4)));
      });

      it('module get', { timeout: SLOW }, async () => {
        expect(await rows(version, 'module', 'get', 'hashmap')).toEqual([row('hashmap')]);
        expect((await callServer(server, 'PUT', '/v2/rating/modules/hashmap', { enabled: true, priority: 2 })).status).toBe(204);
        expect(await rows(version, 'module', 'get', 'hashmap')).toEqual([row('hashmap', true, 2)]);
        expect(await rows(version, 'module', 'get', 'noop')).toEqual([row('noop')]);
      });

      it("module get of an unknown module fails with the server's 404", { timeout: SLOW }, async () => {
        const run = await cloudkitty(version, 'module', 'get', 'nope', '-f', 'json');
        expect(run.code, run.stdout + run.stderr).toBe(1);
        expect(run.stdout).toBe('');
        expect(run.stderr).toMatch(/\(HTTP 404\)/);
        expect(run.stderr).toMatch(version === '1' ? /Module not found\./ : /Module 'nope' not found/);
      });

      it('module enable', { timeout: SLOW }, async () => {
        expect(await rows(version, 'module', 'enable', 'hashmap')).toEqual([row('hashmap', true, 1)]);
        expect(await state('hashmap')).toEqual({ enabled: true, priority: 1 });
        // Nothing else moved.
        expect(await state('pyscripts')).toEqual({ enabled: false, priority: 1 });
        expect(await state('noop')).toEqual({ enabled: false, priority: 1 });
        // Enabling an enabled module is fine.
        expect(await rows(version, 'module', 'enable', 'hashmap')).toEqual([row('hashmap', true, 1)]);
        expect(await state('hashmap')).toEqual({ enabled: true, priority: 1 });
      });

      it('module disable', { timeout: SLOW }, async () => {
        expect((await callServer(server, 'PUT', '/v2/rating/modules/hashmap', { enabled: true, priority: 3 })).status).toBe(204);
        expect(await rows(version, 'module', 'disable', 'hashmap')).toEqual([row('hashmap', false, 3)]);
        expect(await state('hashmap')).toEqual({ enabled: false, priority: 3 });
      });

      it('module set priority', { timeout: SLOW }, async () => {
        expect(await rows(version, 'module', 'set', 'priority', 'hashmap', '5')).toEqual([row('hashmap', false, 5)]);
        expect(await state('hashmap')).toEqual({ enabled: false, priority: 5 });
        // Priority and enabled are independent.
        expect(await rows(version, 'module', 'enable', 'hashmap')).toEqual([row('hashmap', true, 5)]);
        expect(await rows(version, 'module', 'set', 'priority', 'hashmap', '12')).toEqual([row('hashmap', true, 12)]);
        expect(await state('hashmap')).toEqual({ enabled: true, priority: 12 });
        expect(await rows(version, 'module', 'list')).toEqual(listed(row('hashmap', true, 12)));
      });

      it('module set priority 0 is refused by the server and changes nothing', { timeout: SLOW }, async () => {
        const run = await cloudkitty(version, 'module', 'set', 'priority', 'hashmap', '0', '-f', 'json');
        expect(run.code, run.stdout + run.stderr).toBe(1);
        expect(run.stderr).toMatch(/\(HTTP 400\)/);
        expect(run.stderr).toMatch(/priority/);
        expect(await state('hashmap')).toEqual({ enabled: false, priority: 1 });
      });
    });
  }
});
