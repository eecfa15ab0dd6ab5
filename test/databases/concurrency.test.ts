/**
 * Many processes, one database (issue 3): two Tariff processes take 50 concurrent identical
 * creates of each kind; exactly one succeeds, every other answer is a 409, nothing is a 5xx and
 * one row is written. Runs on each database of the run (SQLite file, PostgreSQL, MariaDB).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, testDatabaseKind, type ScratchDatabase } from '../helpers/databases.js';
import { callServer as call, startServerProcess, type ServerProcess } from '../helpers/server.js';

const H = '/v1/rating/module_config/hashmap';
const P = '/v1/rating/module_config/pyscripts';
const ATTEMPTS = 50;

describe(`two Tariff processes on one ${testDatabaseKind()} database`, () => {
  let directory: string;
  let scratch: ScratchDatabase;
  let servers: ServerProcess[] = [];

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-concurrency-'));
    scratch = await createScratchDatabase(directory);
    // Started together: the migrations must also cope with a concurrent start.
    servers = await Promise.all([startServerProcess(scratch.url), startServerProcess(scratch.url)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await scratch?.drop();
    rmSync(directory, { recursive: true, force: true });
  });

  /** Sends the same create 50 times at once, alternating between the two processes. */
  async function race(path: string, body: (attempt: number) => unknown): Promise<{ status: number; body: any }[]> {
    return Promise.all(Array.from({ length: ATTEMPTS }, (_, attempt) => call(servers[attempt % 2], 'POST', path, body(attempt))));
  }

  function expectOneWinner(answers: { status: number; body: any }[]): any {
    const statuses = answers.map((answer) => answer.status);
    const faults = answers.filter((answer) => answer.status >= 500);
    expect(faults, JSON.stringify(faults.slice(0, 3))).toEqual([]);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(ATTEMPTS - 1);
    return answers.find((answer) => answer.status === 201)!.body;
  }

  let serviceId: string;
  let fieldId: string;

  it('services: one name, one row', async () => {
    const winner = expectOneWinner(await race(`${H}/services`, () => ({ name: 'compute' })));
    serviceId = winner.service_id;
    const listed = await call(servers[1], 'GET', `${H}/services`);
    expect(listed.body.services.filter((service: any) => service.name === 'compute')).toHaveLength(1);
  });

  it('fields: one name per service, one row', async () => {
    const winner = expectOneWinner(await race(`${H}/fields`, () => ({ name: 'flavor', service_id: serviceId })));
    fieldId = winner.field_id;
    const listed = await call(servers[0], 'GET', `${H}/fields?service_id=${serviceId}`);
    expect(listed.body.fields).toHaveLength(1);
  });

  it('groups: one name, one row', async () => {
    expectOneWinner(await race(`${H}/groups`, () => ({ name: 'instance_uptime' })));
    const listed = await call(servers[1], 'GET', `${H}/groups`);
    expect(listed.body.groups.filter((group: any) => group.name === 'instance_uptime')).toHaveLength(1);
  });

  it('thresholds: one level per parent, tenant and group (null tenant and group included)', async () => {
    expectOneWinner(await race(`${H}/thresholds`, () => ({ service_id: serviceId, level: '10', cost: '0.9', type: 'rate' })));
    const listed = await call(servers[0], 'GET', `${H}/thresholds?service_id=${serviceId}`);
    expect(listed.body.thresholds).toHaveLength(1);
  });

  it('mappings: one name, one row', async () => {
    expectOneWinner(await race(`${H}/mappings`, (attempt) => ({ field_id: fieldId, value: `v${attempt}`, cost: 1, name: 'same-name' })));
    const listed = await call(servers[1], 'GET', `${H}/mappings?field_id=${fieldId}`);
    expect(listed.body.mappings.filter((mapping: any) => mapping.name === 'same-name')).toHaveLength(1);
  });

  it('mappings: overlapping validity with different names, one row', async () => {
    expectOneWinner(await race(`${H}/mappings`, (attempt) => ({ field_id: fieldId, value: 'm1.large', cost: 2, name: `overlap-${attempt}` })));
    const listed = await call(servers[0], 'GET', `${H}/mappings?field_id=${fieldId}`);
    expect(listed.body.mappings.filter((mapping: any) => mapping.value === 'm1.large')).toHaveLength(1);
  });

  it('scripts: one name, one row', async () => {
    expectOneWinner(await race(`${P}/scripts`, (attempt) => ({ name: 'discount', data: `a = ${attempt}` })));
    const listed = await call(servers[1], 'GET', `${P}/scripts`);
    expect(listed.body.scripts.filter((script: any) => script.name === 'discount')).toHaveLength(1);
  });

  it('a service delete cascades atomically while the other process reads', async () => {
    const reads = Promise.all(Array.from({ length: 20 }, () => call(servers[1], 'GET', `${H}/mappings?field_id=${fieldId}`)));
    const deleted = await call(servers[0], 'DELETE', `${H}/services/${serviceId}`);
    expect(deleted.status).toBe(204);
    for (const read of await reads) {
      expect(read.status).toBe(200);
      // Before the delete: both live mappings; after: none. Never half.
      expect([0, 2]).toContain(read.body.mappings.length);
    }
    const fields = await call(servers[1], 'GET', `${H}/fields?service_id=${serviceId}`);
    expect(fields.body.fields).toEqual([]);
  });
});
