/**
 * Debian's Python with the real oslo.config and SQLAlchemy (`cloudkitty-api` brings both), for
 * comparing Tariff's readings with theirs on generated inputs: one process per batch, JSON in and out.
 */
import { execFileSync } from 'node:child_process';

const PYTHON = '/usr/bin/python3';

/** Why the comparisons cannot run here (no Debian Python with oslo.config and SQLAlchemy), or undefined. */
export const debianPythonMissing: string | undefined = (() => {
  try {
    execFileSync(PYTHON, ['-c', 'import oslo_config.iniparser, sqlalchemy'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return `${PYTHON} with oslo_config and sqlalchemy is missing (apt-get install cloudkitty-api): the comparisons with them are skipped`;
  }
})();

/** Runs `script` with `input` as JSON on stdin; the script prints one JSON document. */
export function runPython<T>(script: string, input: unknown): T {
  const output = execFileSync(PYTHON, ['-c', script], { input: JSON.stringify(input), maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(output.toString()) as T;
}
