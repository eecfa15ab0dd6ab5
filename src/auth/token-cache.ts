/**
 * Validated tokens, kept until their expiry or the configured cache time, whichever comes first
 * (keystonemiddleware's `token_cache_time`), so that a token costs one Keystone round trip per
 * cache period, not one per request. Concurrent first requests with one token share one
 * validation.
 */
import type { KeystoneIdentity } from './keystone.js';

interface Entry {
  identity: KeystoneIdentity;
  /** Trusted until this time (epoch ms). */
  until: number;
}

/** Answers for tokens: a cached identity, or one validation shared by every waiting request. */
export class TokenCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<KeystoneIdentity | null>>();

  /**
   * @param cacheMs - longest time a validated token is trusted without asking again.
   * @param maxEntries - tokens kept at most; the oldest is dropped first.
   */
  constructor(
    private readonly validate: (token: string) => Promise<KeystoneIdentity | null>,
    private readonly cacheMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /**
   * The token's identity, or null when Keystone says it is not valid. Invalid answers are not
   * cached: a token is never trusted on an old "no".
   *
   * @throws what `validate` throws (IdentityUnavailableError), to this request only.
   */
  identify(token: string): KeystoneIdentity | null | Promise<KeystoneIdentity | null> {
    const cached = this.cached(token);
    if (cached) return cached;
    let validation = this.pending.get(token);
    if (!validation) {
      validation = this.validate(token).then(
        (identity) => {
          this.pending.delete(token);
          if (identity && identity.expiresAt > Date.now()) this.remember(token, identity);
          return identity && identity.expiresAt > Date.now() ? identity : null;
        },
        (error: unknown) => {
          this.pending.delete(token);
          throw error;
        },
      );
      this.pending.set(token, validation);
    }
    return validation;
  }

  /** The token's identity when it is cached and still trusted; no Keystone call. */
  cached(token: string): KeystoneIdentity | undefined {
    const entry = this.entries.get(token);
    if (entry === undefined) return undefined;
    if (Date.now() < entry.until) return entry.identity;
    this.entries.delete(token);
    return undefined;
  }

  /** Drops the token (revoked at the console's logout): the next request with it asks Keystone. */
  forget(token: string): void {
    this.entries.delete(token);
  }

  /** Trusts a token Keystone just vouched for (issued at the console's login) until its expiry or the cache time. */
  remember(token: string, identity: KeystoneIdentity): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(token, { identity, until: Math.min(identity.expiresAt, Date.now() + this.cacheMs) });
  }
}
