/**
 * The run's shared Keystone: one Keystone serves every test file of a vitest run, instead of one
 * started (13–16 s) per file. The first file that needs it starts it in the run's state directory
 * (global-setup.ts, run-directory.ts) under a lock, so that two worker processes never start two;
 * the others find it running. It is stopped at the end of the run.
 *
 * Files may use it at the same time. What a file may do with it: log in, revoke tokens it got
 * itself, point the catalog's `rating` endpoint (RegionOne) at its own server: the files doing so
 * take turns (a lock held until {@link Keystone.release}, which puts the endpoint back). A file
 * must not change what others see (users, roles, passwords of setup.sh's identities): it makes
 * identities of its own, and deletes them after; a file that needs other settings (short-lived
 * tokens) or stops Keystone starts one of its own ({@link startKeystone}).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { keystoneHandle, passwordLogin, readKeystoneEnvironment, runSetup, startKeystone, type Keystone } from './keystone.js';
import { acquireLock } from '../helpers/directory-lock.js';
import { startWatchdog } from './run-directory.js';

/** Seconds the shared Keystone's tokens live. */
export const SHARED_TOKEN_LIFETIME_S = 3600;
/** The catalog's `rating` endpoint until a file points it at its server (setup.sh's default). */
const DEFAULT_RATING_ENDPOINT_URL = 'http://127.0.0.1:8889';
/** How long starting Keystone may take (setup.sh's own limit, apt-get included) before a waiting worker takes the start lock over. */
const START_LOCK_MS = 900_000;
/** How long a file may keep the catalog before a waiting file takes it over (a file that never released it). */
const CATALOG_LOCK_MS = 600_000;

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

/** Starts the run's Keystone in `directory` (setup.sh, with the watchdog that stops it if the run is killed). */
async function startSharedKeystone(directory: string): Promise<Record<string, string>> {
  const env = await runSetup(directory, { tokenExpiration: SHARED_TOKEN_LIFETIME_S, ratingEndpointUrl: DEFAULT_RATING_ENDPOINT_URL });
  startWatchdog(directory);
  return env;
}

/** env.sh's values of the run's Keystone in `directory`: the running one, or one this worker starts, holding the start lock. */
async function ensureSharedKeystone(directory: string): Promise<Record<string, string>> {
  const running = await runningKeystone(directory);
  if (running) return running;
  const releaseStart = await acquireLock(join(directory, 'start.lock'), START_LOCK_MS);
  try {
    return (await runningKeystone(directory)) ?? (await startSharedKeystone(directory));
  } finally {
    releaseStart();
  }
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
  const env = await ensureSharedKeystone(directory);
  const { ratingEndpointUrl } = options;
  if (ratingEndpointUrl === undefined) return keystoneHandle(env, async () => undefined);
  // The catalog has one `rating` endpoint: the files pointing it at their server take turns.
  const releaseCatalog = await acquireLock(join(directory, 'catalog.lock'), CATALOG_LOCK_MS);
  try {
    const previous = await pointRatingEndpoint(env, ratingEndpointUrl);
    return keystoneHandle({ ...env, RATING_ENDPOINT_URL: ratingEndpointUrl }, async () => {
      try {
        await pointRatingEndpoint(env, previous);
      } finally {
        releaseCatalog();
      }
    });
  } catch (error) {
    releaseCatalog();
    throw error;
  }
}
