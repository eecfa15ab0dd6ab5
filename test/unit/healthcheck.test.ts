/**
 * `/healthcheck` as oslo.middleware's healthcheck answers it, through `inject`: the plain `OK`,
 * HEAD's 204, content negotiation (plain, HTML, JSON; never a 406), the disable file flipping it
 * to 503 `DISABLED BY FILE` and back, `?detailed` (everyone in noauth mode; in Keystone mode only
 * a token passing `context_is_admin`, anyone else the plain answer), the database check's failure
 * as a 503 naming it, and the settings' errors.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigurationError, loadConfig } from '../../src/config.js';
import type { TariffApp } from '../../src/http/app.js';
import { buildTariffApp, ratingModules } from '../../src/application.js';
import { openDatabase, type Database } from '../../src/database/connection.js';
import { migrateToLatest } from '../../src/database/migrate.js';
import type { KeystoneIdentity } from '../../src/auth/keystone.js';
import { negotiateMediaType } from '../../src/http/healthcheck/negotiation.js';
import { testIdentity } from '../helpers/keystone-identity.js';

const KEYSTONE_ENVIRONMENT = {
  TARIFF_AUTH: 'keystone',
  TARIFF_KEYSTONE_AUTH_URL: 'http://keystone.invalid:5000',
  TARIFF_KEYSTONE_USERNAME: 'tariff',
  TARIFF_KEYSTONE_PASSWORD: 'secret',
};
const ADMIN_TOKEN = 'gAAAAABadmin-token-for-tests-0123456789';
const MEMBER_TOKEN = 'gAAAAABmember-token-for-tests-0123456789';
const UNKNOWN_TOKEN = 'gAAAAABunknown-token-for-tests-0123456789';
const FAILING_TOKEN = 'gAAAAABkeystone-down-for-tests-0123456789';

const identity = testIdentity;

async function validate(token: string): Promise<KeystoneIdentity | null> {
  if (token === ADMIN_TOKEN) return identity(['admin']);
  if (token === MEMBER_TOKEN) return identity(['member', 'reader']);
  if (token === FAILING_TOKEN) throw new Error('Keystone is down');
  return null;
}

/** oslo.middleware's JSON: 4-space indent, sorted keys. */
const PLAIN_JSON = JSON.stringify({ detailed: false, reasons: ['OK'] }, null, 4);

