/**
 * `tariff price-list` argument parsing (src/client/arguments.ts) and the client's settings from the
 * environment (src/client/settings.ts): the server's URL, the timeout, `OS_*` credentials.
 */
import { describe, expect, it } from 'vitest';
import { parsePriceListArguments } from '../../src/client/arguments.js';
import { contentTypeOf } from '../../src/client/document-file.js';
import { passwordAuthBody, ratingEndpoint, type CatalogService } from '../../src/client/keystone.js';
import { identityV3Url, readClientSettings } from '../../src/client/settings.js';

describe('price-list arguments', () => {
  it('reads export with its defaults and options', () => {
    expect(parsePriceListArguments(['export'])).toEqual({ name: 'export', format: 'yaml', at: undefined, url: undefined });
    expect(parsePriceListArguments(['export', '--format', 'json', '--at', '2026-12-01', '--url', 'http://h:8889'])).toEqual({
      name: 'export',
      format: 'json',
      at: '2026-12-01',
      url: 'http://h:8889',
    });
  });

  it('reads diff and apply with a FILE, - for stdin, and their options', () => {
    expect(parsePriceListArguments(['diff', 'prices.yaml', '--at', '2026-12-01T00:00:00Z'])).toEqual({
      name: 'diff',
      file: 'prices.yaml',
      at: '2026-12-01T00:00:00Z',
      unversionedNow: false,
      ifRevision: undefined,
      yes: false,
      url: undefined,
    });
    expect(parsePriceListArguments(['apply', '-', '--yes', '--unversioned-now', '--if-revision', '42'])).toMatchObject({
      name: 'apply',
      file: '-',
      yes: true,
      unversionedNow: true,
      ifRevision: 42,
    });
    expect(parsePriceListArguments(['apply', '-y', 'p.json'])).toMatchObject({ name: 'apply', file: 'p.json', yes: true });
  });

  it('asks for the usage with no command, help or --help', () => {
    for (const args of [[], ['help'], ['diff', '--help'], ['-h']]) expect(parsePriceListArguments(args)).toEqual({ name: 'help' });
  });

  it.each([
    [['frobnicate'], "Unknown price-list command 'frobnicate'."],
    [['diff'], "price-list diff needs a FILE ('-' for stdin)."],
    [['apply', 'a.yaml', 'b.yaml'], 'price-list apply takes one FILE.'],
    [['export', 'a.yaml'], "price-list export takes no FILE ('a.yaml')."],
    [['export', '--format', 'xml'], "--format is yaml or json, not 'xml'."],
    [['export', '--yes'], 'price-list export takes no --yes.'],
    [['diff', 'a.yaml', '--yes'], 'price-list diff takes no --yes.'],
    [['apply', 'a.yaml', '--if-revision', 'latest'], "--if-revision takes a revision number, not 'latest'."],
    [['diff', 'a.yaml', '--bogus'], "Unknown option '--bogus'"],
    [['diff', 'a.yaml', '--at'], "Option '--at <value>' argument missing"],
  ])('refuses %j with a usage error (exit 1)', (args, message) => {
    let error: any;
    try {
      parsePriceListArguments(args);
    } catch (caught) {
      error = caught;
    }
    expect(error?.message).toContain(message);
    expect(error?.message).toContain('usage:');
    expect(error?.exitCode).toBe(1);
  });

  it('types the document by its extension: .json is JSON, the rest and stdin YAML', () => {
    expect(['p.json', 'P.JSON', 'p.yaml', 'p.yml', 'prices', '-'].map(contentTypeOf)).toEqual([
      'application/json',
      'application/json',
      'application/yaml',
      'application/yaml',
      'application/yaml',
      'application/yaml',
    ]);
  });
});

