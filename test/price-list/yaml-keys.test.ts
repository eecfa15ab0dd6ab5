/**
 * A YAML key is its source text (docs/price-list.md §1; fix, issue 24): `1024:`, `2.0:`, `0x10:`,
 * `True:`, `~:` name a service or field exactly as written. js-yaml made a number key
 * `[object Object]` (two of them a "duplicated mapping key") and `True:`/`~:` `true`/`null`.
 * Generated key texts that YAML reads as numbers, booleans, null or dates: each apply creates
 * services and fields named by those texts (the export shows them, the YAML export re-applies as
 * no change), two different texts are two keys, the same text twice is a duplicate.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { testDatabaseKind } from '../helpers/databases.js';
import { NO_CHANGES, apply, applied, exported, exportedYaml } from './price-list.js';

/** Plain scalars YAML 1.2's core schema reads as something other than a string, and dates (strings there). */
const keyText: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: -100_000, max: 100_000 }).map(String),
  fc.nat(100_000).map((value) => `0x${value.toString(16)}`),
  fc.nat(100_000).map((value) => `0o${value.toString(8)}`),
  fc.nat(1000).map((value) => `+${value}`),
  fc.tuple(fc.integer({ min: -999, max: 999 }), fc.stringMatching(/^[0-9]{1,3}$/)).map(([whole, fraction]) => `${whole}.${fraction}`),
  fc.tuple(fc.nat(99), fc.integer({ min: -20, max: 20 }), fc.constantFrom('e', 'E')).map(([mantissa, exponent, letter]) => `${mantissa}${letter}${exponent}`),
  fc.constantFrom('2.0', '.5', '-.5', '.inf', '-.inf', '+.inf', '.Inf', '.NaN', '.nan', '1_000', '007', '0.10', '-0'),
  fc.constantFrom('true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'null', 'Null', 'NULL', '~'),
  fc.constantFrom('2024-01-31', '2001-12-14t21:59:43.10-05:00', '2002-12-14', '12:30:45'),
);

/** A document whose services and fields are named by the texts, written as bare YAML keys (block or flow). */
function yamlDocument(services: readonly { name: string; field: string }[], flow: boolean): string {
  if (flow) {
    const entries = services.map(({ name, field }) => `${name}: {mappings: [{cost: 1}], fields: {${field}: {mappings: [{value: a, cost: 2}]}}}`);
    return `services: {${entries.join(', ')}}\n`;
  }
  const lines = ['services:'];
  for (const { name, field } of services) {
    lines.push(
      `  ${name}:`,
      '    mappings:',
      '      - cost: 1',
      '    fields:',
      `      ${field}:`,
      '        mappings:',
      '          - value: a',
      '            cost: 2',
    );
  }
  return lines.join('\n') + '\n';
}

describe(`YAML keys as their source text on ${testDatabaseKind()}`, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('names services and fields by the key texts, exactly', { timeout: 240_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.record({ name: keyText, field: keyText }), { minLength: 1, maxLength: 3, selector: (service) => service.name }),
        fc.boolean(),
        async (services, flow) => {
          await applied(t, yamlDocument(services, flow), {}, 'application/yaml');
          const document = await exported(t);
          for (const { name, field } of services) {
            expect(document.services[name], `${name} in ${Object.keys(document.services).join(' ')}`).toMatchObject({
              mappings: [expect.objectContaining({ cost: '1' })],
              fields: { [field]: { mappings: [expect.objectContaining({ value: 'a', cost: '2' })] } },
            });
          }
          expect(Object.keys(document.services)).not.toContain('[object Object]');
        },
      ),
      { numRuns: 40 },
    );
    // Exported as YAML (the names quoted), the document applies as no change.
    const again = await applied(t, await exportedYaml(t), { dry_run: true }, 'application/yaml');
    expect(again.counts).toEqual(NO_CHANGES);
  });

  it('refuses the same key text twice as a duplicate, at its line', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(keyText, async (name) => {
        const response = await apply(
          t,
          `services:\n  ${name}: {mappings: [{cost: 1}]}\n  ${name}: {mappings: [{cost: 2}]}\n`,
          { dry_run: true },
          'application/yaml',
        );
        expect(response.status, response.text).toBe(400);
        expect(response.body.problems).toEqual([expect.objectContaining({ message: 'not valid YAML: duplicated mapping key', line: 3 })]);
      }),
      { numRuns: 30 },
    );
  });
});
