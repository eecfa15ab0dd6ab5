/**
 * `[database] connection`: oslo.db's SQLAlchemy URL turned into the `TARIFF_DATABASE_URL` forms
 * src/database/connection.ts opens (`sqlite:<path>`, `postgresql://…`, `mysql://…`).
 */

/** A connection URL Tariff cannot serve; the message says why and what to write instead. */
export class UnusableDatabaseUrlError extends Error {}

/** The converted URL and the query options it dropped (named in the start-up log). */
export interface ConvertedDatabaseUrl {
  url: string;
  /** Driver-only query options left out, e.g. `charset=utf8` (Tariff's MySQL sessions are always utf8mb4). */
  dropped: string[];
}

/**
 * SQLAlchemy 1.4's URL pattern (`sqlalchemy/engine/url.py`, `_parse_url`; Debian's, under
 * CloudKitty 17), so unescaped `/`, `#`, `?` or `:` in a password are read as SQLAlchemy reads
 * them. An `@` in a password must be written `%40`, as SQLAlchemy 1.4 requires.
 */
const SQLALCHEMY_URL =
  /^(?<scheme>[\w+]+):\/\/(?:(?<user>[^:/]*)(?::(?<password>[^@]*))?@)?(?:\[(?<ipv6>[^/?]+)\]|(?<host>[^/:?]*))?(?::(?<port>[^/?]*))?(?:\/(?<database>[^?]*))?(?:\?(?<query>.*))?$/s;

/** A database server's URL forms: one entry each, a table rather than branches (test/unit/dialect-traits.test.ts). */
interface ServerUrlForm {
  /** The SQLAlchemy dialects and drivers oslo.db deployments name for it. */
  schemes: RegExp;
  /** The scheme of the URL Tariff opens. */
  scheme: string;
  displayName: string;
  /** Query options that only tune the Python driver: dropped. */
  dropped: readonly string[];
  /** A query option Tariff keeps, as its driver reads it; undefined when it is not one. */
  keep: (key: string, value: string) => string | undefined;
  /** Why an option is refused, beyond "not supported". */
  advice: (key: string) => string;
}

/** libpq options node-postgres reads from the URL as psycopg2 passes them to libpq: kept. */
const POSTGRES_KEPT = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'application_name', 'host', 'port', 'options'];

const SERVER_URL_FORMS: readonly ServerUrlForm[] = [
  {
    schemes: /^(mysql|mariadb)(\+(pymysql|mysqldb|mysqlconnector|mariadbconnector|asyncmy|aiomysql))?$/,
    scheme: 'mysql',
    displayName: 'MySQL',
    dropped: ['charset', 'use_unicode', 'binary_prefix', 'autocommit', 'plugin'],
    keep: (key, value) => (key === 'unix_socket' ? `socketPath=${encodeURIComponent(value)}` : undefined),
    advice: (key) => (/^ssl/.test(key) ? ': TLS to MySQL is not configurable from cloudkitty.conf yet' : ''),
  },
  {
    schemes: /^postgres(ql)?(\+(psycopg2|psycopg|pg8000|asyncpg))?$/,
    scheme: 'postgresql',
    displayName: 'PostgreSQL',
    dropped: ['client_encoding', 'use_native_unicode', 'plugin'],
    keep: (key, value) => (POSTGRES_KEPT.includes(key) ? `${encodeURIComponent(key)}=${encodeURIComponent(value)}` : undefined),
    advice: () => '',
  },
];
const SQLITE_SCHEMES = /^sqlite(\+pysqlite)?$/;

/** Python's `urllib.parse.unquote`: each run of `%XX` escapes decoded as UTF-8, invalid bytes as U+FFFD; other text as written. */
function unquote(text: string): string {
  return text.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => new TextDecoder().decode(Uint8Array.from(run.slice(1).split('%'), (hex) => parseInt(hex, 16))));
}

