/**
 * Opens the database named by `TARIFF_DATABASE_URL`: the embedded SQLite file (default), or
 * PostgreSQL / MariaDB / MySQL. Every driver is set to hand back decimals and datetimes as text,
 * so the repositories see one shape on every database.
 */
import type { Kysely } from 'kysely';
import type { TariffTables } from './tables.js';
import { ConfigurationError } from '../config.js';
import { dialectNamed } from './dialects/dialect.js';
import { redactUrl, type DatabaseOptions, type PoolSettings } from './dialects/opening.js';
import type { DialectName, DialectTraits } from './dialects/traits.js';

export { DatabaseOpenError, redactUrl, type DatabaseOptions, type OpenedDatabase, type PoolSettings } from './dialects/opening.js';

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
  close(): Promise<void>;
}

/** The URL schemes Tariff accepts, the dialect each names, and what its opener is given. */
const URL_SCHEMES: readonly { pattern: RegExp; dialect: DialectName; location: (url: string) => string }[] = [
  { pattern: /^sqlite:/, dialect: 'sqlite', location: (url) => url.slice('sqlite:'.length) },
  { pattern: /^postgres(ql)?:\/\//, dialect: 'postgres', location: (url) => url },
  { pattern: /^(mysql|mariadb):\/\//, dialect: 'mysql', location: (url) => url },
];

/**
 * Parses a database URL and opens it.
 *
 * @param url - `sqlite:<path>` (`sqlite::memory:` for a private in-memory database),
 *   `postgres://` / `postgresql://`, or `mysql://` / `mariadb://`.
 * @throws ConfigurationError for any other scheme; DatabaseOpenError for an SQLite file that
 *   cannot be opened or is damaged.
 */
export function openDatabase(url: string, options: DatabaseOptions = {}): Database {
  const settings: PoolSettings = {
    poolSize: options.poolSize ?? 10,
    timeoutMs: options.timeoutMs ?? 5000,
    onPoolError: options.onPoolError ?? (() => undefined),
  };
  const scheme = URL_SCHEMES.find(({ pattern }) => pattern.test(url));
  if (!scheme) throw new ConfigurationError(`TARIFF_DATABASE_URL must start with sqlite:, postgres:// or mysql://, got '${redactUrl(url)}'`);
  const { traits, open } = dialectNamed(scheme.dialect);
  const { db, description } = open(scheme.location(url), settings);
  return { db, traits, description, writes: { count: 0 }, close: () => db.destroy() };
}
