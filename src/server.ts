/**
 * Runs one Tariff process: opens and migrates the database, listens, and drains on
 * SIGTERM/SIGINT (stops accepting, lets requests in flight finish within
 * `TARIFF_SHUTDOWN_TIMEOUT`, stops the sandbox workers, closes the database).
 */
import type { TariffApp } from './http/app.js';
import { buildTariffApp, ratingModules } from './application.js';
import { openDatabase, type Database } from './database/connection.js';
import { migrateToLatest } from './database/migrate.js';
import type { TariffConfig } from './config.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { createLoggers } from './kernel/logger.js';
import { DatabaseUnavailableError } from './database/errors.js';
import { ScriptSandbox } from './rating/pyscripts/sandbox/index.js';
import { TariffMetrics } from './kernel/metrics.js';
import { listenForMetrics } from './http/metrics-listener.js';
import { connectionTimeouts } from './http/http-server.js';
import { TARIFF_VERSION } from './kernel/version.js';
import type { FileSettings } from './config-file/settings.js';

/**
 * Waits until the database answers `select 1`, logging once that it waits, at most `timeoutMs`.
 *
 * @throws DatabaseUnavailableError when it does not answer in time.
 */
async function waitForDatabase(database: Database, timeoutMs: number, logger: Logger): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await sql`select 1`.execute(database.db);
      if (attempt > 1) logger.info({ database: database.description }, 'the database answers');
      return;
    } catch (error) {
      if (Date.now() >= deadline) {
        throw new DatabaseUnavailableError(
          `${database.description} did not answer within ${timeoutMs / 1000} s (${error instanceof Error ? error.message : String(error)})`,
        );
      }
      if (attempt === 1) {
        logger.warn({ database: database.description, err: error, timeout_s: timeoutMs / 1000 }, 'waiting for the database');
      }
      await sleep(Math.min(1000, Math.max(0, deadline - Date.now())));
    }
  }
}

/** How a drain ended. */
export interface ShutdownReport {
  /**
   * Connections still open at `TARIFF_SHUTDOWN_TIMEOUT`, each with a request in flight (idle ones
   * are closed when the drain starts, the others once their answer is sent), cut then (0: a clean
   * drain).
   */
  cutConnections: number;
}

/**
 * Brings the schema up to date. On a database server the migrations run on a connection of their
 * own whose statements are bounded by `TARIFF_DB_START_TIMEOUT`, not by a request's
 * `TARIFF_DB_TIMEOUT`: DDL on an adopted CloudKitty database, or waiting for another process's
 * migration lock, may take longer than a request may wait. SQLite bounds no statement (and
 * `sqlite::memory:` is private to its connection): it migrates through `database`.
 */
async function migrateForStart(config: TariffConfig, database: Database, migrations: Parameters<typeof migrateToLatest>[1]) {
  if (!database.traits.boundsStatementsOnServer) return migrateToLatest(database, migrations);
  const migrating = openDatabase(config.databaseUrl, {
    poolSize: 1,
    timeoutMs: config.databaseStartTimeoutMs,
    cloudKittyTimeZone: config.cloudKittyTimeZone,
  });
  try {
    return await migrateToLatest(migrating, migrations);
  } finally {
    await migrating.close();
  }
}

/**
 * A port the server could not listen on (taken, privileged, or an address this machine does not
 * have): its message is one line naming the address and the setting to change.
 */
export class ListenError extends Error {
  override name = 'ListenError';
}

/**
 * Runs `listen` (binding `host:port`), turning the bind errors an operator meets into a
 * {@link ListenError} naming the address and `setting` (`TARIFF_PORT`, `TARIFF_METRICS_PORT`),
 * instead of Node's stack trace.
 *
 * @throws ListenError for EADDRINUSE, EACCES and EADDRNOTAVAIL; any other error as it came.
 */
async function listenOn<T>(listen: () => Promise<T>, host: string, port: number, setting: string): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    const code = (error as { code?: unknown }).code;
    if (code === 'EADDRINUSE') throw new ListenError(`${address} is already in use by another process: stop it, or set ${setting} to a free port`);
    if (code === 'EACCES') throw new ListenError(`${address}: permission denied (ports below 1024 need privileges): set ${setting} to a port above 1023`);
    if (code === 'EADDRNOTAVAIL') throw new ListenError(`${address}: ${host} is not an address of this machine: check the host setting beside ${setting}`);
    throw error;
  }
}

/** A running server. */
export interface RunningServer {
  app: TariffApp;
  database: Database;
  /** The bound address, e.g. `http://127.0.0.1:8889`. */
  url: string;
  /**
   * The start-up and shutdown lines' logger: `info` even when `TARIFF_LOG_LEVEL` is `warn` or
   * quieter (kernel/logger.ts).
   */
  lifecycleLog: Logger;
  /**
   * Drains: stops accepting connections and closes idle keep-alive ones at once; requests in
   * flight finish (their answers carry `Connection: close`), and so do requests arriving on their
   * connections meanwhile; at `config.shutdownTimeoutMs` every connection left is cut. Then the
   * sandbox workers are killed and the database pool closed. Calling it again returns the same drain.
   */
  stop(): Promise<ShutdownReport>;
}

/** Requests in flight named in the log when a drain cuts them, at most. */

