/**
 * Processes as an operator starts them, for the release tests: commands found on a PATH (the
 * installed `tariff`, npm), servers waited for on `/healthcheck`, and what /proc says of a pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The folder of the Node the tests run on (24.11+ or 26): first on every PATH given to a command, as an operator's supported `node`. */
export const NODE_FOLDER = dirname(process.execPath);

/** The test process's environment without Tariff's and OpenStack's settings (`TARIFF_*`, `OS_*`, `NODE_OPTIONS`), plus `extra`. */
export function operatorEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(OS_|TARIFF_|NODE_OPTIONS$|npm_)/.test(name)) environment[name] = value;
  }
  return { ...environment, ...extra };
}

/** How a command ended. */
export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` (a path, or a name looked up on `env.PATH`) to its end, killed after `timeoutMs`. */
export function run(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs?: number; input?: string },
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, timeout: options.timeoutMs ?? 120_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** A long-running process: its output so far, and its end. */
export interface Started {
  child: ChildProcess;
  output(): string;
  /** Resolves when it has ended and its output is all read: its exit code, or the signal that ended it. */
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `command` and returns at once. */
export function start(command: string, args: string[], options: { cwd: string; env: Record<string, string> }): Started {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    // 'close': the process has ended and its stdout and stderr are read to their end.
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, ended };
}

/**
 * Waits until `url`/healthcheck answers 200, at most `limitMs` (CI machines stall processes for
 * tens of seconds at times).
 *
 * @throws when `started` ends first or the time is up (the message carries its output).
 */
export async function waitForHealth(started: Started, url: string, limitMs = 90_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    if (started.child.exitCode !== null || started.child.signalCode !== null) throw new Error(`ended before serving: ${started.output()}`);
    try {
      if ((await fetch(`${url}/healthcheck`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`not serving after ${limitMs / 1000} s: ${started.output()}`);
    await sleep(100);
  }
}

/** The command line of a live process, from /proc (undefined once it is gone). */
export function commandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  } catch {
    return undefined;
  }
}
