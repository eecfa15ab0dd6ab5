/**
 * Vitest global setup: builds dist/ once per run (`npm run build`: tsc, then the Python files
 * copied beside the compiled modules), for tests that start real server processes or load the
 * compiled sandbox. Every database project declares it; the first to take the lock builds, the others
 * wait for that build instead of racing it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const lock = `${root}/.build-lock`;

function sleep(milliseconds: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, milliseconds);
}

export default function setup(): void {
  try {
    mkdirSync(lock);
  } catch {
    // Another project is building (or a stale lock from a killed run, older than two minutes).
    const deadline = Date.now() + 120_000;
    for (;;) {
      let age: number;
      try {
        age = Date.now() - statSync(lock).mtimeMs;
      } catch {
        return;
      }
      if (age > 120_000) break;
      if (Date.now() > deadline) throw new Error('timed out waiting for another project to build dist/');
      sleep(100);
    }
    rmSync(lock, { recursive: true, force: true });
    mkdirSync(lock);
  }
  try {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
