/**
 * The console in Keystone mode, in chromium against a real Tariff process on SQLite and Debian's
 * Keystone: the login form (Keystone's refusal shown, axe-core, a screenshot), the admin's session
 * with every page, the token only in an HttpOnly SameSite=Strict cookie (nothing in
 * `document.cookie`, localStorage or sessionStorage), the cookie refused without the console
 * header and a page of another origin unable to write, a member's pages hidden and the policy
 * message shown, the member's quote-only price calculator (typed names, the API's total, no call
 * refused), a 401 bringing the login form back, and the logout revoking the token.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page, Response } from 'playwright-core';
import { callServer, freePort, startServerProcess, type ServerProcess } from '../helpers/server.js';
import { keystoneModeEnvironment, type Keystone, type KeystoneUser } from '../keystone/keystone.js';
import { SHARED_TOKEN_LIFETIME_S, sharedKeystone } from '../keystone/shared.js';
import { CHROMIUM_AVAILABLE, launchBrowser, type Browser } from './browser.js';
import { accessibilityViolations, saveScreenshot } from './harness.js';

const H = '/v1/rating/module_config/hashmap';
const ALL_PAGES = ['Overview', 'Services', 'Groups', 'Scripts', 'Price calculator', 'Price list'];
const MODULE_CONFIG_DENIED = "Policy doesn't allow rating:module_config to be performed.";
/**
 * The rules: for qty 3 of compute with flavor m1.large, `_DEFAULT_` adds 1 × 3 (the service's
 * flat) and `flavors` 2.5 × 3: 10.5.
 */
const PRICE_LIST = {
  modules: { hashmap: { enabled: true } },
  groups: ['flavors'],
  services: {
    compute: {
      mappings: [{ cost: '1', name: 'base' }],
      fields: { flavor: { mappings: [{ value: 'm1.large', cost: '2.5', group: 'flavors', name: 'large' }] } },
    },
  },
};
/** Seconds Tariff trusts a validated token: short, so that a revoked token is seen at once. */
const TOKEN_CACHE_SECONDS = 1;