describe('client settings', () => {
  it('takes --url over TARIFF_URL, trailing slashes dropped, and 600 s by default', () => {
    expect(readClientSettings({ TARIFF_URL: 'http://a:8889/' })).toEqual({
      url: 'http://a:8889',
      timeoutMs: 600_000,
      maxAnswerBytes: 256 * 1024 * 1024,
      endpointInterface: 'public',
    });
    expect(readClientSettings({ TARIFF_URL: 'http://a:8889' }, 'https://b').url).toBe('https://b');
    expect(readClientSettings({ TARIFF_CLIENT_TIMEOUT_SECONDS: '2.5' }).timeoutMs).toBe(2500);
  });

  it.each([['0'], ['-1'], ['soon'], ['100000']])('refuses TARIFF_CLIENT_TIMEOUT_SECONDS=%s', (value) => {
    expect(() => readClientSettings({ TARIFF_CLIENT_TIMEOUT_SECONDS: value })).toThrow(`TARIFF_CLIENT_TIMEOUT_SECONDS must be a number of seconds above 0`);
  });

  it('reads TARIFF_CLIENT_MAX_ANSWER_MB in megabytes', () => {
    expect(readClientSettings({ TARIFF_CLIENT_MAX_ANSWER_MB: '0.5' }).maxAnswerBytes).toBe(512 * 1024);
  });

  it.each([['0'], ['-1'], ['lots'], ['401']])('refuses TARIFF_CLIENT_MAX_ANSWER_MB=%s', (value) => {
    expect(() => readClientSettings({ TARIFF_CLIENT_MAX_ANSWER_MB: value })).toThrow(
      'TARIFF_CLIENT_MAX_ANSWER_MB must be a number of megabytes above 0 and at most 400',
    );
  });

  it('refuses a URL that is not http(s)', () => {
    expect(() => readClientSettings({}, 'localhost:8889')).toThrow("The server URL must start with http:// or https://, not 'localhost:8889'.");
  });

  it('adds /v3 to OS_AUTH_URL when missing', () => {
    expect(['http://k:5000', 'http://k:5000/', 'http://k:5000/v3', 'http://k:5000/v3/', 'http://k/identity'].map(identityV3Url)).toEqual([
      'http://k:5000/v3',
      'http://k:5000/v3',
      'http://k:5000/v3',
      'http://k:5000/v3',
      'http://k/identity/v3',
    ]);
  });

  it('reads OS_TOKEN, with OS_AUTH_URL to find the catalog', () => {
    expect(readClientSettings({ OS_TOKEN: 'gAAA', OS_AUTH_URL: 'http://k:5000' }).credentials).toEqual({
      kind: 'token',
      token: 'gAAA',
      authUrl: 'http://k:5000/v3',
    });
    expect(readClientSettings({ OS_TOKEN: 'gAAA' }).credentials).toEqual({ kind: 'token', token: 'gAAA', authUrl: undefined });
  });

  it("reads password credentials as openstackclient does: names in the default domain (id 'default') unless told", () => {
    const settings = readClientSettings({
      OS_AUTH_URL: 'http://k:5000/v3',
      OS_USERNAME: 'admin',
      OS_PASSWORD: 'secret',
      OS_PROJECT_NAME: 'admin',
      OS_INTERFACE: 'internalURL',
      OS_REGION_NAME: 'RegionTwo',
    });
    expect(settings).toMatchObject({ endpointInterface: 'internal', region: 'RegionTwo' });
    expect(passwordAuthBody(settings.credentials as any)).toEqual({
      auth: {
        identity: { methods: ['password'], password: { user: { name: 'admin', domain: { id: 'default' }, password: 'secret' } } },
        scope: { project: { name: 'admin', domain: { id: 'default' } } },
      },
    });
    const byIdsAndDomains = readClientSettings({
      OS_AUTH_URL: 'http://k:5000',
      OS_USER_ID: 'u1',
      OS_PASSWORD: 'secret',
      OS_PROJECT_NAME: 'demo',
      OS_PROJECT_DOMAIN_NAME: 'Customers',
    });
    expect(passwordAuthBody(byIdsAndDomains.credentials as any)).toEqual({
      auth: {
        identity: { methods: ['password'], password: { user: { id: 'u1', password: 'secret' } } },
        scope: { project: { name: 'demo', domain: { name: 'Customers' } } },
      },
    });
    const unscoped = readClientSettings({ OS_AUTH_URL: 'http://k', OS_USERNAME: 'a', OS_PASSWORD: 'p', OS_USER_DOMAIN_ID: 'd1', OS_PROJECT_ID: 'p1' });
    expect(passwordAuthBody(unscoped.credentials as any)).toMatchObject({ auth: { scope: { project: { id: 'p1' } } } });
  });

  it('names what is missing from password credentials', () => {
    expect(() => readClientSettings({ OS_AUTH_URL: 'http://k' })).toThrow(
      'OS_AUTH_URL is set but OS_USERNAME (or OS_USER_ID) and OS_PASSWORD are not: set them, or OS_TOKEN.',
    );
  });

  it('finds the rating endpoint by interface and region, and names what it looked for when it is missing', () => {
    const catalog: CatalogService[] = [
      { type: 'identity', endpoints: [{ interface: 'public', region_id: 'RegionOne', url: 'http://k:5000/v3' }] },
      {
        type: 'rating',
        name: 'cloudkitty',
        endpoints: [
          { interface: 'public', region_id: 'RegionOne', url: 'http://r1:8889/' },
          { interface: 'internal', region_id: 'RegionOne', url: 'http://r1-internal:8889' },
          { interface: 'public', region_id: 'RegionTwo', url: 'http://r2:8889' },
        ],
      },
    ];
    expect(ratingEndpoint(catalog, 'public')).toBe('http://r1:8889');
    expect(ratingEndpoint(catalog, 'internal')).toBe('http://r1-internal:8889');
    expect(ratingEndpoint(catalog, 'public', 'RegionTwo')).toBe('http://r2:8889');
    expect(() => ratingEndpoint(catalog, 'admin', 'RegionTwo')).toThrow("The token's catalog has no 'rating' endpoint (interface admin, region RegionTwo");
  });
});