/** What {@link startServer} is told besides the configuration. */
export interface StartOptions {
  /** What `--config-file` gave (config-file/settings.ts): logged once at start-up. */
  fileSettings?: FileSettings;
}

/**
 * Logs the configuration files read, once: the files, the options Tariff does not use (each named
 * once, not refused: CloudKitty's processor options, keystonemiddleware's cache), and what was
 * dropped on the way (a database URL's driver options).
 */
function logConfigFiles(logger: Logger, settings: FileSettings | undefined): void {
  if (settings === undefined || settings.files.length === 0) return;
  logger.info(
    { config_files: settings.files, unused_options: settings.unusedOptions, notes: settings.notes.length > 0 ? settings.notes : undefined },
    'configuration files read (the environment wins over them); the options listed as unused mean nothing to Tariff',
  );
}

/**
 * Opens the database, applies migrations (Tariff's and the rating modules'), builds the app with
 * the default rating modules (`rating/registry.ts`) and listens on `config.host:port`.
 *
 * @throws ConfigurationError for a bad database URL; MigrationError when a migration fails;
 *   ListenError when the port is taken (or privileged, or the host is not this machine's).
 */
export async function startServer(config: TariffConfig, options: StartOptions = {}): Promise<RunningServer> {
  const { logger, lifecycle } = createLoggers(config);
  logConfigFiles(lifecycle, options.fileSettings);
  const metrics = config.metrics ? new TariffMetrics() : undefined;
  const database = openDatabase(config.databaseUrl, {
    metrics,
    poolSize: config.databasePoolSize,
    timeoutMs: config.databaseTimeoutMs,
    cloudKittyTimeZone: config.cloudKittyTimeZone,
    onPoolError: (error) => logger.warn({ err: error }, 'database connection lost'),
  });
  try {
    await waitForDatabase(database, config.databaseStartTimeoutMs, lifecycle);
    const sandbox =
      config.sandboxWorkers > 0
        ? new ScriptSandbox({
            poolSize: config.sandboxWorkers,
            spareWorkers: config.sandboxSpareWorkers,
            timeoutMs: config.scriptTimeoutMs,
            memoryLimitMb: config.scriptMemoryMb,
            queueLength: config.sandboxQueueLength,
            queueWaitMs: config.sandboxQueueWaitMs,
            tenantRuns: config.sandboxTenantRuns,
            startTimeoutMs: config.sandboxStartTimeoutMs,
            metrics,
            log: logger,
          })
        : undefined;
    const modules = ratingModules({ sandbox });
    const applied = await migrateForStart(config, database, modules.migrations());
    // The sandbox's workers start (in the background: runs wait for them) only while an enabled
    // pyscripts module has a script, and stop when none does (issue 26: ~150 MB each). The watch
    // of the rules tells the module, here and when another process changes the configuration.
    const app = await buildTariffApp({ config, database, modules, loggerInstance: logger, metrics, watchRules: sandbox !== undefined });
    // Requests still in flight when stop() is called answer with `Connection: close`: otherwise
    // their keep-alive connections, idle only after close() reaped the idle ones, would hold the
    // shutdown open until the client or the keep-alive timeout drops them. A plain hook with
    // `done`, and no per-request bookkeeping: this runs on every answer (bench/run.js --baseline).
    let closing = false;
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (closing) reply.header('Connection', 'close');
      done(null, payload);
    });
    const openConnections = () =>
      new Promise<number>((resolve) => {
        app.server.getConnections((error, count) => resolve(error ? 0 : count));
      });
    if (applied.length > 0) lifecycle.info({ migrations: applied.map((result) => result.migrationName) }, 'database migrated');
    const url = await listenOn(() => app.listen({ host: config.host, port: config.port }), config.host, config.port, 'TARIFF_PORT');
    lifecycle.info({ version: TARIFF_VERSION, database: database.description, url }, 'Tariff is serving the rating API');
    const { metricsHost, metricsPort } = config;
    const metricsListener =
      metrics && metricsPort !== undefined
        ? await listenOn(
            () => listenForMetrics(metrics, { host: metricsHost, port: metricsPort, timeouts: connectionTimeouts(config) }),
            metricsHost,
            metricsPort,
            'TARIFF_METRICS_PORT',
          )
        : undefined;
    if (metricsListener) lifecycle.info({ url: `${metricsListener.url}/metrics` }, 'Tariff is serving its metrics');
    let stopping: Promise<ShutdownReport> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        closing = true;
        lifecycle.info(
          { connections: await openConnections(), timeout_s: config.shutdownTimeoutMs / 1000 },
          'draining: no new connections, finishing the requests in flight',
        );
        let cutConnections = 0;
        const cut = setTimeout(() => {
          void openConnections().then((count) => {
            cutConnections = count;
            app.log.error(
              { connections: count, timeout_s: config.shutdownTimeoutMs / 1000 },
              'drain timeout: cutting the connections of the requests still in flight',
            );
            app.server.closeAllConnections();
          });
        }, config.shutdownTimeoutMs);
        await metricsListener?.close();
        try {
          await app.close();
        } finally {
          clearTimeout(cut);
        }
        await sandbox?.close();
        await database.close();
        lifecycle.info({ cut_connections: cutConnections }, 'stopped');
        return { cutConnections };
      })());
    return { app, database, url, lifecycleLog: lifecycle, stop };
  } catch (error) {
    await database.close();
    throw error;
  }
}
