/**
 * The console's scripts page in chromium against a real Tariff on SQLite with its PyScripts
 * sandbox (one worker: sources are compiled on create and update): the list with states, dates and
 * checksums; the Python editor as its own chunk, fetched only when a source is shown; a compile
 * error at its line and column (a lint marker on that line and the text beside the editor); a
 * script created, a scheduled one changed, a running one only ended or given a new version; a
 * script deleted; axe-core and a screenshot.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { CHROMIUM_AVAILABLE } from './browser.js';
import { accessibilityViolations, saveScreenshot, startConsole, type ConsoleUnderTest } from './harness.js';

const P = '/v1/rating/module_config/pyscripts';
/** The editor's chunk, as Vite names it after its module. */
const EDITOR_CHUNK = /\/console\/assets\/python-editor-[^/]*\.js$/;

interface Script {
  script_id: string;
  name: string;
  data?: string;
  checksum: string;
  description: string | null;
  start: string | null;
  end: string | null;
  deleted: string | null;
}

const sha512 = (text: string) => createHash('sha512').update(text, 'utf8').digest('hex');

/** A source that does not compile: the colon of its `if` is missing, on line 3. */
const BROKEN = 'total = 0\nfactor = 2\nif total > factor\n    total = factor\n';
const FIXED = 'total = 0\nfactor = 2\nif total > factor:\n    total = factor\n';

/**
 * How long a write that compiles may take to show: the sandbox's worker may have to start first
 * (seconds under CI load), longer than expect.poll's default second.
 */
const COMPILED = { timeout: 30_000 };

/** Replaces the whole text of the editor labelled `label` with `text`, typed as one insertion. */
async function replaceSource(page: Page, label: string, text: string): Promise<void> {
  const content = page.getByRole('textbox', { name: label, exact: true });
  await content.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.insertText(text);
}

