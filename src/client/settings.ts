/**
 * The client's settings, from the environment: where the Tariff server is (`TARIFF_URL`), how long
 * to wait for it (`TARIFF_CLIENT_TIMEOUT_SECONDS`), how large an answer may grow
 * (`TARIFF_CLIENT_MAX_ANSWER_MB`), and the OpenStack credentials (`OS_*`, named as
 * openstackclient names them). The server's settings are src/config.ts's; these belong to the
 * operator's shell, not to a server process.
 */
import { ClientError } from './errors.js';

/** Default of `TARIFF_CLIENT_TIMEOUT_SECONDS`: a 10,000-rule apply takes seconds, not minutes. */
export const DEFAULT_TIMEOUT_SECONDS = 600;

/**
 * Default of `TARIFF_CLIENT_MAX_ANSWER_MB`: a 100,000-rule export is about 20 MB. fix: issue 24,
 * finding 14 — a 600 MB answer crashed the CLI past V8's string limit, an endless one grew it to
 * 3.4 GB in 20 s.
 */
export const DEFAULT_MAX_ANSWER_MB = 256;

/** The largest `TARIFF_CLIENT_MAX_ANSWER_MB`: an answer is read into one string, and V8's strings stop short of 512 MiB. */
export const MAX_ANSWER_MB_LIMIT = 400;

/** Keystone v3 password credentials (`OS_AUTH_URL`, `OS_USERNAME`, `OS_PASSWORD`, …). */
export interface PasswordCredentials {
  kind: 'password';
  /** Identity v3 URL, ending in `/v3` (added to `OS_AUTH_URL` when missing). */
  authUrl: string;
  user: { name: string; domain: DomainReference } | { id: string };
  password: string;
  /** The project to scope the token to; absent: an unscoped token. */
  project?: { name: string; domain: DomainReference } | { id: string };
}

/** A token given as it is (`OS_TOKEN`); `authUrl` (when `OS_AUTH_URL` is set) finds the catalog. */
export interface TokenCredentials {
  kind: 'token';
  token: string;
  authUrl?: string;
}

/** A domain by id or by name, as Keystone's auth body takes it. */
export type DomainReference = { id: string } | { name: string };

/** Everything the price-list commands need to reach the server. */
export interface ClientSettings {
  /** The server's base URL (`--url`, else `TARIFF_URL`); absent: the catalog's `rating` endpoint. */
  url?: string;
  /** Longest wait for one answer, in milliseconds (`TARIFF_CLIENT_TIMEOUT_SECONDS`, default 600). */
  timeoutMs: number;
  /** Largest answer read, in bytes (`TARIFF_CLIENT_MAX_ANSWER_MB` MiB, default 256); a larger one fails the command. */
  maxAnswerBytes: number;
  /** Absent: no credentials, no `X-Auth-Token` (a noauth server). */
  credentials?: PasswordCredentials | TokenCredentials;
  /** The catalog endpoint's interface (`OS_INTERFACE`, default `public`; `publicURL` is read as `public`). */
  endpointInterface: string;
  /** The catalog endpoint's region (`OS_REGION_NAME`); absent: any region. */
  region?: string;
}

/** The environment the settings are read from (a plain record, so tests pass their own). */
export type Environment = Record<string, string | undefined>;

/** openstackclient's default domain (`OS_DEFAULT_DOMAIN`'s default): the domain with id `default`. */
const DEFAULT_DOMAIN: DomainReference = { id: 'default' };

function nonEmpty(environment: Environment, name: string): string | undefined {
  const value = environment[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** `http://keystone:5000`, `…/v3/` or `…/v3` → `…/v3`. */
export function identityV3Url(authUrl: string): string {
  const trimmed = authUrl.replace(/\/+$/, '');
  return /\/v3$/.test(trimmed) ? trimmed : `${trimmed}/v3`;
}

function domain(environment: Environment, prefix: 'OS_USER' | 'OS_PROJECT'): DomainReference {
  const id = nonEmpty(environment, `${prefix}_DOMAIN_ID`);
  if (id !== undefined) return { id };
  const name = nonEmpty(environment, `${prefix}_DOMAIN_NAME`);
  return name !== undefined ? { name } : DEFAULT_DOMAIN;
}

function timeoutMs(environment: Environment): number {
  const text = nonEmpty(environment, 'TARIFF_CLIENT_TIMEOUT_SECONDS');
  if (text === undefined) return DEFAULT_TIMEOUT_SECONDS * 1000;
  const seconds = Number(text);
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text) || !(seconds > 0) || seconds > 86_400) {
    throw new ClientError(`TARIFF_CLIENT_TIMEOUT_SECONDS must be a number of seconds above 0 and at most 86400, not '${text}'.`);
  }
  return Math.round(seconds * 1000);
}

