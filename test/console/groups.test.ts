/**
 * The console's groups page in chromium against a real Tariff on SQLite: the groups with their
 * rule counts, a group created (and a duplicate name refused with the server's fault), a group's
 * rules by names, and both deletions checked through the API: rules detached, or deleted with the
 * group.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { CHROMIUM_AVAILABLE } from './browser.js';
import { accessibilityViolations, saveScreenshot, startConsole, type ConsoleUnderTest } from './harness.js';

const H = '/v1/rating/module_config/hashmap';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

interface Group {
  group_id: string;
  name: string;
}
interface Rule {
  group_id: string | null;
  deleted?: string | null;
}

/** The counts the list shows for the group named `name`: [mappings, thresholds]. */
async function countsOf(page: Page, name: string): Promise<string[]> {
  const row = page.locator(`tr[data-group="${name}"]`);
  await row.waitFor();
  return [await row.locator('td[data-count="mappings"]').textContent(), await row.locator('td[data-count="thresholds"]').textContent()].map(String);
}

describe.skipIf(!CHROMIUM_AVAILABLE)('the console groups page in chromium', () => {
  let tariff: ConsoleUnderTest;
  let page: Page;

  const groups = async () => (await tariff.api<{ groups: Group[] }>('GET', `${H}/groups`)).groups;
  const groupId = async (name: string) => (await groups()).find((group) => group.name === name)!.group_id;

  beforeAll(async () => {
    tariff = await startConsole({
      priceList: {
        groups: ['discounts', 'night', 'weekend'],
        services: {
          compute: {
            fields: {
              flavor: {
                mappings: [
                  { value: 'm1.small', cost: '1', name: 'm1-small' },
                  { value: 'm1.large', cost: '2.50', name: 'm1-large', group: 'discounts', tenant_id: 'demo' },
                  { value: 'm1.xlarge', cost: '4', name: 'm1-xlarge', group: 'night' },
                ],
                thresholds: [{ level: '10', type: 'rate', cost: '0.9', group: 'discounts' }],
              },
            },
          },
          volume: {
            mappings: [{ cost: '0.01', name: 'volume-discount', group: 'discounts', type: 'rate' }],
            thresholds: [{ level: '100', cost: '0.5', group: 'night' }],
          },
        },
      },
    });
    page = tariff.page;
  }, 60_000);

  afterAll(async () => {
    await tariff?.close();
  });

  it('lists the groups with how many mappings and thresholds each holds', async () => {
    await page.goto(tariff.at('groups'));
    await expect.poll(() => page.locator('h1').textContent()).toBe('Groups');
    await page.locator('tr[data-group]').first().waitFor();
    expect(await page.locator('tbody th').allTextContents()).toEqual(['discounts', 'night', 'weekend']);
    expect(await countsOf(page, 'discounts')).toEqual(['2', '1']);
    expect(await countsOf(page, 'night')).toEqual(['1', '1']);
    expect(await countsOf(page, 'weekend')).toEqual(['0', '0']);
  });

  it('shows a group’s rules by names, with their costs', async () => {
    await page.goto(tariff.at('groups'));
    await page.getByRole('button', { name: 'Show the rules of discounts' }).click();
    const section = page.locator('section.group-rules');
    await expect.poll(() => section.locator('h2').textContent()).toBe('Rules of group discounts');
    await section.locator('tbody tr').first().waitFor();
    const rows = await section
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent ?? '')));
    expect(rows).toHaveLength(3);
    expect(rows).toContainEqual(['mapping m1-large', 'compute', 'flavor', 'm1.large', 'flat', '2.5', 'demo', 'running']);
    expect(rows).toContainEqual(['mapping volume-discount', 'volume', '—', '—', 'rate', '0.01', '—', 'running']);
    expect(rows).toContainEqual(['threshold', 'compute', 'flavor', '10', 'rate', '0.9', '—', '—']);
    expect(await page.locator('main').textContent()).not.toMatch(UUID);
    await saveScreenshot(page, 'groups');
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('creates a group, and shows the server’s fault for a name in use', async () => {
    await page.goto(tariff.at('groups'));
    await page.getByLabel('Name').fill('reserved');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.locator('tr[data-group="reserved"]').waitFor();
    expect((await groups()).map((group) => group.name)).toContain('reserved');
    expect(await countsOf(page, 'reserved')).toEqual(['0', '0']);

    await page.getByLabel('Name').fill('discounts');
    await page.getByLabel('Name').press('Enter');
    await expect.poll(() => page.locator('form.group-create [role="alert"]').textContent()).toMatch(/^Group discounts already exists \(UUID: /);
    expect(await page.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    expect((await groups()).filter((group) => group.name === 'discounts')).toHaveLength(1);
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('deletes a group without its rules: they stay, detached', async () => {
    const night = await groupId('night');
    await page.goto(tariff.at('groups'));
    await page.getByRole('button', { name: 'Delete night…' }).click();
    const form = page.locator('form.group-delete');
    await expect.poll(() => form.textContent()).toContain('night holds 1 mapping and 1 threshold');
    expect(await form.textContent()).toContain('Detach them: the 1 mapping and 1 threshold stay and go on rating, without a group.');
    expect(await accessibilityViolations(page)).toEqual([]);
    // The default is the non-recursive delete.
    await form.getByRole('button', { name: 'Delete night, keep its rules' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Group night deleted.');
    await expect.poll(() => page.locator('tr[data-group="night"]').count()).toBe(0);
    expect((await groups()).map((group) => group.name)).not.toContain('night');

    const mappings = (await tariff.api<{ mappings: (Rule & { name: string })[] }>('GET', `${H}/mappings`)).mappings;
    const xlarge = mappings.find((mapping) => mapping.name === 'm1-xlarge')!;
    expect(xlarge.group_id).toBeNull();
    expect(xlarge.deleted).toBeNull();
    const thresholds = (await tariff.api<{ thresholds: (Rule & { level: string })[] }>('GET', `${H}/thresholds`)).thresholds;
    expect(thresholds.find((threshold) => threshold.level === '100.00000000')?.group_id).toBeNull();
    expect([...mappings, ...thresholds].some((rule: Rule) => rule.group_id === night)).toBe(false);
  });

  it('deletes a group with its rules: mappings soft-deleted, thresholds deleted', async () => {
    const discounts = await groupId('discounts');
    await page.goto(tariff.at('groups'));
    await page.getByRole('button', { name: 'Delete discounts…' }).click();
    const form = page.locator('form.group-delete');
    // By the keyboard: the second choice, then the confirmation.
    await form.getByLabel(/Delete them with the group/).check();
    await expect.poll(() => form.getByRole('button', { name: 'Delete discounts and its rules' }).count()).toBe(1);
    await form.getByRole('button', { name: 'Delete discounts and its rules' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Group discounts deleted.');
    await expect.poll(() => page.locator('tr[data-group="discounts"]').count()).toBe(0);
    expect((await groups()).map((group) => group.name)).not.toContain('discounts');

    const all = (await tariff.api<{ mappings: (Rule & { name: string })[] }>('GET', `${H}/mappings?deleted=true`)).mappings;
    for (const name of ['m1-large', 'volume-discount']) {
      const mapping = all.find((candidate) => candidate.name === name)!;
      expect(mapping.deleted, name).not.toBeNull();
    }
    expect(all.find((mapping) => mapping.name === 'm1-small')?.deleted).toBeNull();
    const thresholds = (await tariff.api<{ thresholds: (Rule & { level: string })[] }>('GET', `${H}/thresholds`)).thresholds;
    expect(thresholds.map((threshold) => threshold.level)).toEqual(['100.00000000']);
    expect(thresholds.some((threshold) => threshold.group_id === discounts)).toBe(false);
  });
});
