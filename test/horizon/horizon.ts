/**
 * Debian's Horizon (openstack-dashboard 23) with Debian's CloudKitty dashboard plugin
 * (python3-cloudkitty-dashboard 15), served by Django's runserver on 127.0.0.1 for the Horizon
 * harness, without touching /etc: `horizon_settings.py` (beside this file) imports Debian's settings
 * and overrides the Keystone URL, secret, caches, static root and logging from the environment.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '../helpers/server.js';

const run = promisify(execFile);
const HERE = fileURLToPath(new URL('.', import.meta.url));
const PYTHON = '/usr/bin/python3';
/** Debian's manage.py of openstack-dashboard. */
export const HORIZON_MANAGE = '/usr/share/openstack-dashboard/manage.py';
/** The plugin's enabled files, which python3-cloudkitty-dashboard installs into Horizon's local/enabled. */
const PLUGIN_ENABLED = '/usr/lib/python3/dist-packages/openstack_dashboard/local/enabled/_11_admin_hashmap_panel.py';
/** The static files Debian's postinst collects and compresses. */
const DEBIAN_STATIC_ROOT = '/var/lib/openstack-dashboard/static';
/** How long Horizon may take to answer its login page after start (seconds). */
const START_LIMIT_S = Number(process.env.TARIFF_HORIZON_START_TIMEOUT ?? 120);

/** Why Horizon cannot run here (a missing Debian package), or undefined when it can. */
export function horizonMissing(): string | undefined {
  if (!existsSync(HORIZON_MANAGE)) return `${HORIZON_MANAGE} is missing (install Debian's openstack-dashboard)`;
  if (!existsSync(PLUGIN_ENABLED)) return `${PLUGIN_ENABLED} is missing (install Debian's python3-cloudkitty-dashboard)`;
  return undefined;
}

/** A running Horizon. */
export interface Horizon {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** Horizon's log (keystoneauth at DEBUG: every API call with its answer). */
  log: string;
  /** runserver's own output (one line per request). */
  output(): string;
  stop(): Promise<void>;
}

/** The environment of manage.py: the harness settings module and where its files go. */
function settingsEnvironment(directory: string, keystoneUrl: string, staticRoot: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PYTHONPATH: HERE,
    PYTHONDONTWRITEBYTECODE: '1',
    DJANGO_SETTINGS_MODULE: 'horizon_settings',
    HORIZON_HARNESS_DIR: directory,
    HORIZON_KEYSTONE_URL: keystoneUrl,
    HORIZON_STATIC_ROOT: staticRoot,
  };
}

/** Collects and compresses the static files into `directory/static` (~9 s on 2 cores). */
async function buildStaticRoot(directory: string, keystoneUrl: string): Promise<string> {
  const root = join(directory, 'static');
  mkdirSync(root, { recursive: true });
  const env = settingsEnvironment(directory, keystoneUrl, root);
  await run(PYTHON, [HORIZON_MANAGE, 'collectstatic', '--noinput', '--verbosity', '0'], { env, timeout: 600_000 });
  await run(PYTHON, [HORIZON_MANAGE, 'compress', '--force', '--verbosity', '0'], { env, timeout: 600_000 });
  return root;
}

/**
 * Starts Horizon against `keystoneUrl` (with `/v3`); its files go to `directory`. The compressed
 * static files are Debian's (its postinst and triggers build them in /var/lib/openstack-dashboard)
 * when they serve the login page, else built into `directory` first.
 */
export async function startHorizon(directory: string, keystoneUrl: string): Promise<Horizon> {
  if (existsSync(join(DEBIAN_STATIC_ROOT, 'dashboard', 'manifest.json'))) {
    const horizon = await runHorizon(directory, keystoneUrl, DEBIAN_STATIC_ROOT);
    // A manifest built with other settings misses this one's keys: every page is a 500.
    if ((await fetch(`${horizon.url}/auth/login/`)).status === 200) return horizon;
    await horizon.stop();
  }
  return runHorizon(directory, keystoneUrl, await buildStaticRoot(directory, keystoneUrl));
}

/** Serves Horizon with the compressed static files of `staticRoot`; resolves once it answers. */
async function runHorizon(directory: string, keystoneUrl: string, staticRoot: string): Promise<Horizon> {
  const port = await freePort();
  const env = settingsEnvironment(directory, keystoneUrl, staticRoot);
  // --insecure: runserver serves the static files itself although DEBUG is off.
  const child: ChildProcess = spawn(PYTHON, [HORIZON_MANAGE, 'runserver', '--noreload', '--insecure', `127.0.0.1:${port}`], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const log = join(directory, 'horizon.log');
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + START_LIMIT_S * 1000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Horizon exited early: ${output.slice(-3000)}`);
    try {
      // Any answer: the caller judges the status.
      await fetch(`${url}/auth/login/`, { signal: AbortSignal.timeout(10_000) });
      break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      const logged = existsSync(log) ? readFileSync(log, 'utf8').slice(-3000) : '';
      throw new Error(`Horizon did not answer /auth/login/ within ${START_LIMIT_S} s (TARIFF_HORIZON_START_TIMEOUT): ${output.slice(-3000)}\n${logged}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { url, log, output: () => output, stop };
}
