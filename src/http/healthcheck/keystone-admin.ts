/**
 * Keystone mode's answer to "may this caller see the health check's details?": a token whose
 * holder passes `context_is_admin`. `/healthcheck` stays public, so this never refuses the
 * request: any other caller (no token, a refused token, Keystone unreachable) gets the plain answer.
 */
import type { FastifyRequest } from 'fastify';
import type { KeystoneSettings } from '../../config.js';
import { KeystoneClient } from '../../auth/keystone.js';
import type { PolicyEnforcer } from '../../auth/policy/enforcer.js';
import { TokenCache } from '../../auth/token-cache.js';
import { credentialsOf, TOKEN_SHAPE } from '../keystone-auth.js';

/** The policy rule a caller of `?detailed` must pass (CloudKitty's default: `role:admin`). */
export const DETAILS_RULE = 'context_is_admin';

/** What {@link keystoneAdminOnly} needs. */
export interface KeystoneAdminOptions {
  settings: KeystoneSettings;
  /** Replaces the real Keystone client (tests). */
  client?: Pick<KeystoneClient, 'validate'>;
  enforcer: PolicyEnforcer;
}

/**
 * A `mayShowDetails` for the health check: true when `X-Auth-Token` is valid and its holder
 * passes {@link DETAILS_RULE} (a policy file may redefine it). Tokens are cached apart from the
 * authentication hook's cache: a detailed health check is rare.
 */
export function keystoneAdminOnly({ settings, client, enforcer }: KeystoneAdminOptions): (request: FastifyRequest) => Promise<boolean> {
  const keystone = client ?? new KeystoneClient(settings);
  const tokens = new TokenCache((token) => keystone.validate(token), settings.tokenCacheMs, 100, settings.invalidTokenCacheMs);
  return async (request) => {
    const header = request.headers['x-auth-token'];
    const token = (Array.isArray(header) ? header[0] : header)?.trim();
    if (token === undefined || !TOKEN_SHAPE.test(token)) return false;
    try {
      const identity = await tokens.identify(token);
      return identity !== null && enforcer.enforce(DETAILS_RULE, {}, credentialsOf(identity));
    } catch (error) {
      request.log.warn({ err: error }, 'health check details refused: the token could not be validated');
      return false;
    }
  };
}
