/**
 * The quote-only price calculator (a user whom `rating:quote` allows but not
 * `rating:module_config`) in chromium against a real Tariff process on SQLite, without Keystone:
 * the session the console reads is answered as such a user's (the API itself is noauth). The
 * names are typed, the total is the API's v2 quote of the same usage, the explanation shows what
 * the answer gives (no rule names), no configuration route is called, a field named twice and a
 * misspelled service are explained, and axe-core finds nothing. test/console/keystone.test.ts
 * does the same with a real member of a real Keystone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_AVAILABLE } from './browser.js';
import { accessibilityViolations, startConsole, type ConsoleUnderTest } from './harness.js';

/**
 * For qty 12 of `m1.large` with 64 of memory: `_DEFAULT_` gives 2.5 × 12 × 0.8 (the service
 * threshold at 10) = 24; `discounts` 0.15 × 12 (the memory threshold at 64) = 1.8.
 */
const PRICE_LIST = {
  modules: { hashmap: { enabled: true } },
  groups: ['discounts'],
  services: {
    compute: {
      thresholds: [{ level: '10', type: 'rate', cost: '0.8' }],
      fields: {
        flavor: { mappings: [{ value: 'm1.large', cost: '2.5', name: 'large' }] },
        memory: { thresholds: [{ level: '64', cost: '0.15', group: 'discounts' }] },
      },
    },
  },
};

/** `GET /console/session` as a project member's under CloudKitty's default policy. */
const MEMBER_SESSION = {
  mode: 'keystone',
  user: { id: 'member-id', name: 'demo-member' },
  project: { id: 'demo-id', name: 'demo' },
  allowed: { 'rating:quote': true, 'rating:module_config': false, 'v2_rating:list_modules': false },
};

describe.skipIf(!CHROMIUM_AVAILABLE)('the quote-only price calculator in chromium', () => {
  let tariff: ConsoleUnderTest;
  /** Every API path the page asked for (not the console's own files and session). */
  const asked: string[] = [];

  beforeAll(async () => {
    tariff = await startConsole({ priceList: PRICE_LIST });
    await tariff.page.route('**/console/session', (route) => route.fulfill({ json: MEMBER_SESSION }));
    tariff.page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (!path.startsWith('/console/')) asked.push(`${request.method()} ${path}`);
    });
  }, 60_000);

  afterAll(async () => {
    await tariff?.close();
  });

  it('prices typed names as the API quotes them, and shows what the answer gives', async () => {
    const page = tariff.page;
    await page.goto(tariff.at('calculator'));
    await page.getByRole('heading', { name: 'Price calculator' }).waitFor();
    expect(await page.locator('nav[aria-label="Console"] a').allTextContents()).toEqual(['Price calculator']);
    expect(await page.locator('.calculator-quote-only').textContent()).toBe(
      'The known services, fields and values are not offered: your role does not allow reading the rating configuration (rating:module_config). Type them as the configuration spells them.',
    );
    expect(await page.locator('datalist').count()).toBe(0);

    await page.getByLabel('Service', { exact: true }).fill('compute');
    await page.getByLabel('Field 1 name').fill('flavor');
    await page.getByLabel('Field 1 value').fill('m1.large');
    await page.getByRole('button', { name: 'Add a field' }).click();
    await page.getByLabel('Field 2 name').fill('memory');
    await page.getByLabel('Field 2 value').fill('64');
    // A third row left without a name is not sent.
    await page.getByRole('button', { name: 'Add a field' }).click();
    await page.getByLabel('Quantity').fill('12');
    await page.getByRole('button', { name: 'Quote' }).click();
    const total = page.locator('output[data-total]');
    await total.waitFor();

    const at = `${await page.getByLabel('Rating time (UTC)').inputValue()}Z`;
    const answer = await tariff.api<{ total: string }>('POST', '/v2/rating/quote', {
      usage: { compute: [{ vol: { qty: '12' }, metadata: { flavor: 'm1.large', memory: '64' } }] },
      at,
      explain: true,
    });
    expect(await total.textContent()).toBe(answer.total);
    expect(answer.total).toBe('25.8');
    expect(await page.locator('table.calculator-explain thead th').allTextContents()).toEqual(['Module', 'Group', 'Kind', 'Type', 'Cost', 'Group’s amount']);
    const rows = await page
      .locator('table.calculator-explain tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((cell) => cell.textContent)));
    expect(rows).toEqual([
      ['hashmap', '—', 'field mapping', 'flat', '2.5', '24'],
      ['hashmap', '—', 'service threshold', 'rate', '0.8', '24'],
      ['hashmap', 'discounts', 'field threshold', 'flat', '0.15', '1.8'],
    ]);
    expect(await page.locator('main').textContent()).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-|[0-9a-f]{32}/);
    expect(await accessibilityViolations(page)).toEqual([]);

    // Removing the memory field: its threshold no longer applies.
    await page.getByRole('button', { name: 'Remove field 2' }).click();
    expect(await page.getByLabel('Field 2 name').inputValue()).toBe('');
    await page.getByRole('button', { name: 'Quote' }).click();
    await expect.poll(() => total.textContent()).toBe('24');
    expect(asked.filter((request) => request !== 'POST /v2/rating/quote')).toEqual([]);
  });

  it('refuses a field named twice, and says why a misspelled service costs nothing', async () => {
    const page = tariff.page;
    await page.goto(tariff.at('calculator'));
    await page.getByLabel('Service', { exact: true }).fill('computer');
    await page.getByLabel('Field 1 name').fill('flavor');
    await page.getByLabel('Field 1 value').fill('m1.large');
    await page.getByRole('button', { name: 'Add a field' }).click();
    await page.getByLabel('Field 2 name').fill(' flavor ');
    await page.getByLabel('Field 2 value').fill('m1.small');
    await page.getByRole('button', { name: 'Quote' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('The field flavor is given twice: give each field once.');

    await page.getByRole('button', { name: 'Remove field 2' }).click();
    await page.getByRole('button', { name: 'Quote' }).click();
    await expect.poll(() => page.locator('output[data-total]').textContent()).toBe('0');
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await page.locator('.calculator-result p.hint').textContent()).toContain('are the service and field names spelled as in the rating configuration');
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(asked.filter((request) => request !== 'POST /v2/rating/quote')).toEqual([]);
  });
});
