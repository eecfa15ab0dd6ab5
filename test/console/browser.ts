/**
 * A real browser for the console tests: Debian's chromium (`/usr/bin/chromium`, installed by
 * `.ci/run` with apt; never downloaded) driven by playwright-core, headless, with a fresh profile
 * and the background networking this machine refuses switched off.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's chromium. */
export const CHROMIUM = '/usr/bin/chromium';

/** Whether the browser is installed (the tests say why they are skipped otherwise). */
export const CHROMIUM_AVAILABLE = existsSync(CHROMIUM);

/** A browser context and how to close it (with its profile directory). */
export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Launches chromium with a new empty profile. */
export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'tariff-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
