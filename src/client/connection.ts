/**
 * Where the server is and how to authenticate to it, from the settings: `--url`/`TARIFF_URL` or
 * the catalog's `rating` endpoint; `X-Auth-Token` from `OS_TOKEN` or a Keystone password login;
 * no header at all without credentials (a noauth server).
 */
import { ClientError } from './errors.js';
import { catalogOfToken, logIn, ratingEndpoint } from './keystone.js';
import type { ClientSettings } from './settings.js';

/** A resolved server: its base URL and the headers every request carries. */
export interface Connection {
  baseUrl: string;
  authHeaders: Record<string, string>;
  timeoutMs: number;
  /** Largest answer read, in bytes (`TARIFF_CLIENT_MAX_ANSWER_MB`). */
  maxAnswerBytes: number;
}

/**
 * Resolves the server's URL and the token.
 *
 * @throws ClientError when neither a URL nor credentials to find it are given, or Keystone refuses.
 */
export async function connect(settings: ClientSettings): Promise<Connection> {
  const { credentials, timeoutMs, maxAnswerBytes } = settings;
  const connection = (baseUrl: string, token?: string): Connection => ({
    baseUrl,
    authHeaders: token ? { 'x-auth-token': token } : {},
    timeoutMs,
    maxAnswerBytes,
  });
  if (credentials?.kind === 'password') {
    const session = await logIn(credentials, { timeoutMs, maxAnswerBytes });
    return connection(settings.url ?? ratingEndpoint(session.catalog, settings.endpointInterface, settings.region), session.token);
  }
  if (settings.url !== undefined) return connection(settings.url, credentials?.token);
  if (credentials?.authUrl !== undefined) {
    const catalog = await catalogOfToken(credentials.authUrl, credentials.token, { timeoutMs, maxAnswerBytes });
    return connection(ratingEndpoint(catalog, settings.endpointInterface, settings.region), credentials.token);
  }
  throw new ClientError(
    `Where is the Tariff server? Give its URL with --url or TARIFF_URL${credentials ? ', or OS_AUTH_URL to find it in the catalog' : ', or Keystone credentials (OS_AUTH_URL, …) to find it in the catalog'}.`,
  );
}
