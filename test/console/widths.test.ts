/**
 * Every console page at the widths people use (issue 26): 1024, 1366 and 1920 px, in chromium
 * against a real Tariff on SQLite with a configuration as an operator's looks (generated rule
 * names, Keystone project ids as tenants, long group names and descriptions, empty descriptions,
 * running and deleted scripts). At each width every action is in the window or reached by the
 * page's own scrolling up and down (never sideways), no name, value, group, tenant or header is
 * cut (the elements' scroll width against their width), the page does not scroll sideways, and
 * axe-core finds nothing serious. The login form too (Keystone mode, against a stand-in Keystone
 * that refuses every password as Keystone does, with 401), with its refusal in words. A screenshot of each page at each width goes to
 * `test-results/console/<page>-<width>.png` (docs/screenshots holds three of them).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { CHROMIUM_AVAILABLE } from './browser.js';
import { accessibilityViolations, saveScreenshot, startConsole, type ConsoleUnderTest } from './harness.js';
import { layoutFaults } from './layout-faults.js';
import { HOUR, TOMORROW, usageFile, type UsageDataframe } from '../simulation/simulation.js';

const H = '/v1/rating/module_config/hashmap';
const P = '/v1/rating/module_config/pyscripts';
/** The window widths: a small laptop, the most common laptop, a desktop monitor. */
const WIDTHS = [1024, 1366, 1920] as const;
/** A Keystone project id, as tenants are named in a real cloud. */
const PROJECT = '8a1407169cdd4d9f94c1b7c5b1e3d0aa';

/** A page of the console and what shows it is loaded (and, for some, in the state worth measuring). */
interface ConsolePage {
  name: string;
  path: string;
  ready(page: Page): Promise<void>;
}

