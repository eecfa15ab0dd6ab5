/**
 * The checks behind `/healthcheck`, as oslo.middleware's healthcheck backends: each answers
 * whether the process should get traffic, with a short reason (`OK`, `DISABLED BY FILE`) and
 * details for the detailed view.
 */
import { existsSync } from 'node:fs';
import { sql } from 'kysely';
import type { Database } from '../../database/connection.js';

/** oslo.middleware compat: `pluginbase.HealthcheckResult`. */
export interface HealthResult {
  /** False turns the answer into a 503. */
  available: boolean;
  /** One line of the plain answer, e.g. `OK` or `DISABLED BY FILE`. */
  reason: string;
  /** What was checked and found, for the detailed view only (it may name paths and hosts). */
  details: string;
}

/** One check, named as an oslo.middleware `backends` entry (`disable_by_file`, `database`). */
export interface HealthCheck {
  readonly name: string;
  /** Never rejects: a failure is a result with `available: false`. */
  run(): HealthResult | Promise<HealthResult>;
}

/**
 * oslo.middleware compat (`DisableByFileHealthcheck`): unavailable with `DISABLED BY FILE` while
 * `path` exists, so an operator drains a node with `touch`. Without a path it is always `OK`
 * (oslo's `disable_by_file` with no `disable_by_file_path`), which keeps the plain answer `OK`.
 *
 * @param path - absolute path of the file (`TARIFF_HEALTHCHECK_DISABLE_FILE`), or undefined.
 */
export function disableByFileCheck(path: string | undefined): HealthCheck {
  return {
    name: 'disable_by_file',
    run() {
      if (path === undefined) return { available: true, reason: 'OK', details: 'TARIFF_HEALTHCHECK_DISABLE_FILE is not set' };
      if (!existsSync(path)) return { available: true, reason: 'OK', details: `Path '${path}' was not found` };
      return { available: false, reason: 'DISABLED BY FILE', details: `Path '${path}' was found` };
    },
  };
}

/** The plain-answer reason of an unreachable database. */
export const DATABASE_UNREACHABLE = 'DATABASE UNREACHABLE';

/**
 * Asks the database for one row of `tariff_config_version` through the pool, at most
 * `timeoutMs`: on PostgreSQL and MariaDB a round trip as cheap as `select 1`, failing when the
 * server is down, unreachable or too busy to answer in time. SQLite lives in the process: the
 * check fails when the handle is closed or a read fails (I/O errors, damaged pages), not when
 * the file is removed or overwritten while the pages it needs are cached. Concurrent health
 * checks share one query.
 *
 * @param database - the process's database; its description (no credentials) goes into details.
 */
export function databaseCheck(database: Database, timeoutMs: number): HealthCheck {
  let running: Promise<HealthResult> | undefined;
  const probe = async (): Promise<HealthResult> => {
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    try {
      const query = sql`select 1 as answer from tariff_config_version`.execute(database.db).then(() => 'answered' as const);
      // A query still running when the timeout wins must not become an unhandled rejection.
      query.catch(() => undefined);
      const outcome = await Promise.race([query, timeout]);
      if (outcome === 'timeout') {
        return { available: false, reason: DATABASE_UNREACHABLE, details: `${database.description} did not answer within ${timeoutMs / 1000} s` };
      }
      return { available: true, reason: 'OK', details: `${database.description} answered in ${Date.now() - started} ms` };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { available: false, reason: DATABASE_UNREACHABLE, details: `${database.description}: ${message}` };
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    name: 'database',
    run() {
      running ??= probe().finally(() => (running = undefined));
      return running;
    },
  };
}
