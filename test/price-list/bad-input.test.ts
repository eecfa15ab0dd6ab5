/**
 * docs/price-list.md §2: a malformed document is a 400 whose `problems` list every problem with its
 * path (and line and column for YAML); a body over the limit is a 413; never a 5xx, and nothing is
 * written (revision and export unchanged). fast-check builds hostile documents from a valid one:
 * several faults at once, each of which must be listed.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { testDatabaseKind } from '../helpers/databases.js';
import { apply, applied, exported, type PriceListDocument } from './price-list.js';

/** The quote body limit (the document's), small: 1 MiB. */
const LIMIT_BYTES = 1024 * 1024;

const valid = (): PriceListDocument => ({
  modules: { hashmap: { enabled: true, priority: 1 } },
  groups: ['discounts'],
  services: {
    compute: {
      mappings: [{ cost: '1', name: 'base' }],
      thresholds: [{ level: '50', cost: '1' }],
      fields: {
        flavor: {
          mappings: [
            { value: 'm1.small', cost: '0.5', name: 'small' },
            { value: 'm1.large', type: 'rate', cost: '2', tenant_id: 'proj-a', group: 'discounts', name: 'large' },
            { value: 'm1.tiny', cost: '0.25', name: 'tiny' },
          ],
          thresholds: [{ level: '10', cost: '0.9', type: 'rate' }],
        },
      },
    },
  },
});

