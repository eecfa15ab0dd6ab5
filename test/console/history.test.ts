/**
 * The console's history page in chromium against a real Tariff on SQLite: a mapping's and a
 * script's versions (ended, running, scheduled, deleted), in start order, with their dates, what
 * they charge or run, and who created, updated and deleted them; by names, never a UUID.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { CHROMIUM_AVAILABLE } from './browser.js';
import { CONSOLE_API_HEADERS, accessibilityViolations, saveScreenshot, startConsole, type ConsoleUnderTest } from './harness.js';

const H = '/v1/rating/module_config/hashmap';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const DATE = /^\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? UTC$/;

/** The versions table's rows, each as its cells' texts. */
async function versionRows(page: Page): Promise<string[][]> {
  // The rows, or the server's fault (which fails the test with its message).
  await page.locator('table.history-table tbody tr, [role="alert"]').first().waitFor();
  if ((await page.getByRole('alert').count()) > 0) throw new Error(`the page shows a fault: ${await page.getByRole('alert').textContent()}`);
  return page
    .locator('table.history-table tbody tr')
    .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent ?? '')));
}

describe.skipIf(!CHROMIUM_AVAILABLE)('the console history page in chromium', () => {
  let tariff: ConsoleUnderTest;
  let checksums: { first: string; second: string };

  /** Calls the v1 API as `user` (the audit columns' `*_by`). */
  const as = async <T>(user: string, method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${tariff.server.url}${path}`, {
      method,
      headers: { ...CONSOLE_API_HEADERS, 'content-type': 'application/json', 'x-user-id': user },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  };

  beforeAll(async () => {
    tariff = await startConsole({
      environment: { TARIFF_SANDBOX_WORKERS: '1' },
      priceList: {
        services: {
          compute: {
            fields: {
              flavor: {
                mappings: [
                  { value: 'm1.large', cost: '2', name: 'm1-large', end: '2030-01-01T00:00:00Z' },
                  { value: 'm1.large', cost: '3', name: 'm1-large', start: '2030-01-01T00:00:00Z', end: '2035-01-01T00:00:00Z' },
                  { value: 'm1.small', cost: '1', name: 'm1-small' },
                ],
              },
            },
          },
        },
        scripts: [
          { name: 'discount', data: 'data = data\n', description: 'first', end: '2030-01-01T00:00:00Z' },
          { name: 'discount', data: '# second\ndata = data\n', description: 'second', start: '2030-01-01T00:00:00Z' },
        ],
      },
    });
    const { services } = await tariff.api<{ services: { service_id: string; name: string }[] }>('GET', `${H}/services`);
    const { fields } = await tariff.api<{ fields: { field_id: string }[] }>('GET', `${H}/fields?service_id=${services[0].service_id}`);
    const field_id = fields[0].field_id;
    // The oldest version, ended: only the v1 API's force creates a rule in the past.
    await as('alice', 'POST', `${H}/mappings?force=true`, {
      field_id,
      value: 'm1.large',
      cost: '1',
      name: 'm1-large',
      start: '2020-01-01T00:00:00+00:00',
      end: '2021-01-01T00:00:00+00:00',
    });
    // A later version created, then deleted before it ever started.
    const { mapping_id } = await as<{ mapping_id: string }>('alice', 'POST', `${H}/mappings`, {
      field_id,
      value: 'm1.large',
      tenant_id: 'demo',
      cost: '5',
      name: 'm1-large',
      start: '2040-01-01T00:00:00+00:00',
    });
    await as('bob', 'DELETE', `${H}/mappings/${mapping_id}`);
    // The running version ends earlier than the price list said.
    const { mappings } = await tariff.api<{ mappings: { mapping_id: string; name: string; cost: string }[] }>('GET', `${H}/mappings`);
    const running = mappings.find((mapping) => mapping.name === 'm1-large' && Number(mapping.cost) === 2)!;
    await as('carol', 'PUT', `${H}/mappings/${running.mapping_id}`, { end: '2029-06-01T00:00:00+00:00' });
    const { scripts } = await tariff.api<{ scripts: { description: string; checksum: string }[] }>(
      'GET',
      '/v1/rating/module_config/pyscripts/scripts?no_data=true',
    );
    // A wait that never ends fails with what it waited for, within the test's time.
    tariff.page.setDefaultTimeout(15_000);
    checksums = {
      first: scripts.find((script) => script.description === 'first')!.checksum,
      second: scripts.find((script) => script.description === 'second')!.checksum,
    };
  }, 120_000);

  afterAll(async () => {
    await tariff?.close();
  });

  it('shows a mapping’s versions in start order with their states, dates, costs and authors', async () => {
    const { page } = tariff;
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(tariff.at('history/mappings/m1-large'));
    await expect.poll(() => page.locator('h1').textContent()).toBe('History of mapping m1-large');
    const rows = await versionRows(page);
    expect(rows.map((row) => row.slice(0, 4))).toEqual([
      ['1', 'ended', '2020-01-01 00:00 UTC', '2021-01-01 00:00 UTC'],
      ['2', 'running', rows[1][2], '2029-06-01 00:00 UTC'],
      ['3', 'scheduled', '2030-01-01 00:00 UTC', '2035-01-01 00:00 UTC'],
      ['4', 'deleted', '2040-01-01 00:00 UTC', '—'],
    ]);
    expect(rows[1][2]).toMatch(DATE);
    // Service / field, value, type, cost, group, tenant, description.
    expect(rows.map((row) => row.slice(4, 11))).toEqual([
      ['compute / flavor', 'm1.large', 'flat', '1', '—', '—', '—'],
      ['compute / flavor', 'm1.large', 'flat', '2', '—', '—', '—'],
      ['compute / flavor', 'm1.large', 'flat', '3', '—', '—', '—'],
      ['compute / flavor', 'm1.large', 'flat', '5', '—', 'demo', '—'],
    ]);
    // Created, updated by, deleted.
    expect(rows[0][11]).toMatch(/ UTC by alice$/);
    expect(rows[1][11]).toMatch(/ UTC by unknown$/);
    expect(rows[1][12]).toBe('carol');
    expect(rows[3][13]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? UTC by bob$/);
    expect(rows.slice(0, 3).map((row) => row[13])).toEqual(['—', '—', '—']);
    expect(await page.getByRole('status').textContent()).toBe('4 versions, oldest start first.');
    expect(await page.locator('.history-timeline .history-bar').count()).toBe(4);
    expect(await page.locator('body').innerHTML()).not.toMatch(UUID);
    await saveScreenshot(page, 'history');
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('shows a script’s versions with their checksums and descriptions', async () => {
    const { page } = tariff;
    await page.goto(tariff.at('history/scripts/discount'));
    await expect.poll(() => page.locator('h1').textContent()).toBe('History of script discount');
    const rows = await versionRows(page);
    expect(rows.map((row) => [row[0], row[1], row[3], row[4], row[5]])).toEqual([
      ['1', 'running', '2030-01-01 00:00 UTC', checksums.first, 'first'],
      ['2', 'scheduled', '—', checksums.second, 'second'],
    ]);
    expect(checksums.first).not.toBe(checksums.second);
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('says when no rule was ever named so, and when the kind is unknown', async () => {
    const { page } = tariff;
    await page.goto(tariff.at('history/mappings/no-such-rule'));
    await expect.poll(() => page.getByRole('status').textContent()).toBe('No mapping was ever named no-such-rule.');
    await page.goto(tariff.at('history/groups/m1-large'));
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('There is no history of groups: only of mappings and scripts.');
  });

  it('is reached from the services page’s history link', async () => {
    const { page } = tariff;
    await page.goto(tariff.at('services'));
    await page.getByRole('link', { name: 'History of mapping m1-small' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('History of mapping m1-small');
    expect((await versionRows(page)).map((row) => row.slice(0, 2))).toEqual([['1', 'running']]);
  });

  it('names a mapping whose name was generated by where it applies', async () => {
    const { page } = tariff;
    const { services } = await tariff.api<{ services: { service_id: string }[] }>('GET', `${H}/services`);
    const { fields } = await tariff.api<{ fields: { field_id: string }[] }>('GET', `${H}/fields?service_id=${services[0].service_id}`);
    const { name } = await as<{ name: string }>('alice', 'POST', `${H}/mappings`, { field_id: fields[0].field_id, value: 'm1.tiny', cost: '0.5' });
    expect(name).toMatch(/^[0-9a-f]{32}$/);
    await page.goto(tariff.at(`history/mappings/${name}`));
    await expect.poll(() => page.locator('h1').textContent()).toBe('History of mapping compute / flavor = m1.tiny');
  });
});
