/**
 * Keystone v3, as the client needs it: a token from password credentials (`POST /v3/auth/tokens`,
 * the token in `X-Subject-Token`), the catalog of a given token, and the `rating` service's
 * endpoint in a catalog (what openstackclient and python-cloudkittyclient look up).
 */
import { ClientError } from './errors.js';
import { exchange, shownUrl, type ExchangeLimits } from './http.js';
import type { PasswordCredentials } from './settings.js';

/** One service of a token's catalog (Keystone v3's shape). */
export interface CatalogService {
  type: string;
  name?: string;
  endpoints: { interface: string; region?: string | null; region_id?: string | null; url: string }[];
}

/** A token and the catalog that came with it. */
export interface KeystoneSession {
  token: string;
  catalog: CatalogService[];
}

const TIMEOUT_SETTING = 'TARIFF_CLIENT_TIMEOUT_SECONDS';

/** Keystone's auth body for password credentials, scoped to the project when one is given. */
export function passwordAuthBody(credentials: PasswordCredentials): object {
  return {
    auth: {
      identity: { methods: ['password'], password: { user: { ...credentials.user, password: credentials.password } } },
      ...(credentials.project ? { scope: { project: credentials.project } } : {}),
    },
  };
}

function catalogOf(text: string): CatalogService[] {
  try {
    const body = JSON.parse(text) as { token?: { catalog?: CatalogService[] } };
    return Array.isArray(body.token?.catalog) ? body.token.catalog : [];
  } catch {
    return [];
  }
}

function keystoneRefusal(status: number, text: string, what: string): ClientError {
  let detail = '';
  try {
    const body = JSON.parse(text) as { error?: { message?: string } };
    if (body.error?.message) detail = `: ${body.error.message}`;
  } catch {
    // not JSON: the status says enough
  }
  return new ClientError(`Keystone refused ${what} (HTTP ${status})${detail}`);
}

/**
 * Logs in with a password.
 *
 * @throws ClientError when Keystone refuses (e.g. 401, wrong password) or cannot be reached.
 */
export async function logIn(credentials: PasswordCredentials, limits: ExchangeLimits): Promise<KeystoneSession> {
  const answer = await exchange({
    method: 'POST',
    url: `${credentials.authUrl}/auth/tokens`,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: Buffer.from(JSON.stringify(passwordAuthBody(credentials))),
    ...limits,
    timeoutSetting: TIMEOUT_SETTING,
  });
  const token = answer.headers['x-subject-token'];
  if (answer.status !== 201 || typeof token !== 'string') {
    throw keystoneRefusal(
      answer.status,
      answer.text,
      `the password login at ${shownUrl(credentials.authUrl)} (OS_AUTH_URL, OS_USERNAME, OS_PASSWORD, OS_PROJECT_NAME)`,
    );
  }
  return { token, catalog: catalogOf(answer.text) };
}

/**
 * The catalog of a token (`GET /v3/auth/tokens` with the token as both caller and subject).
 *
 * @throws ClientError when Keystone refuses the token or cannot be reached.
 */
export async function catalogOfToken(authUrl: string, token: string, limits: ExchangeLimits): Promise<CatalogService[]> {
  const answer = await exchange({
    method: 'GET',
    url: `${authUrl}/auth/tokens`,
    headers: { accept: 'application/json', 'x-auth-token': token, 'x-subject-token': token },
    ...limits,
    timeoutSetting: TIMEOUT_SETTING,
  });
  if (answer.status !== 200) throw keystoneRefusal(answer.status, answer.text, 'OS_TOKEN');
  return catalogOf(answer.text);
}

/**
 * The URL of the catalog's `rating` service at `endpointInterface`, in `region` when given.
 *
 * @throws ClientError naming what was looked for when the catalog has no such endpoint.
 */
export function ratingEndpoint(catalog: CatalogService[], endpointInterface: string, region?: string): string {
  const endpoints = catalog.filter((service) => service.type === 'rating').flatMap((service) => service.endpoints);
  const found = endpoints.find(
    (endpoint) => endpoint.interface === endpointInterface && (region === undefined || endpoint.region_id === region || endpoint.region === region),
  );
  if (!found) {
    const where = `interface ${endpointInterface}${region === undefined ? '' : `, region ${region}`}`;
    throw new ClientError(
      `The token's catalog has no 'rating' endpoint (${where}; OS_INTERFACE, OS_REGION_NAME). Give the server's URL with --url or TARIFF_URL.`,
    );
  }
  return found.url.replace(/\/+$/, '');
}
