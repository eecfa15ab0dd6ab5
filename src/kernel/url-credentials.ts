/**
 * One masking of the credentials a URL may hold, for every URL Tariff shows or logs: the database
 * URL (`TARIFF_DATABASE_URL`, or `[database] connection` of cloudkitty.conf in SQLAlchemy's form),
 * Keystone's `auth_url`, `TARIFF_CLOUDKITTY_API_URL` (`/healthcheck?detailed`, the start-up log,
 * `tariff status upgrade check`, error messages).
 *
 * fix: issue 24, finding 8 — the former mask stopped at the first `@` of the userinfo and ignored
 * the query string, so `postgres://u:p@ssw0rd@host/db?password=X` showed `***@ssw0rd@…?password=X`.
 */

/** What a masked credential is shown as. */
export const MASKED = '***';

/**
 * Query and fragment parameters whose value is a secret, matched against the decoded,
 * lower-cased name: libpq's `password`, `sslpassword`, `sslkey` (a key file), the `passwd`, `pwd`,
 * `secret`, `token`, `api_key`, `credential` and `auth` forms other drivers and services use.
 */
const SECRET_PARAMETER = /pass|pwd|secret|token|key|credential|auth|signature/;

/** `scheme://`: only such URLs have an authority that may hold userinfo. */
const HIERARCHICAL = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/** A parameter name as servers read it: `+` as space, `%XX` decoded (an invalid escape as written). */
function decodedName(name: string): string {
  const spaced = name.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/**
 * The text after a URL's first `?` or `#` with every secret parameter's value masked. Pairs are
 * separated by `&` or `;`, and by a later `?` or `#`; a secret value runs on to the next `&` or
 * `;`, so an unescaped `?` or `#` inside it does not end it: `password=a#b&c=1` → `password=***&c=1`.
 */
function maskParameters(parameters: string): string {
  let masking = false;
  return parameters.replace(/([?#&;]?)([^?#&;]*)/g, (whole, separator: string, pair: string) => {
    if (whole === '') return '';
    if (separator === '&' || separator === ';' || separator === '') masking = false;
    if (masking) return '';
    const equals = pair.indexOf('=');
    if (equals < 0 || !SECRET_PARAMETER.test(decodedName(pair.slice(0, equals)).toLowerCase())) return whole;
    masking = true;
    return `${separator}${pair.slice(0, equals)}=${MASKED}`;
  });
}

/**
 * The URL with its credentials masked, the rest as written so that the scheme, host, port,
 * database and other parameters stay readable:
 *
 * - the userinfo (user and password), which ends at the **last** `@` of the URL: a password may
 *   hold `@`, `/`, `?`, `#` or `:` written unescaped (SQLAlchemy reads `[^@]*`, WHATWG URL parsing
 *   takes the last `@` before the path), so no earlier `@` is trusted. A URL whose query holds an
 *   `@` is masked up to it: more than needed, never less;
 * - the value of every query and fragment parameter named like a secret ({@link SECRET_PARAMETER},
 *   case-insensitive, percent-decoded), e.g. `?password=`, `?sslpassword=`, `?PWD=`.
 *
 * Text that is not a `scheme://` URL (`sqlite:/path`, a bare path) has no userinfo: only its
 * parameters are masked. Never throws.
 *
 * @param url - any text meant as a URL, as configured (not normalised).
 * @returns the text to show or log, e.g. `postgres://***@host:5432/db?password=***`.
 */
export function maskUrlCredentials(url: string): string {
  const scheme = HIERARCHICAL.exec(url)?.[0] ?? '';
  let rest = url.slice(scheme.length);
  let userinfo = '';
  if (scheme !== '') {
    const at = rest.lastIndexOf('@');
    if (at >= 0) {
      userinfo = `${MASKED}@`;
      rest = rest.slice(at + 1);
    }
  }
  const question = rest.search(/[?#]/);
  if (question < 0) return `${scheme}${userinfo}${rest}`;
  return `${scheme}${userinfo}${rest.slice(0, question)}${maskParameters(rest.slice(question))}`;
}
