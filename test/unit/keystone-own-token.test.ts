/**
 * Tariff's own Keystone token (`KeystoneClient.ownToken`), what it shows CloudKitty when a
 * simulation reads stored usage: one login kept until its renewal time, and a new one when the
 * caller says the current token was refused (revoked, or expired early), shared by concurrent
 * callers, never a second login for a token already replaced (fetch stubbed: no Keystone).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { KeystoneClient } from '../../src/auth/keystone.js';

const settings = loadConfig({
  TARIFF_AUTH: 'keystone',
  TARIFF_KEYSTONE_AUTH_URL: 'http://keystone.test:5000',
  TARIFF_KEYSTONE_USERNAME: 'tariff',
  TARIFF_KEYSTONE_PASSWORD: 'secret',
  TARIFF_DATABASE_URL: 'sqlite::memory:',
}).keystone!;

/** Stubs fetch as Keystone's password login, answering T1, T2, … (tokens valid an hour); the count of logins. */
function keystone(): { logins: () => number } {
  let logins = 0;
  vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
    expect(`${init.method} ${url}`).toBe('POST http://keystone.test:5000/v3/auth/tokens?nocatalog');
    logins += 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const body = {
      token: {
        user: { id: 'tariff-id' },
        project: { id: 'service-id' },
        roles: [{ name: 'admin' }],
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      },
    };
    return new Response(JSON.stringify(body), { status: 201, headers: { 'x-subject-token': `T${logins}`, 'content-type': 'application/json' } });
  });
  return { logins: () => logins };
}

describe("Tariff's own token", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('keeps one login until told the token was refused, then logs in again once for all callers', async () => {
    const counted = keystone();
    const client = new KeystoneClient(settings);
    expect(await client.ownToken()).toBe('T1');
    expect(await client.ownToken()).toBe('T1');
    expect(counted.logins()).toBe(1);
    // T1 refused by CloudKitty: two readers at once share one new login.
    expect(await Promise.all([client.ownToken('T1'), client.ownToken('T1')])).toEqual(['T2', 'T2']);
    expect(counted.logins()).toBe(2);
    // A late report of T1, already replaced: no new login.
    expect(await client.ownToken('T1')).toBe('T2');
    expect(await client.ownToken()).toBe('T2');
    expect(counted.logins()).toBe(2);
  });
});
