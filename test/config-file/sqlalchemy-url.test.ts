/**
 * `[database] connection`: oslo.db's SQLAlchemy URLs in Tariff's TARIFF_DATABASE_URL forms. The
 * generated ones are read by the real SQLAlchemy (Debian's 1.4, CloudKitty 17's) and by the WHATWG
 * URL parser mysql2 and node-postgres use on the converted URL: same user, password, host, port
 * and database.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convertSqlAlchemyUrl, UnusableDatabaseUrlError } from '../../src/config-file/sqlalchemy-url.js';
import { debianPythonMissing, runPython } from './debian-python.js';

describe('SQLAlchemy URLs', () => {
  it.each([
    ['mysql+pymysql://cloudkitty:secret@10.0.0.5/cloudkitty?charset=utf8', 'mysql://cloudkitty:secret@10.0.0.5/cloudkitty', ['charset=utf8']],
    ['mysql://root@127.0.0.1:3306/ck', 'mysql://root@127.0.0.1:3306/ck', []],
    [
      'mariadb+pymysql://u:p@db/ck?charset=utf8&unix_socket=/run/mysqld/mysqld.sock',
      'mysql://u:p@db/ck?socketPath=%2Frun%2Fmysqld%2Fmysqld.sock',
      ['charset=utf8'],
    ],
    ['postgresql+psycopg2://ck:pw@pg.example:5432/cloudkitty?sslmode=require', 'postgresql://ck:pw@pg.example:5432/cloudkitty?sslmode=require', []],
    ['postgresql://ck@/cloudkitty?host=/var/run/postgresql', 'postgresql://ck@localhost/cloudkitty?host=%2Fvar%2Frun%2Fpostgresql', []],
    ['postgresql://ck:pw@[::1]:5432/ck', 'postgresql://ck:pw@[::1]:5432/ck', []],
    ['mysql+pymysql://ck:p%40ss/w#rd?@db/ck', 'mysql://ck:p%40ss%2Fw%23rd%3F@db/ck', []],
    ['sqlite:////var/lib/cloudkitty/cloudkitty.sqlite', 'sqlite:/var/lib/cloudkitty/cloudkitty.sqlite', []],
    ['sqlite:///cloudkitty.sqlite', 'sqlite:cloudkitty.sqlite', []],
    ['sqlite://', 'sqlite::memory:', []],
  ])('%s → %s', (given, url, dropped) => {
    expect(convertSqlAlchemyUrl(given)).toEqual({ url, dropped });
  });

  it.each([
    ['oracle+cx_oracle://u:p@db/ck', "Tariff serves SQLite, PostgreSQL and MySQL/MariaDB, not 'oracle+cx_oracle'"],
    [
      'mysql+pymysql://u:p@db/ck?ssl_ca=/etc/ca.pem',
      "the MySQL option 'ssl_ca' is not supported by Tariff: TLS to MySQL is not configurable from cloudkitty.conf yet",
    ],
    ['postgresql://u@db/ck?keepalives=1', "the PostgreSQL option 'keepalives' is not supported by Tariff"],
    ['mysql://u@db:port/ck', "the port must be a number, got 'port'"],
    ['cloudkitty.sqlite', 'not an SQLAlchemy URL'],
    ['sqlite://host/file', 'an SQLite URL has no host'],
  ])('refuses %s', (given, message) => {
    expect(() => convertSqlAlchemyUrl(given)).toThrow(UnusableDatabaseUrlError);
    expect(() => convertSqlAlchemyUrl(given)).toThrow(message);
  });
});

/** SQLAlchemy's reading of each URL: [username, password, host, port, database], or null when it refuses it. */
const SQLALCHEMY_READS = `
import json, sys
from sqlalchemy.engine.url import make_url
out = []
for text in json.load(sys.stdin):
    try:
        url = make_url(text)
        out.append([url.username, url.password, url.host, url.port, url.database])
    except Exception:
        out.append(None)
print(json.dumps(out))
`;

/** What mysql2 (`ConnectionConfig.parseUrl`) and node-postgres (pg-connection-string) read from a URL: WHATWG parts, decoded. */
function driverReads(url: string): [string | null, string | null, string, number | null, string | null] {
  const parsed = new URL(url);
  const decoded = (text: string) => (text === '' ? null : decodeURIComponent(text));
  return [
    decoded(parsed.username),
    parsed.password === '' && !url.includes(':@') ? null : decodeURIComponent(parsed.password),
    parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    parsed.port === '' ? null : Number(parsed.port),
    decoded(parsed.pathname.slice(1)),
  ];
}

const characters = (set: string, minLength: number, maxLength: number) =>
  fc.array(fc.constantFrom(...set.split('')), { minLength, maxLength }).map((chosen) => chosen.join(''));
/** Everything a generated password may hold but `@` (SQLAlchemy 1.4 stops at it: written %40) and `%` (an escape). */
const PASSWORD = 'aZ09!#$&()*+,/:;=?[]^_`{|}~ "\'<>-.é€';

describe.skipIf(debianPythonMissing !== undefined)('SQLAlchemy URLs against SQLAlchemy', () => {
  it('gives the drivers the user, password, host, port and database SQLAlchemy reads', () => {
    const urls = fc.sample(
      fc
        .tuple(
          fc.constantFrom('mysql+pymysql', 'mysql', 'mariadb+pymysql', 'postgresql+psycopg2', 'postgresql'),
          characters('abcXYZ019_.-', 1, 10),
          fc.option(fc.oneof(characters(PASSWORD, 0, 16), characters('%40%2F%3A', 0, 9)), { nil: undefined }),
          fc.oneof(characters('abc019.-', 1, 12), fc.constantFrom('127.0.0.1', 'db.example.org', '[::1]', '[fd00::5]')),
          fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
          characters('abcXYZ019_-$', 1, 10),
          fc.constantFrom('', '?charset=utf8', '?charset=utf8mb4&use_unicode=1'),
        )
        .map(([scheme, user, password, host, port, database, query]) => {
          const options = scheme.startsWith('postgres')
            ? query.replace(/charset=\w+/, 'client_encoding=utf8').replace('use_unicode', 'use_native_unicode')
            : query;
          return `${scheme}://${user}${password === undefined ? '' : `:${password}`}@${host}${port === undefined ? '' : `:${port}`}/${database}${options}`;
        }),
      { numRuns: 1500, seed: 7 },
    );
    const expected = runPython<([string | null, string | null, string, number | null, string | null] | null)[]>(SQLALCHEMY_READS, urls);
    let compared = 0;
    urls.forEach((url, index) => {
      if (expected[index] === null) return;
      compared += 1;
      expect(driverReads(convertSqlAlchemyUrl(url).url), url).toEqual(expected[index]);
    });
    expect(compared).toBeGreaterThan(1000);
  });
});
