/**
 * Opens the database named by `TARIFF_DATABASE_URL`: the embedded SQLite file (default), or
 * PostgreSQL / MariaDB / MySQL. Every driver is set to hand back decimals and datetimes as text,
 * so the repositories see one shape on every database.
 */
import type { Kysely } from 'kysely';
import type { TariffTables } from './tables.js';
import { ConfigurationError } from '../config.js';
import { dialectNamed } from './dialects/dialect.js';
import { maskUrlCredentials } from '../kernel/url-credentials.js';
import type { DatabaseOptions, PoolSettings } from './dialects/opening.js';
import type { DialectName, DialectTraits } from './dialects/traits.js';
import { StoredDateTimes } from './stored-datetimes.js';
import { TimeZone, UnknownTimeZoneError } from '../kernel/time-zone.js';
import type { TariffMetrics } from '../kernel/metrics.js';
import { sqliteFilePath } from './dialects/sqlite.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export { DatabaseOpenError, type DatabaseOptions, type OpenedDatabase, type PoolSettings } from './dialects/opening.js';

/**
 * An open database: the Kysely handle, its dialect's traits and a way to close it. Code that
 * needs to know what differs between databases asks `traits`, never which database it is.
 */
export interface Database {
  readonly db: Kysely<TariffTables>;
  /** What differs about this dialect (dialects/traits.ts). */
  readonly traits: DialectTraits;
  /** Human-readable location without credentials, for logs. */
  readonly description: string;
  /** Configuration writes committed through this handle: cached rules compare it to know they are stale. */
  readonly writes: { count: number };
  /** Instants to and from the naive datetime columns, in the zone CloudKitty's hosts use (`TARIFF_CLOUDKITTY_TIMEZONE`). */
  readonly storedDateTimes: StoredDateTimes;
  /** Where database errors are counted (`GET /metrics`); absent when metrics are off. */
  readonly metrics?: TariffMetrics;
  close(): Promise<void>;
}

/** The URL schemes Tariff accepts, the dialect each names, and what its opener is given. */
const URL_SCHEMES: readonly { pattern: RegExp; dialect: DialectName; location: (url: string) => string }[] = [
  { pattern: /^sqlite:/, dialect: 'sqlite', location: (url) => url.slice('sqlite:'.length) },
  { pattern: /^postgres(ql)?:\/\//, dialect: 'postgres', location: (url) => url },
  { pattern: /^(mysql|mariadb):\/\//, dialect: 'mysql', location: (url) => url },
];

/** How to open a database: the pool settings, and the zone of the naive datetime columns. */
export interface OpenOptions extends DatabaseOptions {
  /** IANA name of the zone CloudKitty's naive datetime columns hold wall time in (`TARIFF_CLOUDKITTY_TIMEZONE`, default `UTC`). */
  cloudKittyTimeZone?: string;
  /** Metrics to report the pool's connections and the lost ones to (`GET /metrics`). */
  metrics?: TariffMetrics;
}

/**
 * Parses a database URL and opens it.
 *
 * @param url - `sqlite:<path>` (`sqlite::memory:` for a private in-memory database),
 *   `postgres://` / `postgresql://`, or `mysql://` / `mariadb://`.
 * @throws ConfigurationError for any other scheme or an unknown time zone; DatabaseOpenError for
 *   an SQLite file that cannot be opened or is damaged.
 */
export function openDatabase(url: string, options: OpenOptions = {}): Database {
  const { metrics } = options;
  const onPoolError = options.onPoolError ?? (() => undefined);
  const settings: PoolSettings = {
    poolSize: options.poolSize ?? 10,
    timeoutMs: options.timeoutMs ?? 5000,
    onPoolError: metrics
      ? (error) => {
          metrics.databaseError('lost_connection');
          onPoolError(error);
        }
      : onPoolError,
  };
  const storedDateTimes = new StoredDateTimes(timeZoneNamed(options.cloudKittyTimeZone ?? 'UTC'));
  const scheme = URL_SCHEMES.find(({ pattern }) => pattern.test(url));
  if (!scheme) throw new ConfigurationError(`TARIFF_DATABASE_URL must start with sqlite:, postgres:// or mysql://, got '${maskUrlCredentials(url)}'`);
  const { traits, open } = dialectNamed(scheme.dialect);
  const { db, description, pool } = open(scheme.location(url), settings);
  metrics?.watchDatabasePool(pool);
  return { db, traits, description, writes: { count: 0 }, storedDateTimes, metrics, close: () => db.destroy() };
}

/**
 * The absolute path of the SQLite file `url` names when that file does not exist yet, which
 * opening it would create (with its folder); undefined for an existing file, `sqlite::memory:`
 * and database servers. `tariff db upgrade --dry-run` reads an empty in-memory database instead,
 * creating nothing.
 */
export function sqliteFileToBeCreated(url: string): string | undefined {
  if (!url.startsWith('sqlite:')) return undefined;
  const file = sqliteFilePath(url.slice('sqlite:'.length));
  if (file === ':memory:' || existsSync(file)) return undefined;
  return resolve(file);
}

function timeZoneNamed(name: string): TimeZone {
  try {
    return TimeZone.named(name);
  } catch (error) {
    if (error instanceof UnknownTimeZoneError) throw new ConfigurationError(`TARIFF_CLOUDKITTY_TIMEZONE: ${error.message}`);
    throw error;
  }
}
