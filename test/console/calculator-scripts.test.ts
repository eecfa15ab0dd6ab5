/**
 * The calculator's explanation lists each script's effect on the price (issue 26: its total
 * included a pyscripts discount the explanation left out), in chromium against a real Tariff
 * process on SQLite whose sandbox starts for the script.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_AVAILABLE } from './browser.js';
import { startConsole, type ConsoleUnderTest } from './harness.js';

/** 3 × 2 = 6 by the mapping, then 10 % off by the script: 5.4. */
const PRICE_LIST = {
  modules: { hashmap: { enabled: true, priority: 2 }, pyscripts: { enabled: true, priority: 1 } },
  services: { compute: { fields: { flavor: { mappings: [{ value: 'm1.large', cost: '2', name: 'large' }] } } } },
  scripts: [
    {
      name: 'ten-percent-off',
      data: "from decimal import Decimal\nfor point in data['usage'].get('compute', []):\n    point['rating']['price'] = point['rating']['price'] * Decimal('0.9')\n",
      start: '2020-01-01T00:00:00+00:00',
    },
  ],
};

describe.skipIf(!CHROMIUM_AVAILABLE)('the price calculator with a script', () => {
  let tariff: ConsoleUnderTest;

  beforeAll(async () => {
    tariff = await startConsole({ priceList: PRICE_LIST, environment: { TARIFF_SANDBOX_WORKERS: '1' } });
  }, 60_000);

  afterAll(async () => {
    await tariff?.close();
  });

  it("lists the script's effect beside the rules, and the rows add up to the total", async () => {
    const page = tariff.page;
    await page.goto(tariff.at('calculator'));
    await page.getByLabel('Service').selectOption({ label: 'compute' });
    await page.getByLabel('flavor', { exact: true }).fill('m1.large');
    await page.getByLabel('Quantity').fill('3');
    await page.getByRole('button', { name: 'Quote' }).click();
    const total = page.locator('output[data-total]');
    await total.waitFor({ timeout: 90_000 });
    expect(await total.textContent()).toBe('5.4');
    const rows = await page
      .locator('table.calculator-explain tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((cell) => cell.textContent)));
    expect(rows).toEqual([
      ['hashmap', '—', 'field mapping', 'large: flavor = m1.large', 'flat', '2', '6'],
      ['pyscripts', '—', 'script', 'ten-percent-off: price 6 → 5.4', '—', '—', '-0.6'],
    ]);
  }, 120_000);
});
