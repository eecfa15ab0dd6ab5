/**
 * Runs the built `tariff` CLI (`node bin/tariff.js`) as an operator would, for the tests of its
 * commands against real or fake servers.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** How a CLI run ended: its exit code (null when killed at the time-out) and what it printed. */
export interface CliRun {
  code: number | null;
  stdout: string;
  /** stderr without the progress lines a slow exchange adds (see {@link PROGRESS_LINE}). */
  stderr: string;
  /** stderr as printed. */
  rawStderr: string;
}

/**
 * A progress line the CLI prints on a non-terminal stderr once an exchange takes over a second
 * (`tariff: waiting for the server's plan… (1 s so far)`, src/client/progress.ts): whether it
 * appears depends on the machine's load, so the tests compare stderr without it (the lines
 * themselves are checked by test/cli/progress.test.ts).
 */
export const PROGRESS_LINE = /^tariff: [^\n]*… \(\d+ s so far\)\n/gm;

/** The test process's environment without the caller's OpenStack or Tariff client settings (`OS_*`, `TARIFF_*`), plus `extra`. */
export function cleanEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !/^(OS_|TARIFF_)/.test(name)) environment[name] = value;
  return { ...environment, ...extra };
}

/**
 * Runs `node bin/tariff.js <args>` with exactly `environment`, `input` on stdin (a pipe, never a
 * terminal), killed after 60 s.
 */
export function runCli(environment: Record<string, string>, args: string[], input = ''): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [`${ROOT}/bin/tariff.js`, ...args], { env: environment, timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr: stderr.replace(PROGRESS_LINE, ''), rawStderr: stderr }));
    child.stdin.end(input);
  });
}
