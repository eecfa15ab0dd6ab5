/**
 * The real CloudKitty CLI (Debian python3-cloudkittyclient 4.6.0, `/usr/bin/cloudkitty`) against a
 * running Tariff process: the whole hashmap and pyscript command set, in noauth mode, with the
 * exact values it prints (`-f json`). See /tmp/notes/client.md for what each command sends.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, P, daysFromNow } from '../helpers/app.js';
import { DEBIAN_CLOUDKITTY_CLI, runCloudkittyNoauth, stopCloudkittyCli, type CloudkittyCliRun as Run } from '../helpers/cloudkitty-cli.js';
import { callServer, startServerProcess, type ServerProcess } from '../helpers/server.js';

const CLI = DEBIAN_CLOUDKITTY_CLI;
const CLI_AVAILABLE = existsSync(CLI);
if (!CLI_AVAILABLE) {
  console.warn(`test/client/cloudkitty-cli.test.ts skipped: ${CLI} is missing (install Debian's python3-cloudkittyclient to run it)`);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNKNOWN = '3c1e5f52-9d1a-4c55-8f43-0e2b9a7d6c11';
/** Several CLI runs (one Python process runs them all: see test/helpers/cloudkitty-cli.ts). */
const SLOW = 90_000;

const cost = (text: string) => text; // readability: costs are fixed-scale strings on the wire

