/**
 * The console's price-list page in chromium against a real Tariff process on SQLite: an uploaded
 * document's dry-run diff, applied after confirming (the rules change, as the API then exports
 * them); a bad pasted document's problems by line; the export downloaded as a file; a
 * configuration changed between the dry run and the apply refused with the server's 409; the
 * unversioned changes refused at a later effective time, then allowed with unversioned_now.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_AVAILABLE } from './browser.js';
import { accessibilityViolations, saveScreenshot, startConsole, type ConsoleUnderTest } from './harness.js';

const H = '/v1/rating/module_config/hashmap';

const PRICE_LIST = {
  modules: { hashmap: { enabled: true } },
  services: {
    compute: {
      thresholds: [{ level: '10', type: 'rate', cost: '0.9' }],
      fields: {
        flavor: {
          mappings: [
            { value: 'm1.small', cost: '1', name: 'small' },
            { value: 'm1.large', cost: '2', name: 'large' },
          ],
        },
      },
    },
    volume: { mappings: [{ cost: '0.01', name: 'volume-gb' }] },
  },
};

/** m1.small costs more, m1.large goes, m1.xlarge comes, the threshold's cost changes, volume's mapping ends. */
const UPLOADED = `services:
  compute:
    thresholds:
      - {level: '10', type: rate, cost: '0.8'}
    fields:
      flavor:
        mappings:
          - {value: m1.small, cost: '1.5', name: small}
          - {value: m1.xlarge, cost: '4', name: xlarge}
  volume: {}
`;

/** Two problems: a bad cost on line 6, a field mapping without a value on line 7. */
const BAD = `services:
  compute:
    fields:
      flavor:
        mappings:
          - {value: m1.small, cost: abc}
          - {cost: '2'}
`;

/** The export as the API gives it, without its `at` (the time of each export). */
function withoutAt(text: string): string {
  return text.replace(/^at: .*\n/m, '');
}

