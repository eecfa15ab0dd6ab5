/** A Keystone identity for tests with a fake Keystone client: user u1 in project p1, domain default. */
import type { KeystoneIdentity } from '../../src/auth/keystone.js';

/** The identity of a token holding `roles`, valid for `lifetimeMs` from now (an hour by default). */
export function testIdentity(roles: string[], lifetimeMs = 3_600_000): KeystoneIdentity {
  return {
    userId: 'u1',
    userDomainId: 'default',
    projectId: 'p1',
    projectDomainId: 'default',
    domainId: null,
    systemScope: null,
    roles,
    isAdminProject: true,
    expiresAt: Date.now() + lifetimeMs,
  };
}