describe.skipIf(!CLI_AVAILABLE)('the cloudkitty CLI against a Tariff server', () => {
  let directory: string;
  let server: ServerProcess;

  /** Runs the CLI in noauth mode against the server, with an environment free of OS_* variables. */
  function cloudkitty(...args: string[]): Promise<Run> {
    return runCloudkittyNoauth(server.url, directory, args);
  }

  /** Runs a listing command with `-f json` and returns the parsed rows; it must succeed. */
  async function rows(...args: string[]): Promise<Record<string, unknown>[]> {
    const run = await cloudkitty(...args, '-f', 'json');
    expect(run.code, `cloudkitty ${args.join(' ')}\n${run.stderr}`).toBe(0);
    return JSON.parse(run.stdout);
  }

  /** Runs a command that must succeed silently (deletes). */
  async function quietly(...args: string[]): Promise<void> {
    const run = await cloudkitty(...args);
    expect(run.code, `cloudkitty ${args.join(' ')}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toBe('');
  }

  /** Runs a command the server must refuse: rc 1 and `<fault body> (HTTP <status>)` on stderr. */
  async function refused(status: number, faultstring: string | RegExp, ...args: string[]): Promise<void> {
    // Deletes are plain commands without output formats.
    const run = await cloudkitty(...args, ...(args.includes('delete') ? [] : ['-f', 'json']));
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toBe('');
    const match = /^(\{.*\}) \(HTTP (\d+)\)$/m.exec(run.stderr);
    expect(match, run.stderr).not.toBeNull();
    expect(Number(match![2])).toBe(status);
    const fault = JSON.parse(match![1]);
    expect(fault.faultcode).toBe('Client');
    expect(fault.debuginfo).toBeNull();
    if (typeof faultstring === 'string') expect(fault.faultstring).toBe(faultstring);
    else expect(fault.faultstring).toMatch(faultstring);
  }

  const http = (method: string, path: string, body?: unknown) => callServer(server, method, path, body);

  const sha512 = (text: string) => createHash('sha512').update(text, 'utf8').digest('hex');

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-cli-'));
    server = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`);
  });
  afterAll(async () => {
    await stopCloudkittyCli();
    if (server) expect(await server.stop()).toBe(0);
    rmSync(directory, { recursive: true, force: true });
  });

  // Shared through the hashmap tests, in order.
  let serviceId: string;
  let fieldId: string;
  let groupId: string;
  let otherGroupId: string;
  const mappings: Record<string, string> = {};
  const thresholds: Record<string, string> = {};

  describe('hashmap', () => {
    it('mapping-types list', { timeout: SLOW }, async () => {
      expect(await rows('hashmap', 'mapping-types', 'list')).toEqual([{ 'Mapping types': 'flat' }, { 'Mapping types': 'rate' }]);
    });

    it('service create / list / get', { timeout: SLOW }, async () => {
      const created = await rows('hashmap', 'service', 'create', 'compute');
      expect(created).toEqual([{ Name: 'compute', 'Service ID': expect.stringMatching(UUID) }]);
      serviceId = created[0]['Service ID'] as string;
      const network = (await rows('hashmap', 'service', 'create', 'network'))[0];
      expect(await rows('hashmap', 'service', 'list')).toEqual([created[0], network]);
      expect(await rows('hashmap', 'service', 'get', serviceId)).toEqual(created);
      await refused(409, `Service compute already exists (UUID: ${serviceId})`, 'hashmap', 'service', 'create', 'compute');
      await refused(404, `No such service: None (UUID: ${UNKNOWN})`, 'hashmap', 'service', 'get', UNKNOWN);
    });

    it('field create / list / get', { timeout: SLOW }, async () => {
      const created = await rows('hashmap', 'field', 'create', serviceId, 'flavor');
      expect(created).toEqual([{ Name: 'flavor', 'Field ID': expect.stringMatching(UUID), 'Service ID': serviceId }]);
      fieldId = created[0]['Field ID'] as string;
      const image = (await rows('hashmap', 'field', 'create', serviceId, 'image'))[0];
      expect(await rows('hashmap', 'field', 'list', serviceId)).toEqual([created[0], image]);
      expect(await rows('hashmap', 'field', 'get', fieldId)).toEqual(created);
      await refused(400, `No such service: None (UUID: ${UNKNOWN})`, 'hashmap', 'field', 'create', UNKNOWN, 'flavor');
      await refused(409, `Field flavor already exists (UUID: ${fieldId})`, 'hashmap', 'field', 'create', serviceId, 'flavor');
    });

    it('group create / list', { timeout: SLOW }, async () => {
      const instances = await rows('hashmap', 'group', 'create', 'instances');
      expect(instances).toEqual([{ Name: 'instances', 'Group ID': expect.stringMatching(UUID) }]);
      groupId = instances[0]['Group ID'] as string;
      const volumes = (await rows('hashmap', 'group', 'create', 'volumes'))[0];
      otherGroupId = volumes['Group ID'] as string;
      expect(await rows('hashmap', 'group', 'list')).toEqual([instances[0], volumes]);
    });

    it('mapping create: service and field mappings, with -g, -p and -t', { timeout: SLOW }, async () => {
      const service = await rows('hashmap', 'mapping', 'create', '-s', serviceId, '1.5');
      expect(service).toEqual([
        {
          'Mapping ID': expect.stringMatching(UUID),
          Value: null,
          Cost: cost('1.5000000000000000000000000000'),
          Type: 'flat',
          'Field ID': null,
          'Service ID': serviceId,
          'Group ID': null,
          'Project ID': null,
        },
      ]);
      mappings.service = service[0]['Mapping ID'] as string;

      const small = await rows(
        'hashmap',
        'mapping',
        'create',
        '--field-id',
        fieldId,
        '--value',
        'm1.small',
        '-g',
        groupId,
        '-p',
        'proj-a',
        '-t',
        'rate',
        '0.25',
      );
      expect(small).toEqual([
        {
          'Mapping ID': expect.stringMatching(UUID),
          Value: 'm1.small',
          Cost: cost('0.2500000000000000000000000000'),
          Type: 'rate',
          'Field ID': fieldId,
          'Service ID': null,
          'Group ID': groupId,
          'Project ID': 'proj-a',
        },
      ]);
      mappings.small = small[0]['Mapping ID'] as string;

      const large = await rows('hashmap', 'mapping', 'create', '--field-id', fieldId, '--value', 'm1.large', '2');
      expect(large[0]).toMatchObject({ Value: 'm1.large', Cost: cost('2.0000000000000000000000000000'), Type: 'flat', 'Group ID': null, 'Project ID': null });
      mappings.large = large[0]['Mapping ID'] as string;

      const tenant = await rows('hashmap', 'mapping', 'create', '-s', serviceId, '-p', 'proj-b', '-g', otherGroupId, '0');
      expect(tenant[0]).toMatchObject({
        Value: null,
        Cost: cost('0.0000000000000000000000000000'),
        'Service ID': serviceId,
        'Group ID': otherGroupId,
        'Project ID': 'proj-b',
      });
      mappings.tenant = tenant[0]['Mapping ID'] as string;

      // What the CLI does not show is right too: a default name, start = now, audit columns.
      const stored = (await http('GET', `${H}/mappings/${mappings.small}`)).body;
      expect(stored).toMatchObject({ name: expect.stringMatching(/^[0-9a-f]{32}$/), end: null, deleted: null, created_by: 'unknown', description: null });
      expect(Math.abs(Date.parse(stored.start) - Date.now())).toBeLessThan(60_000);

      await refused(409, `Mapping 'None' already exists for service '${serviceId}', tenant: 'None'`, 'hashmap', 'mapping', 'create', '-s', serviceId, '7');
      await refused(400, `No such field: ${UNKNOWN}`, 'hashmap', 'mapping', 'create', '--field-id', UNKNOWN, '--value', 'x', '1');
      await refused(400, `No such group: None (UUID: ${UNKNOWN})`, 'hashmap', 'mapping', 'create', '-s', serviceId, '-p', 'proj-x', '-g', UNKNOWN, '1');
    });

    it('mapping list with each filter the CLI offers', { timeout: SLOW }, async () => {
      const ids = async (...filters: string[]) => (await rows('hashmap', 'mapping', 'list', ...filters)).map((row) => row['Mapping ID']);
      // Read-only commands: run side by side (each CLI run is a Python start-up).
      const cases: [string[], string[]][] = [
        [
          ['-s', serviceId],
          [mappings.service, mappings.tenant],
        ],
        [
          ['--field-id', fieldId],
          [mappings.small, mappings.large],
        ],
        [['-g', groupId], [mappings.small]],
        [['-g', otherGroupId], [mappings.tenant]],
        [['--field-id', fieldId, '-p', 'proj-a', '--filter-tenant'], [mappings.small]],
        [['-s', serviceId, '-p', 'proj-b', '--filter-tenant'], [mappings.tenant]],
        // --filter-tenant without -p: the mappings without a tenant; -p without --filter-tenant: no tenant filter.
        [['-s', serviceId, '--filter-tenant'], [mappings.service]],
        [
          ['-s', serviceId, '-p', 'proj-b'],
          [mappings.service, mappings.tenant],
        ],
        [['-s', serviceId, '--no-group'], [mappings.service]],
        [['--field-id', fieldId, '--no-group'], [mappings.large]],
        [['-g', groupId, '--no-group'], []],
        [['-s', UNKNOWN], []],
      ];
      const results = await Promise.all(cases.map(([filters]) => ids(...filters)));
      cases.forEach(([filters, expected], index) => expect(results[index], filters.join(' ')).toEqual(expected));
      const listed = await rows('hashmap', 'mapping', 'list', '--field-id', fieldId, '-p', 'proj-a', '--filter-tenant');
      expect(listed).toEqual([
        {
          'Mapping ID': mappings.small,
          Value: 'm1.small',
          Cost: '0.2500000000000000000000000000',
          Type: 'rate',
          'Field ID': fieldId,
          'Service ID': null,
          'Group ID': groupId,
          'Project ID': 'proj-a',
        },
      ]);
      // The client itself refuses a list without a parent filter.
      const bare = await cloudkitty('hashmap', 'mapping', 'list', '-p', 'proj-a', '-f', 'json');
      expect(bare.code).toBe(1);
      expect(bare.stderr).toContain("You must provide either 'field_id', 'service_id' or 'group_id'.");
    });

    it('mapping get', { timeout: SLOW }, async () => {
      expect(await rows('hashmap', 'mapping', 'get', mappings.large)).toEqual([
        {
          'Mapping ID': mappings.large,
          Value: 'm1.large',
          Cost: '2.0000000000000000000000000000',
          Type: 'flat',
          'Field ID': fieldId,
          'Service ID': null,
          'Group ID': null,
          'Project ID': null,
        },
      ]);
      await refused(404, `No such mapping: ${UNKNOWN}`, 'hashmap', 'mapping', 'get', UNKNOWN);
    });

    it('mapping update of a rule not started yet: --cost, --value, -p, -g are stored and printed', { timeout: SLOW }, async () => {
      const start = daysFromNow(7);
      const future = await http('POST', `${H}/mappings/`, { field_id: fieldId, value: 'm1.future', cost: 2, start, description: 'next week' });
      expect(future.status).toBe(201);
      const id = future.body.mapping_id as string;

      const updated = await rows('hashmap', 'mapping', 'update', '--cost', '3.25', '--value', 'm1.changed', id);
      expect(updated).toEqual([
        {
          'Mapping ID': id,
          Value: 'm1.changed',
          Cost: '3.2500000000000000000000000000',
          Type: 'flat',
          'Field ID': fieldId,
          'Service ID': null,
          'Group ID': null,
          'Project ID': null,
        },
      ]);
      const regrouped = await rows('hashmap', 'mapping', 'update', '-p', 'proj-z', '-g', otherGroupId, id);
      expect(regrouped[0]).toMatchObject({ Value: 'm1.changed', Cost: '3.2500000000000000000000000000', 'Group ID': otherGroupId, 'Project ID': 'proj-z' });

      const stored = (await http('GET', `${H}/mappings/${id}`)).body;
      expect(stored).toMatchObject({
        value: 'm1.changed',
        cost: '3.2500000000000000000000000000',
        tenant_id: 'proj-z',
        group_id: otherGroupId,
        start,
        description: 'next week',
        name: future.body.name,
        created_at: future.body.created_at,
        updated_by: 'unknown',
      });
      mappings.future = id;
    });

    /** PUT answers counted by the server (`GET /metrics`), every route together. */
    async function putsAnswered(): Promise<number> {
      const text = String((await http('GET', '/metrics')).body);
      return text
        .split('\n')
        .filter((line) => line.startsWith('tariff_http_requests_total{') && line.includes('method="PUT"'))
        .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
    }

    it(
      'mapping update of a running rule: the price changes from now on in two requests, the old price kept as an ended version',
      { timeout: SLOW },
      async () => {
        const before = (await http('GET', `${H}/mappings/${mappings.large}`)).body;
        // Let the rule have a past (a second) before its price changes.
        await new Promise((resolve) => setTimeout(resolve, 1100));
        const putsBefore = await putsAnswered();
        const changesBefore = (await http('GET', '/v2/rating/changes?kind=mapping&limit=1')).body.total as number;
        const updated = await rows('hashmap', 'mapping', 'update', '--cost', '9', mappings.large);
        expect(updated).toEqual([expect.objectContaining({ 'Mapping ID': mappings.large, Cost: '9.0000000000000000000000000000' })]);
        // keystoneauth followed the 302 once: the update and its follow-up (fix: 31 PUTs against CloudKitty).
        expect((await putsAnswered()) - putsBefore).toBe(2);
        expect((await http('GET', '/v2/rating/changes?kind=mapping&limit=1')).body.total).toBe(changesBefore + 1);
        const now = (await http('GET', `${H}/mappings/${mappings.large}`)).body;
        expect(now).toMatchObject({ cost: '9.0000000000000000000000000000', name: before.name, end: null });
        expect(Date.parse(now.start)).toBeGreaterThan(Date.parse(before.start));
        // A plain list shows the rule once; with deleted=true its history too.
        expect((await http('GET', `${H}/mappings/?field_id=${fieldId}`)).body.mappings.filter((mapping: any) => mapping.name === before.name)).toEqual([now]);
        const ended = (await http('GET', `${H}/mappings/?field_id=${fieldId}&deleted=true`)).body.mappings.filter(
          (mapping: any) => mapping.name === before.name && mapping.mapping_id !== mappings.large,
        );
        expect(ended).toEqual([{ ...before, mapping_id: expect.any(String), end: now.start, updated_by: 'unknown' }]);
      },
    );

    it('mapping delete', { timeout: SLOW }, async () => {
      await quietly('hashmap', 'mapping', 'delete', mappings.large);
      await refused(404, `No such mapping: ${mappings.large}`, 'hashmap', 'mapping', 'get', mappings.large);
      await refused(404, `No such mapping: ${mappings.large}`, 'hashmap', 'mapping', 'delete', mappings.large);
      // The repriced mapping's ended version is superseded: a plain list shows it no more.
      expect((await rows('hashmap', 'mapping', 'list', '--field-id', fieldId)).map((row) => row['Mapping ID'])).toEqual([mappings.small, mappings.future]);
      const kept = (await http('GET', `${H}/mappings/?field_id=${fieldId}&deleted=true`)).body.mappings.find(
        (mapping: any) => mapping.mapping_id === mappings.large,
      );
      expect(kept.deleted, 'soft delete').not.toBeNull();
    });

    it('threshold create / list (filters) / get', { timeout: SLOW }, async () => {
      const service = await rows('hashmap', 'threshold', 'create', '-s', serviceId, '10', '0.5');
      expect(service).toEqual([
        {
          'Threshold ID': expect.stringMatching(UUID),
          Level: '10.00000000',
          Cost: '0.5000000000000000000000000000',
          Type: 'flat',
          'Field ID': null,
          'Service ID': serviceId,
          'Group ID': null,
          'Project ID': null,
        },
      ]);
      thresholds.service = service[0]['Threshold ID'] as string;
      const field = await rows('hashmap', 'threshold', 'create', '--field-id', fieldId, '-g', groupId, '-p', 'proj-a', '-t', 'rate', '100.5', '0.01');
      expect(field).toEqual([
        {
          'Threshold ID': expect.stringMatching(UUID),
          Level: '100.50000000',
          Cost: '0.0100000000000000000000000000',
          Type: 'rate',
          'Field ID': fieldId,
          'Service ID': null,
          'Group ID': groupId,
          'Project ID': 'proj-a',
        },
      ]);
      thresholds.field = field[0]['Threshold ID'] as string;
      const other = await rows('hashmap', 'threshold', 'create', '-s', serviceId, '-g', otherGroupId, '50', '0.2');
      thresholds.other = other[0]['Threshold ID'] as string;

      const ids = async (...filters: string[]) => (await rows('hashmap', 'threshold', 'list', ...filters)).map((row) => row['Threshold ID']);
      const cases: [string[], string[]][] = [
        [
          ['-s', serviceId],
          [thresholds.service, thresholds.other],
        ],
        [['--field-id', fieldId], [thresholds.field]],
        [['-g', groupId], [thresholds.field]],
        [['-g', otherGroupId], [thresholds.other]],
        [['-s', serviceId, '--no-group'], [thresholds.service]],
        [['--field-id', fieldId, '-p', 'proj-a', '--filter-tenant'], [thresholds.field]],
        [['--field-id', fieldId, '-p', 'proj-b', '--filter-tenant'], []],
        [
          ['-s', serviceId, '--filter-tenant'],
          [thresholds.service, thresholds.other],
        ],
        [['--field-id', fieldId, '-p', 'proj-b'], [thresholds.field]],
      ];
      const results = await Promise.all(cases.map(([filters]) => ids(...filters)));
      cases.forEach(([filters, expected], index) => expect(results[index], filters.join(' ')).toEqual(expected));

      expect(await rows('hashmap', 'threshold', 'get', thresholds.field)).toEqual(field);
      await refused(409, /^Threshold '10\.00000000' already exists for service/, 'hashmap', 'threshold', 'create', '-s', serviceId, '10', '1');
      await refused(400, 'You can only specify one parent.', 'hashmap', 'threshold', 'create', '-s', serviceId, '--field-id', fieldId, '1', '1');
      await refused(404, `No such threshold: ${UNKNOWN}`, 'hashmap', 'threshold', 'get', UNKNOWN);
    });

    it('threshold update (-l, --cost, -p)', { timeout: SLOW }, async () => {
      const updated = await rows('hashmap', 'threshold', 'update', '-l', '20', '--cost', '0.75', thresholds.service);
      expect(updated).toEqual([
        {
          'Threshold ID': thresholds.service,
          Level: '20.00000000',
          Cost: '0.7500000000000000000000000000',
          Type: 'flat',
          'Field ID': null,
          'Service ID': serviceId,
          'Group ID': null,
          'Project ID': null,
        },
      ]);
      const tenant = await rows('hashmap', 'threshold', 'update', '-p', 'proj-q', thresholds.service);
      expect(tenant[0]).toMatchObject({ Level: '20.00000000', Cost: '0.7500000000000000000000000000', 'Project ID': 'proj-q' });
      expect((await http('GET', `${H}/thresholds/${thresholds.service}`)).body).toEqual({
        threshold_id: thresholds.service,
        level: '20.00000000',
        type: 'flat',
        cost: '0.7500000000000000000000000000',
        service_id: serviceId,
        field_id: null,
        group_id: null,
        tenant_id: 'proj-q',
      });
      // Moving onto another threshold's level for the same parent, tenant and group is a clash.
      await rows('hashmap', 'threshold', 'update', '-p', 'proj-b', thresholds.service);
      await http('PUT', `${H}/thresholds/${thresholds.other}`, { group_id: null, tenant_id: 'proj-b' });
      await refused(409, /already exists for service/, 'hashmap', 'threshold', 'update', '-l', '50', thresholds.service);
      expect((await http('GET', `${H}/thresholds/${thresholds.service}`)).body.level).toBe('20.00000000');
    });

    it('group mappings get / group thresholds get', { timeout: SLOW }, async () => {
      expect(await rows('hashmap', 'group', 'mappings', 'get', groupId)).toEqual([
        {
          'Mapping ID': mappings.small,
          Value: 'm1.small',
          Cost: '0.2500000000000000000000000000',
          Type: 'rate',
          'Field ID': fieldId,
          'Service ID': null,
          'Group ID': groupId,
          'Project ID': 'proj-a',
        },
      ]);
      expect((await rows('hashmap', 'group', 'mappings', 'get', otherGroupId)).map((row) => row['Mapping ID'])).toEqual([mappings.tenant, mappings.future]);
      expect(await rows('hashmap', 'group', 'thresholds', 'get', groupId)).toEqual([
        {
          'Threshold ID': thresholds.field,
          Level: '100.50000000',
          Cost: '0.0100000000000000000000000000',
          Type: 'rate',
          'Field ID': fieldId,
          'Service ID': null,
          'Group ID': groupId,
          'Project ID': 'proj-a',
        },
      ]);
      // CloudKitty compat: an unknown group has no mappings (not a 404).
      expect(await rows('hashmap', 'group', 'mappings', 'get', UNKNOWN)).toEqual([]);
    });

    it('threshold delete', { timeout: SLOW }, async () => {
      await quietly('hashmap', 'threshold', 'delete', thresholds.other);
      await refused(404, `No such threshold: ${thresholds.other}`, 'hashmap', 'threshold', 'get', thresholds.other);
      await refused(404, `No such threshold: ${thresholds.other}`, 'hashmap', 'threshold', 'delete', thresholds.other);
      expect((await rows('hashmap', 'threshold', 'list', '-s', serviceId)).map((row) => row['Threshold ID'])).toEqual([thresholds.service]);
    });

    it("group delete without --recursive detaches the group's rules", { timeout: SLOW }, async () => {
      await quietly('hashmap', 'group', 'delete', otherGroupId);
      expect((await rows('hashmap', 'group', 'list')).map((row) => row['Group ID'])).toEqual([groupId]);
      for (const id of [mappings.tenant, mappings.future]) {
        const mapping = (await http('GET', `${H}/mappings/${id}`)).body;
        expect(mapping.group_id, id).toBeNull();
        expect(mapping.deleted).toBeNull();
      }
      await refused(404, `No such group: None (UUID: ${otherGroupId})`, 'hashmap', 'group', 'delete', otherGroupId);
    });

    it("group delete --recursive deletes the group's mappings and thresholds", { timeout: SLOW }, async () => {
      await quietly('hashmap', 'group', 'delete', '--recursive', groupId);
      expect(await rows('hashmap', 'group', 'list')).toEqual([]);
      await refused(404, `No such mapping: ${mappings.small}`, 'hashmap', 'mapping', 'get', mappings.small);
      await refused(404, `No such threshold: ${thresholds.field}`, 'hashmap', 'threshold', 'get', thresholds.field);
      expect((await rows('hashmap', 'mapping', 'list', '--field-id', fieldId)).map((row) => row['Mapping ID'])).toEqual([mappings.future]);
      // Rules of other groups or of none are untouched.
      expect((await rows('hashmap', 'mapping', 'get', mappings.service))[0]['Mapping ID']).toBe(mappings.service);
    });

    it('field delete removes the field with its rules', { timeout: SLOW }, async () => {
      const image = (await rows('hashmap', 'field', 'list', serviceId)).find((row) => row.Name === 'image')!['Field ID'] as string;
      const mapping = (await rows('hashmap', 'mapping', 'create', '--field-id', image, '--value', 'debian', '0.5'))[0]['Mapping ID'] as string;
      await quietly('hashmap', 'field', 'delete', image);
      await refused(404, `No such field: ${image}`, 'hashmap', 'field', 'get', image);
      await refused(404, `No such mapping: ${mapping}`, 'hashmap', 'mapping', 'get', mapping);
      expect((await rows('hashmap', 'field', 'list', serviceId)).map((row) => row['Field ID'])).toEqual([fieldId]);
      await refused(404, `No such field: ${image}`, 'hashmap', 'field', 'delete', image);
    });

    it('service delete removes the service with its fields and rules', { timeout: SLOW }, async () => {
      const network = (await rows('hashmap', 'service', 'list')).find((row) => row.Name === 'network')!['Service ID'] as string;
      const field = (await rows('hashmap', 'field', 'create', network, 'port'))[0]['Field ID'] as string;
      const threshold = (await rows('hashmap', 'threshold', 'create', '-s', network, '1', '1'))[0]['Threshold ID'] as string;
      await quietly('hashmap', 'service', 'delete', network);
      await refused(404, `No such service: None (UUID: ${network})`, 'hashmap', 'service', 'get', network);
      await refused(404, `No such field: ${field}`, 'hashmap', 'field', 'get', field);
      await refused(404, `No such threshold: ${threshold}`, 'hashmap', 'threshold', 'get', threshold);
      expect(await rows('hashmap', 'service', 'list')).toEqual([{ Name: 'compute', 'Service ID': serviceId }]);
      await refused(404, `No such service: None (UUID: ${network})`, 'hashmap', 'service', 'delete', network);
    });
  });

  describe('pyscript', () => {
    let policy: Record<string, unknown>;
    let fromFile: Record<string, unknown>;
    let futureId: string;
    const fileContent = 'import decimal\n\n# ünïcödé ✓\nrate = decimal.Decimal("2")\n';

    it('create with literal data and from a file path', { timeout: SLOW }, async () => {
      const literal = await rows('pyscript', 'create', 'policy', 'rate = 1');
      expect(literal).toEqual([{ Name: 'policy', 'Script ID': expect.stringMatching(UUID), Checksum: sha512('rate = 1'), Data: 'rate = 1' }]);
      policy = literal[0];

      const path = join(directory, 'rate.py');
      writeFileSync(path, fileContent);
      const uploaded = await rows('pyscript', 'create', 'from-file', path);
      expect(uploaded).toEqual([{ Name: 'from-file', 'Script ID': expect.stringMatching(UUID), Checksum: sha512(fileContent), Data: fileContent }]);
      fromFile = uploaded[0];

      await refused(409, `Script policy already exists (UUID: ${policy['Script ID']})`, 'pyscript', 'create', 'policy', 'rate = 3');
    });

    it('create of a script past the body limit prints the 413 fault, not a broken pipe (issue 11)', { timeout: SLOW }, async () => {
      // 4 MiB from a file: the client sends it whole before it reads the answer.
      const path = join(directory, 'huge.py');
      writeFileSync(path, 'x=1\n'.repeat(1024 * 1024));
      await refused(413, 'Request body is too large: at most 1048576 bytes are accepted here.', 'pyscript', 'create', 'huge', path);
      expect((await rows('pyscript', 'list', '-n')).map((row) => row.Name)).toEqual(['policy', 'from-file']);
    });

    it('list, list -n, get', { timeout: SLOW }, async () => {
      expect(await rows('pyscript', 'list')).toEqual([policy, fromFile]);
      expect(await rows('pyscript', 'list', '-n')).toEqual([
        { ...policy, Data: null },
        { ...fromFile, Data: null },
      ]);
      expect(await rows('pyscript', 'get', fromFile['Script ID'] as string)).toEqual([fromFile]);
      await refused(404, `No such script: None (UUID: ${UNKNOWN})`, 'pyscript', 'get', UNKNOWN);
    });

    it('update -d of a script not started yet, with literal data and from a file', { timeout: SLOW }, async () => {
      const start = daysFromNow(3);
      const created = await http('POST', `${P}/scripts/`, { name: 'next', data: 'rate = 0', start, description: 'soon' });
      expect(created.status).toBe(201);
      futureId = created.body.script_id;

      const updated = await rows('pyscript', 'update', '-d', 'rate = 3', futureId);
      expect(updated).toEqual([{ Name: 'next', 'Script ID': futureId, Checksum: sha512('rate = 3'), Data: 'rate = 3' }]);
      expect((await http('GET', `${P}/scripts/${futureId}`)).body).toMatchObject({
        data: 'rate = 3',
        checksum: sha512('rate = 3'),
        start,
        description: 'soon',
        updated_by: 'unknown',
      });

      const path = join(directory, 'next.py');
      writeFileSync(path, fileContent);
      const fromPath = await rows('pyscript', 'update', '-d', path, futureId);
      expect(fromPath).toEqual([{ Name: 'next', 'Script ID': futureId, Checksum: sha512(fileContent), Data: fileContent }]);
    });

    it('update -n NAME is refused: the name is immutable', { timeout: SLOW }, async () => {
      await refused(
        400,
        "Invalid input for field/attribute name. Value: 'renamed'. Cannot set read only field.",
        'pyscript',
        'update',
        '-n',
        'renamed',
        futureId,
      );
      expect((await http('GET', `${P}/scripts/${futureId}`)).body.name).toBe('next');
    });

    it('update -d of a running script: the new data from now on, the old kept as an ended version', { timeout: SLOW }, async () => {
      // Let the script have a past (a second) before its data changes.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const updated = await rows('pyscript', 'update', '-d', 'rate = 4', policy['Script ID'] as string);
      expect(updated).toEqual([{ ...policy, Data: 'rate = 4', Checksum: sha512('rate = 4') }]);
      const versions = (await http('GET', `${P}/scripts/?deleted=true`)).body.scripts.filter((script: any) => script.name === 'policy');
      expect(versions.map((script: any) => [script.data, script.end === null])).toEqual([
        ['rate = 4', true],
        [policy.Data, false],
      ]);
    });

    it('delete', { timeout: SLOW }, async () => {
      await quietly('pyscript', 'delete', policy['Script ID'] as string);
      await refused(404, `No such script: None (UUID: ${policy['Script ID']})`, 'pyscript', 'get', policy['Script ID'] as string);
      await refused(404, `No such script: None (UUID: ${policy['Script ID']})`, 'pyscript', 'delete', policy['Script ID'] as string);
      // The ended version of `policy` is superseded by the deleted one: a plain list shows neither.
      expect((await rows('pyscript', 'list', '-n')).map((row) => row.Name)).toEqual(['from-file', 'next']);
      // The name of a deleted script is free again.
      const again = await rows('pyscript', 'create', 'policy', 'rate = 5');
      expect(again[0]).toMatchObject({ Name: 'policy', Data: 'rate = 5' });
      expect(again[0]['Script ID']).not.toBe(policy['Script ID']);
    });
  });
});
