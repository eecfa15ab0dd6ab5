/**
 * The console's overview in a real browser against a real Tariff process on SQLite: modules with
 * their state, enabled and reprioritised from the page (by mouse and by keyboard), the rule
 * counts, the latest changes from the audit trail (a price list's rule changes by names, the acting user), the console's own routes, its caching headers,
 * its JavaScript within budget, its security headers (no violation of its Content-Security-Policy), and no serious accessibility violation.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { defaultModuleNames } from '../../src/rating/registry.js';
import { startServerProcess, type ServerProcess } from '../helpers/server.js';
import { CHROMIUM_AVAILABLE, launchBrowser, type Browser } from './browser.js';
import { accessibilityViolations, saveScreenshot, watchContentSecurityPolicy } from './harness.js';

const ASSETS = fileURLToPath(new URL('../../dist/console/assets/', import.meta.url));

describe.skipIf(!CHROMIUM_AVAILABLE)('the console overview in chromium', () => {
  let directory: string;
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  let policyViolations: () => string[];

  const modules = async () =>
    ((await (await fetch(`${server.url}/v2/rating/modules`)).json()) as { modules: { module_id: string; enabled: boolean; priority: number }[] }).modules;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-console-'));
    server = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`);
    const priceList = {
      groups: ['discounts'],
      services: {
        compute: {
          fields: {
            flavor: {
              mappings: [
                { value: 'm1.small', cost: '1' },
                { value: 'm1.large', cost: '2', group: 'discounts' },
              ],
            },
          },
        },
        volume: { mappings: [{ cost: '0.01' }], thresholds: [{ level: '100', type: 'rate', cost: '0.9' }] },
      },
    };
    const applied = await fetch(`${server.url}/v2/rating/price_list`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(priceList),
    });
    expect(applied.status).toBe(200);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    policyViolations = await watchContentSecurityPolicy(page);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('lists the modules and counts the rules', async () => {
    await page.goto(`${server.url}/console/`);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Overview');
    await page.locator('dd[data-count="mappings"]').waitFor();
    expect(await page.locator('tbody th').allTextContents()).toEqual(defaultModuleNames());
    const counts = Object.fromEntries(
      await Promise.all(
        ['services', 'groups', 'mappings', 'thresholds', 'scripts'].map(async (kind) => [kind, await page.locator(`dd[data-count="${kind}"]`).textContent()]),
      ),
    );
    expect(counts).toEqual({ services: '2', groups: '1', mappings: '3', thresholds: '1', scripts: '0' });
    // The seeded apply: its entry and its 8 rule changes (a group, 2 services, a field, 3 mappings, a threshold), by an anonymous user.
    await expect.poll(() => page.locator('table.changes tbody tr').count()).toBe(9);
    const apply = await page.locator('table.changes tbody tr').nth(0).locator('td').allTextContents();
    expect(apply.slice(1, 3)).toEqual(['anonymous', 'price list applied']);
    expect(apply[3]).toMatch(/^revision \d+$/);
    expect(apply[4]).toBe(apply[3]);
    const table = await page.locator('table.changes').textContent();
    expect(table).toContain('volume from 100');
    expect(table).not.toContain('unknown');
  });

  it('lists the latest changes: who, what and when, newest first, by names', async () => {
    const as = (user: string) => ({ 'content-type': 'application/json', 'x-user-id': user });
    const H = `${server.url}/v1/rating/module_config/hashmap`;
    const { services } = (await (await fetch(`${H}/services`)).json()) as { services: { service_id: string; name: string }[] };
    const volume = services.find((service) => service.name === 'volume')!;
    // One second after the seeded rules, which may share alice's second otherwise (audit times are whole seconds).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const created = await fetch(`${H}/mappings`, {
      method: 'POST',
      headers: as('alice'),
      body: JSON.stringify({ service_id: volume.service_id, cost: '0.02', name: 'volume-tenant', tenant_id: 'demo' }),
    });
    expect(created.status).toBe(201);
    const { mapping_id } = (await created.json()) as { mapping_id: string };
    // One second later, so the deletion sorts after the creation (audit times are whole seconds).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await fetch(`${H}/mappings/${mapping_id}`, { method: 'DELETE', headers: as('bob') })).status).toBe(204);
    await page.goto(`${server.url}/console/`);
    const rows = page.locator('table.changes tbody tr');
    await rows.first().waitFor();
    const first = await rows.nth(0).locator('td').allTextContents();
    const second = await rows.nth(1).locator('td').allTextContents();
    expect(first.slice(1, 4)).toEqual(['bob', 'mapping deleted', 'volume-tenant (volume)']);
    expect(second.slice(1, 4)).toEqual(['alice', 'mapping created', 'volume-tenant (volume)']);
    expect(first[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? UTC$/);
    expect(await rows.count()).toBeLessThanOrEqual(10);
    expect(await page.locator('table.changes').textContent()).toContain('compute / flavor = m1.large');
    expect(await page.locator('table.changes').textContent()).toContain('mapping created');
    expect(await page.locator('main').textContent()).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    await saveScreenshot(page, 'overview');
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('enables a module with the mouse and with the keyboard, and changes its priority', async () => {
    await page.goto(`${server.url}/console`);
    await page.getByLabel('hashmap enabled').click();
    await expect.poll(async () => (await modules()).find((module) => module.module_id === 'hashmap')?.enabled).toBe(true);
    await page.getByLabel('pyscripts enabled').focus();
    await page.keyboard.press('Space');
    await expect.poll(async () => (await modules()).find((module) => module.module_id === 'pyscripts')?.enabled).toBe(true);
    await page.getByLabel('hashmap priority').fill('7');
    await page.getByLabel('hashmap priority').press('Tab');
    await expect.poll(async () => (await modules()).find((module) => module.module_id === 'hashmap')?.priority).toBe(7);
    await expect.poll(() => page.getByLabel('hashmap priority').inputValue()).toBe('7');
  });

  it('shows the server’s fault when a change is refused', async () => {
    await page.goto(`${server.url}/console/`);
    await page.getByLabel('noop priority').fill('0');
    await page.getByLabel('noop priority').press('Tab');
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^noop: /);
    expect((await modules()).find((module) => module.module_id === 'noop')?.priority).toBe(1);
  });

  it('serves its own routes, caches assets for a year and the page never', async () => {
    const other = await fetch(`${server.url}/console/no/such/page`);
    expect(other.status).toBe(200);
    expect(other.headers.get('cache-control')).toBe('no-cache');
    await page.goto(`${server.url}/console/no/such/page`);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Not found');
    const [script] = readdirSync(ASSETS).filter((file) => file.endsWith('.js'));
    const asset = await fetch(`${server.url}/console/assets/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${server.url}/console/assets/missing.js`)).status).toBe(404);
  });

  it('sends its security headers on its pages, files and session, and none of them on the API', async () => {
    const [script] = readdirSync(ASSETS).filter((file) => file.endsWith('.js'));
    for (const path of ['/console/', '/console/services', `/console/assets/${script}`, '/console/session']) {
      const headers = (await fetch(`${server.url}${path}`)).headers;
      const policy = headers.get('content-security-policy') ?? '';
      expect(policy, path).toContain("frame-ancestors 'none'");
      expect(policy, path).toContain("script-src 'self'");
      expect(policy, path).toContain("connect-src 'self'");
      expect(policy, path).toMatch(/style-src 'self' 'nonce-[0-9a-f]+';/);
      expect(headers.get('x-frame-options'), path).toBe('DENY');
      expect(headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(headers.get('referrer-policy'), path).toBe('no-referrer');
      expect(headers.get('strict-transport-security'), path).toBeNull();
    }
    const api = await fetch(`${server.url}/v2/rating/modules`);
    expect(api.headers.get('content-security-policy')).toBeNull();
    expect(api.headers.get('x-frame-options')).toBeNull();
  });

  it('reported no Content-Security-Policy violation on any page shown above', () => {
    expect(policyViolations()).toEqual([]);
  });

  it('keeps its JavaScript within 250 KB gzipped', () => {
    const total = readdirSync(ASSETS)
      .filter((file) => file.endsWith('.js'))
      .reduce((sum, file) => sum + gzipSync(readFileSync(join(ASSETS, file)), { level: 9 }).length, 0);
    expect(total).toBeGreaterThan(1000);
    expect(total).toBeLessThanOrEqual(250 * 1024);
  });
});
