/**
 * The run's shared Keystone: one Keystone serves every test file of a vitest run, instead of one
 * started (13–16 s) per file. The first file that needs it starts it in the run's state directory
 * (global-setup.ts, run-directory.ts) under a lock, so that two worker processes never start two;
 * the others find it running. It is stopped at the end of the run.
 *
 * What a file may do with it: log in, revoke tokens it got itself, point the catalog's `rating`
 * endpoint (RegionOne) at its own server, which {@link Keystone.release} puts back. A file that
 * changes what others see (users, roles, passwords of setup.sh's identities) must put it back in
 * its afterAll, or use identities of its own; a file that needs other settings (short-lived
 * tokens) starts a Keystone of its own ({@link startKeystone}). Files using the catalog expect to
 * be the only ones using it at the time: the Keystone files run one at a time.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import { keystoneHandle, passwordLogin, readKeystoneEnvironment, runSetup, startKeystone, type Keystone } from './keystone.js';
import { processIdentity, processIsAlive, startWatchdog } from './run-directory.js';

/** Seconds the shared Keystone's tokens live. */
export const SHARED_TOKEN_LIFETIME_S = 3600;
/** The catalog's `rating` endpoint until a file points it at its server (setup.sh's default). */
const DEFAULT_RATING_ENDPOINT_URL = 'http://127.0.0.1:8889';

/** env.sh's values of the Keystone running in `directory`, when it runs and answers. */
async function runningKeystone(directory: string): Promise<Record<string, string> | undefined> {
  const envFile = join(directory, 'env.sh');
  if (!existsSync(envFile)) return undefined;
  let env: Record<string, string>;
  try {
    env = readKeystoneEnvironment(envFile);
  } catch {
    return undefined;
  }
  try {
    const response = await fetch(env.KEYSTONE_URL, { signal: AbortSignal.timeout(5_000) });
    await response.body?.cancel();
    return response.ok ? env : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the start lock is held by a live process (the identity in its owner file). */
function lockIsLive(lock: string): boolean {
  try {
    return processIsAlive(readFileSync(join(lock, 'owner'), 'utf8'));
  } catch {
    try {
      return Date.now() - statSync(lock).mtimeMs < 10_000; // just made: its owner file comes next
    } catch {
      return false;
    }
  }
}

/** Runs `action` holding the run's start lock (a directory: atomic), waiting while another live worker holds it. */
async function withStartLock<T>(directory: string, action: () => Promise<T>): Promise<T> {
  const lock = join(directory, 'start.lock');
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another worker is starting Keystone, or one killed while starting left its lock.
    }
    if (lockIsLive(lock)) await sleep(250);
    else rmSync(lock, { recursive: true, force: true });
  }
  try {
    writeFileSync(join(lock, 'owner'), processIdentity());
    return await action();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Starts the run's Keystone in `directory` (setup.sh, with the watchdog that stops it if the run is killed). */
async function startSharedKeystone(directory: string): Promise<Record<string, string>> {
  const env = await runSetup(directory, { tokenExpiration: SHARED_TOKEN_LIFETIME_S, ratingEndpointUrl: DEFAULT_RATING_ENDPOINT_URL });
  startWatchdog(directory);
  return env;
}

/**
 * Points the public `rating` endpoint of the catalog (region `KEYSTONE_REGION`) at `url`.
 *
 * @returns the URL it had.
 */
async function pointRatingEndpoint(env: Record<string, string>, url: string): Promise<string> {
  const admin = (await passwordLogin(env, 'ADMIN')).token;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${env.KEYSTONE_URL}${path}`, {
      method,
      headers: { 'x-auth-token': admin, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    if (!response.ok) throw new Error(`${method} ${path} at Keystone: ${response.status} ${await response.text()}`);
    return response.json();
  };
  const { endpoints } = await call('GET', `/endpoints?service_id=${env.KEYSTONE_RATING_SERVICE_ID}&interface=public`);
  const endpoint = (endpoints as { id: string; url: string; region_id: string }[]).find((candidate) => candidate.region_id === env.KEYSTONE_REGION);
  if (!endpoint) throw new Error(`the shared Keystone's catalog has no public rating endpoint in ${env.KEYSTONE_REGION}`);
  if (endpoint.url !== url) await call('PATCH', `/endpoints/${endpoint.id}`, { endpoint: { url } });
  return endpoint.url;
}

/**
 * The run's shared Keystone (started on first use), its tokens living
 * {@link SHARED_TOKEN_LIFETIME_S}; with `ratingEndpointUrl`, the catalog's `rating` endpoint
 * points there until {@link Keystone.release}. Run under a project without global-setup.ts, it
 * falls back to a Keystone of the file's own (and says so).
 */
export async function sharedKeystone(options: { ratingEndpointUrl?: string } = {}): Promise<Keystone> {
  const directory = inject('tariffKeystoneRun');
  if (!directory) {
    console.warn('test/keystone/global-setup.ts is not a globalSetup of this project: a Keystone of this file’s own is started');
    return startKeystone({ tokenExpiration: SHARED_TOKEN_LIFETIME_S, ratingEndpointUrl: options.ratingEndpointUrl ?? DEFAULT_RATING_ENDPOINT_URL });
  }
  const env =
    (await runningKeystone(directory)) ??
    (await withStartLock(directory, async () => (await runningKeystone(directory)) ?? (await startSharedKeystone(directory))));
  const { ratingEndpointUrl } = options;
  if (ratingEndpointUrl === undefined) return keystoneHandle(env, async () => undefined);
  const previous = await pointRatingEndpoint(env, ratingEndpointUrl);
  return keystoneHandle({ ...env, RATING_ENDPOINT_URL: ratingEndpointUrl }, async () => {
    await pointRatingEndpoint(env, previous);
  });
}