const PAGES: ConsolePage[] = [
  { name: 'overview', path: '', ready: (page) => page.locator('dd[data-count="mappings"]').waitFor() },
  { name: 'services', path: 'services', ready: (page) => page.getByRole('table', { name: 'Services and their rules' }).waitFor() },
  { name: 'groups', path: 'groups', ready: (page) => page.locator('tr[data-group]').first().waitFor() },
  { name: 'scripts', path: 'scripts', ready: (page) => page.locator('tr[data-script="discount"]').waitFor() },
  {
    name: 'scripts-with-deleted',
    path: 'scripts',
    async ready(page) {
      await page.locator('tr[data-script="discount"]').waitFor();
      expect(await page.locator('tr[data-script="old-promotion"]').count()).toBe(0);
      await page.getByLabel('Show deleted scripts').check();
      const deleted = page.locator('tr[data-script="old-promotion"]');
      await deleted.waitFor();
      // Deleted, with when (and by whom when the API knows), and only its history to open.
      expect(await deleted.locator('td').first().textContent()).toMatch(/^deleted \d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? UTC( by .+)?$/);
      expect(await deleted.getByRole('button').count()).toBe(0);
      expect(await deleted.getByRole('link', { name: 'History of old-promotion' }).count()).toBe(1);
    },
  },
  {
    name: 'calculator',
    path: 'calculator',
    async ready(page) {
      await page.getByLabel('Service').selectOption({ label: 'compute' });
      await page.getByLabel('flavor', { exact: true }).fill('m1.large');
      await page.getByLabel('Quantity').fill('3');
      await page.getByLabel('Tenant (optional)').fill(PROJECT);
      await page.getByRole('button', { name: 'Quote' }).click();
      await page.locator('output[data-total]').waitFor();
    },
  },
  {
    name: 'price-list',
    path: 'price-list',
    async ready(page) {
      const document = { services: { compute: { fields: { flavor: { mappings: [{ value: 'm1.small', cost: '1.25', name: 'm1-small' }] } } } } };
      await page.getByRole('textbox', { name: 'Document' }).fill(JSON.stringify(document));
      await page.getByRole('button', { name: 'Show the changes (dry run)' }).click();
      await page.getByRole('heading', { name: 'Changes of this document (dry run)' }).waitFor();
    },
  },
  {
    name: 'price-list-impact',
    path: 'price-list',
    async ready(page) {
      // m1.small dearer, the volumes cheaper: the instances on m1.small cost more, the one on m1.large less.
      const document = {
        services: {
          compute: {
            mappings: [{ cost: '0.5', name: 'compute-base' }],
            fields: { flavor: { mappings: [{ value: 'm1.small', cost: '1.25', name: 'm1-small' }] } },
          },
          volume: { mappings: [{ cost: '0.008', name: 'volume-gb' }] },
        },
      };
      await page.getByRole('textbox', { name: 'Document' }).fill(JSON.stringify(document));
      await page.getByRole('button', { name: 'Show the changes (dry run)' }).click();
      await page.getByRole('heading', { name: 'Impact on stored usage' }).waitFor();
      await page.getByLabel('Usage from (UTC)').fill(new Date(USAGE_BEGIN).toISOString().slice(0, 19));
      await page.getByLabel('Usage until (UTC)').fill(new Date(USAGE_BEGIN + USAGE_HOURS * HOUR).toISOString().slice(0, 19));
      await page.getByLabel('A usage file').check();
      await page.getByLabel('Usage file (JSON Lines of CloudKitty v2 dataframes, optionally gzip)').setInputFiles({
        name: 'usage.jsonl',
        mimeType: 'application/x-ndjson',
        buffer: usageFile(impactUsage()),
      });
      await page.getByRole('button', { name: 'Show the impact' }).click();
      await page.locator('[data-impact-result] table.impact-projects').waitFor();
      // Bars on both sides of zero.
      expect(await page.locator('.impact-chart-less').count()).toBeGreaterThan(0);
      expect(await page.locator('.impact-chart-more').count()).toBeGreaterThan(0);
    },
  },
  { name: 'mapping-history', path: 'history/mappings/m1-large', ready: (page) => page.locator('table.history-table tbody tr').first().waitFor() },
  { name: 'script-history', path: 'history/scripts/discount', ready: (page) => page.locator('table.history-table tbody tr').first().waitFor() },
];

/** The impact's usage: from tomorrow (the rules start when the test writes them), a few hours. */
const USAGE_BEGIN = TOMORROW;
const USAGE_HOURS = 6;

/** Hourly usage of three projects named as Keystone names them: a small or large instance and a volume each. */
function impactUsage(): UsageDataframe[] {
  const projects = [PROJECT, 'f3c1d2e4b5a697887766554433221100', '0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a'];
  return Array.from({ length: USAGE_HOURS }, (_, hour) => {
    const begin = USAGE_BEGIN + hour * HOUR;
    return {
      period: { begin: new Date(begin).toISOString(), end: new Date(begin + HOUR).toISOString() },
      usage: {
        compute: projects.map((project, index) => ({
          vol: { unit: 'instance', qty: '1' },
          rating: { price: '1' },
          groupby: { project_id: project, id: `instance-${index}` },
          metadata: { flavor: index === 1 ? 'm1.large' : 'm1.small' },
        })),
        volume: projects.map((project, index) => ({
          vol: { unit: 'GiB', qty: '50' },
          rating: { price: '0.5' },
          groupby: { project_id: project, id: `volume-${index}` },
          metadata: { volume_type: 'ssd' },
        })),
      },
    };
  });
}

