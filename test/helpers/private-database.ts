/**
 * A private PostgreSQL or MariaDB server for tests that stop and start the database itself (the
 * machine's shared servers must stay up for every other test). Each one gets a fresh data
 * directory in a temporary directory and a free loopback port; the test owns the server process
 * and can stop it cleanly or crash it, then start it again on the same port and data.
 *
 * The server runs as the `postgres` / `mysql` system user when the tests run as root (neither
 * server runs as root), else as the current user. A watchdog process kills the server and removes
 * its directory if the test process dies without calling {@link PrivateDatabase.destroy}, so no
 * server outlives its test file.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { createConnection } from 'mysql2/promise';
import type { PerServer, ServerDatabaseKind } from './database-kind.js';
import { freePort } from './server.js';

/** The name of the database Tariff uses inside a private server. */
const DATABASE_NAME = 'tariff';
/** How long a server may take to start (including crash recovery) or to stop. */
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 30_000;
/** How much of a server's own output is kept for error messages. */
const LOG_LIMIT = 64 * 1024;

/** `clean`: a normal shutdown (PostgreSQL's fast mode, MariaDB's SIGTERM). `crash`: no shutdown work at all. */
export type StopMode = 'clean' | 'crash';

/** A database server that belongs to one test file. */
export interface PrivateDatabase {
  kind: ServerDatabaseKind;
  /** A `postgres://` or `mysql://` URL of the `tariff` database, for TARIFF_DATABASE_URL and direct queries. */
  url: string;
  port: number;
  /** Whether the server process is running (it may still be starting). */
  running(): boolean;
  /** The server's own output since it was first started (the last 64 KiB). */
  log(): string;
  /**
   * Stops the server and waits until its process has exited. `clean` (the default) shuts down
   * normally; `crash` ends it without a checkpoint or flush (PostgreSQL's immediate shutdown,
   * SIGKILL for MariaDB), so the next start recovers from its log.
   */
  stop(mode?: StopMode): Promise<void>;
  /** Starts the stopped server on the same port and data, and waits until it answers queries. */
  start(): Promise<void>;
  /** Kills the server if it runs and removes its directory. Safe to call more than once. */
  destroy(): Promise<void>;
}

/** How one kind of server is installed, run and stopped. */
interface ServerRecipe {
  systemUser: string;
  /** Creates the data directory's contents. */
  install(dataDirectory: string, runAs: RunAs | undefined): void;
  /** The command line of the server in the foreground. */
  command(dataDirectory: string, port: number, runAs: RunAs | undefined): { program: string; arguments: string[] };
  cleanStopSignal: NodeJS.Signals;
  crashSignal: NodeJS.Signals;
  /** Runs `select 1` against the server's admin database; rejects while it does not answer. */
  probe(port: number): Promise<void>;
  /** Creates the `tariff` database. */
  createDatabase(port: number): Promise<void>;
  url(port: number): string;
}

interface RunAs {
  uid: number;
  gid: number;
}

function postgresBinaries(): string {
  const configured = process.env.TARIFF_TEST_POSTGRES_BIN;
  if (configured) return configured;
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const found = versions.map((version) => join(base, version, 'bin')).find((directory) => existsSync(join(directory, 'initdb')));
  if (!found) throw new Error(`no PostgreSQL server binaries under ${base}; set TARIFF_TEST_POSTGRES_BIN to the directory holding initdb and postgres`);
  return found;
}

function firstExisting(candidates: string[], what: string): string {
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new Error(`${what} not found (looked for ${candidates.join(', ')})`);
  return found;
}

/** Runs a set-up command to completion, as `runAs` if given; its output goes into the error when it fails. */
function runSetupCommand(program: string, commandArguments: string[], cwd: string, runAs: RunAs | undefined): void {
  try {
    execFileSync(program, commandArguments, { cwd, stdio: 'pipe', timeout: 120_000, ...runAs });
  } catch (error) {
    const failure = error as { stdout?: Buffer; stderr?: Buffer; message: string };
    throw new Error(`${program} failed: ${failure.message}\n${failure.stdout ?? ''}${failure.stderr ?? ''}`);
  }
}

