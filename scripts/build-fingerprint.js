// Whether dist/ is current: a fingerprint (SHA-256) of the build's inputs, kept in dist/ after a
// successful build. Shared by `npm start` (scripts/start.js) and the tests' global setup
// (test/helpers/build.ts, which adds a lock between test workers): a checkout whose inputs hash
// the same as its last build skips the ~20 s build.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Where the fingerprint of the inputs dist/ was built from is kept (inside dist/: removing dist/ removes it). */
export const STAMP = join(root, 'dist', '.build-fingerprint');
/** Directories whose every file is an input of the build (tsc's sources and the Python files; the console's Vite root). */
const INPUT_DIRECTORIES = ['src', 'console'];
/** Single files the build reads: its script, the compiler settings, the dependencies' versions. */
const INPUT_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.test.json', 'scripts/copy-python.js'];
/** Outputs that must exist besides the stamp (an interrupted copy of dist/ is stale). */
const OUTPUTS = ['dist/cli.js', 'dist/console/index.html'];

/** Every file under `directory`, recursively, as paths relative to the repository. */
function filesUnder(directory) {
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
 *
 * @returns {string} hexadecimal digest.
 */
export function buildFingerprint() {
  const hash = createHash('sha256');
  const files = [...INPUT_DIRECTORIES.flatMap((directory) => filesUnder(join(root, directory))), ...INPUT_FILES.filter((file) => existsSync(join(root, file)))];
  for (const file of files.sort()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/**
 * Whether dist/ was built from inputs with this fingerprint, and its main outputs are there.
 *
 * @param {string} [fingerprint] default: {@link buildFingerprint} now.
 * @returns {boolean}
 */
export function distIsFresh(fingerprint = buildFingerprint()) {
  try {
    return readFileSync(STAMP, 'utf8').trim() === fingerprint && OUTPUTS.every((output) => existsSync(join(root, output)));
  } catch {
    return false;
  }
}

/**
 * Runs `npm run build`, then records `fingerprint` (the inputs' fingerprint taken before the build
 * started: inputs edited during the build make the next check build again rather than trust an
 * output that may predate them). The earlier stamp is removed first, so a failed build leaves none.
 *
 * @param {string} fingerprint
 * @throws the build's failure (its output went to this process's stdout and stderr).
 */
export function buildAndRecord(fingerprint) {
  rmSync(STAMP, { force: true });
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  writeFileSync(`${STAMP}.tmp`, `${fingerprint}\n`);
  renameSync(`${STAMP}.tmp`, STAMP);
}