describe.skipIf(!CHROMIUM_AVAILABLE)('the console in Keystone mode', () => {
  let directory: string;
  let keystone: Keystone | undefined;
  let keystoneMissing: string | undefined;
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;

  /** The API as a user with their own token (X-Auth-Token), as the CLI calls it. */
  const asUser = async (user: KeystoneUser, method: string, path: string, body?: unknown) =>
    callServer(server, method, path, body, { headers: { 'x-auth-token': await keystone!.token(user) }, timeoutMs: 30_000 });

  /** The browser's session cookie, if any. */
  const sessionCookie = async () => (await browser.context.cookies(server.url)).find((cookie) => cookie.name === 'tariff_session');

  /** Fills the login form and submits it. */
  async function logIn(user: KeystoneUser, project: string, password = keystone!.env[`KEYSTONE_${user}_PASSWORD`]) {
    await page.getByLabel('User', { exact: true }).fill(keystone!.env[`KEYSTONE_${user}_USER`]);
    await page.getByLabel('Password').fill(password);
    await page.getByLabel('Project', { exact: true }).fill(project);
    await page.getByRole('button', { name: 'Log in' }).click();
  }

  const navigation = () => page.locator('nav[aria-label="Console"] a').allTextContents();

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-console-keystone-'));
    const port = await freePort();
    try {
      keystone = await sharedKeystone();
    } catch (error) {
      keystoneMissing = String(error).slice(0, 500);
      console.warn(`test/console/keystone.test.ts skipped: ${keystoneMissing}`);
      return;
    }
    server = await startServerProcess(
      `sqlite:${join(directory, 'tariff.db')}`,
      keystoneModeEnvironment(keystone, { TARIFF_PORT: String(port), TARIFF_TOKEN_CACHE_TIME: String(TOKEN_CACHE_SECONDS) }),
    );
    const applied = await asUser('ADMIN', 'POST', '/v2/rating/price_list', PRICE_LIST);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    browser = await launchBrowser();
    page = await browser.context.newPage();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await keystone?.release();
    rmSync(directory, { recursive: true, force: true });
  });

  it('asks for a login, shows Keystone’s refusal, and passes axe-core', { timeout: 60_000 }, async (context) => {
    if (keystoneMissing) return context.skip(keystoneMissing);
    await page.goto(`${server.url}/console/services`);
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    expect(await page.getByLabel('User domain').inputValue()).toBe('Default');
    expect(await page.getByLabel('Project domain').inputValue()).toBe('Default');
    expect(await page.locator('nav').count()).toBe(0);

    await logIn('ADMIN', keystone!.env.KEYSTONE_ADMIN_PROJECT, 'not-the-password');
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe(
        `The user name or password is wrong, or ${keystone!.env.KEYSTONE_ADMIN_USER} has no role in project ${keystone!.env.KEYSTONE_ADMIN_PROJECT}: Keystone refused the login.`,
      );
    expect(await sessionCookie()).toBeUndefined();
    expect(await accessibilityViolations(page)).toEqual([]);
    await saveScreenshot(page, 'login');
  });

  it('logs the admin in: every page, the name in the masthead, the token only in an HttpOnly cookie', { timeout: 60_000 }, async (context) => {
    if (keystoneMissing) return context.skip(keystoneMissing);
    await logIn('ADMIN', keystone!.env.KEYSTONE_ADMIN_PROJECT);
    // The page asked for stays: the services page, with the price list's service.
    await page.getByRole('heading', { name: 'Services' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/services');
    expect(await navigation()).toEqual(ALL_PAGES);
    expect(await page.locator('.who').textContent()).toContain(`${keystone!.env.KEYSTONE_ADMIN_USER} · ${keystone!.env.KEYSTONE_ADMIN_PROJECT}`);

    const cookie = await sessionCookie();
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/', secure: false });
    // Max-Age up to the token's expiry (the shared Keystone's token lifetime).
    expect(cookie!.expires * 1000 - Date.now()).toBeGreaterThan((SHARED_TOKEN_LIFETIME_S - 100) * 1000);
    expect(cookie!.expires * 1000 - Date.now()).toBeLessThanOrEqual((SHARED_TOKEN_LIFETIME_S + 1) * 1000);
    // The cookie is the admin's token: the CLI's header accepts it.
    expect((await callServer(server, 'GET', `${H}/services`, undefined, { headers: { 'x-auth-token': cookie!.value } })).status).toBe(200);
    const scripts = await page.evaluate(() => ({
      cookie: document.cookie,
      local: JSON.stringify({ ...localStorage }),
      session: JSON.stringify({ ...sessionStorage }),
    }));
    expect(scripts).toEqual({ cookie: '', local: '{}', session: '{}' });

    const session = await page.evaluate(async () => (await fetch('/console/session', { headers: { 'x-tariff-console': '1' } })).json());
    expect(session).toMatchObject({
      mode: 'keystone',
      user: { id: keystone!.env.KEYSTONE_ADMIN_USER_ID, name: keystone!.env.KEYSTONE_ADMIN_USER },
      project: { id: keystone!.env.KEYSTONE_ADMIN_PROJECT_ID, name: keystone!.env.KEYSTONE_ADMIN_PROJECT },
      allowed: { 'rating:module_config': true, 'rating:quote': true, 'v2_rating:update_module': true },
    });
  });

  it('honours the cookie only with the console header: a page of another origin cannot write', { timeout: 60_000 }, async (context) => {
    if (keystoneMissing) return context.skip(keystoneMissing);
    const write = (name: string, headers: Record<string, string>) =>
      page.evaluate(
        async ({ path, name, headers }) => {
          const response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ name }) });
          return { status: response.status, body: (await response.json()) as { faultstring?: string } };
        },
        { path: `${H}/services`, name, headers },
      );
    // Same origin, cookie sent: refused without the header, accepted with it.
    expect(await write('without-header', {})).toMatchObject({ status: 401, body: { faultstring: 'The request you have made requires authentication.' } });
    expect((await write('with-header', { 'x-tariff-console': '1' })).status).toBe(201);

    // Another origin of the same site (another port of 127.0.0.1): the browser sends the
    // SameSite=Strict cookie, but neither a form post nor a fetch gets the header through.
    const attacker = await serveAttacker(server.url);
    try {
      const attackPage = await browser.context.newPage();
      await attackPage.goto(`${attacker.url}/form`);
      await attackPage.waitForURL(`${server.url}${H}/services`);
      expect(await attackPage.textContent('body')).toContain('The request you have made requires authentication.');
      await attackPage.goto(`${attacker.url}/fetch`);
      await expect.poll(() => attackPage.textContent('#outcome')).toMatch(/^refused: /);
      await attackPage.close();
      // A login from another origin is refused too (no console header).
      expect((await callServer(server, 'POST', '/console/session', { user: 'admin', password: 'x', project: 'admin' })).status).toBe(403);
    } finally {
      await attacker.close();
    }
    const names = (await asUser('ADMIN', 'GET', `${H}/services`)).body.services.map((service: { name: string }) => service.name).sort();
    expect(names).toEqual(['compute', 'with-header']);
  });

  it('logs out: the token is revoked in Keystone, the cookie cleared, the login form back', { timeout: 60_000 }, async (context) => {
    if (keystoneMissing) return context.skip(keystoneMissing);
    const token = (await sessionCookie())!.value;
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    expect(await page.getByRole('status').textContent()).toBe('You have logged out.');
    expect(await sessionCookie()).toBeUndefined();
    const validation = await fetch(`${keystone!.env.KEYSTONE_URL}/auth/tokens`, {
      headers: { 'x-auth-token': await keystone!.token('ADMIN'), 'x-subject-token': token },
    });
    expect(validation.status).toBe(404);
    // Tariff forgot it at once, without waiting for its cache.
    expect((await callServer(server, 'GET', `${H}/services`, undefined, { headers: { 'x-auth-token': token } })).status).toBe(401);
  });

  it('hides the pages a member may not use, lands on the one they may, and says why the others show nothing', { timeout: 60_000 }, async (context) => {
    if (keystoneMissing) return context.skip(keystoneMissing);
    await page.goto(`${server.url}/console/`);
    await logIn('MEMBER', keystone!.env.KEYSTONE_DEMO_PROJECT);
    // The overview needs v2_rating:list_modules: the console's home sends the member to the first page allowed.
    await page.getByRole('heading', { name: 'Price calculator' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/calculator');
    // rating:quote alone allows the calculator; every other page needs what a member lacks.
    expect(await navigation()).toEqual(['Price calculator']);

    // A page reached by its address says why it shows nothing.
    await page.goto(`${server.url}/console/services`);
    await expect.poll(() => page.getByRole('alert').first().textContent()).toBe(MODULE_CONFIG_DENIED);

    const write = await page.evaluate(async (path) => {
      const response = await fetch(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-tariff-console': '1' },
        body: '{"name":"by-member"}',
      });
      return { status: response.status, body: (await response.json()) as unknown };
    }, `${H}/services`);
    expect(write).toEqual({ status: 403, body: { faultcode: 'Client', faultstring: MODULE_CONFIG_DENIED, debuginfo: null } });
  });

  it('lets the member price a usage by typed names: the API’s total with the same token, no call refused', { timeout: 60_000 }, async (context) => {
    if (keystoneMissing) return context.skip(keystoneMissing);
    const answered: { method: string; path: string; status: number }[] = [];
    const listen = (response: Response) => {
      const request = response.request();
      answered.push({ method: request.method(), path: new URL(response.url()).pathname, status: response.status() });
    };
    page.on('response', listen);
    try {
      await page.goto(`${server.url}/console/calculator`);
      await page.getByRole('heading', { name: 'Price calculator' }).waitFor();
      expect(await navigation()).toEqual(['Price calculator']);
      expect(await page.locator('.calculator-quote-only').textContent()).toContain('your role does not allow reading the rating configuration');
      await page.getByLabel('Service', { exact: true }).fill('compute');
      await page.getByLabel('Field 1 name').fill('flavor');
      await page.getByLabel('Field 1 value').fill('m1.large');
      await page.getByLabel('Quantity').fill('3');
      await page.getByRole('button', { name: 'Quote' }).click();
      const total = page.locator('output[data-total]');
      await total.waitFor();

      // The same usage at the same time through the API, with the session's token as X-Auth-Token.
      const at = `${await page.getByLabel('Rating time (UTC)').inputValue()}Z`;
      const quoted = await callServer(
        server,
        'POST',
        '/v2/rating/quote',
        { usage: { compute: [{ vol: { qty: '3' }, metadata: { flavor: 'm1.large' } }] }, at, explain: true },
        { headers: { 'x-auth-token': (await sessionCookie())!.value }, timeoutMs: 30_000 },
      );
      expect(quoted.status, JSON.stringify(quoted.body)).toBe(200);
      expect(await total.textContent()).toBe(quoted.body.total);
      expect(quoted.body.total).toBe('10.5');
      // What the answer gives, without the rules' names (they would need the configuration).
      const rows = await page
        .locator('table.calculator-explain tbody tr')
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((cell) => cell.textContent)));
      expect(rows).toEqual([
        ['hashmap', '—', 'service mapping', 'flat', '1', '3'],
        ['hashmap', 'flavors', 'field mapping', 'flat', '2.5', '7.5'],
      ]);
      expect(await page.locator('main').textContent()).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-|[0-9a-f]{32}/);
      expect(await accessibilityViolations(page)).toEqual([]);
      await saveScreenshot(page, 'calculator-quote-only');
    } finally {
      page.off('response', listen);
    }
    // The page asked for its session and the quote, nothing of the configuration, and nothing was refused.
    expect(answered.filter((response) => response.status === 403)).toEqual([]);
    expect(answered.filter((response) => response.path.startsWith('/v1/rating/module_config/'))).toEqual([]);
    expect(answered.filter((response) => !response.path.startsWith('/console/'))).toEqual([{ method: 'POST', path: '/v2/rating/quote', status: 200 }]);
  });

  it('brings the login form back when a call answers 401 (the token revoked elsewhere)', { timeout: 60_000 }, async (context) => {
    if (keystoneMissing) return context.skip(keystoneMissing);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await page.goto(`${server.url}/console/`);
    await logIn('ADMIN', keystone!.env.KEYSTONE_ADMIN_PROJECT);
    const enabled = page.getByLabel('noop enabled');
    await enabled.waitFor();
    const before = await enabled.isChecked();
    await keystone!.revoke((await sessionCookie())!.value);
    await sleep(TOKEN_CACHE_SECONDS * 1000 + 200);
    await enabled.click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    expect(await page.getByRole('status').textContent()).toBe('Your session has ended: log in again.');
    const modules = (await asUser('ADMIN', 'GET', '/v2/rating/modules')).body.modules as { module_id: string; enabled: boolean }[];
    expect(modules.find((module) => module.module_id === 'noop')?.enabled).toBe(before);
  });
});

/**
 * A page of another origin (same host, another port) trying to write to Tariff with the
 * browser's cookie: `/form` posts a JSON-looking text/plain form, `/fetch` a fetch with the
 * console header (which needs a CORS preflight Tariff never grants).
 */
async function serveAttacker(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const services = `${target}${H}/services`;
  const pages: Record<string, string> = {
    '/form': `<!doctype html><title>form</title><form method="post" enctype="text/plain" action="${services}">
      <input name='{"name":"by-form","x":"' value='"}'></form><script>document.forms[0].submit()</script>`,
    '/fetch': `<!doctype html><title>fetch</title><p id="outcome"></p><script>
      fetch(${JSON.stringify(services)}, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json', 'x-tariff-console': '1' }, body: '{"name":"by-fetch"}' })
        .then((response) => { document.getElementById('outcome').textContent = 'answered: ' + response.status; },
              (error) => { document.getElementById('outcome').textContent = 'refused: ' + error; });
    </script>`,
  };
  const attacker: Server = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' }).end(pages[request.url ?? ''] ?? '');
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        attacker.close(() => resolve());
        attacker.closeAllConnections();
      }),
  };
}
