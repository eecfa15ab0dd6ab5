/**
 * The web console's login session (docs/api.md §12): `GET /console/session` says who is logged in
 * and which policy rules allow them, `POST /console/session` exchanges a user's password with
 * Keystone for a project-scoped token kept in the session cookie, `DELETE /console/session`
 * revokes that token and clears the cookie. In noauth mode there is no login: `GET` says so and
 * allows everything; `POST` and `DELETE` do not exist.
 *
 * These routes are public in the route-policy table (they are under `/console/`): they read the
 * token themselves. Logging in and out needs `X-Tariff-Console: 1` (and the login a JSON body),
 * which no page of another origin can send without a CORS preflight Tariff never grants. Their
 * answers carry the console's security headers (console-headers.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KeystoneIdentity, KeystoneClient } from '../auth/keystone.js';
import { TariffError } from '../kernel/errors.js';
import { AUTHENTICATION_REQUIRED, rawTokenOf, TOKEN_SHAPE, type KeystoneAuth } from './keystone-auth.js';
import { withConsoleSecurityHeaders } from './console-headers.js';
import { CONSOLE_HEADER, clearedSessionCookie, isConsoleRequest, sessionCookie, sessionTokenOf } from './session-cookie.js';

/** The session routes' path. */
export const CONSOLE_SESSION_PATH = '/console/session';

/**
 * The policy rules the console's pages and controls depend on: each is reported in `allowed`, so
 * that the console hides a page or disables a control its user may not use.
 */
export const CONSOLE_RULES = [
  'rating:module_config',
  'rating:quote',
  'rating:list_modules',
  'rating:get_module',
  'rating:update_module',
  'v2_rating:list_modules',
  'v2_rating:get_module',
  'v2_rating:update_module',
] as const;

/** The session as `GET /console/session` answers it. */
export interface ConsoleSessionBody {
  mode: 'noauth' | 'keystone';
  /** The logged-in user (Keystone mode); `name` when Keystone gave it. */
  user?: { id: string; name: string | null };
  /** The token's project (Keystone mode). */
  project?: { id: string | null; name: string | null };
  /** When the token, hence the session, expires (ISO 8601 UTC; Keystone mode). */
  expires_at?: string;
  /** Each of {@link CONSOLE_RULES}: whether it allows this user (all true in noauth mode). */
  allowed: Record<string, boolean>;
}

/** Keystone mode's parts the session routes use; absent in noauth mode. */
export interface ConsoleSessionKeystone {
  auth: KeystoneAuth;
  client: Pick<KeystoneClient, 'issueToken' | 'revokeToken'>;
}

/** What a login sends. */
interface LoginBody {
  user: string;
  password: string;
  project: string;
  user_domain?: string;
  project_domain?: string;
}

const NAME = { type: 'string', minLength: 1, maxLength: 255 } as const;

const LOGIN_SCHEMA = {
  type: 'object',
  required: ['user', 'password', 'project'],
  additionalProperties: false,
  properties: { user: NAME, password: { type: 'string', minLength: 1, maxLength: 4096 }, project: NAME, user_domain: NAME, project_domain: NAME },
} as const;

/** The domain a login uses when it names none, as the OpenStack clients default it. */
const DEFAULT_DOMAIN = 'Default';

/** The session of an identity, with the rules its user passes. */
function sessionOf(identity: KeystoneIdentity, auth: KeystoneAuth): ConsoleSessionBody {
  return {
    mode: 'keystone',
    user: { id: identity.userId, name: identity.userName ?? null },
    project: { id: identity.projectId, name: identity.projectName ?? null },
    expires_at: new Date(identity.expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    allowed: Object.fromEntries(CONSOLE_RULES.map((rule) => [rule, auth.allowed(identity, rule)])),
  };
}

/** 403 for a login or logout without the console header: a page of another origin, or no console. */
function requireConsoleHeader(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  done(isConsoleRequest(request) ? undefined : new TariffError(403, `The console's session needs the ${CONSOLE_HEADER}: 1 header.`));
}

/**
 * Registers the session routes: `GET` in both modes, `POST` and `DELETE` in Keystone mode
 * (`keystone` given), with the console's security headers.
 */
export async function registerConsoleSession(app: FastifyInstance, keystone?: ConsoleSessionKeystone): Promise<void> {
  await withConsoleSecurityHeaders(app, (scope) => registerSessionRoutes(scope, keystone));
}

function registerSessionRoutes(app: FastifyInstance, keystone?: ConsoleSessionKeystone): void {
  const hide = { hide: true };
  if (!keystone) {
    const everything: ConsoleSessionBody = { mode: 'noauth', allowed: Object.fromEntries(CONSOLE_RULES.map((rule) => [rule, true])) };
    app.get(CONSOLE_SESSION_PATH, { schema: hide }, async () => everything);
    return;
  }
  const { auth, client } = keystone;

  // 401 without a valid token: the console shows its login form.
  app.get(CONSOLE_SESSION_PATH, { schema: hide }, async (request, reply) => {
    const identity = await auth.identify(request);
    if (!identity) {
      if (sessionTokenOf(request) !== undefined) reply.header('set-cookie', clearedSessionCookie(request));
      throw new TariffError(401, AUTHENTICATION_REQUIRED);
    }
    return sessionOf(identity, auth);
  });

  // Login: Keystone's refusal (401) keeps its message; the token goes into the cookie only.
  app.post(CONSOLE_SESSION_PATH, { schema: { ...hide, body: LOGIN_SCHEMA }, onRequest: requireConsoleHeader }, async (request, reply) => {
    const body = request.body as LoginBody;
    const issued = await client.issueToken({
      userName: body.user,
      password: body.password,
      projectName: body.project,
      userDomainName: body.user_domain ?? DEFAULT_DOMAIN,
      projectDomainName: body.project_domain ?? DEFAULT_DOMAIN,
    });
    auth.remember(issued.token, issued.identity);
    request.log.info({ user: issued.identity.userId, project: issued.identity.projectId }, 'console login');
    reply.header('set-cookie', sessionCookie(request, issued.token, (issued.identity.expiresAt - Date.now()) / 1000));
    return reply.code(201).send(sessionOf(issued.identity, auth));
  });

  // Logout: revoke the token (the cookie's, or the X-Auth-Token sent), forget it, clear the cookie.
  app.delete(CONSOLE_SESSION_PATH, { schema: hide, onRequest: requireConsoleHeader }, async (request, reply) => {
    const token = rawTokenOf(request)?.trim();
    // The cookie goes and the token is forgotten even when Keystone cannot be told (a 503 then).
    reply.header('set-cookie', clearedSessionCookie(request));
    if (token && TOKEN_SHAPE.test(token)) {
      try {
        await client.revokeToken(token);
      } finally {
        auth.forget(token);
      }
    }
    return reply.code(204).send();
  });
}