function maxAnswerBytes(environment: Environment): number {
  const text = nonEmpty(environment, 'TARIFF_CLIENT_MAX_ANSWER_MB');
  if (text === undefined) return DEFAULT_MAX_ANSWER_MB * 1024 * 1024;
  const megabytes = Number(text);
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text) || !(megabytes > 0) || megabytes > MAX_ANSWER_MB_LIMIT) {
    throw new ClientError(`TARIFF_CLIENT_MAX_ANSWER_MB must be a number of megabytes above 0 and at most ${MAX_ANSWER_MB_LIMIT}, not '${text}'.`);
  }
  return Math.round(megabytes * 1024 * 1024);
}

function passwordCredentials(environment: Environment, authUrl: string): PasswordCredentials {
  const userId = nonEmpty(environment, 'OS_USER_ID');
  const username = nonEmpty(environment, 'OS_USERNAME');
  const password = environment.OS_PASSWORD;
  const missing = [
    ...(userId === undefined && username === undefined ? ['OS_USERNAME (or OS_USER_ID)'] : []),
    ...(password === undefined || password === '' ? ['OS_PASSWORD'] : []),
  ];
  if (missing.length > 0)
    throw new ClientError(`OS_AUTH_URL is set but ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not: set them, or OS_TOKEN.`);
  const projectId = nonEmpty(environment, 'OS_PROJECT_ID');
  const projectName = nonEmpty(environment, 'OS_PROJECT_NAME');
  return {
    kind: 'password',
    authUrl: identityV3Url(authUrl),
    user: userId !== undefined ? { id: userId } : { name: username!, domain: domain(environment, 'OS_USER') },
    password: password!,
    project:
      projectId !== undefined ? { id: projectId } : projectName !== undefined ? { name: projectName, domain: domain(environment, 'OS_PROJECT') } : undefined,
  };
}

/**
 * Reads the client's settings.
 *
 * @param environment - the variables (the process's, or a test's).
 * @param url - `--url`, which wins over `TARIFF_URL`.
 * @throws ClientError when a variable is malformed or credentials are incomplete.
 */
export function readClientSettings(environment: Environment, url?: string): ClientSettings {
  const authUrl = nonEmpty(environment, 'OS_AUTH_URL');
  const token = nonEmpty(environment, 'OS_TOKEN');
  const credentials =
    token !== undefined
      ? ({ kind: 'token', token, authUrl: authUrl && identityV3Url(authUrl) } as const)
      : authUrl && passwordCredentials(environment, authUrl);
  const serverUrl = url ?? nonEmpty(environment, 'TARIFF_URL');
  if (serverUrl !== undefined && !/^https?:\/\/[^/]/i.test(serverUrl))
    throw new ClientError(`The server URL must start with http:// or https://, not '${serverUrl}'.`);
  return {
    url: serverUrl?.replace(/\/+$/, ''),
    timeoutMs: timeoutMs(environment),
    maxAnswerBytes: maxAnswerBytes(environment),
    credentials: credentials || undefined,
    endpointInterface: (nonEmpty(environment, 'OS_INTERFACE') ?? 'public').replace(/URL$/, ''),
    region: nonEmpty(environment, 'OS_REGION_NAME'),
  };
}

/**
 * The process's environment: the client's one read of `process.env`. The server reads its own in
 * src/config.ts only; these variables are the operator's shell's (`OS_*` as openstackclient reads them).
 */
export function processEnvironment(): Environment {
  return process.env;
}