describe.skipIf(!CHROMIUM_AVAILABLE)('the console at 1024, 1366 and 1920 px', () => {
  let tariff: ConsoleUnderTest;
  /** The name the API made up for the mapping created without one. */
  let generatedName: string;

  beforeAll(async () => {
    tariff = await startConsole({
      environment: { TARIFF_SANDBOX_WORKERS: '1' },
      priceList: {
        modules: { hashmap: { enabled: true } },
        groups: ['discounts-for-education-and-research', 'night'],
        services: {
          compute: {
            mappings: [{ cost: '0.5', name: 'compute-base' }],
            fields: {
              flavor: {
                mappings: [
                  { value: 'm1.small', cost: '1', name: 'm1-small' },
                  {
                    value: 'm1.large',
                    cost: '2.50',
                    name: 'm1-large',
                    group: 'discounts-for-education-and-research',
                    tenant_id: PROJECT,
                    description: 'Large instances of the education programme, priced per hour of the instance',
                  },
                ],
                thresholds: [{ level: '10', type: 'rate', cost: '0.9', group: 'night', tenant_id: PROJECT }],
              },
            },
          },
          volume: { mappings: [{ cost: '0.01', name: 'volume-gb' }] },
        },
      },
    });
    const { services } = await tariff.api<{ services: { service_id: string; name: string }[] }>('GET', `${H}/services`);
    const compute = services.find((service) => service.name === 'compute')!;
    // A field and a mapping as the CloudKitty client makes them: no name given, 32 hex digits.
    const image = await tariff.api<{ field_id: string }>('POST', `${H}/fields`, { service_id: compute.service_id, name: 'image_name' });
    const generated = await tariff.api<{ name: string }>('POST', `${H}/mappings`, {
      field_id: image.field_id,
      value: 'ubuntu-22.04-server-cloudimg-amd64',
      cost: '0.02',
      tenant_id: PROJECT,
    });
    generatedName = generated.name;
    expect(generatedName).toMatch(/^[0-9a-f]{32}$/);
    await tariff.api('POST', `${P}/scripts?force=true`, {
      name: 'discount',
      data: 'discount = 1\n',
      description: 'Ten percent off for the education programme',
      start: '2020-01-01T00:00:00Z',
    });
    const old = await tariff.api<{ script_id: string }>('POST', `${P}/scripts`, { name: 'old-promotion', data: 'promotion = 1\n' });
    await tariff.api('DELETE', `${P}/scripts/${old.script_id}`);
    tariff.page.setDefaultTimeout(15_000);
  }, 120_000);

  afterAll(async () => {
    await tariff?.close();
  });

  it('names a mapping whose name the API generated by where it applies: services, editor, calculator', { timeout: 60_000 }, async () => {
    const { page } = tariff;
    const place = `compute / image_name = ubuntu-22.04-server-cloudimg-amd64 (tenant ${PROJECT})`;
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto(tariff.at('services'));
    await page.getByRole('button', { name: `Edit mapping ${place}`, exact: true }).click();
    await page.getByRole('dialog', { name: 'Mapping for ubuntu-22.04-server-cloudimg-amd64 on compute / image_name' }).waitFor();
    await page.goto(tariff.at('calculator'));
    await page.getByLabel('Service').selectOption({ label: 'compute' });
    await page.getByLabel('image_name', { exact: true }).fill('ubuntu-22.04-server-cloudimg-amd64');
    await page.getByLabel('Quantity').fill('1');
    await page.getByLabel('Tenant (optional)').fill(PROJECT);
    await page.getByRole('button', { name: 'Quote' }).click();
    await page.locator('output[data-total]').waitFor();
    const explained = await page.locator('table.calculator-explain tbody tr td:nth-child(4)').allTextContents();
    expect(explained).toContain(`image_name = ubuntu-22.04-server-cloudimg-amd64 (tenant ${PROJECT})`);
    expect(explained.join('\n')).not.toContain(generatedName);
  });

  it('services at 1366 px: the whole table in the window, Actions included, with no sideways scroll', { timeout: 60_000 }, async () => {
    const { page } = tariff;
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto(tariff.at('services'));
    await PAGES[1].ready(page);
    const scroll = await page.locator('.services-scroll').evaluate((element) => ({ scrollWidth: element.scrollWidth, clientWidth: element.clientWidth }));
    expect(scroll.scrollWidth).toBeLessThanOrEqual(scroll.clientWidth);
  });

  it('services at 1920 px: an empty Description column stays narrow, a described one takes its share', { timeout: 60_000 }, async () => {
    const { page } = tariff;
    await page.setViewportSize({ width: 1920, height: 900 });
    await page.goto(tariff.at('services'));
    await PAGES[1].ready(page);
    const descriptionWidth = () => page.getByRole('columnheader', { name: 'Description' }).evaluate((header) => header.getBoundingClientRect().width);
    expect(await descriptionWidth()).toBeGreaterThan(250);
    // Only rules without a description left: the column keeps its 8em (104 px at the table's 13 px).
    await page.getByLabel('Search').fill('ubuntu');
    await expect.poll(() => page.getByRole('status').textContent()).toBe('1 rule of 6');
    expect(await descriptionWidth()).toBeLessThanOrEqual(110);
  });

  for (const width of WIDTHS) {
    for (const consolePage of PAGES) {
      it(`${consolePage.name} at ${width} px: every action reachable, nothing cut, axe clean`, { timeout: 60_000 }, async () => {
        const { page } = tariff;
        await page.setViewportSize({ width, height: 900 });
        await page.goto(tariff.at(consolePage.path));
        await consolePage.ready(page);
        await saveScreenshot(page, `${consolePage.name}-${width}`);
        expect(await layoutFaults(page)).toEqual([]);
        expect(await accessibilityViolations(page)).toEqual([]);
      });
    }
  }
});