describe('/healthcheck', () => {
  let app: TariffApp | undefined;
  let database: Database | undefined;
  let directory: string;

  afterEach(async () => {
    await app?.close();
    await database?.close().catch(() => undefined);
    app = undefined;
    database = undefined;
    rmSync(directory, { recursive: true, force: true });
  });

  async function start(environment: Record<string, string> = {}): Promise<TariffApp> {
    directory = mkdtempSync(join(tmpdir(), 'tariff-health-'));
    const config = loadConfig({ ...environment, TARIFF_DATABASE_URL: `sqlite:${join(directory, 'tariff.db')}` });
    database = openDatabase(config.databaseUrl);
    const modules = ratingModules();
    await migrateToLatest(database, modules.migrations());
    app = await buildTariffApp({ config, database, modules, logger: false, keystoneClient: { validate } });
    return app;
  }

  const get = (server: TariffApp, url: string, headers: Record<string, string> = {}) => server.inject({ method: 'GET', url, headers });

  it('answers 200 OK in plain text, and HEAD 204 without a body', async () => {
    const server = await start();
    const answer = await get(server, '/healthcheck');
    expect([answer.statusCode, answer.headers['content-type'], answer.body]).toEqual([200, 'text/plain; charset=UTF-8', 'OK']);
    const head = await server.inject({ method: 'HEAD', url: '/healthcheck' });
    expect([head.statusCode, head.body]).toEqual([204, '']);
  });

  it('negotiates plain text, HTML or JSON as oslo.middleware does, never answering 406', async () => {
    const server = await start();
    const json = await get(server, '/healthcheck', { accept: 'application/json' });
    expect([json.statusCode, json.headers['content-type'], json.body]).toEqual([200, 'application/json; charset=UTF-8', PLAIN_JSON]);
    const html = await get(server, '/healthcheck', { accept: 'text/html' });
    expect(html.headers['content-type']).toBe('text/html; charset=UTF-8');
    expect(html.body).toContain('<H2>Result of 1 checks:</H2>');
    expect(html.body).toContain('<TD>OK</TD>');
    expect(html.body).not.toContain('Server status');
    for (const accept of ['image/png', 'application/json, text/plain', '*/*', 'text/*', 'not a media type;;', 'application/json;q=0, text/html;q=0']) {
      expect((await get(server, '/healthcheck', { accept })).body, accept).toBe('OK');
    }
    expect((await get(server, '/healthcheck', { accept: 'text/plain;q=0.5, application/json' })).body).toBe(PLAIN_JSON);
    expect((await get(server, '/healthcheck', { accept: 'text/plain;q=0.5, text/html;q=0.9' })).headers['content-type']).toMatch(/^text\/html/);
  });

  it('follows the disable file: 503 DISABLED BY FILE while it exists, OK again once removed', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'tariff-disable-'));
    const file = join(scratch, 'healthcheck_disable');
    try {
      const server = await start({ TARIFF_HEALTHCHECK_DISABLE_FILE: file });
      expect((await get(server, '/healthcheck')).body).toBe('OK');
      writeFileSync(file, '');
      const disabled = await get(server, '/healthcheck');
      expect([disabled.statusCode, disabled.body]).toEqual([503, 'DISABLED BY FILE']);
      expect((await server.inject({ method: 'HEAD', url: '/healthcheck' })).statusCode).toBe(503);
      const html = await get(server, '/healthcheck', { accept: 'text/html' });
      expect([html.statusCode, html.body.includes('<TD>DISABLED BY FILE</TD>')]).toEqual([503, true]);
      const detailed = JSON.parse((await get(server, '/healthcheck?detailed', { accept: 'application/json' })).body);
      expect(detailed.reasons).toEqual([
        { check: 'disable_by_file', class: 'HealthcheckResult', reason: 'DISABLED BY FILE', details: `Path '${file}' was found` },
      ]);
      rmSync(file);
      expect((await get(server, '/healthcheck')).statusCode).toBe(200);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('shows each check with ?detailed in noauth mode, and refuses a ?detailed it cannot read', async () => {
    const server = await start({ TARIFF_HEALTHCHECK_DATABASE: 'true' });
    const answer = await get(server, '/healthcheck?detailed', { accept: 'application/json' });
    expect(answer.statusCode).toBe(200);
    const body = JSON.parse(answer.body);
    expect(Object.keys(body)).toEqual(['detailed', 'node_version', 'now', 'platform', 'reasons', 'version']);
    expect(body.detailed).toBe(true);
    expect(body.version).toBe(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
    expect(body.now).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$/);
    expect(body.reasons.map((reason: { check: string; reason: string }) => [reason.check, reason.reason])).toEqual([
      ['disable_by_file', 'OK'],
      ['database', 'OK'],
    ]);
    expect(body.reasons[1].details).toMatch(/answered in \d+ ms/);
    // Two checks: two lines, as oslo.middleware's plain answer with two backends.
    expect((await get(server, '/healthcheck?detailed=true')).body).toBe('OK\nOK');
    const html = (await get(server, '/healthcheck?detailed=1', { accept: 'text/html' })).body;
    expect(html).toContain('<H1>Server status</H1>');
    expect(html).toContain('<TD>database</TD>');
    expect(JSON.parse((await get(server, '/healthcheck?detailed=false', { accept: 'application/json' })).body).detailed).toBe(false);
    const refused = await get(server, '/healthcheck?detailed=perhaps');
    expect([refused.statusCode, JSON.parse(refused.body).faultstring]).toEqual([
      400,
      "Invalid input for field/attribute detailed. Value: 'perhaps'. Expected true or false.",
    ]);
  });

  it('answers 503 DATABASE UNREACHABLE, with the reason in the details, when the database does not answer', async () => {
    const server = await start({ TARIFF_HEALTHCHECK_DATABASE: 'true' });
    await database!.close();
    const answer = await get(server, '/healthcheck');
    expect([answer.statusCode, answer.body]).toEqual([503, 'OK\nDATABASE UNREACHABLE']);
    const detailed = JSON.parse((await get(server, '/healthcheck?detailed', { accept: 'application/json' })).body);
    expect(detailed.reasons[1]).toMatchObject({ check: 'database', reason: 'DATABASE UNREACHABLE' });
    expect(detailed.reasons[1].details).toContain('tariff.db');
  });

  it('in Keystone mode, stays public and shows the details only to a token passing context_is_admin', async () => {
    const server = await start({ ...KEYSTONE_ENVIRONMENT, TARIFF_HEALTHCHECK_DATABASE: 'true' });
    const json = { accept: 'application/json' };
    expect((await get(server, '/healthcheck')).body).toBe('OK\nOK');
    for (const token of [undefined, MEMBER_TOKEN, UNKNOWN_TOKEN, FAILING_TOKEN, 'not a token']) {
      const answer = await get(server, '/healthcheck?detailed', token === undefined ? json : { ...json, 'x-auth-token': token });
      expect([answer.statusCode, JSON.parse(answer.body)], String(token)).toEqual([200, { detailed: false, reasons: ['OK', 'OK'] }]);
    }
    const admin = await get(server, '/healthcheck?detailed', { ...json, 'x-auth-token': ADMIN_TOKEN });
    expect(admin.statusCode).toBe(200);
    expect(JSON.parse(admin.body).detailed).toBe(true);
    expect((await server.inject({ method: 'HEAD', url: '/healthcheck' })).statusCode).toBe(204);
  });
});

