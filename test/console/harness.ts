/**
 * What every console test needs: a real Tariff process on a fresh SQLite file, a price list
 * applied to it, Debian's chromium, a screenshot of each page (`test-results/console/<name>.png`),
 * an axe-core check of the page in front of it, and the Content-Security-Policy violations the
 * page reported (issue 24, finding 9: the console must work under its policy).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { startServerProcess, type ServerProcess } from '../helpers/server.js';
import { launchBrowser, type Browser } from './browser.js';

/** Where the tests save each page's screenshot (the README shows two of them, from docs/screenshots). */
export const SCREENSHOTS = fileURLToPath(new URL('../../test-results/console/', import.meta.url));

/** A running Tariff with a browser page pointed at it. */
export interface ConsoleUnderTest {
  server: ServerProcess;
  browser: Browser;
  page: Page;
  /** The console's address for a path below it (`services` → `http://…/console/services`). */
  at(path?: string): string;
  /** Calls the API directly (the tests' view of what the console did); JSON answer or undefined. */
  api<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** Every Content-Security-Policy violation the page reported so far (see {@link watchContentSecurityPolicy}). */
  policyViolations(): string[];
  close(): Promise<void>;
}

/** What the console's own calls ask for besides JSON (console/src/api/client.ts): instants with offsets, updated objects with 200. */
export const CONSOLE_API_HEADERS: Readonly<Record<string, string>> = { 'x-tariff-datetimes': 'offset', prefer: 'return=representation' };

/**
 * Starts Tariff on a new SQLite file (with `environment` added), applies `priceList` through
 * `POST /v2/rating/price_list` when given, and opens chromium.
 *
 * @throws Error when the price list is refused.
 */
export async function startConsole(options: { priceList?: unknown; environment?: Record<string, string> } = {}): Promise<ConsoleUnderTest> {
  const directory = mkdtempSync(join(tmpdir(), 'tariff-console-'));
  const server = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`, options.environment);
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: body === undefined ? CONSOLE_API_HEADERS : { ...CONSOLE_API_HEADERS, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  };
  let browser: Browser | undefined;
  try {
    if (options.priceList !== undefined) await api('POST', '/v2/rating/price_list', options.priceList);
    browser = await launchBrowser();
  } catch (error) {
    await server.stop();
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  const page = await browser.context.newPage();
  const policyViolations = await watchContentSecurityPolicy(page);
  return {
    policyViolations,
    server,
    browser,
    page,
    at: (path = '') => `${server.url}/console/${path}`,
    api,
    async close() {
      await browser?.close();
      await server.stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * Collects the page's Content-Security-Policy violations, from both places chromium reports them:
 * the `securitypolicyviolation` event in every document the page loads, and the console's
 * "Refused to … Content Security Policy" errors.
 *
 * @returns a function giving the violations so far, each as `directive: blocked URI (source)` or the console message.
 */
export async function watchContentSecurityPolicy(page: Page): Promise<() => string[]> {
  const violations: string[] = [];
  await page.exposeFunction('__tariffPolicyViolation', (text: string) => violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const report = (window as unknown as { __tariffPolicyViolation: (text: string) => void }).__tariffPolicyViolation;
      report(`${event.violatedDirective}: ${event.blockedURI} (${event.sourceFile}:${event.lineNumber})`);
    });
  });
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) violations.push(message.text());
  });
  return () => [...violations];
}

/** Saves a full-page screenshot of `page` as `test-results/console/<name>.png`. */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * The serious and critical accessibility violations axe-core finds on the page as it stands
 * (WCAG 2.1 A and AA rules), each as `rule: target, target…` — empty when there are none.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.help}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}