describe.skipIf(!CHROMIUM_AVAILABLE)('the console login at 1024, 1366 and 1920 px', () => {
  let keystone: Server;
  let tariff: ConsoleUnderTest;
  /** The logins the stand-in Keystone was asked for. */
  const logins: unknown[] = [];

  beforeAll(async () => {
    // Keystone's answer to a wrong password (keystone/exception.py Unauthorized), for every login.
    keystone = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        if (request.method === 'POST' && request.url?.startsWith('/v3/auth/tokens')) logins.push(JSON.parse(body));
        response.writeHead(401, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { code: 401, title: 'Unauthorized', message: 'The request you have made requires authentication.' } }));
      });
    });
    await new Promise<void>((resolve) => keystone.listen(0, '127.0.0.1', resolve));
    tariff = await startConsole({
      environment: {
        TARIFF_AUTH: 'keystone',
        TARIFF_KEYSTONE_AUTH_URL: `http://127.0.0.1:${(keystone.address() as AddressInfo).port}/v3`,
        TARIFF_KEYSTONE_USERNAME: 'tariff',
        TARIFF_KEYSTONE_PASSWORD: 'unused',
      },
    });
    tariff.page.setDefaultTimeout(15_000);
  }, 120_000);

  afterAll(async () => {
    await tariff?.close();
    await new Promise((resolve) => keystone?.close(resolve));
  });

  for (const width of WIDTHS) {
    it(`login at ${width} px: a wrong password said in words, nothing cut, axe clean`, { timeout: 60_000 }, async () => {
      const { page } = tariff;
      await page.setViewportSize({ width, height: 900 });
      await page.goto(tariff.at('services'));
      await page.getByLabel('User', { exact: true }).fill('operator');
      await page.getByLabel('Password').fill('not-the-password');
      await page.getByLabel('Project', { exact: true }).fill('admin');
      await page.getByRole('button', { name: 'Log in' }).click();
      await expect
        .poll(() => page.getByRole('alert').textContent())
        .toBe('The user name or password is wrong, or operator has no role in project admin: Keystone refused the login.');
      expect(logins.at(-1)).toMatchObject({ auth: { identity: { password: { user: { name: 'operator', password: 'not-the-password' } } } } });
      await saveScreenshot(page, `login-${width}`);
      expect(await layoutFaults(page)).toEqual([]);
      expect(await accessibilityViolations(page)).toEqual([]);
    });
  }
});