const POSTGRES: ServerRecipe = {
  systemUser: 'postgres',
  install(dataDirectory, runAs) {
    // --no-sync: the directory is thrown away after the test; the server itself still fsyncs.
    runSetupCommand(
      join(postgresBinaries(), 'initdb'),
      ['-D', dataDirectory, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-locale', '--no-sync'],
      dataDirectory,
      runAs,
    );
  },
  command(dataDirectory, port) {
    return {
      program: join(postgresBinaries(), 'postgres'),
      arguments: [
        '-D',
        dataDirectory,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `unix_socket_directories=${dataDirectory}`,
        '-c',
        'shared_buffers=16MB',
        '-c',
        'logging_collector=off',
      ],
    };
  },
  // SIGINT is PostgreSQL's fast shutdown, SIGQUIT its immediate one (`pg_ctl stop -m fast|immediate`):
  // the postmaster ends every backend at once and the next start runs crash recovery.
  cleanStopSignal: 'SIGINT',
  crashSignal: 'SIGQUIT',
  async probe(port) {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, connectionTimeoutMillis: 2000 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('select 1');
    } finally {
      await client.end().catch(() => {});
    }
  },
  async createDatabase(port) {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    await client.connect();
    try {
      await client.query(`create database ${DATABASE_NAME}`);
    } finally {
      await client.end();
    }
  },
  url: (port) => `postgres://postgres@127.0.0.1:${port}/${DATABASE_NAME}`,
};

const MARIADB: ServerRecipe = {
  systemUser: 'mysql',
  install(dataDirectory, runAs) {
    const installer = firstExisting(['/usr/bin/mariadb-install-db', '/usr/bin/mysql_install_db', '/usr/local/bin/mariadb-install-db'], 'mariadb-install-db');
    // `normal` keeps root@localhost/127.0.0.1 without a password, as on the shared server.
    const userArguments = runAs ? ['--user=mysql'] : [];
    runSetupCommand(
      installer,
      ['--no-defaults', `--datadir=${dataDirectory}`, ...userArguments, '--auth-root-authentication-method=normal', '--skip-test-db'],
      dataDirectory,
      undefined,
    );
  },
  command(dataDirectory, port, runAs) {
    return {
      program: firstExisting(['/usr/sbin/mariadbd', '/usr/sbin/mysqld', '/usr/local/bin/mariadbd'], 'mariadbd'),
      arguments: [
        // --no-defaults must come first: the machine's my.cnf names the shared server's port and files.
        '--no-defaults',
        `--datadir=${dataDirectory}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        `--socket=${join(dataDirectory, 'mysqld.sock')}`,
        `--pid-file=${join(dataDirectory, 'mysqld.pid')}`,
        ...(runAs ? ['--user=mysql'] : []),
        '--skip-name-resolve',
        '--character-set-server=utf8mb4',
        '--collation-server=utf8mb4_general_ci',
        '--innodb-buffer-pool-size=32M',
      ],
    };
  },
  cleanStopSignal: 'SIGTERM',
  // One process: SIGKILL is a crash. InnoDB flushes its log at every commit (the default), so
  // every committed transaction survives it.
  crashSignal: 'SIGKILL',
  async probe(port) {
    const connection = await createConnection({ host: '127.0.0.1', port, user: 'root', connectTimeout: 2000 });
    connection.on('error', () => {});
    try {
      await connection.query('select 1');
    } finally {
      await connection.end().catch(() => {});
    }
  },
  async createDatabase(port) {
    const connection = await createConnection({ host: '127.0.0.1', port, user: 'root' });
    try {
      await connection.query(`create database ${DATABASE_NAME} character set utf8mb4 collate utf8mb4_bin`);
    } finally {
      await connection.end();
    }
  },
  url: (port) => `mysql://root@127.0.0.1:${port}/${DATABASE_NAME}`,
};

const RECIPES: PerServer<ServerRecipe> = { postgres: POSTGRES, mysql: MARIADB };

/** The uid and gid of a system user. */
function systemUserIds(name: string): RunAs {
  try {
    return {
      uid: Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim()),
      gid: Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim()),
    };
  } catch {
    throw new Error(`the tests run as root, and the database server must run as the system user '${name}', which does not exist`);
  }
}

/**
 * A separate process that waits for the test process to die (its stdin closes) and then kills
 * the server whose pid is in `pidFile` and removes `directory`. Killing the test process with
 * SIGKILL skips every afterAll hook and exit handler; this still runs.
 */
function startWatchdog(pidFile: string, directory: string, signal: NodeJS.Signals): ChildProcess {
  const script = `
    const { readFileSync, rmSync } = require('node:fs');
    process.stdin.resume();
    process.stdin.on('close', async () => {
      let pid;
      try { pid = Number(readFileSync(${JSON.stringify(pidFile)}, 'utf8')); } catch {}
      const alive = () => { try { process.kill(pid, 0); return true; } catch { return false; } };
      if (pid) {
        try { process.kill(pid, ${JSON.stringify(signal)}); } catch {}
        for (let waited = 0; alive() && waited < 10000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
        try { process.kill(pid, 'SIGKILL'); } catch {}
      }
      rmSync(${JSON.stringify(directory)}, { recursive: true, force: true });
      process.exit(0);
    });`;
  const watchdog = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'ignore', 'ignore'] });
  // The watchdog must not keep the test process alive, nor fail it when it goes away first.
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  watchdog.stdin?.on('error', () => {});
  return watchdog;
}

