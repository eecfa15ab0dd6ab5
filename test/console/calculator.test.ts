/**
 * The console's price calculator in chromium against a real Tariff process on SQLite: its total is
 * the API's v2 quote of the same usage (field mappings, a tenant's rule, a group, a service and a
 * field threshold), its explanation names the rules, the fields' known values are offered, and a
 * bad quantity shows the server's fault.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_AVAILABLE } from './browser.js';
import { accessibilityViolations, saveScreenshot, startConsole, type ConsoleUnderTest } from './harness.js';

/**
 * For qty 12 of `m1.large` with `ubuntu` and 64 of memory, tenant `acme`: `_DEFAULT_` gives
 * 2 (acme's flat, replacing the global 2.5) × 12 × 0.8 (the service threshold at 10) = 19.2;
 * `discounts` gives 0.9 (image rate) × 0.15 (memory threshold at 64, a flat) × 12 = 1.62.
 */
const PRICE_LIST = {
  modules: { hashmap: { enabled: true } },
  groups: ['discounts'],
  services: {
    compute: {
      thresholds: [{ level: '10', type: 'rate', cost: '0.8' }],
      fields: {
        flavor: {
          mappings: [
            { value: 'm1.small', cost: '1', name: 'small' },
            { value: 'm1.large', cost: '2.5', name: 'large' },
            { value: 'm1.large', cost: '2', tenant_id: 'acme', name: 'large-acme' },
          ],
        },
        image: { mappings: [{ value: 'ubuntu', type: 'rate', cost: '0.9', group: 'discounts', name: 'ubuntu-discount' }] },
        memory: { thresholds: [{ level: '64', cost: '0.15', group: 'discounts' }] },
      },
    },
    volume: { mappings: [{ cost: '0.01', name: 'volume-gb' }] },
  },
};

describe.skipIf(!CHROMIUM_AVAILABLE)('the price calculator in chromium', () => {
  let tariff: ConsoleUnderTest;

  beforeAll(async () => {
    tariff = await startConsole({ priceList: PRICE_LIST });
  }, 60_000);

  afterAll(async () => {
    await tariff?.close();
  });

  /** The API's total for the usage the form describes, at the rating time the form shows. */
  const apiTotal = async (tenant: string | undefined) => {
    const at = `${await tariff.page.getByLabel('Rating time (UTC)').inputValue()}Z`;
    const answer = await tariff.api<{ total: string }>('POST', '/v2/rating/quote', {
      usage: { compute: [{ vol: { qty: '12' }, metadata: { flavor: 'm1.large', image: 'ubuntu', memory: '64' } }] },
      ...(tenant === undefined ? {} : { tenant_id: tenant }),
      at,
      explain: true,
    });
    return answer.total;
  };

  it('totals a usage as the API quotes it, and names the rules that added to it', async () => {
    const page = tariff.page;
    await page.goto(tariff.at('calculator'));
    await page.getByLabel('Service').selectOption({ label: 'compute' });
    const flavor = page.getByLabel('flavor', { exact: true });
    const offered = await page
      .locator(`datalist#${await flavor.getAttribute('list')} option`)
      .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
    expect(offered).toEqual(['m1.large', 'm1.small']);
    expect(await page.locator(`#${await flavor.getAttribute('aria-describedby')}`).textContent()).toBe(
      '2 known: m1.large, m1.small; empty: absent from the usage',
    );
    const memory = page.getByLabel('memory', { exact: true });
    expect(await page.locator(`#${await memory.getAttribute('aria-describedby')}`).textContent()).toBe(
      'no mapping value; thresholds at 64; empty: absent from the usage',
    );
    await flavor.fill('m1.large');
    await page.getByLabel('image', { exact: true }).fill('ubuntu');
    await page.getByLabel('memory', { exact: true }).fill('64');
    await page.getByLabel('Quantity').fill('12');
    await page.getByLabel('Tenant (optional)').fill('acme');
    await page.getByRole('button', { name: 'Quote' }).click();
    const total = page.locator('output[data-total]');
    await total.waitFor();
    expect(await total.textContent()).toBe(await apiTotal('acme'));
    expect(await total.textContent()).toBe('20.82');

    const rows = await page
      .locator('table.calculator-explain tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((cell) => cell.textContent)));
    expect(rows).toEqual([
      ['hashmap', '—', 'field mapping', 'large-acme: flavor = m1.large (tenant acme)', 'flat', '2', '19.2'],
      ['hashmap', '—', 'service threshold', 'quantity ≥ 10', 'rate', '0.8', '19.2'],
      ['hashmap', 'discounts', 'field mapping', 'ubuntu-discount: image = ubuntu', 'rate', '0.9', '1.62'],
      ['hashmap', 'discounts', 'field threshold', 'memory ≥ 64', 'flat', '0.15', '1.62'],
    ]);
    expect(await page.locator('main').textContent()).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    await saveScreenshot(page, 'calculator');
    expect(await accessibilityViolations(page)).toEqual([]);

    // Without the tenant, the global flavor rule applies: 2.5 × 12 × 0.8 + 1.62.
    await page.getByLabel('Tenant (optional)').fill('');
    await page.getByRole('button', { name: 'Quote' }).click();
    await expect.poll(() => total.textContent()).toBe('25.62');
    expect(await total.textContent()).toBe(await apiTotal(undefined));
  });

  it('offers the tenants the rules are written for', async () => {
    const page = tariff.page;
    await page.goto(tariff.at('calculator'));
    const tenant = page.getByLabel('Tenant (optional)');
    const offered = await page
      .locator(`datalist#${await tenant.getAttribute('list')} option`)
      .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
    expect(offered).toEqual(['acme']);
  });

  it('shows the server’s fault for a bad quantity', async () => {
    const page = tariff.page;
    await page.goto(tariff.at('calculator'));
    await page.getByLabel('Service').selectOption({ label: 'volume' });
    await expect.poll(() => page.getByText('This service has no field').count()).toBe(1);
    await page.getByLabel('Quantity').fill('1e300000');
    await page.getByRole('button', { name: 'Quote' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe(
        "Invalid input for field/attribute usage.volume[0].vol.qty. Value: '1e300000'. Value must be 0 or between 1e-100 and 1e100 in magnitude (TARIFF_DECIMAL_MAX_EXPONENT).",
      );
    expect(await page.locator('output[data-total]').count()).toBe(0);
    // A good quantity then prices it, and the fault goes.
    await page.getByLabel('Quantity').fill('250');
    await page.getByRole('button', { name: 'Quote' }).click();
    await expect.poll(() => page.locator('output[data-total]').textContent()).toBe('2.5');
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await page.locator('table.calculator-explain tbody td').nth(3).textContent()).toBe('volume-gb: every point');
  });
});
