/**
 * Vitest global setup: makes sure dist/ is built (`npm run build`: tsc, the Python files copied
 * beside the compiled modules, the console through Vite into dist/console), for tests that start
 * real server processes or load the compiled sandbox. It builds only when dist/ is stale: the
 * fingerprint of the build's inputs (their content), kept after a successful build, is the one
 * `npm start` checks (scripts/build-fingerprint.js), and a run whose inputs hash the same skips
 * the ~20 s build. Every database project declares it; the first to take the lock builds, the
 * others wait for that build instead of racing it (and then find the stamp fresh).
 * `TARIFF_TEST_SKIP_BUILD=1` skips it altogether, for a tier whose tests never touch dist/.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAndRecord, buildFingerprint, distIsFresh } from '../../scripts/build-fingerprint.js';
import { acquireLock } from './directory-lock.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const lock = join(root, '.build-lock');
/** A build holding the lock longer than this is taken to be left by a killed run (directory-lock.ts). */
const STALE_LOCK_MS = 600_000;

/**
 * Runs `npm run build` unless dist/ is fresh (see {@link distIsFresh}), under the lock, then
 * records the fingerprint the build started from: inputs edited during the build make the next
 * run build again rather than trust an output that may predate them.
 *
 * @returns whether it built.
 */
export async function buildIfStale(): Promise<boolean> {
  const fingerprint = buildFingerprint();
  if (distIsFresh(fingerprint)) return false;
  const release = await acquireLock(lock, STALE_LOCK_MS);
  try {
    // Another process may have built it while this one waited for the lock.
    if (distIsFresh(fingerprint)) return false;
    buildAndRecord(fingerprint);
    return true;
  } finally {
    release();
  }
}

/** The global setup: {@link buildIfStale}, or nothing when `TARIFF_TEST_SKIP_BUILD=1`. */
export default async function setup(): Promise<void> {
  if (process.env.TARIFF_TEST_SKIP_BUILD === '1') return;
  await buildIfStale();
}