/**
 * Installs and starts a private server of `kind` on a free loopback port, with an empty `tariff`
 * database, and waits until it answers. Call {@link PrivateDatabase.destroy} in `afterAll`.
 *
 * @throws when the server binaries are missing, installing fails, or the server does not answer
 *   within 30 s (the message carries the server's output).
 */
export async function startPrivateDatabase(kind: ServerDatabaseKind): Promise<PrivateDatabase> {
  const recipe = RECIPES[kind];
  const runAs = process.getuid?.() === 0 ? systemUserIds(recipe.systemUser) : undefined;
  // The system user must be able to reach its data directory: the base is world-searchable.
  const directory = mkdtempSync(join(tmpdir(), `tariff-${kind}-`));
  chmodSync(directory, 0o755);
  const dataDirectory = join(directory, 'data');
  mkdirSync(dataDirectory, { mode: 0o700 });
  if (runAs) chownSync(dataDirectory, runAs.uid, runAs.gid);
  const pidFile = join(directory, 'server.pid');
  const watchdog = startWatchdog(pidFile, directory, recipe.crashSignal);

  const port = await freePort();
  let server: ChildProcess | undefined;
  let serverRunning = false;
  let exited: Promise<void> = Promise.resolve();
  let output = '';

  function launch(): void {
    const { program, arguments: commandArguments } = recipe.command(dataDirectory, port, runAs);
    const child = spawn(program, commandArguments, { cwd: dataDirectory, stdio: ['ignore', 'pipe', 'pipe'], ...runAs });
    const append = (text: string) => {
      output = (output + text).slice(-LOG_LIMIT);
    };
    child.stdout?.on('data', (chunk: Buffer) => append(chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => append(chunk.toString()));
    serverRunning = true;
    exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', (error) => {
        append(`\n[could not run ${program}: ${error.message}]\n`);
        resolve();
      });
    }).then(() => {
      serverRunning = false;
    });
    server = child;
    if (child.pid) writeFileSync(pidFile, String(child.pid));
  }

  /** Whether the server exited within `timeoutMs`. */
  async function exitedWithin(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    try {
      return await Promise.race([exited.then(() => true as const), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  const running = () => serverRunning;

  async function waitUntilAnswering(): Promise<void> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    let lastError: unknown;
    for (;;) {
      if (!running()) throw new Error(`the private ${kind} server exited while starting:\n${output}`);
      try {
        await recipe.probe(port);
        return;
      } catch (error) {
        lastError = error;
      }
      if (Date.now() > deadline) {
        throw new Error(`the private ${kind} server did not answer within ${START_TIMEOUT_MS / 1000} s (${String(lastError)}):\n${output}`);
      }
      await sleep(100);
    }
  }

  async function stopWith(signal: NodeJS.Signals): Promise<void> {
    if (!running()) return;
    server!.kill(signal);
    const timedOut = !(await exitedWithin(STOP_TIMEOUT_MS));
    if (timedOut) server!.kill('SIGKILL');
    await exited;
    rmSync(pidFile, { force: true });
    if (timedOut) throw new Error(`the private ${kind} server did not stop within ${STOP_TIMEOUT_MS / 1000} s of ${signal}; killed it:\n${output}`);
  }

  const database: PrivateDatabase = {
    kind,
    url: recipe.url(port),
    port,
    running,
    log: () => output,
    async stop(mode = 'clean') {
      await stopWith(mode === 'clean' ? recipe.cleanStopSignal : recipe.crashSignal);
    },
    async start() {
      if (running()) throw new Error(`the private ${kind} server is already running`);
      launch();
      await waitUntilAnswering();
    },
    async destroy() {
      try {
        await stopWith(recipe.crashSignal);
      } finally {
        rmSync(directory, { recursive: true, force: true });
        // Its stdin closing makes the watchdog find nothing left to do and exit.
        watchdog.stdin?.end();
      }
    },
  };

  try {
    recipe.install(dataDirectory, runAs);
    await database.start();
    await recipe.createDatabase(port);
  } catch (error) {
    await database.destroy();
    throw error;
  }
  return database;
}
