/**
 * Runs the real `cloudkitty` CLI (Debian's python3-cloudkittyclient, `/usr/bin/cloudkitty`) for the
 * tests, in one long-lived Python process per program and test file instead of one interpreter
 * start-up (a second or two of imports) per command line.
 *
 * The Python side is cloudkitty_cli_runner.py beside this file: it imports the program once, then
 * runs each command line in-process as a fresh `cloudkitty …` process would (exactly the given
 * environment, its own stdout/stderr, SystemExit as the exit code, logging/warnings/HTTP sessions
 * put back after each run). Calls to one runner are serialised. The runner starts at the first
 * call and stops at {@link stopCloudkittyCli} (call it in `afterAll`) or when the test process exits.
 *
 * A program that is not a Python script (e.g. a shell wrapper given in TARIFF_TEST_CLOUDKITTY_CLI)
 * cannot be run in-process: it runs as a process of its own, one per call, as before.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Debian's `cloudkitty` console script (cloudkittyclient.shell:main). */
export const DEBIAN_CLOUDKITTY_CLI = '/usr/bin/cloudkitty';

const RUNNER = fileURLToPath(new URL('./cloudkitty_cli_runner.py', import.meta.url));
const DEFAULT_TIMEOUT_MS = 60_000;

/** How a CLI run ended: its exit code (-1 when killed at its time-out) and what it printed. */
export interface CloudkittyCliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** How to run the CLI once. */
export interface CloudkittyCliOptions {
  /** The run's whole environment (nothing is inherited from the test process). */
  env: Record<string, string | undefined>;
  /** Text on the run's standard input (default: empty). */
  stdin?: string;
  /** Time after which the run is killed and ends with code -1 (default 60 s). */
  timeoutMs?: number;
  /** The program (default {@link DEBIAN_CLOUDKITTY_CLI}). */
  program?: string;
}

/** One request to the Python runner, as cloudkitty_cli_runner.py reads it. */
interface RunnerRequest {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  stdin: string;
}

/** The environment without its unset entries. */
function definedEntries(environment: Record<string, string | undefined>): Record<string, string> {
  const defined: Record<string, string> = {};
  for (const [name, value] of Object.entries(environment)) if (value !== undefined) defined[name] = value;
  return defined;
}

/** The interpreter named by the program's `#!` line when it is a Python 3 script, else undefined. */
function pythonInterpreterOf(program: string): string | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(program, 'r');
  } catch {
    return undefined;
  }
  try {
    const head = Buffer.alloc(256);
    const firstLine = head
      .subarray(0, readSync(descriptor, head, 0, head.length, 0))
      .toString('utf8')
      .split('\n')[0];
    const match = /^#!\s*(\S*python3[\d.]*)\s*$/.exec(firstLine);
    return match?.[1];
  } finally {
    closeSync(descriptor);
  }
}

