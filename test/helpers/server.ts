/**
 * Starts real Tariff server processes (`node bin/tariff.js serve`, compiled by the global setup)
 * on a free loopback port, for tests that need real HTTP, restarts or signals.
 */
import { TEST_HEADERS } from './headers.js';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  /** SIGTERM and wait for exit; returns the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait for exit. */
  kill(): Promise<void>;
}

/**
 * How long a server process may take to answer `/healthcheck`: well under a second normally, but
 * CI machines have been seen to stall every process for tens of seconds.
 */
const START_LIMIT_MS = 60_000;

/** Spawns a server on `databaseUrl` and waits until `/healthcheck` answers (at most {@link START_LIMIT_MS}). */
export async function startServerProcess(databaseUrl: string, environment: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await spawnServerProcess(databaseUrl, environment);
  await waitUntilServing(server);
  return server;
}

/**
 * Spawns a server on `databaseUrl` and returns at once, before it serves: for a test that acts on
 * what it prints while starting ({@link waitForOutput}), then waits with {@link waitUntilServing}.
 */
export async function spawnServerProcess(databaseUrl: string, environment: Record<string, string> = {}): Promise<ServerProcess> {
  const port = environment.TARIFF_PORT ? Number(environment.TARIFF_PORT) : await freePort();
  const child = spawn(process.execPath, [`${ROOT}/bin/tariff.js`, 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      TARIFF_HOST: '127.0.0.1',
      TARIFF_DATABASE_URL: databaseUrl,
      TARIFF_LOG_LEVEL: 'warn',
      TARIFF_SANDBOX_WORKERS: '0',
      ...environment,
      TARIFF_PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Whether the process of `server` has ended, by itself or by a signal. */
function hasExited(server: ServerProcess): boolean {
  return server.child.exitCode !== null || server.child.signalCode !== null;
}

/**
 * Waits until `server` answers `/healthcheck` (at most {@link START_LIMIT_MS}).
 *
 * @throws when the process exits first, or does not answer in time (the message carries its output).
 */
export async function waitUntilServing(server: ServerProcess): Promise<void> {
  const deadline = Date.now() + START_LIMIT_MS;
  for (;;) {
    if (hasExited(server)) throw new Error(`server exited early: ${server.output()}`);
    try {
      const response = await fetch(`${server.url}/healthcheck`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not start: ${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Waits until `server` has printed `text` (at most {@link START_LIMIT_MS}: a line of its start-up).
 *
 * @throws when the process exits first, or does not print it in time (the message carries its output).
 */
export async function waitForOutput(server: ServerProcess, text: string): Promise<void> {
  const deadline = Date.now() + START_LIMIT_MS;
  while (!server.output().includes(text)) {
    if (hasExited(server)) throw new Error(`server exited before printing '${text}': ${server.output()}`);
    if (Date.now() > deadline) throw new Error(`server did not print '${text}' within ${START_LIMIT_MS / 1000} s: ${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** An answer of a server process: the body parsed when it is JSON, else its text. */
export interface Answer {
  /** For a PUT, the client's view: a 302 followed and the object read back, or a 201, is 200 (see `wireStatus`). */
  status: number;
  /** For a PUT answered 302 or 201: that code, as it was on the wire. */
  wireStatus?: number;
  headers: Headers;
  body: any;
  /** From sending the request to reading the whole answer. */
  milliseconds: number;
}

/** Options of {@link callServer}. */
export interface CallOptions {
  /** Extra request headers, e.g. `X-Auth-Token`. */
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/**
 * Sends one JSON request to a server process the way the CloudKitty client does
 * (`Content-Type: application/json` on every request), bounded by `timeoutMs` (default 15 s).
 */
export async function callServer(server: ServerProcess, method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<Answer> {
  const started = Date.now();
  const send = async (sendMethod: string, sendPath: string, sendBody: unknown) => {
    const response = await fetch(`${server.url}${sendPath}`, {
      method: sendMethod,
      headers: { ...TEST_HEADERS, ...options.headers },
      body: sendBody === undefined ? undefined : JSON.stringify(sendBody),
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
    });
    const text = await response.text();
    const json = response.headers.get('content-type')?.includes('json');
    return { status: response.status, headers: response.headers, body: text === '' ? undefined : json ? JSON.parse(text) : text, milliseconds: 0 };
  };
  let answer: Answer = await send(method, path, body);
  // An update as keystoneauth makes it (api.md §1): CloudKitty's 302 followed once with the same
  // PUT (which must answer 302 without a Location), then the object read back, as cloudkittyclient does.
  if (method === 'PUT' && answer.status === 302) {
    const location = new URL(answer.headers.get('location') ?? '');
    const followed = await send('PUT', `${location.pathname}${location.search}`, body);
    if (followed.status !== 302 || followed.headers.get('location') !== null) {
      throw new Error(`the follow-up PUT ${location.pathname}${location.search} answered ${followed.status}`);
    }
    answer = { ...(await send('GET', location.pathname, undefined)), headers: answer.headers, wireStatus: 302 };
  } else if (method === 'PUT' && answer.status === 201) {
    answer = { ...answer, status: 200, wireStatus: 201 };
  }
  return { ...answer, milliseconds: Date.now() - started };
}

/** Runs `tariff <args>` (e.g. `db upgrade`) on the database and waits; never throws on a non-zero exit. */
export function runTariff(databaseUrl: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runTariffWith(databaseUrl, {}, ...args);
}

/** {@link runTariff} with extra environment variables, e.g. `TARIFF_CLOUDKITTY_TIMEZONE`. */
export function runTariffWith(
  databaseUrl: string,
  environment: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [`${ROOT}/bin/tariff.js`, ...args],
      { env: { ...process.env, TARIFF_DATABASE_URL: databaseUrl, ...environment }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