function queryOptions(query: string | undefined): [string, string][] {
  if (!query) return [];
  return query
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      return at < 0 ? [unquote(pair), ''] : [unquote(pair.slice(0, at)), unquote(pair.slice(at + 1))];
    });
}

function credentials(user: string | undefined, password: string | undefined): string {
  if (user === undefined || (user === '' && password === undefined)) return '';
  const name = encodeURIComponent(unquote(user));
  return password === undefined ? `${name}@` : `${name}:${encodeURIComponent(unquote(password))}@`;
}

/**
 * Converts an oslo.db `[database] connection` URL.
 *
 * - `mysql+pymysql://user:pass@host:port/db?charset=utf8` (and `mysql://`, `mariadb://`, the other
 *   MySQL drivers) → `mysql://user:pass@host:port/db`; `unix_socket=` becomes mysql2's `socketPath`.
 * - `postgresql+psycopg2://…` (and `postgresql://`, `postgres://`, psycopg 3, pg8000) →
 *   `postgresql://…`, keeping libpq's TLS options, `host` (a socket folder), `application_name`.
 * - `sqlite:////abs/path` → `sqlite:/abs/path`; `sqlite:///rel/path` → `sqlite:rel/path` (relative
 *   to the working folder, as SQLAlchemy reads it); `sqlite://` → `sqlite::memory:`.
 *
 * Credentials are decoded as SQLAlchemy decodes them and encoded again for a WHATWG URL.
 *
 * @throws UnusableDatabaseUrlError for another database (Oracle, SQL Server, …), a URL that is not
 *   one, or a query option Tariff cannot honour (MySQL's `ssl_*`, `read_default_file`; an unknown one).
 */
export function convertSqlAlchemyUrl(text: string): ConvertedDatabaseUrl {
  const match = SQLALCHEMY_URL.exec(text.trim());
  if (!match?.groups) throw new UnusableDatabaseUrlError("not an SQLAlchemy URL ('dialect+driver://user:password@host/database')");
  const { scheme, user, password, ipv6, host, port, database = '', query } = match.groups;
  const dialect = scheme.toLowerCase();
  const options = queryOptions(query);
  if (SQLITE_SCHEMES.test(dialect)) {
    if (options.length > 0) throw new UnusableDatabaseUrlError(`SQLite query options are not supported (${options.map(([key]) => key).join(', ')})`);
    if (host || user !== undefined) throw new UnusableDatabaseUrlError('an SQLite URL has no host: write sqlite:////absolute/path or sqlite:///relative/path');
    return { url: database === '' || database === ':memory:' ? 'sqlite::memory:' : `sqlite:${database}`, dropped: [] };
  }
  const form = SERVER_URL_FORMS.find((candidate) => candidate.schemes.test(dialect));
  if (form === undefined) {
    throw new UnusableDatabaseUrlError(
      `Tariff serves SQLite, PostgreSQL and MySQL/MariaDB, not '${scheme}' (mysql+pymysql://, postgresql+psycopg2://, sqlite:///)`,
    );
  }
  const dropped: string[] = [];
  const kept: string[] = [];
  for (const [key, value] of options) {
    const keptOption = form.keep(key, value);
    if (form.dropped.includes(key)) dropped.push(`${key}=${value}`);
    else if (keptOption !== undefined) kept.push(keptOption);
    else throw new UnusableDatabaseUrlError(`the ${form.displayName} option '${key}' is not supported by Tariff${form.advice(key)}`);
  }
  if (port && !/^\d{1,5}$/.test(port)) throw new UnusableDatabaseUrlError(`the port must be a number, got '${port}'`);
  const hostPart = ipv6 !== undefined ? `[${ipv6}]` : host || 'localhost';
  const portPart = port ? `:${port}` : '';
  // SQLAlchemy hands the database name to the driver as written (not unquoted).
  const path = database === '' ? '' : `/${encodeURIComponent(database)}`;
  const base = `${form.scheme}://${credentials(user, password)}${hostPart}${portPart}${path}`;
  return { url: kept.length > 0 ? `${base}?${kept.join('&')}` : base, dropped };
}
