/**
 * docs/price-list.md: "the rules it writes are ordinary CloudKitty rows". After an apply, the real
 * `cloudkitty` CLI (Debian python3-cloudkittyclient, noauth, as test/client/cloudkitty-cli.test.ts
 * runs it) lists the rules with the document's values: cost, type, value, tenant, group.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H } from '../helpers/app.js';
import { DEBIAN_CLOUDKITTY_CLI, runCloudkittyNoauth, stopCloudkittyCli } from '../helpers/cloudkitty-cli.js';
import { createScratchDatabase, testDatabaseKind, type ScratchDatabase } from '../helpers/databases.js';
import { callServer, startServerProcess, type ServerProcess } from '../helpers/server.js';
import { applyTo, type PriceListDocument } from './price-list.js';

const CLI = DEBIAN_CLOUDKITTY_CLI;
const CLI_AVAILABLE = existsSync(CLI);
if (!CLI_AVAILABLE) console.warn(`test/price-list/cloudkitty-cli.test.ts skipped: ${CLI} is missing (install Debian's python3-cloudkittyclient)`);

const document: PriceListDocument = {
  groups: ['instance_uptime'],
  services: {
    instance: {
      mappings: [{ cost: '0.5', name: 'instance-base' }],
      fields: {
        flavor_name: {
          mappings: [
            { value: 'm1.large', cost: '0.05', name: 'm1-large' },
            { value: 'm1.large', type: 'rate', cost: 0.04, tenant_id: 'proj-a', group: 'instance_uptime', name: 'm1-large-a' },
            { value: 1024, cost: '1.5', name: 'numeric' },
          ],
        },
      },
    },
  },
};

describe.skipIf(!CLI_AVAILABLE)(`the cloudkitty CLI after a price-list apply on ${testDatabaseKind()}`, () => {
  let directory: string;
  let scratch: ScratchDatabase;
  let server: ServerProcess;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-price-list-cli-'));
    scratch = await createScratchDatabase(directory);
    server = await startServerProcess(scratch.url);
  });
  afterAll(async () => {
    await stopCloudkittyCli();
    await server?.stop();
    await scratch?.drop();
    rmSync(directory, { recursive: true, force: true });
  });

  function rows(...args: string[]): Promise<Record<string, unknown>[]> {
    return runCloudkittyNoauth(server.url, directory, [...args, '-f', 'json']).then((run) => {
      if (run.code !== 0) throw new Error(`cloudkitty ${args.join(' ')}: ${run.stderr}`);
      return JSON.parse(run.stdout);
    });
  }

  it('hashmap mapping list shows the rules with the document values', { timeout: 120_000 }, async () => {
    expect((await applyTo(server, document)).status).toBe(200);
    const service = (await callServer(server, 'GET', `${H}/services`)).body.services[0];
    const field = (await callServer(server, 'GET', `${H}/fields?service_id=${service.service_id}`)).body.fields[0];
    const group = (await callServer(server, 'GET', `${H}/groups`)).body.groups[0];
    expect([service.name, field.name, group.name]).toEqual(['instance', 'flavor_name', 'instance_uptime']);

    const [serviceRows, fieldRows] = await Promise.all([
      rows('hashmap', 'mapping', 'list', '-s', service.service_id),
      rows('hashmap', 'mapping', 'list', '--field-id', field.field_id),
    ]);
    const row = (value: string | null, cost: string, type: string, tenant: string | null, groupId: string | null, onField: boolean) => ({
      'Mapping ID': expect.stringMatching(/^[0-9a-f-]{36}$/),
      Value: value,
      Cost: cost,
      Type: type,
      'Field ID': onField ? field.field_id : null,
      'Service ID': onField ? null : service.service_id,
      'Group ID': groupId,
      'Project ID': tenant,
    });
    expect(serviceRows).toEqual([row(null, '0.5000000000000000000000000000', 'flat', null, null, false)]);
    const byValueAndTenant = (left: any, right: any) => `${left.Value}/${left['Project ID']}`.localeCompare(`${right.Value}/${right['Project ID']}`);
    expect(fieldRows.sort(byValueAndTenant)).toEqual([
      row('1024', '1.5000000000000000000000000000', 'flat', null, null, true),
      row('m1.large', '0.0500000000000000000000000000', 'flat', null, null, true),
      row('m1.large', '0.0400000000000000000000000000', 'rate', 'proj-a', group.group_id, true),
    ]);
  });
});
