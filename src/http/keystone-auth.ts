/**
 * Keystone mode (`TARIFF_AUTH=keystone`): every request but the public ones needs a valid
 * `X-Auth-Token`, as behind keystonemiddleware's auth_token in CloudKitty's paste pipeline, and
 * passes the policy rule of its route. The web console's requests may carry the token in its
 * session cookie instead (session-cookie.ts); an `X-Auth-Token` header wins over the cookie.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler, preHandlerHookHandler } from 'fastify';
import type { KeystoneSettings } from '../config.js';
import { sendFault } from './faults.js';
import { KeystoneClient, type KeystoneIdentity } from '../auth/keystone.js';
import type { PolicyCredentials, PolicyEnforcer } from '../auth/policy/enforcer.js';
import { isPublicRoute, policyRuleFor } from '../auth/route-policy.js';
import { TokenCache } from '../auth/token-cache.js';
import { sessionTokenOf } from './session-cookie.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, from a validated Keystone token; null in noauth mode and on public routes. */
    identity: KeystoneIdentity | null;
  }
}

/** Fernet and JWS tokens: URL-safe base64 with `=` padding, JWS with dots. Anything else is not a token. */
export const TOKEN_SHAPE = /^[A-Za-z0-9_\-=.]{16,8192}$/;

/** keystonemiddleware's words for a missing or refused token. */
export const AUTHENTICATION_REQUIRED = 'The request you have made requires authentication.';

/**
 * oslo.context compat: the policy values of a caller (`to_policy_values()`), which rules such as
 * `role:admin` or `project_id:%(project_id)s` are checked against.
 */
export function credentialsOf(identity: KeystoneIdentity): PolicyCredentials {
  return {
    user_id: identity.userId,
    user_domain_id: identity.userDomainId,
    project_id: identity.projectId,
    project_domain_id: identity.projectDomainId,
    domain_id: identity.domainId,
    system_scope: identity.systemScope,
    roles: identity.roles,
    is_admin_project: identity.isAdminProject,
  };
}

/**
 * The request's token as sent (the cache key): its `X-Auth-Token`, else the console's session
 * cookie on a console request (`X-Tariff-Console: 1`), else undefined.
 */
export function rawTokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-auth-token'];
  return (Array.isArray(header) ? header[0] : header) ?? sessionTokenOf(request);
}

/** What Keystone mode offers beside its hooks: the console's session routes use it. */
export interface KeystoneAuth {
  /** The guard for unknown routes (any valid token), for the not-found handler. */
  unknownRouteGuard: preHandlerHookHandler;
  /**
   * Who the request's token (see {@link rawTokenOf}) speaks for: null when there is none or
   * Keystone says it is not valid.
   *
   * @throws IdentityUnavailableError when Keystone cannot answer for a token not cached.
   */
  identify(request: FastifyRequest): Promise<KeystoneIdentity | null>;
  /** Whether the policy `rule` allows the caller (CloudKitty's rules have an empty target). */
  allowed(identity: KeystoneIdentity, rule: string): boolean;
  /** Trusts a token Keystone has just issued, sparing the first request a validation. */
  remember(token: string, identity: KeystoneIdentity): void;
  /** Forgets a revoked token. */
  forget(token: string): void;
}

/** What {@link installKeystoneAuth} needs; `client` replaces the real Keystone client (tests). */
export interface KeystoneAuthOptions {
  settings: KeystoneSettings;
  enforcer: PolicyEnforcer;
  client?: Pick<KeystoneClient, 'validate'>;
}

/**
 * Adds the authentication and policy check to every route of `app` (call before registering
 * routes). A missing, malformed, unknown, expired or revoked token → 401 with the fault body and
 * `WWW-Authenticate: Keystone uri="..."`; a rule that denies → 403 `Policy doesn't allow {rule}
 * to be performed.` (oslo.policy's words); Keystone unreachable or slow for a token not cached →
 * 503 within `settings.timeoutMs` (IdentityUnavailableError).
 *
 * Each route gets its own hook with its rule decided at registration; a cached token costs a map
 * lookup and a remembered policy decision, no promise. Public routes get no hook (route-policy.ts).
 */
export function installKeystoneAuth(app: FastifyInstance, { settings, enforcer, client }: KeystoneAuthOptions): KeystoneAuth {
  const keystone = client ?? new KeystoneClient(settings);
  const tokens = new TokenCache((token) => keystone.validate(token), settings.tokenCacheMs, undefined, settings.invalidTokenCacheMs);
  const challenge = `Keystone uri="${settings.wwwAuthenticateUri}"`;

  // CloudKitty compat: the target of every rating rule is empty, so a decision depends on the
  // caller and the rule only: decided once per cached identity.
  const decisions = new WeakMap<KeystoneIdentity, Map<string, boolean>>();
  function allowed(identity: KeystoneIdentity, rule: string): boolean {
    let known = decisions.get(identity);
    if (!known) decisions.set(identity, (known = new Map<string, boolean>()));
    let decision = known.get(rule);
    if (decision === undefined) known.set(rule, (decision = enforcer.enforce(rule, {}, credentialsOf(identity))));
    return decision;
  }

  /** A hook admitting callers with a valid token that `rule` allows (null: any valid token). */
  function guard(rule: string | null): onRequestHookHandler {
    const admit = (identity: KeystoneIdentity | null, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      if (!identity) {
        reply.header('WWW-Authenticate', challenge);
        sendFault(reply, 401, AUTHENTICATION_REQUIRED);
      } else if (rule !== null && !allowed(identity, rule)) {
        sendFault(reply, 403, `Policy doesn't allow ${rule} to be performed.`);
      } else {
        request.identity = identity;
        done();
      }
    };
    return function authenticate(request, reply, done) {
      const found = identityOf(request);
      if (found instanceof Promise) found.then((identity) => admit(identity, request, reply, done), done);
      else admit(found, request, reply, done);
    };
  }

  function identityOf(request: FastifyRequest): KeystoneIdentity | null | Promise<KeystoneIdentity | null> {
    const raw = rawTokenOf(request);
    // A cached token is its own proof of shape; only new ones are checked before Keystone is asked.
    const cached = raw === undefined ? undefined : tokens.cached(raw);
    const token = cached || raw === undefined ? undefined : raw.trim();
    return cached ?? (token !== undefined && TOKEN_SHAPE.test(token) ? tokens.identify(token) : null);
  }

  app.decorateRequest('identity', null);
  app.addHook('onRoute', (route) => {
    if (isPublicRoute(route.url)) return;
    const method = Array.isArray(route.method) ? route.method[0] : route.method;
    const hooks = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [guard(policyRuleFor(method === 'HEAD' ? 'GET' : method, route.url)), ...hooks];
  });
  return {
    // Unknown routes: a caller without a valid token learns nothing, not even that the route is
    // unknown; the not-found handler runs this guard first.
    unknownRouteGuard: guard(null),
    identify: async (request) => identityOf(request),
    allowed,
    remember: (token, identity) => tokens.remember(token, identity),
    forget: (token) => tokens.forget(token),
  };
}