/** Runs `program args` as a process of its own (the fallback for programs that are not Python scripts). */
function runAsProcess(program: string, args: string[], options: CloudkittyCliOptions): Promise<CloudkittyCliRun> {
  return new Promise((resolve) => {
    const child = spawn(program, args, { env: definedEntries(options.env), timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', (error) => resolve({ code: -1, stdout, stderr: stderr + String(error) }));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    // A program that exits without reading its input is no error of the run.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.stdin ?? '');
  });
}

/** A long-lived cloudkitty_cli_runner.py for one program, answering one request at a time. */
class PythonCliRunner {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly home: string;
  private readonly ready: Promise<void>;
  private readonly waitingForLine: ((line: string | undefined) => void)[] = [];
  private readonly exited: Promise<void>;
  private pendingText = '';
  private runnerErrors = '';
  private alive = true;
  /** The end of the last queued call: calls run one after the other. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(interpreter: string, program: string) {
    // The runner's own HOME: caches written at import time (stevedore's entry points) land there.
    this.home = mkdtempSync(join(tmpdir(), 'tariff-cloudkitty-cli-'));
    this.child = spawn(interpreter, [RUNNER, program], {
      env: { PATH: '/usr/bin:/bin', HOME: this.home, LANG: 'C.UTF-8' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => this.receive(chunk));
    this.child.stderr.on('data', (chunk: Buffer) => (this.runnerErrors = (this.runnerErrors + chunk.toString('utf8')).slice(-8192)));
    this.child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      this.child.on('error', (error) => {
        this.runnerErrors += String(error);
        this.onExit();
        resolve();
      });
      this.child.on('exit', () => {
        this.onExit();
        resolve();
      });
    });
    this.ready = this.nextLine().then((line) => {
      if (line === undefined) throw new Error(`${RUNNER} ${program} did not start:\n${this.runnerErrors}`);
    });
    this.idle();
  }

  /** Whether the process still runs (a killed runner is replaced at the next call). */
  get running(): boolean {
    return this.alive;
  }

  /** Runs one command line after those already queued. */
  run(args: string[], options: CloudkittyCliOptions): Promise<CloudkittyCliRun> {
    const result = this.queue.then(() => this.runNow(args, options));
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Ends the runner: end of its input, then SIGKILL if it has not exited within 5 s. */
  async stop(): Promise<void> {
    this.busy();
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(timer);
    rmSync(this.home, { recursive: true, force: true });
  }

  /** Kills the runner at once (a run's time-out, or the test process exiting). */
  kill(): void {
    if (this.alive) this.child.kill('SIGKILL');
    this.onExit();
    rmSync(this.home, { recursive: true, force: true });
  }

  private async runNow(args: string[], options: CloudkittyCliOptions): Promise<CloudkittyCliRun> {
    await this.ready;
    if (!this.alive) throw new Error(`the cloudkitty CLI runner has exited:\n${this.runnerErrors}`);
    const request: RunnerRequest = { argv: args, env: definedEntries(options.env), cwd: process.cwd(), stdin: options.stdin ?? '' };
    this.busy();
    let timer: NodeJS.Timeout | undefined;
    try {
      const answer = this.nextLine();
      this.child.stdin.write(`${JSON.stringify(request)}\n`);
      const timedOut = new Promise<'timed out'>((resolve) => {
        timer = setTimeout(() => resolve('timed out'), options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      });
      const line = await Promise.race([answer, timedOut]);
      if (line === 'timed out') {
        // As execFile's time-out: the run is killed; the next call starts another runner.
        this.kill();
        return { code: -1, stdout: '', stderr: `cloudkitty ${args.join(' ')}: killed after ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms` };
      }
      if (line === undefined) throw new Error(`the cloudkitty CLI runner exited during \`cloudkitty ${args.join(' ')}\`:\n${this.runnerErrors}`);
      return JSON.parse(line) as CloudkittyCliRun;
    } finally {
      clearTimeout(timer);
      this.idle();
    }
  }

  /** The next line the runner writes, or undefined when it exits first. */
  private nextLine(): Promise<string | undefined> {
    if (!this.alive) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waitingForLine.push(resolve));
  }

  private receive(chunk: string): void {
    this.pendingText += chunk;
    let end: number;
    while ((end = this.pendingText.indexOf('\n')) >= 0) {
      const line = this.pendingText.slice(0, end);
      this.pendingText = this.pendingText.slice(end + 1);
      this.waitingForLine.shift()?.(line);
    }
  }

  private onExit(): void {
    this.alive = false;
    for (const waiting of this.waitingForLine.splice(0)) waiting(undefined);
  }

  /** While a call is pending the runner keeps the test process alive; idle, it does not. */
  private busy(): void {
    this.child.ref();
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) (stream as unknown as { ref?(): void }).ref?.();
  }

  private idle(): void {
    this.child.unref();
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) (stream as unknown as { unref?(): void }).unref?.();
  }
}

/** The runners of this test file, by program. */
const runners = new Map<string, PythonCliRunner>();
process.once('exit', () => {
  for (const runner of runners.values()) runner.kill();
});

/**
 * Runs `program args` (default `cloudkitty args`) as a new process would run it, with exactly
 * `options.env`, and resolves with its exit code and output; it never rejects for a failing command
 * (non-zero `code`). Python scripts run in this file's long-lived runner, others as processes.
 *
 * @throws Error when the runner itself cannot start or dies during the run.
 */
export function runCloudkittyCli(args: string[], options: CloudkittyCliOptions): Promise<CloudkittyCliRun> {
  const program = options.program ?? DEBIAN_CLOUDKITTY_CLI;
  const interpreter = pythonInterpreterOf(program);
  if (interpreter === undefined) return runAsProcess(program, args, options);
  let runner = runners.get(program);
  if (!runner?.running) {
    runner = new PythonCliRunner(interpreter, program);
    runners.set(program, runner);
  }
  return runner.run(args, options);
}

/**
 * `cloudkitty --os-auth-type cloudkitty-noauth --os-endpoint <endpoint> <args>` in the environment
 * the tests give a client (PATH, HOME=`home`, LANG=C.UTF-8, no OS_* variables).
 */
export function runCloudkittyNoauth(endpoint: string, home: string, args: string[], program?: string): Promise<CloudkittyCliRun> {
  return runCloudkittyCli(['--os-auth-type', 'cloudkitty-noauth', '--os-endpoint', endpoint, ...args], {
    env: { PATH: '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' },
    program,
  });
}

/** Stops this test file's runners (in `afterAll`); a later call starts a new one. */
export async function stopCloudkittyCli(): Promise<void> {
  const stopping = [...runners.values()].map((runner) => runner.stop());
  runners.clear();
  await Promise.all(stopping);
}
