/**
 * The rule editor in chromium against a real Tariff on SQLite, opened from the services page:
 * a scheduled mapping changed, a running one offering only its end (and saying why), ended, given
 * a new version, an ended one deleted, the server's faults at the inputs they name, thresholds
 * created, changed and deleted, a service deleted with its warning, the keyboard, axe-core.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { CHROMIUM_AVAILABLE } from './browser.js';
import { accessibilityViolations, saveScreenshot, startConsole, type ConsoleUnderTest } from './harness.js';

const H = '/v1/rating/module_config/hashmap';
const DAY = 86_400_000;

interface StoredMapping {
  mapping_id: string;
  name: string;
  value: string | null;
  cost: string;
  type: string;
  group_id: string | null;
  start: string;
  end: string | null;
  deleted: string | null;
}

interface StoredThreshold {
  threshold_id: string;
  level: string;
  cost: string;
  type: string;
}

/** A time as a `datetime-local` value in UTC, to the minute (what a user types). */
const typed = (time: number) => new Date(time).toISOString().slice(0, 16);
/** The same time as the API writes it. */
const api = (time: number) => `${new Date(time).toISOString().slice(0, 16)}:00+00:00`;

describe.skipIf(!CHROMIUM_AVAILABLE)('the rule editor in chromium', () => {
  let tariff: ConsoleUnderTest;
  let flavorId: string;
  let discountsId: string;
  const scheduledStart = Math.ceil((Date.now() + 30 * DAY) / 60_000) * 60_000;

  const mappings = async (deleted = false) =>
    (await tariff.api<{ mappings: StoredMapping[] }>('GET', `${H}/mappings${deleted ? '?deleted=true' : ''}`)).mappings;
  const mappingNamed = async (name: string) => (await mappings()).filter((mapping) => mapping.name === name);
  const thresholds = async () => (await tariff.api<{ thresholds: StoredThreshold[] }>('GET', `${H}/thresholds`)).thresholds;

  beforeAll(async () => {
    tariff = await startConsole({
      priceList: {
        groups: ['discounts'],
        services: {
          compute: {
            fields: {
              flavor: {
                mappings: [
                  { value: 'm1.small', cost: '1', name: 'small-price' },
                  { value: 'm1.medium', cost: '1.5', name: 'medium-price' },
                ],
              },
            },
          },
          volume: { mappings: [{ cost: '0.01', name: 'volume-price' }] },
        },
      },
    });
    const { services } = await tariff.api<{ services: { service_id: string; name: string }[] }>('GET', `${H}/services`);
    const compute = services.find((service) => service.name === 'compute')!;
    flavorId = (await tariff.api<{ fields: { field_id: string }[] }>('GET', `${H}/fields?service_id=${compute.service_id}`)).fields[0].field_id;
    discountsId = (await tariff.api<{ groups: { group_id: string }[] }>('GET', `${H}/groups`)).groups[0].group_id;
    await tariff.api('POST', `${H}/mappings`, { field_id: flavorId, value: 'm1.large', cost: '2', name: 'large-price', start: api(scheduledStart) });
    await tariff.api('POST', `${H}/mappings?force=true`, {
      field_id: flavorId,
      value: 'm1.tiny',
      cost: '0.5',
      name: 'old-price',
      start: '2020-01-01T00:00:00Z',
      end: '2021-01-01T00:00:00Z',
    });
  }, 90_000);

  afterAll(async () => {
    await tariff?.close();
  });

  beforeEach(async () => {
    await tariff.page.goto(tariff.at('services'));
    await tariff.page.getByRole('button', { name: 'New service', exact: true }).waitFor();
  });

  /** Opens the editor with the button named `opener`; the dialog. */
  async function open(opener: string): Promise<Locator> {
    await tariff.page.getByRole('button', { name: opener, exact: true }).click();
    const dialog = tariff.page.getByRole('dialog');
    await dialog.waitFor();
    return dialog;
  }

  /** Whether the control labelled `label` can be edited (neither read-only nor disabled). */
  const editable = (dialog: Locator, label: string) => dialog.getByLabel(label, { exact: true }).isEditable();

  it('changes a scheduled mapping: every attribute but its name, only what changed sent', async () => {
    const dialog = await open('Edit mapping large-price');
    expect(await dialog.getByRole('heading').first().textContent()).toBe('Mapping large-price on compute / flavor');
    expect(await dialog.locator('.editor-note').textContent()).toContain('Scheduled');
    expect(await editable(dialog, 'Name')).toBe(false);
    for (const label of ['Value', 'Cost', 'Type', 'Group', 'Tenant', 'Description', 'Start (UTC)', 'End (UTC)'])
      expect(await editable(dialog, label)).toBe(true);
    await dialog.getByLabel('Cost', { exact: true }).fill('2.75');
    await dialog.getByLabel('Group', { exact: true }).selectOption({ label: 'discounts' });
    await dialog.getByLabel('Description', { exact: true }).fill('large flavors');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.waitFor({ state: 'detached' });
    const [large] = await mappingNamed('large-price');
    expect(large).toMatchObject({
      cost: '2.7500000000000000000000000000',
      group_id: discountsId,
      value: 'm1.large',
      start: api(scheduledStart),
      end: null,
    });
  });

  it('offers only the end of a running mapping, says why, and ends it', { timeout: 90_000 }, async () => {
    const dialog = await open('Edit mapping small-price');
    await saveScreenshot(tariff.page, 'editor');
    expect(await accessibilityViolations(tariff.page)).toEqual([]);
    const note = await dialog.locator('.editor-note').textContent();
    expect(note).toMatch(/^Running since \d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? UTC, with no end\./);
    expect(note).toContain('a running mapping can only get an end');
    expect(note).toContain('create a new version with the same name starting when it ends');
    for (const label of ['Value', 'Cost', 'Type', 'Group', 'Tenant', 'Name', 'Description', 'Start (UTC)']) expect(await editable(dialog, label)).toBe(false);
    expect(await editable(dialog, 'End (UTC)')).toBe(true);
    expect(await dialog.getByLabel('End (UTC)', { exact: true }).evaluate((element) => element === document.activeElement)).toBe(true);
    expect(await dialog.getByRole('button', { name: 'New version' }).isVisible()).toBe(true);

    const end = Math.ceil((Date.now() + 2 * DAY) / 60_000) * 60_000;
    await dialog.getByLabel('End (UTC)', { exact: true }).fill(typed(end));
    await dialog.getByRole('button', { name: 'Save end' }).click();
    await dialog.waitFor({ state: 'detached' });
    const [small] = await mappingNamed('small-price');
    expect(small).toMatchObject({ end: api(end), cost: '1.0000000000000000000000000000' });
  });

  it('gives a running mapping a new version: the old ends when the new one, same name, starts', async () => {
    const dialog = await open('Edit mapping medium-price');
    const start = Math.ceil((Date.now() + DAY) / 60_000) * 60_000;
    await dialog.getByLabel('New cost', { exact: true }).fill('1.25');
    await dialog.getByLabel('New version starts (UTC)', { exact: true }).fill(typed(start));
    await dialog.getByRole('button', { name: 'New version' }).click();
    await dialog.waitFor({ state: 'detached' });
    const versions = (await mappingNamed('medium-price')).sort((left, right) => left.start.localeCompare(right.start));
    expect(versions).toHaveLength(2);
    expect(versions[0]).toMatchObject({ value: 'm1.medium', cost: '1.5000000000000000000000000000', end: api(start) });
    expect(versions[1]).toMatchObject({ value: 'm1.medium', cost: '1.2500000000000000000000000000', start: api(start), end: null });
  });

  it('puts the old end back when the new version is refused, and shows why at the new cost', async () => {
    const dialog = await open('Edit mapping volume-price');
    await dialog.getByLabel('New cost', { exact: true }).fill('abc');
    await dialog.getByRole('button', { name: 'New version' }).click();
    const cost = dialog.getByLabel('New cost', { exact: true });
    await expect.poll(() => cost.getAttribute('aria-invalid')).toBe('true');
    expect(await dialog.locator(`#${await cost.getAttribute('aria-describedby')}`).textContent()).toMatch(
      /^Invalid input for field\/attribute cost\. Value: 'abc'/,
    );
    expect(await cost.evaluate((element) => element === document.activeElement)).toBe(true);
    expect(await mappingNamed('volume-price')).toEqual([expect.objectContaining({ end: null, cost: '0.0100000000000000000000000000' })]);
  });

  it('cannot change an ended mapping (and says so), and deletes it softly', async () => {
    const dialog = await open('Edit mapping old-price');
    expect(await dialog.locator('.editor-note').textContent()).toContain('cannot change');
    expect(await editable(dialog, 'End (UTC)')).toBe(false);
    expect(await dialog.getByRole('button', { name: /^Save/ }).count()).toBe(0);
    await dialog.getByRole('button', { name: 'Delete mapping old-price' }).click();
    const confirm = dialog.getByRole('button', { name: 'Yes, delete mapping old-price' });
    expect(await confirm.evaluate((element) => element === document.activeElement)).toBe(true);
    expect(await dialog.locator('#editor-delete-consequence').textContent()).toContain('stays in its history');
    await confirm.click();
    await dialog.waitFor({ state: 'detached' });
    expect(await mappingNamed('old-price')).toEqual([]);
    expect((await mappings(true)).find((mapping) => mapping.name === 'old-price')?.deleted).toMatch(/^\d{4}-/);
  });

  it('shows each server fault at the input it names, marked invalid and focused', { timeout: 90_000 }, async () => {
    const dialog = await open('New mapping on field compute / flavor');
    const expectFaultAt = async (label: string, message: RegExp) => {
      const input = dialog.getByLabel(label, { exact: true });
      await expect.poll(() => input.getAttribute('aria-invalid')).toBe('true');
      expect(await dialog.locator(`#${(await input.getAttribute('aria-describedby'))!.split(' ')[0]}`).textContent()).toMatch(message);
      expect(await input.evaluate((element) => element === document.activeElement)).toBe(true);
      expect(await dialog.locator('[aria-invalid="true"]').count()).toBe(1);
      expect(await dialog.getByRole('alert').count()).toBe(0);
    };
    await dialog.getByLabel('Value', { exact: true }).fill('m1.xlarge');
    await dialog.getByLabel('Cost', { exact: true }).fill('abc');
    await dialog.getByRole('button', { name: 'Create mapping' }).click();
    await expectFaultAt('Cost', /^Invalid input for field\/attribute cost\. Value: 'abc'\./);
    expect(await accessibilityViolations(tariff.page)).toEqual([]);

    await dialog.getByLabel('Cost', { exact: true }).fill('3');
    // small-price (m1.small, no group, running) is the mapping this one would clash with.
    await dialog.getByLabel('Value', { exact: true }).fill('m1.small');
    await dialog.getByRole('button', { name: 'Create mapping' }).click();
    await expectFaultAt('Value', /^Mapping 'm1\.small' already exists for field /);

    await dialog.getByLabel('Value', { exact: true }).fill('m1.xlarge');
    await dialog.getByLabel('Name', { exact: true }).fill('small-price');
    await dialog.getByRole('button', { name: 'Create mapping' }).click();
    await expectFaultAt('Name', /^Mapping name 'small-price' is already used by mapping /);

    await dialog.getByLabel('Name', { exact: true }).fill('xlarge-price');
    await dialog.getByLabel('Start (UTC)', { exact: true }).fill('2020-01-01T00:00');
    await dialog.getByRole('button', { name: 'Create mapping' }).click();
    await expectFaultAt('Start (UTC)', /^Cannot create a rule with start in the past\./);

    await dialog.getByLabel('Start (UTC)', { exact: true }).fill('');
    await dialog.getByRole('button', { name: 'Create mapping' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await mappingNamed('xlarge-price')).toEqual([expect.objectContaining({ value: 'm1.xlarge', cost: '3.0000000000000000000000000000' })]);
  });

  it('creates, changes and deletes a threshold; a duplicate level is refused at the level', async () => {
    let dialog = await open('New threshold on service volume');
    await dialog.getByLabel('Level', { exact: true }).fill('100');
    await dialog.getByLabel('Cost', { exact: true }).fill('0.9');
    await dialog.getByLabel('Type', { exact: true }).selectOption('rate');
    await dialog.getByRole('button', { name: 'Create threshold' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await thresholds()).toEqual([expect.objectContaining({ level: '100.00000000', cost: '0.9000000000000000000000000000', type: 'rate' })]);

    dialog = await open('New threshold on service volume');
    await dialog.getByLabel('Level', { exact: true }).fill('100');
    await dialog.getByLabel('Cost', { exact: true }).fill('0.5');
    await dialog.getByRole('button', { name: 'Create threshold' }).click();
    await expect.poll(() => dialog.getByLabel('Level', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await dialog.locator('#editor-level-error').textContent()).toMatch(/^Threshold '100\.00000000' already exists for service /);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });

    dialog = await open('Edit threshold at level 100 on volume');
    expect(await dialog.getByLabel('Cost', { exact: true }).inputValue()).toBe('0.9');
    await dialog.getByLabel('Cost', { exact: true }).fill('0.8');
    await dialog.getByLabel('Group', { exact: true }).selectOption({ label: 'discounts' });
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await thresholds()).toEqual([expect.objectContaining({ level: '100.00000000', cost: '0.8000000000000000000000000000', group_id: discountsId })]);

    dialog = await open('Edit threshold at level 100 on volume');
    await dialog.getByRole('button', { name: 'Delete threshold at level 100' }).click();
    await dialog.getByRole('button', { name: 'Yes, delete threshold at level 100' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await thresholds()).toEqual([]);
  });

  it('is a keyboard dialog: focus inside on open, Escape closes it unchanged', async () => {
    const dialog = await open('New service');
    expect(await dialog.getByLabel('Name', { exact: true }).evaluate((element) => element === document.activeElement)).toBe(true);
    await tariff.page.keyboard.type('network');
    await tariff.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect((await tariff.api<{ services: { name: string }[] }>('GET', `${H}/services`)).services.map((service) => service.name)).not.toContain('network');
  });

  it('creates a field, refuses a duplicate at its name, and deletes a service with a warning of what goes with it', async () => {
    let dialog = await open('New field on service compute');
    await dialog.getByLabel('Name', { exact: true }).fill('flavor');
    await dialog.getByRole('button', { name: 'Create field' }).click();
    await expect.poll(() => dialog.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await dialog.locator('#editor-name-error').textContent()).toMatch(/^Field flavor already exists/);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });

    dialog = await open('Edit or delete service volume');
    await dialog.getByRole('button', { name: 'Delete service volume' }).click();
    expect(await dialog.locator('#editor-delete-consequence').textContent()).toBe(
      'Deleting service volume also deletes its 0 fields, 1 mapping and 0 thresholds, for good: they leave no history.',
    );
    await dialog.getByRole('button', { name: 'Yes, delete service volume' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await tariff.api<{ services: { name: string }[] }>('GET', `${H}/services`)).services.map((service) => service.name)).toEqual(['compute']);
  });
});
