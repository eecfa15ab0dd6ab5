/**
 * docs/price-list.md §1: the document's JSON Schema is published twice, by
 * `GET /v2/rating/price_list/schema` and as docs/price-list.schema.json; they must not drift. The
 * example document of §1 (its placeholders made concrete) validates against it and applies.
 *
 * After a change to the document's members, rewrite the file from the endpoint with
 * `TARIFF_WRITE_PRICE_LIST_SCHEMA=1 TARIFF_TEST_DATABASES=sqlite npx vitest run test/price-list/schema.test.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { testDatabaseKind } from '../helpers/databases.js';
import { SCHEMA, apply, applied, exported, exportedYaml, isoFromNow } from './price-list.js';

const SCHEMA_FILE = fileURLToPath(new URL('../../docs/price-list.schema.json', import.meta.url));

/** docs/price-list.md §1's example, with concrete values for its `…` placeholders. */
function example(scriptsServed: boolean): string {
  return `revision: 42                      # export only: the configuration's write counter; ignored on apply
at: '2026-11-24T12:00:00+00:00'   # export only: the time the export shows; ignored on apply
modules:
  hashmap: { enabled: true, priority: 1 }
  pyscripts: { enabled: false, priority: 1 }
groups: [instance_uptime, volume_discounts]
services:
  instance:
    mappings: []                  # service mappings (no value)
    thresholds: []
    fields:
      flavor_name:
        mappings:
          - { value: m1.large, type: flat, cost: '0.05', name: m1-large }
          - { value: m1.large, type: flat, cost: '0.04', tenant_id: 8f2a4c1e0b7d4f3a9e6c5b2d1a0f9e8c, group: instance_uptime }
        thresholds: []
  volume.size:
    mappings:
      - { type: flat, cost: '0.01' }
    thresholds:
      - { level: '200', type: rate, cost: '0.95', group: volume_discounts }
${scriptsServed ? `scripts:\n  - { name: discount, data: "price = 1\\n", description: null, start: '${isoFromNow(7)}' }\n` : ''}`;
}

describe(`the price list's JSON Schema on ${testDatabaseKind()}`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('is docs/price-list.schema.json, byte for byte', async () => {
    const response = await t.get(SCHEMA);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/schema+json; charset=utf-8');
    if (process.env.TARIFF_WRITE_PRICE_LIST_SCHEMA === '1') writeFileSync(SCHEMA_FILE, response.text);
    expect(response.text, 'docs/price-list.schema.json is stale: see the comment atop this test').toBe(readFileSync(SCHEMA_FILE, 'utf8'));
    expect(response.text).toBe(JSON.stringify(JSON.parse(response.text), null, 2) + '\n');
    const schema = response.body;
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['revision', 'at', 'modules', 'groups', 'services']));
  });

  it('validates the example of docs/price-list.md §1 and the exports, and refuses what the server refuses', async () => {
    const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'));
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
    const scriptsServed = 'scripts' in schema.properties;
    const text = example(scriptsServed);
    const document = parseYaml(text);
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);

    // The server reads it too: a dry run plans it, an apply writes it, and its exports validate.
    const dry = await applied(t, text, { dry_run: true }, 'application/yaml');
    expect(dry).toMatchObject({ dry_run: true, revision: 0 });
    expect(dry.counts).toEqual({ added: scriptsServed ? 5 : 4, replaced: 0, ended: 0, deleted: 0, updated: 1, created: 5 });
    await applied(t, text, {}, 'application/yaml');
    const json = await exported(t);
    expect(validate(json), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(parseYaml(await exportedYaml(t))), JSON.stringify(validate.errors)).toBe(true);

    // A few documents both refuse.
    for (const bad of [{ services: [] }, { colour: 'red' }, { services: { x: { mappings: [{ cost: true }] } } }, { modules: { hashmap: { priority: 0 } } }]) {
      expect(validate(bad), JSON.stringify(bad)).toBe(false);
      expect((await apply(t, bad)).status, JSON.stringify(bad)).toBe(400);
    }
  });
});