describe.skipIf(!CHROMIUM_AVAILABLE)('the console scripts page in chromium', () => {
  let tariff: ConsoleUnderTest;
  let page: Page;

  const scripts = async (query = '') => (await tariff.api<{ scripts: Script[] }>('GET', `${P}/scripts${query}`)).scripts;
  const row = (name: string) => page.locator(`tr[data-script="${name}"]`);

  beforeAll(async () => {
    tariff = await startConsole({ environment: { TARIFF_SANDBOX_WORKERS: '1' } });
    page = tariff.page;
    await tariff.api('POST', `${P}/scripts?force=true`, {
      name: 'discount',
      data: 'discount = 1\n',
      description: 'Running discount',
      start: '2020-01-01T00:00:00Z',
    });
    await tariff.api('POST', `${P}/scripts`, {
      name: 'promotion',
      data: 'promotion = 1\n',
      description: 'Next year’s promotion',
      start: '2031-01-01T00:00:00Z',
      end: '2031-02-01T00:00:00Z',
    });
  }, 120_000);

  afterAll(async () => {
    await tariff?.close();
  });

  it('lists the scripts without loading the editor, which is its own chunk fetched when a source is shown', async () => {
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    await page.goto(tariff.at('scripts'));
    await row('promotion').waitFor();
    const promotion = (await scripts()).find((script) => script.name === 'promotion')!;
    const cells = await row('promotion').locator('th, td').allTextContents();
    expect(cells).toEqual([
      'promotion',
      'scheduled',
      '2031-01-01 00:00 UTC',
      '2031-02-01 00:00 UTC',
      'Next year’s promotion',
      promotion.checksum.slice(0, 12),
      'History',
    ]);
    expect(await row('discount').locator('td').first().textContent()).toBe('running');
    expect(await row('discount').getByRole('link', { name: 'History of discount' }).getAttribute('href')).toBe('/console/history/scripts/discount');
    expect(requested.some((url) => url.endsWith('.js'))).toBe(true);
    expect(requested.filter((url) => EDITOR_CHUNK.test(url))).toEqual([]);

    await row('promotion')
      .getByRole('button', { name: /^Open promotion/ })
      .click();
    await page.locator('[data-editor="ready"]').waitFor();
    expect(requested.filter((url) => EDITOR_CHUNK.test(url))).toHaveLength(1);
    // Python highlighting: the keywords are set apart in spans of their own.
    await replaceSource(page, 'Source of script promotion', 'def rate(points):\n    return points\n');
    await expect.poll(() => page.locator('.cm-content .cm-line span').allTextContents()).toEqual(expect.arrayContaining(['def', 'return']));
    page.removeAllListeners('request');
  });

  it('shows a compile error at its line and column, in the editor and beside it, and creates nothing', async () => {
    await page.goto(tariff.at('scripts'));
    await page.getByRole('button', { name: 'New script' }).click();
    await page.locator('[data-editor="ready"]').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('broken');
    await replaceSource(page, 'Source of the new script', BROKEN);
    await page.getByRole('button', { name: 'Create script' }).click();

    // The server's own answer for the same source says where the error is.
    const refused = await fetch(`${tariff.server.url}${P}/scripts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'broken', data: BROKEN }),
    });
    expect(refused.status).toBe(400);
    const { faultstring } = (await refused.json()) as { faultstring: string };
    const [, message, line, column] = /does not compile: (.*) \(line (\d+), column (\d+)\)$/.exec(faultstring)!;
    expect(line).toBe('3');

    const error = page.locator('.script-source-error');
    await expect.poll(() => error.textContent(), COMPILED).toBe(`line 3, column ${column}: ${message}`);
    expect(await error.getAttribute('role')).toBe('alert');
    const content = page.getByRole('textbox', { name: 'Source of the new script', exact: true });
    // The editor marks its content in an update after the message shows (seen under CI load).
    await expect.poll(() => content.getAttribute('aria-invalid')).toBe('true');
    expect(await content.getAttribute('aria-describedby')).toBe(await error.getAttribute('id'));
    // The lint marker lies on the third line, at the column Python gave, and in the gutter beside it.
    const lines = page.locator('.cm-content .cm-line');
    await lines.nth(2).locator('.cm-lintRange-error').waitFor();
    expect(await lines.locator('.cm-lintRange-error').count()).toBe(1);
    const markedOffset = await lines.nth(2).evaluate((line) => {
      const marker = line.querySelector('.cm-lintRange-error')!;
      const range = document.createRange();
      range.setStart(line, 0);
      range.setEndBefore(marker);
      return range.toString().length;
    });
    expect(markedOffset + 1).toBe(Math.min(Number(column), 'if total > factor'.length));
    expect(await page.locator('.cm-gutter-lint .cm-lint-marker-error').count()).toBe(1);
    expect((await scripts()).map((script) => script.name)).not.toContain('broken');
    await saveScreenshot(page, 'scripts');
    expect(await accessibilityViolations(page)).toEqual([]);

    // Fixed, it is saved and listed by the API with the checksum of its source.
    await replaceSource(page, 'Source of the new script', FIXED);
    await page.getByRole('button', { name: 'Create script' }).click();
    await expect.poll(() => page.getByRole('status').textContent(), COMPILED).toBe('Script broken created.');
    const created = (await scripts()).find((script) => script.name === 'broken')!;
    expect(created.checksum).toBe(sha512(FIXED));
    await row('broken').waitFor();
    expect(await row('broken').locator('code').textContent()).toBe(created.checksum.slice(0, 12));
    expect(await row('broken').locator('td').first().textContent()).toBe('running');
  });

  it('changes a scheduled script: its source, description and dates', async () => {
    await page.goto(tariff.at('scripts'));
    await row('promotion')
      .getByRole('button', { name: /^Open promotion/ })
      .click();
    await page.locator('[data-editor="ready"]').waitFor();
    expect(await page.locator('.script-detail').textContent()).toContain('It has not started yet');
    await page.getByLabel('Description', { exact: true }).fill('Promotion, a week later');
    await page.getByLabel('Start (UTC)').fill('2031-01-08T00:00:00');
    await replaceSource(page, 'Source of script promotion', 'promotion = 2\n');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(async () => (await scripts()).find((script) => script.name === 'promotion')?.description, COMPILED).toBe('Promotion, a week later');
    const promotion = (await scripts()).find((script) => script.name === 'promotion')!;
    expect(promotion.start).toBe('2031-01-08T00:00:00+00:00');
    expect(promotion.end).toBe('2031-02-01T00:00:00+00:00');
    expect(promotion.data).toBe('promotion = 2\n');
    expect(promotion.checksum).toBe(sha512('promotion = 2\n'));
    await expect.poll(() => row('promotion').locator('td').nth(1).textContent()).toBe('2031-01-08 00:00 UTC');
  });

  it('only ends a running script, says why, and offers a new version', async () => {
    await page.goto(tariff.at('scripts'));
    await row('discount')
      .getByRole('button', { name: /^Open discount/ })
      .click();
    await page.locator('[data-editor="ready"]').first().waitFor();
    const detail = page.locator('.script-detail');
    expect(await detail.locator('.script-explanation').textContent()).toContain('can no longer change, only its end');
    const runningSource = page.getByRole('textbox', { name: 'Source of script discount (read only)', exact: true });
    expect(await runningSource.getAttribute('contenteditable')).toBe('false');
    expect(await detail.getByLabel('Description').count()).toBe(1); // the new version's only
    expect(await accessibilityViolations(page)).toEqual([]);

    await detail.getByLabel('Ends at (UTC)').fill('2030-06-01T00:00:00');
    await detail.getByRole('button', { name: 'Set the end' }).click();
    await expect.poll(async () => (await scripts()).find((script) => script.name === 'discount')?.end).toBe('2030-06-01T00:00:00+00:00');

    // A new version whose source does not compile: refused at its line, the running one keeps its end.
    await page.locator('[data-editor="ready"]').nth(1).waitFor();
    await detail.getByLabel('New version starts (UTC)').fill('2030-01-01T00:00:00');
    await replaceSource(page, 'Source of the new version of discount', 'discount = (\n');
    await detail.getByRole('button', { name: 'Create the new version' }).click();
    await expect.poll(() => detail.locator('.script-source-error').textContent(), COMPILED).toMatch(/^line 1, column \d+: /);
    let versions = (await scripts()).filter((script) => script.name === 'discount');
    expect(versions.map((script) => script.end)).toEqual(['2030-06-01T00:00:00+00:00']);

    await replaceSource(page, 'Source of the new version of discount', 'discount = 2\n');
    await detail.getByRole('button', { name: 'Create the new version' }).click();
    await expect.poll(async () => (await scripts()).filter((script) => script.name === 'discount').length, COMPILED).toBe(2);
    versions = (await scripts()).filter((script) => script.name === 'discount').sort((a, b) => a.start!.localeCompare(b.start!));
    expect(versions.map((script) => [script.start, script.end, script.data])).toEqual([
      ['2020-01-01T00:00:00+00:00', '2030-01-01T00:00:00+00:00', 'discount = 1\n'],
      ['2030-01-01T00:00:00+00:00', '2030-06-01T00:00:00+00:00', 'discount = 2\n'],
    ]);
    await expect.poll(() => page.locator('tr[data-script="discount"]').count()).toBe(2);
  });

  it('deletes a script after confirming', async () => {
    await page.goto(tariff.at('scripts'));
    await row('broken')
      .getByRole('button', { name: /^Open broken/ })
      .click();
    await page.getByRole('button', { name: 'Delete this script…' }).click();
    expect(await page.locator('#script-delete-question').textContent()).toContain('the deleted version stays in its history');
    await page.getByRole('button', { name: 'Delete broken', exact: true }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Script broken deleted.');
    expect((await scripts()).map((script) => script.name)).not.toContain('broken');
    expect((await scripts('?deleted=true')).find((script) => script.name === 'broken')?.deleted).not.toBeNull();
    await expect.poll(() => row('broken').count()).toBe(0);
  });

  it('works under its Content-Security-Policy: the editor and its styles broke none of it', () => {
    expect(tariff.policyViolations()).toEqual([]);
  });
});
