/**
 * What the console's editor writes is CloudKitty's: a service, a field and a mapping created in the
 * console (chromium, against a real Tariff on SQLite) are listed by the real `cloudkitty` CLI
 * (Debian python3-cloudkittyclient, noauth, as test/price-list/cloudkitty-cli.test.ts runs it).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEBIAN_CLOUDKITTY_CLI, runCloudkittyNoauth, stopCloudkittyCli } from '../helpers/cloudkitty-cli.js';
import { CHROMIUM_AVAILABLE } from './browser.js';
import { startConsole, type ConsoleUnderTest } from './harness.js';

const CLI = DEBIAN_CLOUDKITTY_CLI;
const CLI_AVAILABLE = existsSync(CLI);
if (!CLI_AVAILABLE) console.warn(`test/console/cloudkitty-cli.test.ts skipped: ${CLI} is missing (install Debian's python3-cloudkittyclient)`);

describe.skipIf(!CLI_AVAILABLE || !CHROMIUM_AVAILABLE)('the cloudkitty CLI lists what the console created', () => {
  let tariff: ConsoleUnderTest;
  let home: string;

  beforeAll(async () => {
    tariff = await startConsole({ priceList: { groups: ['discounts'] } });
    home = mkdtempSync(join(tmpdir(), 'tariff-console-cli-'));
  });
  afterAll(async () => {
    await stopCloudkittyCli();
    await tariff?.close();
    rmSync(home, { recursive: true, force: true });
  });

  /** The CLI's JSON rows for `args`. */
  function cli(...args: string[]): Promise<Record<string, unknown>[]> {
    return runCloudkittyNoauth(tariff.server.url, home, [...args, '-f', 'json']).then((run) => {
      if (run.code !== 0) throw new Error(`cloudkitty ${args.join(' ')}: ${run.stderr}`);
      return JSON.parse(run.stdout);
    });
  }

  /** Opens the editor with the button labelled `opener`, fills `inputs` (label → text or option), submits with `submit`. */
  async function edit(opener: string, inputs: Record<string, string | { option: string }>, submit: string): Promise<void> {
    const { page } = tariff;
    await page.getByRole('button', { name: opener, exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    for (const [label, value] of Object.entries(inputs)) {
      const input = dialog.getByLabel(label, { exact: true });
      if (typeof value === 'string') await input.fill(value);
      else await input.selectOption({ label: value.option });
    }
    await dialog.getByRole('button', { name: submit, exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
  }

  it('creates a service, a field and a mapping that `cloudkitty hashmap … list` shows', { timeout: 120_000 }, async () => {
    const { page } = tariff;
    await page.goto(tariff.at('services'));
    await edit('New service', { Name: 'compute' }, 'Create service');
    await edit('New field on service compute', { Name: 'flavor' }, 'Create field');
    await edit(
      'New mapping on field compute / flavor',
      {
        Value: 'm1.small',
        Cost: '0.25',
        Type: { option: 'rate — a multiplier of the price' },
        Group: { option: 'discounts' },
        Tenant: 'demo',
        Name: 'small-price',
      },
      'Create mapping',
    );

    const services = await cli('hashmap', 'service', 'list');
    expect(services).toEqual([{ Name: 'compute', 'Service ID': expect.stringMatching(/^[0-9a-f-]{36}$/) }]);
    const serviceId = services[0]['Service ID'] as string;
    const fields = await cli('hashmap', 'field', 'list', serviceId);
    expect(fields).toEqual([{ Name: 'flavor', 'Field ID': expect.stringMatching(/^[0-9a-f-]{36}$/), 'Service ID': serviceId }]);
    const [group] = await cli('hashmap', 'group', 'list');
    expect(group).toMatchObject({ Name: 'discounts' });
    const mappings = await cli('hashmap', 'mapping', 'list', '--field-id', fields[0]['Field ID'] as string);
    expect(mappings).toEqual([
      expect.objectContaining({
        Value: 'm1.small',
        Cost: '0.2500000000000000000000000000',
        Type: 'rate',
        'Field ID': fields[0]['Field ID'],
        'Group ID': group['Group ID'],
        'Project ID': 'demo',
      }),
    ]);
    // The name is not in the CLI's columns: read it back through the API.
    const { mappings: stored } = await tariff.api<{ mappings: { name: string }[] }>('GET', '/v1/rating/module_config/hashmap/mappings');
    expect(stored.map((mapping) => mapping.name)).toEqual(['small-price']);
  });
});
