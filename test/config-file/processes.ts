/**
 * Tariff processes given configuration files and no TARIFF_* variable at all, as a deployment
 * that renders cloudkitty.conf runs them.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** This process's environment without any TARIFF_* variable, plus `extra`. */
export function environmentWithoutTariff(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('TARIFF_'))), ...extra };
}

/** What a finished command printed and its exit code. */
export interface Finished {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `tariff <args>` without TARIFF_* variables (but `extra`) and waits, at most 120 s. */
export function runTariffCommand(args: string[], extra: Record<string, string> = {}): Promise<Finished> {
  return new Promise((resolve) => {
    execFile(process.execPath, [`${ROOT}/bin/tariff.js`, ...args], { env: environmentWithoutTariff(extra), timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** A `tariff serve` started with configuration files. */
export interface ServingTariff {
  child: ChildProcess;
  output(): string;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `tariff serve <args>` and waits until `healthUrl` answers (at most 60 s).
 *
 * @throws when it exits first or does not answer in time, with its output.
 */
export async function serveWithFiles(args: string[], healthUrl: string): Promise<ServingTariff> {
  const child = spawn(process.execPath, [`${ROOT}/bin/tariff.js`, 'serve', ...args], {
    cwd: ROOT,
    env: environmentWithoutTariff(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`tariff serve exited early: ${output}`);
    try {
      if ((await fetch(healthUrl)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`tariff serve did not start: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