describe('negotiateMediaType', () => {
  const offers = ['text/plain', 'text/html', 'application/json'] as const;
  it('prefers quality, then the offers order, and falls back to the first offer', () => {
    expect(negotiateMediaType(undefined, offers)).toBe('text/plain');
    expect(negotiateMediaType('', offers)).toBe('text/plain');
    expect(negotiateMediaType('application/json', offers)).toBe('application/json');
    expect(negotiateMediaType('APPLICATION/JSON', offers)).toBe('application/json');
    expect(negotiateMediaType('text/html, application/json', offers)).toBe('text/html');
    expect(negotiateMediaType('*/*;q=0.1, application/json', offers)).toBe('application/json');
    expect(negotiateMediaType('text/*;q=0.9, text/plain;q=0.2', offers)).toBe('text/html');
    expect(negotiateMediaType('application/json;version=2', offers)).toBe('text/plain');
    expect(negotiateMediaType('application/json;q=2', offers)).toBe('text/plain');
  });
});

describe('health and drain settings', () => {
  it('have defaults', () => {
    const config = loadConfig({});
    expect([config.healthcheckDatabase, config.healthcheckDatabaseTimeoutMs, config.healthcheckDisableFile, config.shutdownTimeoutMs]).toEqual([
      false,
      2000,
      undefined,
      30_000,
    ]);
    const set = loadConfig({
      TARIFF_HEALTHCHECK_DATABASE: 'Yes',
      TARIFF_HEALTHCHECK_DATABASE_TIMEOUT: '0.5',
      TARIFF_HEALTHCHECK_DISABLE_FILE: '/run/tariff/disable',
      TARIFF_SHUTDOWN_TIMEOUT: '5',
    });
    expect([set.healthcheckDatabase, set.healthcheckDatabaseTimeoutMs, set.healthcheckDisableFile, set.shutdownTimeoutMs]).toEqual([
      true,
      500,
      '/run/tariff/disable',
      5000,
    ]);
  });

  it('refuse invalid values, naming the variable', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ TARIFF_HEALTHCHECK_DATABASE: 'maybe' }, "TARIFF_HEALTHCHECK_DATABASE must be true or false, got 'maybe'"],
      [{ TARIFF_HEALTHCHECK_DATABASE_TIMEOUT: '0' }, "TARIFF_HEALTHCHECK_DATABASE_TIMEOUT must be a positive number, got '0'"],
      [{ TARIFF_HEALTHCHECK_DISABLE_FILE: 'disable' }, "TARIFF_HEALTHCHECK_DISABLE_FILE must be an absolute file path, got 'disable'"],
      [{ TARIFF_SHUTDOWN_TIMEOUT: 'soon' }, "TARIFF_SHUTDOWN_TIMEOUT must be a positive number, got 'soon'"],
    ];
    for (const [environment, message] of cases) {
      expect(() => loadConfig(environment)).toThrow(ConfigurationError);
      expect(() => loadConfig(environment)).toThrow(message);
    }
  });
});