/** Marks a number whose source text must be written as is (JSON and YAML). */
const raw = (text: string) => `@@RAW:${text}@@`;
function serialize(document: PriceListDocument, format: 'json' | 'yaml'): string {
  const text = format === 'json' ? JSON.stringify(document, null, 1) : toYaml(document, { lineWidth: 0 });
  // A bare `.inf` is YAML only: JSON gets it as a string.
  return text.replace(/["']?@@RAW:(.*?)@@["']?/g, (_match, number: string) => (format === 'json' && !/^-?\d/.test(number) ? JSON.stringify(number) : number));
}

/** A fault put into a document, with the path it must be reported at and (part of) the message. */
interface Fault {
  name: string;
  apply(document: PriceListDocument): void;
  path: string;
  message: string | RegExp;
}

const FLAVOR = 'services[compute].fields[flavor]';
const flavor = (document: PriceListDocument) => document.services.compute.fields.flavor;

const BAD_DECIMALS = ['0x10', 'abc', '.inf', '-.inf', 'NaN', '1,5', '', ' ', '1e999', '-1e999', '--1', '1.2.3', '٣'];

const faults: fc.Arbitrary<Fault>[] = [
  fc
    .constantFrom<[string, unknown, string]>(
      ['cost', true, 'must be number or string'],
      ['cost', null, 'must be number or string'],
      ['cost', { amount: 1 }, 'must be number or string'],
      ['type', 'percent', 'must be one of: flat, rate'],
      ['tenant_id', 42, 'must be string or null'],
      ['value', [], 'must be string or number or null'],
      ['name', 'x'.repeat(33), 'must NOT have more than 32 characters'],
      ['description', 'd'.repeat(100_000), 'must NOT have more than 256 characters'],
    )
    .map(([key, value, message]) => ({
      name: `wrong ${key}`,
      apply: (document) => (flavor(document).mappings[0][key] = value),
      path: `${FLAVOR}.mappings[0].${key}`,
      message,
    })),
  fc.constantFrom('colour', 'constructor', 'Cost').map((key) => ({
    name: `unknown key ${key}`,
    apply: (document) => Object.defineProperty(flavor(document).mappings[1], key, { value: 1, enumerable: true }),
    path: `${FLAVOR}.mappings[1].${key}`,
    message: 'unknown key',
  })),
  fc.constantFrom('at_time', 'scripts_v2').map((key) => ({
    name: `unknown top-level key ${key}`,
    apply: (document) => Object.defineProperty(document, key, { value: {}, enumerable: true }),
    path: key,
    message: 'unknown key',
  })),
  fc.tuple(fc.constantFrom(...BAD_DECIMALS), fc.boolean()).map(([text, asNumber]) => ({
    name: `bad decimal ${text}`,
    // As a string, or as a bare number where the format has one (1e999, .inf in YAML).
    apply: (document) => (document.services.compute.mappings[0].cost = asNumber && /^(-?1e|\.inf|-\.inf)/.test(text) ? raw(text) : text),
    path: 'services[compute].mappings[0].cost',
    message: /^Invalid input for field\/attribute cost\. Value: /,
  })),
  fc.constantFrom('-5', '-0.00000001', '1e20', '123456789012345').map((level) => ({
    name: `bad level ${level}`,
    apply: (document) => (flavor(document).thresholds[0].level = level),
    path: `${FLAVOR}.thresholds[0].level`,
    message: /^Invalid input for field\/attribute level\. Value: /,
  })),
  fc.constant<Fault>({
    name: 'duplicate mapping',
    apply: (document) => flavor(document).mappings.push({ value: 'm1.tiny', cost: '7' }),
    path: `${FLAVOR}.mappings[3]`,
    message: 'duplicate of services[compute].fields[flavor].mappings[2]: same parent, value, tenant_id and group, valid at the same time',
  }),
  fc.constant<Fault>({
    name: 'duplicate threshold',
    apply: (document) => document.services.compute.thresholds.push({ level: '50.000', cost: '0.5' }),
    path: 'services[compute].thresholds[1]',
    message: /^duplicate of services\[compute\]\.thresholds\[0\]/,
  }),
  fc.constantFrom('premium', 'Discounts', 'discounts ').map((group) => ({
    name: `group ${group} not listed`,
    // mappings[1]: a schema fault elsewhere in a rule leaves the whole rule out (schema.ts), so this one is alone in its rule.
    apply: (document) => (flavor(document).mappings[1].group = group),
    path: `${FLAVOR}.mappings[1].group`,
    message: `group '${group}' is not listed in groups`,
  })),
  fc.constantFrom('2026-13-45', 'tomorrow', '2026-02-30T00:00:00', '12/01/2026', '2026-12-01T25:00:00Z').map((date) => ({
    name: `bad date ${date}`,
    apply: (document) => (flavor(document).mappings[1].start = date),
    path: `${FLAVOR}.mappings[1].start`,
    message: /start/,
  })),
  fc.constant<Fault>({
    name: 'services as a list',
    apply: (document) => (document.services.other = []),
    path: 'services[other]',
    message: 'must be object',
  }),
  fc.constant<Fault>({
    name: 'priority 0',
    apply: (document) => (document.modules.hashmap.priority = 0),
    path: 'modules[hashmap].priority',
    message: 'must be >= 1',
  }),
  fc.constant<Fault>({
    name: 'unknown module',
    apply: (document) => (document.modules.ratingbot = { enabled: true }),
    path: 'modules[ratingbot]',
    message: /^no such module/,
  }),
  fc.constant<Fault>({
    name: 'service mapping with a value',
    apply: (document) => (document.services.compute.mappings[0].value = 'x'),
    path: 'services[compute].mappings[0].value',
    message: 'a service mapping has no value',
  }),
];

/** Hostile bodies the document reader must refuse as a whole (text level). */
const HOSTILE_TEXTS: { name: string; format: 'json' | 'yaml'; body: string | Buffer; message: string | RegExp; plain?: boolean }[] = [
  {
    name: 'billion laughs',
    format: 'yaml',
    body:
      [
        'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
        ...'bcdefghi'.split('').map((name, index) => `${name}: &${name} [${Array(9).fill(`*${'abcdefghi'[index]}`).join(',')}]`),
      ].join('\n') + '\n',
    // 72 aliases, within the 100 allowed, but they stand for about 9^9 nodes.
    message: /^aliases repeat \d\.\de\+8 nodes, more than the \d+ the document writes out$/,
  },
  {
    name: 'too many aliases',
    format: 'yaml',
    body: `groups: &g [a]\nservices:\n${Array.from({ length: 101 }, (_, index) => `  s${index}: {mappings: [{cost: 1, group: *g}]}`).join('\n')}\n`,
    message: 'too many aliases: at most 100 (TARIFF_PRICE_LIST_MAX_ALIASES)',
  },
  { name: 'recursive alias', format: 'yaml', body: 'groups: &a [*a]\n', message: /alias/ },
  { name: 'recursive map alias', format: 'yaml', body: 'services: &s\n  x: *s\n', message: /alias/ },
  { name: 'unknown anchor', format: 'yaml', body: 'groups: [*nothing]\n', message: /alias|anchor/i },
  { name: 'several YAML documents', format: 'yaml', body: 'groups: [a]\n---\ngroups: [b]\n', message: 'one YAML document is expected, the text holds several' },
  { name: 'empty YAML', format: 'yaml', body: '', message: /empty|must be object/ },
  { name: 'YAML list', format: 'yaml', body: '- a\n- b\n', message: 'must be object' },
  { name: 'YAML syntax', format: 'yaml', body: 'services: {x: [}\n', message: /./ },
  { name: 'YAML duplicate key', format: 'yaml', body: 'groups: [a]\ngroups: [a]\n', message: /[Mm]ap keys must be unique|duplicate/ },
  { name: 'JSON duplicate keys (different values)', format: 'json', body: '{"groups": ["a"], "groups": ["b"]}', message: "duplicate key 'groups'" },
  { name: 'JSON syntax', format: 'json', body: '{"groups": [,]}', message: /^not valid JSON/ },
  {
    name: 'JSON deep nesting',
    format: 'json',
    body: '{"groups":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}',
    message: /^Invalid input in body: JSON nested deeper than 32 levels \(TARIFF_JSON_MAX_DEPTH\)\.$/,
    plain: true,
  },
  { name: 'JSON number overflow', format: 'json', body: '{"services": {"x": {"mappings": [{"cost": 1e99999}]}}}', message: /cost/ },
  { name: 'JSON null', format: 'json', body: 'null', message: 'must be object' },
  {
    name: 'YAML deep flow nesting',
    format: 'yaml',
    body: 'groups: ' + '['.repeat(5000) + ']'.repeat(5000) + '\n',
    message: /nesting exceeded maxDepth|nested deeper than 32 levels/,
  },
  // As every body (docs/operators/configuration.md "Limits"): refused with the common fault, without `problems`.
  {
    name: '__proto__ in JSON',
    format: 'json',
    body: '{"services": {"x": {"mappings": [{"cost": 1, "__proto__": {}}]}}}',
    message: /a key's name must not be __proto__/,
    plain: true,
  },
  { name: '__proto__ in YAML', format: 'yaml', body: '__proto__: {}\n', message: /a key's name must not be __proto__/, plain: true },
  { name: 'a lone surrogate in JSON', format: 'json', body: '{"groups": ["\\ud800"]}', message: /./, plain: true },
  { name: 'a lone surrogate in YAML', format: 'yaml', body: 'groups: ["\\ud800"]\n', message: /./, plain: true },
  { name: 'NUL in JSON', format: 'json', body: '{"groups": ["a\\u0000b"]}', message: /./, plain: true },
  {
    name: 'YAML deep block nesting',
    format: 'yaml',
    body: Array.from({ length: 60 }, (_, depth) => `${'  '.repeat(depth)}k${depth}:`).join('\n') + ' 1\n',
    message: /^Invalid input in body: JSON nested deeper than 32 levels \(TARIFF_JSON_MAX_DEPTH\)\.$/,
    plain: true,
  },
  {
    name: 'JSON nesting in a rule',
    format: 'json',
    body: `{"services": {"x": {"mappings": [{"cost": 1, "description": ${'['.repeat(40)}${']'.repeat(40)}}]}}}`,
    message: /^Invalid input in body: JSON nested deeper than 32 levels \(TARIFF_JSON_MAX_DEPTH\)\.$/,
    plain: true,
  },
];

describe(`hostile price lists on ${testDatabaseKind()}`, () => {
  let t: TestApp;
  let before: PriceListDocument;

  beforeAll(async () => {
    t = await startTestApp({ config: { quoteBodyLimitBytes: LIMIT_BYTES } });
    await applied(t, valid());
    before = await exported(t);
  });
  afterAll(() => t?.close());

  /** The refusal is a 400 listing problems with paths (YAML: with positions); nothing was written. */
  async function expectRefused(response: TestResponse, format: 'json' | 'yaml'): Promise<{ path: string; message: string; line?: number; column?: number }[]> {
    expect(response.status, response.text.slice(0, 2000)).toBe(400);
    expect(response.body).toMatchObject({ faultcode: 'Client', debuginfo: null });
    const problems = response.body.problems;
    expect(Array.isArray(problems), response.text.slice(0, 2000)).toBe(true);
    expect(problems.length).toBeGreaterThan(0);
    expect(response.body.faultstring).toMatch(/^The price list has \d+ problems?:\n/);
    for (const problem of problems) {
      expect(problem.path).toEqual(expect.any(String));
      expect(problem.message).toEqual(expect.any(String));
      if (format === 'yaml' && problem.path !== '(document)') {
        expect(problem, JSON.stringify(problem)).toMatchObject({ line: expect.any(Number), column: expect.any(Number) });
      }
    }
    expect(await exported(t)).toEqual({ ...before, at: expect.any(String) });
    return problems;
  }

  it('lists every fault of documents with several, each at its path', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.oneof(...faults), { minLength: 1, maxLength: 4, selector: (fault) => fault.path }),
        fc.constantFrom('json' as const, 'yaml' as const),
        async (chosen, format) => {
          const document = valid();
          for (const fault of chosen) fault.apply(document);
          const response = await apply(t, serialize(document, format), {}, format === 'json' ? 'application/json' : 'application/yaml');
          const problems = await expectRefused(response, format);
          for (const fault of chosen) {
            const found = problems.filter((problem) => problem.path === fault.path);
            expect(found, `${fault.name} at ${fault.path}: ${JSON.stringify(problems)}`).not.toEqual([]);
            expect(found.map((problem) => problem.message)).toContainEqual(
              typeof fault.message === 'string' ? fault.message : expect.stringMatching(fault.message),
            );
          }
        },
      ),
      { numRuns: 120 },
    );
  });

  it.each(HOSTILE_TEXTS)('refuses $name with its problem', async ({ format, body, message, plain }) => {
    const response = await apply(t, body, {}, format === 'json' ? 'application/json' : 'application/yaml');
    if (plain) {
      expect(response.status, response.text).toBe(400);
      expect(response.body).toEqual({ faultcode: 'Client', faultstring: expect.stringMatching(message), debuginfo: null });
      expect(await exported(t)).toEqual({ ...before, at: expect.any(String) });
      return;
    }
    const problems = await expectRefused(response, format);
    expect(problems.map((problem) => problem.message)).toContainEqual(typeof message === 'string' ? message : expect.stringMatching(message));
  });

  it('refuses invalid UTF-8 with a 400, writing nothing', async () => {
    for (const [body, type] of [
      [Buffer.concat([Buffer.from('{"groups": ["'), Buffer.from([0xff, 0xfe]), Buffer.from('"]}')]), 'application/json'],
      [Buffer.concat([Buffer.from('groups: ['), Buffer.from([0xc3, 0x28]), Buffer.from(']\n')]), 'application/yaml'],
      [Buffer.concat([Buffer.from('groups: [a]\n# '), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('\n')]), 'application/yaml'],
    ] as const) {
      const response = await apply(t, body, {}, type);
      expect(response.status, response.text).toBe(400);
      expect(response.body).toMatchObject({ faultcode: 'Client', debuginfo: null });
      expect(await exported(t)).toEqual({ ...before, at: expect.any(String) });
    }
  });

  it('answers 413 to a body over TARIFF_QUOTE_BODY_LIMIT_MB, writing nothing', async () => {
    const document = valid();
    document.services.compute.fields.flavor.mappings[0].description = 'x'.repeat(LIMIT_BYTES);
    for (const format of ['json', 'yaml'] as const) {
      const response = await apply(t, serialize(document, format), {}, format === 'json' ? 'application/json' : 'application/yaml');
      expect(response.status, response.text.slice(0, 500)).toBe(413);
      expect(response.body).toMatchObject({ faultcode: 'Client', debuginfo: null });
    }
    expect(await exported(t)).toEqual({ ...before, at: expect.any(String) });
  });

  it('refuses a document too large to list every problem, counting the rest', async () => {
    const document = valid();
    document.services.compute.fields.flavor.mappings = Array.from({ length: 1500 }, (_, index) => ({ value: `v${index}`, cost: 'abc' }));
    const response = await apply(t, document);
    const problems = await expectRefused(response, 'json');
    expect(problems).toHaveLength(1000);
    expect(response.body.faultstring).toMatch(/^The price list has 1500 problems:\n/);
    expect(response.body.faultstring).toMatch(/\n… and 500 more problems \(TARIFF_PRICE_LIST_MAX_PROBLEMS\)$/);
  });

  // A key repeated with an equal value says the same thing twice (RFC 8259 leaves it to the reader):
  // accepted; with another value it is ambiguous: refused at its line.
  it('accepts a JSON key repeated with an equal value, refuses one repeated with another', async () => {
    const same = await apply(t, '{"groups": ["discounts"], "groups": ["discounts"]}', { dry_run: true });
    expect(same.status).toBe(200);
    const other = await apply(t, '{"groups": ["discounts"],\n "groups": ["other"]}', { dry_run: true });
    const problems = await expectRefused(other, 'json');
    expect(problems).toEqual([expect.objectContaining({ message: "duplicate key 'groups'", line: 2 })]);
  });
});
