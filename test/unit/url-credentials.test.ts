/**
 * `maskUrlCredentials` (issue 24, finding 8): the URL forms Tariff shows or logs (database URLs in
 * Tariff's and SQLAlchemy's forms, Keystone's and CloudKitty's API URLs), with generated secrets
 * of any characters (`@ : / ? # %`, percent-encoded or not) in the userinfo and in secret query
 * parameters: the secret never appears in the masked text; the host, port and database do.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskUrlCredentials } from '../../src/kernel/url-credentials.js';

/** Markers around every generated secret: neither may survive the masking. */
const HEAD = 'Qz7';
const TAIL = 'Kx9';

const scheme = fc.constantFrom('postgres', 'postgresql', 'postgresql+psycopg2', 'mysql', 'mysql+pymysql', 'mariadb', 'http', 'https');
const host = fc.oneof(fc.stringMatching(/^[a-z][a-z0-9-]{0,10}(\.[a-z][a-z0-9-]{0,10}){0,2}$/), fc.ipV4(), fc.constant('[::1]'), fc.constant('[fd00::5]'));
const port = fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined });
const database = fc.stringMatching(/^[a-z_][a-z0-9_]{0,12}$/);
/** Anything, with the characters that end or split a URL's parts over-represented. */
const secretBody = fc.string({
  unit: fc.oneof(
    fc.constantFrom('@', ':', '/', '?', '#', '%', '&', ';', '=', '+', ' ', '%40', '%2'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 20,
});
const secret = secretBody.map((body) => `${HEAD}${body}${TAIL}`);
const secretParameterName = fc
  .constantFrom('password', 'sslpassword', 'passwd', 'pwd', 'secret', 'token', 'sslkey', 'api_key', 'auth_token')
  .chain((name) => fc.tuple(fc.constant(name), fc.array(fc.boolean(), { minLength: name.length, maxLength: name.length })))
  .map(([name, upper]) => [...name].map((letter, index) => (upper[index] ? letter.toUpperCase() : letter)).join(''));
const plainParameter = fc.constantFrom('sslmode=require', 'application_name=tariff', 'charset=utf8', 'connect_timeout=5');

/** The secret as written in a query value: percent-encoded, or raw where a value may hold it raw. */
function inQuery(value: string, encoded: boolean): string {
  return encoded ? encodeURIComponent(value) : value.replace(/[&;@]/g, encodeURIComponent);
}

function expectHidden(masked: string, value: string): void {
  expect(masked).not.toContain(HEAD);
  expect(masked).not.toContain(TAIL);
  expect(masked).not.toContain(value);
  expect(masked).not.toContain(encodeURIComponent(value));
}

describe('maskUrlCredentials', () => {
  it.each([
    ['postgres://u:p@ssw0rd@host/db?password=X', 'postgres://***@host/db?password=***'],
    ['postgresql://ck:pw@pg.example:5432/cloudkitty?sslmode=require', 'postgresql://***@pg.example:5432/cloudkitty?sslmode=require'],
    ['mysql+pymysql://ck:p%40ss/w#rd?@db/ck?charset=utf8', 'mysql+pymysql://***@db/ck?charset=utf8'],
    [
      'postgres://host/db?sslmode=verify-full&SSLPassword=a%26b;application_name=t',
      'postgres://host/db?sslmode=verify-full&SSLPassword=***;application_name=t',
    ],
    ['postgres://host/db?password=a#b?c&sslmode=require', 'postgres://host/db?password=***&sslmode=require'],
    ['http://keystone.example:5000/v3', 'http://keystone.example:5000/v3'],
    ['sqlite:/var/lib/tariff/tariff.db', 'sqlite:/var/lib/tariff/tariff.db'],
    ['mysql://root@127.0.0.1:3306/', 'mysql://***@127.0.0.1:3306/'],
  ])('%s → %s', (url, masked) => {
    expect(maskUrlCredentials(url)).toBe(masked);
  });

  it('hides a generated password of any characters in the userinfo, and keeps host, port and database readable', () => {
    fc.assert(
      fc.property(scheme, fc.string({ maxLength: 8 }), secret, fc.boolean(), host, port, database, (scheme, user, password, encoded, host, port, database) => {
        const written = encoded ? encodeURIComponent(password) : password;
        const authority = `${host}${port === undefined ? '' : `:${port}`}`;
        const masked = maskUrlCredentials(`${scheme}://${user.replace(/@/g, '')}:${written}@${authority}/${database}`);
        expectHidden(masked, password);
        expect(masked).toBe(`${scheme}://***@${authority}/${database}`);
      }),
      { numRuns: 500 },
    );
  });

  it('hides generated secret query and fragment parameters, whatever their case, and keeps the others', () => {
    fc.assert(
      fc.property(
        scheme,
        host,
        port,
        database,
        fc.array(plainParameter, { maxLength: 3 }),
        secretParameterName,
        secret,
        fc.boolean(),
        fc.constantFrom('?', '#'),
        fc.option(secret, { nil: undefined }),
        (scheme, host, port, database, plain, name, value, encoded, mark, password) => {
          const authority = `${host}${port === undefined ? '' : `:${port}`}`;
          const userinfo = password === undefined ? '' : `tariff:${password}@`;
          const query =
            mark === '?' ? `?${[...plain, `${name}=${inQuery(value, encoded)}`].join('&')}` : `?${plain.join('&')}#${name}=${inQuery(value, encoded)}`;
          const masked = maskUrlCredentials(`${scheme}://${userinfo}${authority}/${database}${query}`);
          expectHidden(masked, value);
          if (password !== undefined) expectHidden(masked, password);
          expect(masked).toContain(`//${password === undefined ? '' : '***@'}${authority}/${database}?`);
          for (const parameter of plain) expect(masked).toContain(parameter);
          expect(masked).toContain(`${name}=***`);
        },
      ),
      { numRuns: 500 },
    );
  });
});