describe.skipIf(!CHROMIUM_AVAILABLE)('the price-list page in chromium', () => {
  let tariff: ConsoleUnderTest;

  const exported = async () => tariff.api<{ revision: number; services: Record<string, any> }>('GET', '/v2/rating/price_list');
  const counts = async () =>
    Object.fromEntries(
      await Promise.all(
        ['added', 'replaced', 'ended', 'deleted', 'updated', 'created'].map(async (action) => [
          action,
          await tariff.page.locator(`.price-list-diff dd[data-count="${action}"]`).first().textContent(),
        ]),
      ),
    );

  beforeAll(async () => {
    tariff = await startConsole({ priceList: PRICE_LIST });
  }, 60_000);

  afterAll(async () => {
    await tariff?.close();
  });

  it('shows an uploaded document’s diff, applies it after confirming, and the rules change', async () => {
    const page = tariff.page;
    await page.goto(tariff.at('price-list'));
    await page.getByLabel('Upload a file (YAML or JSON)').setInputFiles({ name: 'prices.yaml', mimeType: 'application/yaml', buffer: Buffer.from(UPLOADED) });
    await expect.poll(() => page.getByRole('textbox', { name: 'Document (from prices.yaml)' }).inputValue()).toBe(UPLOADED);
    await page.getByRole('button', { name: 'Show the changes (dry run)' }).click();
    await page.getByRole('heading', { name: 'Changes of this document (dry run)' }).waitFor();
    expect(await counts()).toEqual({ added: '1', replaced: '1', ended: '2', deleted: '0', updated: '1', created: '0' });
    const replaced = page.locator('tr[data-action="replaced"]');
    expect(await replaced.locator('td').nth(2).textContent()).toBe('services[compute].fields[flavor].mappings[value=m1.small]');
    /** An attribute's value on one side of the change (3: before, 4: after), and whether it is marked as changing. */
    const attribute = async (side: number, name: string) => {
      const pair = replaced
        .locator('td')
        .nth(side)
        .locator('div', { has: page.locator('dt', { hasText: new RegExp(`^${name}$`) }) });
      return [await pair.locator('dd').textContent(), await pair.locator('mark').count()];
    };
    expect(await attribute(3, 'cost')).toEqual(['1', 1]);
    expect(await attribute(4, 'cost')).toEqual(['1.5', 1]);
    expect(await attribute(4, 'name')).toEqual(['small', 0]);
    expect(await attribute(4, 'type')).toEqual(['flat', 0]);
    expect(await page.locator('tr[data-action="ended"] td:nth-child(3)').allTextContents()).toEqual([
      'services[compute].fields[flavor].mappings[value=m1.large]',
      'services[volume].mappings[default]',
    ]);
    expect(await page.locator('main').textContent()).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    // Nothing is written by the dry run.
    expect((await exported()).services.compute.fields.flavor.mappings.map((mapping: { cost: string }) => mapping.cost)).toEqual(['2', '1']);

    await page.getByRole('button', { name: 'Apply these changes…' }).click();
    const confirm = page.getByRole('group', { name: 'Apply 5 changes?' });
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Apply');
    await saveScreenshot(page, 'price-list');
    expect(await accessibilityViolations(page)).toEqual([]);
    await confirm.getByRole('button', { name: 'Apply', exact: true }).click();
    await page.getByRole('heading', { name: /^Applied: configuration revision \d+$/ }).waitFor();

    const after = await exported();
    expect(after.services.compute.fields.flavor.mappings).toEqual([
      { value: 'm1.small', cost: '1.5', name: 'small' },
      { value: 'm1.xlarge', cost: '4', name: 'xlarge' },
    ]);
    expect(after.services.compute.thresholds).toEqual([{ level: '10', type: 'rate', cost: '0.8' }]);
    expect(after.services.volume ?? {}).toEqual({});
    const { mappings } = await tariff.api<{ mappings: { name: string; end: string | null }[] }>('GET', `${H}/mappings`);
    expect(mappings.find((mapping) => mapping.name === 'large')?.end).not.toBeNull();
  });

  it('lists a bad document’s problems with their lines, and selects a problem’s line', async () => {
    const page = tariff.page;
    await page.goto(tariff.at('price-list'));
    await page.getByRole('textbox', { name: 'Document' }).fill(BAD);
    await page.getByRole('button', { name: 'Show the changes (dry run)' }).click();
    const problems = page.locator('.price-list-problems li');
    await problems.first().waitFor();
    expect(await page.getByRole('heading', { name: 'The document has 2 problems' }).count()).toBe(1);
    expect(await problems.allTextContents()).toEqual([
      "line 6, column 31 services[compute].fields[flavor].mappings[0].cost: Invalid input for field/attribute cost. Value: 'abc'. Value must be a finite decimal number. Show line 6",
      'line 7, column 13 services[compute].fields[flavor].mappings[1].value: a field mapping needs a value Show line 7',
    ]);
    expect(await page.getByRole('alert').textContent()).toMatch(/^The price list has 2 problems:/);
    await page.getByRole('button', { name: 'Show line 7' }).click();
    const selected = await page
      .getByRole('textbox', { name: 'Document' })
      .evaluate((area: HTMLTextAreaElement) => area.value.slice(area.selectionStart, area.selectionEnd));
    expect(selected).toBe("          - {cost: '2'}");
    expect(await page.locator('.price-list-diff').count()).toBe(0);
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('downloads the export as a file, and the export applied again changes nothing', async () => {
    const page = tariff.page;
    await page.goto(tariff.at('price-list'));
    await page.locator('#price-list-export-format').selectOption('yaml');
    await page.getByRole('button', { name: 'Export' }).click();
    const link = page.getByRole('link', { name: 'Download price-list.yaml' });
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe('price-list.yaml');
    const downloaded = readFileSync(await download.path(), 'utf8');
    const response = await fetch(`${tariff.server.url}/v2/rating/price_list`, { headers: { accept: 'application/yaml' } });
    expect(withoutAt(downloaded)).toBe(withoutAt(await response.text()));
    expect(downloaded).toContain('value: m1.xlarge');

    await page.getByRole('button', { name: 'Edit it below' }).click();
    expect(await page.getByRole('textbox', { name: 'Document' }).inputValue()).toBe(downloaded);
    await page.getByRole('button', { name: 'Show the changes (dry run)' }).click();
    await page.getByText('No change: the configuration already says what this document says.').waitFor();
    expect(await page.getByRole('button', { name: 'Apply these changes…' }).count()).toBe(0);
  });

  it('refuses the apply with the server’s 409 when the configuration changed since the dry run', async () => {
    const page = tariff.page;
    await page.goto(tariff.at('price-list'));
    const document = JSON.stringify({ services: { compute: { fields: { flavor: { mappings: [{ value: 'm1.small', cost: '9', name: 'small' }] } } } } });
    await page.getByRole('textbox', { name: 'Document' }).fill(document);
    await page.getByRole('button', { name: 'Show the changes (dry run)' }).click();
    await page.getByRole('heading', { name: 'Changes of this document (dry run)' }).waitFor();
    const { revision } = await exported();
    await tariff.api('POST', `${H}/groups`, { name: 'late-change' });
    await page.getByRole('button', { name: 'Apply these changes…' }).click();
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe(`The configuration changed since revision ${revision}: it is at revision ${revision + 1}. Export it again and review the diff.`);
    expect(await page.locator('.price-list-diff').count()).toBe(0);
    expect((await exported()).services.compute.fields.flavor.mappings.find((mapping: { value: string }) => mapping.value === 'm1.small').cost).toBe('1.5');
  });

  it('explains unversioned changes refused at a later effective time, and sends unversioned_now', async () => {
    const page = tariff.page;
    await page.goto(tariff.at('price-list'));
    const current = await tariff.api<{ modules: Record<string, { priority: number }> }>('GET', '/v2/rating/price_list');
    current.modules.hashmap.priority = 5;
    await page.getByRole('textbox', { name: 'Document' }).fill(JSON.stringify(current, null, 2));
    await page.getByLabel('Effective at (UTC)').fill('2030-01-01T00:00:00');
    await page.getByRole('button', { name: 'Show the changes (dry run)' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe(
        'Thresholds and module states are not versioned: they would change now, not at effective_at=[2030-01-01 00:00:00]. Changed: modules[hashmap]. Apply them with unversioned_now=true, or separately.',
      );
    expect(await page.locator('[data-unversioned-explained]').count()).toBe(1);
    await page.getByLabel('Change thresholds and module states now (unversioned_now)').check();
    await page.getByRole('button', { name: 'Show the changes (dry run)' }).click();
    await page.getByRole('heading', { name: 'Changes of this document (dry run)' }).waitFor();
    expect(await counts()).toEqual({ added: '0', replaced: '0', ended: '0', deleted: '0', updated: '1', created: '0' });
    expect(await page.locator('.price-list-diff > p').first().textContent()).toContain('Effective at 2030-01-01 00:00 UTC');
    expect(await page.locator('[data-unversioned-explained]').count()).toBe(0);
  });
});
