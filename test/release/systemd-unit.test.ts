/**
 * deploy/systemd/tariff.service as systemd itself reads it: `systemd-analyze verify` (Debian's
 * systemd, /usr/bin) accepts it with not a word of warning, once its ExecStart names a node and a
 * tariff that exist here; its stop time-out covers Tariff's drain; its hardening scores as
 * `systemd-analyze security` rates it; and the example environment file names only settings
 * Tariff reads, with values it accepts.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, TARIFF_SETTINGS } from '../../src/config.js';
import { SHUTDOWN_GRACE_MS } from '../../src/cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SYSTEMD_ANALYZE = '/usr/bin/systemd-analyze';
const UNIT = readFileSync(join(ROOT, 'deploy', 'systemd', 'tariff.service'), 'utf8');
const ENVIRONMENT_FILE = readFileSync(join(ROOT, 'deploy', 'systemd', 'tariff.env'), 'utf8');

/** The value of `key=` in the unit (the last one wins, as in systemd). */
function directive(key: string): string | undefined {
  return [...UNIT.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].at(-1)?.[1];
}

/** `systemd-analyze <args>`: its exit code and output, never throwing. */
async function systemdAnalyze(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(SYSTEMD_ANALYZE, args, { timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe.skipIf(!existsSync(SYSTEMD_ANALYZE))('deploy/systemd/tariff.service', () => {
  let directory: string;
  /** The unit as shipped, but for ExecStart: this machine's node and this checkout's bin/tariff.js. */
  let runnable: string;

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-systemd-'));
    expect(directory).not.toMatch(/\s/);
    const execStart = `ExecStart=${process.execPath} ${join(ROOT, 'bin', 'tariff.js')} serve`;
    expect(UNIT).toMatch(/^ExecStart=\/usr\/bin\/node \/opt\/tariff\/node_modules\/tariff\/bin\/tariff\.js serve$/m);
    runnable = join(directory, 'tariff.service');
    writeFileSync(runnable, UNIT.replace(/^ExecStart=.*$/m, execStart));
  });

  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('systemd-analyze verify accepts it without a warning', async () => {
    expect(await systemdAnalyze('verify', runnable)).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('systemd-analyze verify is no rubber stamp: it names a misspelt key and a missing binary', async () => {
    const misspelt = join(directory, 'misspelt.service');
    writeFileSync(misspelt, readFileSync(runnable, 'utf8').replace(/^TimeoutStopSec=/m, 'TimeoutStopSek='));
    expect((await systemdAnalyze('verify', misspelt)).stderr).toMatch(/Unknown key name 'TimeoutStopSek'|Unknown key 'TimeoutStopSek'/);
    const missing = join(directory, 'missing.service');
    writeFileSync(missing, readFileSync(runnable, 'utf8').replace(/^ExecStart=\S+/m, `ExecStart=${join(directory, 'no-such-node')}`));
    const verdict = await systemdAnalyze('verify', missing);
    expect(verdict.code).not.toBe(0);
    expect(verdict.stderr).toMatch(/is not executable/);
  });

  it("stops Tariff alone with SIGTERM, and waits longer than the drain's default time-out and grace", () => {
    expect(directive('KillMode')).toBe('mixed');
    expect(directive('KillSignal')).toBe('SIGTERM');
    const stopSeconds = Number(directive('TimeoutStopSec'));
    expect(stopSeconds * 1000).toBeGreaterThan(loadConfig({}).shutdownTimeoutMs + SHUTDOWN_GRACE_MS);
    expect(directive('Type')).toBe('exec');
  });

  it('is hardened (systemd-analyze security rates it OK) and leaves V8 its writable code memory', async () => {
    for (const [key, value] of Object.entries({ NoNewPrivileges: 'yes', ProtectSystem: 'strict', ProtectHome: 'yes', PrivateTmp: 'yes', DynamicUser: 'yes' })) {
      expect(directive(key), key).toBe(value);
    }
    // V8 writes machine code (JavaScript, and pyodide's WebAssembly) and then runs it.
    expect(directive('MemoryDenyWriteExecute')).toBeUndefined();
    // The embedded database's folder is the one writable place.
    expect(directive('StateDirectory')).toBe('tariff');
    expect(directive('Environment')).toBe('TARIFF_DATABASE_URL=sqlite:/var/lib/tariff/tariff.db');
    const security = await systemdAnalyze('security', '--offline=true', runnable);
    const exposure = /Overall exposure level for tariff\.service: ([\d.]+)/.exec(security.stdout);
    expect(exposure, security.stdout + security.stderr).not.toBeNull();
    expect(Number(exposure![1])).toBeLessThanOrEqual(2.0);
  });

  it('the example environment file names only settings Tariff reads, with values it accepts', () => {
    const lines = ENVIRONMENT_FILE.split('\n');
    const named = lines.flatMap((line) => /^#?(TARIFF_[A-Z_]+)=/.exec(line)?.[1] ?? []);
    expect(named.length).toBeGreaterThan(5);
    for (const name of named) expect(TARIFF_SETTINGS, name).toContain(name);
    const active = Object.fromEntries(lines.flatMap((line) => (/^(TARIFF_[A-Z_]+)=(.*)$/.exec(line) ? [line.split(/=(.*)/s).slice(0, 2)] : [])));
    expect(Object.keys(active).length).toBeGreaterThan(0);
    expect(() => loadConfig(active)).not.toThrow();
    for (const example of lines.filter((line) => /^#TARIFF_[A-Z_]+=/.test(line))) {
      const [name, value] = example.slice(1).split(/=(.*)/s);
      if (name.startsWith('TARIFF_KEYSTONE_') || name === 'TARIFF_AUTH') continue; // Keystone mode needs its settings together
      expect(() => loadConfig({ ...active, [name]: value }), example).not.toThrow();
    }
  });
});
