/**
 * Validates callers' tokens against Keystone v3, as keystonemiddleware's auth_token does for
 * CloudKitty: Tariff logs in with its own service credentials and asks
 * `GET /v3/auth/tokens` (`X-Subject-Token`) about each new token. For the web console it also
 * exchanges a user's password for a project-scoped token and revokes that token at logout.
 */
import type { KeystoneSettings } from '../config.js';
import { TariffError } from '../kernel/errors.js';
import { maskUrlCredentials } from '../kernel/url-credentials.js';

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
  /** The user's and the project's names, when Keystone gave them (the console shows them). */
  userName?: string;
  projectName?: string;
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

/** 401: Keystone refused a user's credentials at the console's login; the message is Keystone's. */
export class LoginRefusedError extends TariffError {
  constructor(message: string) {
    super(401, message);
  }
}

/** A user's login: the password method, scoped to a project; user and project domains by name, or by id when given. */
export interface PasswordCredentials {
  userName: string;
  password: string;
  projectName: string;
  userDomainName: string;
  projectDomainName: string;
  /** Sent instead of {@link userDomainName} when set (keystoneauth compat: `user_domain_id` wins). */
  userDomainId?: string;
  projectDomainId?: string;
}

/** A token Keystone issued to a user, and who it speaks for. */
export interface IssuedToken {
  token: string;
  identity: KeystoneIdentity;
}

interface ServiceToken {
  token: string;
  /** Renew after this time (epoch ms), shortly before Keystone's expiry. */
  renewAt: number;
}

interface TokenBody {
  token?: {
    expires_at?: string;
    user?: { id?: string; name?: string; domain?: { id?: string } };
    project?: { id?: string; name?: string; domain?: { id?: string } };
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
    ...(token.user.name === undefined ? {} : { userName: token.user.name }),
    ...(token.project?.name === undefined ? {} : { projectName: token.project.name }),
  };
}

/** Keystone's error body: `{"error": {"code", "message", "title"}}`. */
interface KeystoneFault {
  error?: { message?: string };
}

/** The body of a password login scoped to a project (`POST /v3/auth/tokens`). */
function passwordLogin({ userName, password, userDomainName, projectName, projectDomainName, userDomainId, projectDomainId }: PasswordCredentials) {
  return {
    auth: {
      identity: {
        methods: ['password'],
        password: { user: { name: userName, password, domain: userDomainId ? { id: userDomainId } : { name: userDomainName } } },
      },
      scope: { project: { name: projectName, domain: projectDomainId ? { id: projectDomainId } : { name: projectDomainName } } },
    },
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

  /**
   * Exchanges a user's password for a project-scoped token (`POST /v3/auth/tokens`), as
   * `openstack token issue` does: the console's login.
   *
   * @throws LoginRefusedError with Keystone's message when it refuses the credentials (any 4xx:
   *   unknown user or project, wrong password, no role on the project).
   * @throws IdentityUnavailableError when Keystone does not answer within the timeout or fails.
   */
  async issueToken(credentials: PasswordCredentials): Promise<IssuedToken> {
    let response: Response;
    try {
      response = await fetchOnce(`${this.settings.authUrl}/auth/tokens?nocatalog`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(passwordLogin(credentials)),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
      const token = response.headers.get('x-subject-token');
      const body = (await response.json().catch(() => undefined)) as (TokenBody & KeystoneFault) | undefined;
      if (response.status >= 400 && response.status < 500) {
        throw new LoginRefusedError(body?.error?.message ?? `Keystone refused the login: ${response.status}`);
      }
      const identity = body === undefined ? null : identityFromToken(body);
      if (response.status !== 201 || !token || !identity) throw new IdentityUnavailableError(`Keystone answered ${response.status} to a login`);
      return { token, identity };
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  /**
   * Revokes a user's token (`DELETE /v3/auth/tokens`), the token authenticating its own
   * revocation: Keystone's default policy lets a user revoke their own token.
   *
   * @returns true when Keystone revoked it, false when it was no longer valid (401, 404).
   * @throws IdentityUnavailableError when Keystone does not answer within the timeout or fails.
   */
  async revokeToken(token: string): Promise<boolean> {
    try {
      const response = await fetchOnce(`${this.settings.authUrl}/auth/tokens`, {
        method: 'DELETE',
        headers: { 'X-Auth-Token': token, 'X-Subject-Token': token },
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
      await response.body?.cancel();
      if (response.status === 204) return true;
      if (response.status === 401 || response.status === 404) return false;
      throw new IdentityUnavailableError(`Keystone answered ${response.status} to a token revocation`);
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  /**
   * Tariff's own token (its service user's, `TARIFF_KEYSTONE_*`), renewed before it expires: what
   * Tariff shows another service it calls on its own behalf (CloudKitty's stored usage, for a
   * simulation).
   *
   * @param stale - a token the other service refused (401: revoked, or expired early): when it is
   *   still the current one, Tariff logs in again (once for concurrent callers) instead of handing
   *   it out until its renewal time.
   * @throws IdentityUnavailableError when Keystone refuses the credentials or does not answer.
   */
  async ownToken(stale?: string): Promise<string> {
    try {
      const signal = AbortSignal.timeout(this.settings.timeoutMs);
      const current = await this.currentServiceToken(signal);
      if (stale === undefined || current.token !== stale) return current.token;
      const held = this.serviceToken;
      const token = held === undefined ? undefined : await held.catch(() => undefined);
      if (token !== undefined && token.token !== stale) return token.token;
      return (await this.renewServiceToken(held, signal)).token;
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
    const { username, password, userDomainName, projectName, projectDomainName, userDomainId, projectDomainId } = this.settings;
    const body = passwordLogin({ userName: username, password, userDomainName, projectName, projectDomainName, userDomainId, projectDomainId });
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
    return new IdentityUnavailableError(`${maskUrlCredentials(this.settings.authUrl)}: ${reason}`);
  }
}
