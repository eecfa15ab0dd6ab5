/**
 * Runs CloudKitty's tempest plugin (run_tempest.py) against one region of the drop-in cloud
 * (test/cloud/) and reads its results.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Cloud } from '../cloud/cloud.js';
import type { TempestRun } from './compare.js';

const run = promisify(execFile);
const HERE = fileURLToPath(new URL('.', import.meta.url));

/** Where Debian's cloudkitty-tempest-plugin puts the `cloudkitty_tempest_plugin` package. */
export const DEBIAN_PLUGIN_DIR = '/usr/lib/python3/dist-packages';

/**
 * The plugin to run: the directory holding `cloudkitty_tempest_plugin/`, from
 * `TARIFF_TEMPEST_PLUGIN_DIR` (e.g. a fetched checkout of upstream's openstack/cloudkitty-tempest-plugin,
 * outside the project) or Debian's.
 */
export function pluginDirectory(): string {
  return process.env.TARIFF_TEMPEST_PLUGIN_DIR || DEBIAN_PLUGIN_DIR;
}

/** Why tempest cannot run here (tempest, stestr, subunit or the plugin missing), or null. */
export function tempestUnavailable(): string | null {
  const plugin = pluginDirectory();
  if (!existsSync(join(plugin, 'cloudkitty_tempest_plugin', 'plugin.py'))) {
    return `no cloudkitty_tempest_plugin under ${plugin} (apt-get install -y cloudkitty-tempest-plugin, or set TARIFF_TEMPEST_PLUGIN_DIR)`;
  }
  try {
    execFileSync('/usr/bin/python3', ['-c', 'import tempest, stestr, subunit, testtools'], { stdio: 'pipe' });
  } catch (error: unknown) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? error)
      .trim()
      .split('\n')
      .pop();
    return `python3-tempest (with stestr and subunit) cannot be imported by /usr/bin/python3: ${stderr} (apt-get install -y python3-tempest python3-stestr python3-subunit)`;
  }
  return null;
}

/**
 * Runs the plugin's tests against `region` (one test worker unless `concurrency`), in `workspace`
 * (tempest.conf, tempest.log, results.subunit, results.json), and returns results.json.
 * Throws when tempest produced no result at all (stderr's end in the message).
 */
export async function runTempest(cloud: Cloud, options: { region: string; workspace: string; concurrency?: number; pluginDir?: string }): Promise<TempestRun> {
  const args = [
    join(HERE, 'run_tempest.py'),
    '--region',
    options.region,
    '--workspace',
    options.workspace,
    '--plugin-dir',
    options.pluginDir ?? pluginDirectory(),
  ];
  args.push('--concurrency', String(options.concurrency ?? 1));
  try {
    await run('/usr/bin/python3', args, { env: { ...process.env, ...cloud.env }, timeout: 900_000, maxBuffer: 16 * 1024 * 1024 });
  } catch (error: unknown) {
    const stderr = (error as { stderr?: string }).stderr;
    throw new Error(`tempest did not run against ${options.region}: ${stderr ? stderr.slice(-4000) : String(error)}`);
  }
  return JSON.parse(readFileSync(join(options.workspace, 'results.json'), 'utf8')) as TempestRun;
}
