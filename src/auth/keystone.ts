/**
 * Validates callers' tokens against Keystone v3, as keystonemiddleware's auth_token does for
 * CloudKitty: Tariff logs in with its own service credentials and asks
 * `GET /v3/auth/tokens` (`X-Subject-Token`) about each new token.
 */
import type { KeystoneSettings } from '../config.js';
import { TariffError } from '../kernel/errors.js';

/** Who a valid token speaks for, and until when (epoch milliseconds). */
export interface KeystoneIdentity {
  userId: string;
  userDomainId: string | null;
  /** The project of a project-scoped token, else null. */
  projectId: string | null;
  projectDomainId: string | null;
  /** The domain of a domain-scoped token, else null. */
  domainId: string | null;
  /** `all` for a system-scoped token, else null. */
  systemScope: string | null;
  roles: string[];
  /** Keystone's `is_admin_project`; true when Keystone does not say (keystonemiddleware compat). */
  isAdminProject: boolean;
  expiresAt: number;
}

/** 503: Keystone cannot answer within the configured timeout, or refuses Tariff's own credentials. */
export class IdentityUnavailableError extends TariffError {
  constructor(detail: string) {
    super(503, `The identity service is unavailable: ${detail}. Try again later.`);
  }
}

interface ServiceToken {
  token: string;
  /** Renew after this time (epoch ms), shortly before Keystone's expiry. */
  renewAt: number;
}

interface TokenBody {
  token?: {
    expires_at?: string;
    user?: { id?: string; domain?: { id?: string } };
    project?: { id?: string; domain?: { id?: string } };
    domain?: { id?: string };
    system?: Record<string, boolean>;
    roles?: { name?: string }[];
    is_admin_project?: boolean;
  };
}

/** Reads an identity out of a token body; null when it has no user or no valid expiry. */
export function identityFromToken(body: TokenBody): KeystoneIdentity | null {
  const token = body.token;
  const expiresAt = Date.parse(token?.expires_at ?? '');
  if (!token?.user?.id || !Number.isFinite(expiresAt)) return null;
  return {
    userId: token.user.id,
    userDomainId: token.user.domain?.id ?? null,
    projectId: token.project?.id ?? null,
    projectDomainId: token.project?.domain?.id ?? null,
    domainId: token.domain?.id ?? null,
    systemScope: token.system?.all ? 'all' : null,
    roles: (token.roles ?? []).map((role) => role.name).filter((name): name is string => typeof name === 'string'),
    isAdminProject: token.is_admin_project ?? true,
    expiresAt,
  };
}

/**
 * `fetch`, repeated once when the connection was closed under it before an answer (a kept-alive
 * connection the server had already dropped), as keystoneauth retries connection errors.
 */
async function fetchOnce(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const code = ((error as Error)?.cause as { code?: string } | undefined)?.code;
    if (init.signal?.aborted || (code !== 'ECONNRESET' && code !== 'UND_ERR_SOCKET' && code !== 'EPIPE')) throw error;
    return fetch(url, init);
  }
}

/** Talks to Keystone for one Tariff process. */
export class KeystoneClient {
  private serviceToken?: Promise<ServiceToken>;

  constructor(private readonly settings: KeystoneSettings) {}

  /**
   * Asks Keystone about a caller's token.
   *
   * @returns the identity, or null when Keystone says the token is not valid (unknown, expired,
   *   revoked: 404).
   * @throws IdentityUnavailableError when Keystone does not answer within the timeout, answers
   *   with a server error, or refuses Tariff's service credentials.
   */
  async validate(token: string): Promise<KeystoneIdentity | null> {
    try {
      return await this.askKeystone(token, AbortSignal.timeout(this.settings.timeoutMs));
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  private async askKeystone(token: string, deadline: AbortSignal): Promise<KeystoneIdentity | null> {
    for (let attempt = 1; ; attempt += 1) {
      const service = await this.currentServiceToken(deadline);
      const response = await fetchOnce(`${this.settings.authUrl}/auth/tokens?nocatalog`, {
        headers: { 'X-Auth-Token': service.token, 'X-Subject-Token': token },
        signal: deadline,
      });
      if (response.status === 200) return identityFromToken((await response.json()) as TokenBody);
      await response.body?.cancel();
      if (response.status === 404) return null;
      // Tariff's own token expired or was revoked: log in again, once.
      if (response.status === 401 && attempt === 1) {
        this.serviceToken = undefined;
        continue;
      }
      if (response.status === 403)
        throw new IdentityUnavailableError(`Tariff's service user ${this.settings.username} may not validate tokens (it needs the service or admin role)`);
      throw new IdentityUnavailableError(`Keystone answered ${response.status} to a token validation`);
    }
  }

  private currentServiceToken(signal: AbortSignal): Promise<ServiceToken> {
    const current = this.serviceToken;
    if (current) {
      return current.then((token) => (Date.now() < token.renewAt ? token : this.renewServiceToken(current, signal)));
    }
    return this.renewServiceToken(undefined, signal);
  }

  /** One login at a time: concurrent callers share it; a failed login is forgotten. */
  private renewServiceToken(stale: Promise<ServiceToken> | undefined, signal: AbortSignal): Promise<ServiceToken> {
    if (this.serviceToken !== stale) return this.serviceToken!;
    const login = this.logIn(signal);
    this.serviceToken = login;
    login.catch(() => {
      if (this.serviceToken === login) this.serviceToken = undefined;
    });
    return login;
  }

  private async logIn(signal: AbortSignal): Promise<ServiceToken> {
    const { username, password, userDomainName, projectName, projectDomainName } = this.settings;
    const body = {
      auth: {
        identity: { methods: ['password'], password: { user: { name: username, password, domain: { name: userDomainName } } } },
        scope: { project: { name: projectName, domain: { name: projectDomainName } } },
      },
    };
    const response = await fetchOnce(`${this.settings.authUrl}/auth/tokens?nocatalog`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
    const token = response.headers.get('x-subject-token');
    if (response.status !== 201 || !token) {
      await response.body?.cancel();
      throw new IdentityUnavailableError(`Keystone refused Tariff's service credentials (user ${username}, project ${projectName}): ${response.status}`);
    }
    const expiresAt = identityFromToken((await response.json()) as TokenBody)?.expiresAt ?? Date.now();
    // Renew a minute before expiry, or a quarter of the lifetime before it for short-lived tokens.
    const margin = Math.min(60_000, (expiresAt - Date.now()) / 4);
    return { token, renewAt: expiresAt - margin };
  }

  /** Any failure to get an answer (refused connection, timeout, cut body) as a 503. */
  private unavailable(error: unknown): Error {
    if (error instanceof TariffError) return error;
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    const reason = timedOut ? `no answer within ${this.settings.timeoutMs} ms` : String((error as Error)?.cause ?? error);
    return new IdentityUnavailableError(`${this.settings.authUrl}: ${reason}`);
  }
}
