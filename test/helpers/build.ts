/**
 * Vitest global setup: makes sure dist/ is built (`npm run build`: tsc, the Python files copied
 * beside the compiled modules, the console through Vite into dist/console), for tests that start
 * real server processes or load the compiled sandbox. It builds only when dist/ is stale: a
 * fingerprint of the build's inputs (their content) is kept in {@link STAMP} after a successful
 * build, and a run whose inputs hash the same skips the ~20 s build. Every database project
 * declares it; the first to take the lock builds, the others wait for that build instead of
 * racing it (and then find the stamp fresh). `TARIFF_TEST_SKIP_BUILD=1` skips it altogether, for
 * a tier whose tests never touch dist/.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { acquireLock } from './directory-lock.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const lock = join(root, '.build-lock');
/** Where the fingerprint of the inputs dist/ was built from is kept (inside dist/: removing dist/ removes it). */
export const STAMP = join(root, 'dist', '.build-fingerprint');
/** Directories whose every file is an input of the build (tsc's sources and the Python files; the console's Vite root). */
const INPUT_DIRECTORIES = ['src', 'console'];
/** Single files the build reads: its script, the compiler settings, the dependencies' versions. */
const INPUT_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.test.json', 'scripts/copy-python.js'];
/** Outputs that must exist besides the stamp (an interrupted copy of dist/ is stale). */
const OUTPUTS = ['dist/cli.js', 'dist/console/index.html'];
/** A build holding the lock longer than this is taken to be left by a killed run (directory-lock.ts). */
const STALE_LOCK_MS = 600_000;

/** Every file under `directory`, recursively, as paths relative to the repository. */
function filesUnder(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [relative(root, path)] : [];
  });
}

/**
 * The SHA-256 of the build's inputs: the path and content of every file under src/ and console/,
 * and of the build script, tsconfig files and package files (a few MB: milliseconds).
 */
export function buildFingerprint(): string {
  const hash = createHash('sha256');
  const files = [...INPUT_DIRECTORIES.flatMap((directory) => filesUnder(join(root, directory))), ...INPUT_FILES.filter((file) => existsSync(join(root, file)))];
  for (const file of files.sort()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Whether dist/ was built from inputs with this fingerprint, and its main outputs are there. */
export function distIsFresh(fingerprint: string = buildFingerprint()): boolean {
  try {
    return readFileSync(STAMP, 'utf8').trim() === fingerprint && OUTPUTS.every((output) => existsSync(join(root, output)));
  } catch {
    return false;
  }
}

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
    // A failed build must not leave an earlier stamp that still matches.
    rmSync(STAMP, { force: true });
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
    writeFileSync(`${STAMP}.tmp`, `${fingerprint}\n`);
    renameSync(`${STAMP}.tmp`, STAMP);
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
