/**
 * Validated tokens, kept until their expiry or the configured cache time, whichever comes first
 * (keystonemiddleware's `token_cache_time`), so that a token costs one Keystone round trip per
 * cache period, not one per request. Concurrent first requests with one token share one
 * validation. Tokens Keystone refused are remembered too, by their SHA-256, for a shorter time
 * (`TARIFF_INVALID_TOKEN_CACHE_TIME`), so that repeating a made-up token does not repeat its
 * validation (keystonemiddleware compat: its cache marks invalid tokens; fix: issue 24).
 */
import { createHash } from 'node:crypto';
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
  /** SHA-256 (base64) of refused tokens → refused until this time (epoch ms), oldest first. */
  private readonly refused = new Map<string, number>();

  /**
   * @param cacheMs - longest time a validated token is trusted without asking again.
   * @param maxEntries - tokens kept at most, valid ones and refused ones each; the oldest is dropped first.
   * @param refusedMs - how long a refused token is refused again without asking (0: never remembered).
   */
  constructor(
    private readonly validate: (token: string) => Promise<KeystoneIdentity | null>,
    private readonly cacheMs: number,
    private readonly maxEntries = 10_000,
    private readonly refusedMs = 0,
  ) {}

  /**
   * The token's identity, or null when Keystone says it is not valid (or said so less than
   * `refusedMs` ago). A failure to ask (Keystone unreachable) is never remembered.
   *
   * @throws what `validate` throws (IdentityUnavailableError), to this request only.
   */
  identify(token: string): KeystoneIdentity | null | Promise<KeystoneIdentity | null> {
    const cached = this.cached(token);
    if (cached) return cached;
    const digest = this.refusedMs > 0 ? createHash('sha256').update(token).digest('base64') : undefined;
    if (digest !== undefined && this.wasRefused(digest)) return null;
    let validation = this.pending.get(token);
    if (!validation) {
      validation = this.validate(token).then(
        (identity) => {
          this.pending.delete(token);
          if (identity && identity.expiresAt > Date.now()) this.remember(token, identity);
          else if (digest !== undefined) this.rememberRefusal(digest);
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

  /** Whether the token of this digest was refused less than `refusedMs` ago. */
  private wasRefused(digest: string): boolean {
    const until = this.refused.get(digest);
    if (until === undefined) return false;
    if (Date.now() < until) return true;
    this.refused.delete(digest);
    return false;
  }

  private rememberRefusal(digest: string): void {
    this.refused.delete(digest);
    if (this.refused.size >= this.maxEntries) {
      const oldest = this.refused.keys().next().value;
      if (oldest !== undefined) this.refused.delete(oldest);
    }
    this.refused.set(digest, Date.now() + this.refusedMs);
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
