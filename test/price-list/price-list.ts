/**
 * What the price-list tests share (docs/price-list.md): the routes, an apply and an export through
 * a test app or a server process, and a generated rule set that uses every kind of rule the
 * document has (service and field mappings, tenant and group rules, rate and flat, thresholds,
 * groups, module states, a scheduled mapping, a mapping with an end).
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { TestApp, TestResponse } from '../helpers/app.js';
import type { ServerProcess } from '../helpers/server.js';

export const PRICE_LIST = '/v2/rating/price_list';
export const SCHEMA = '/v2/rating/price_list/schema';
export const QUOTE = '/v2/rating/quote';

/** A price-list document (plain JSON values). */
export type PriceListDocument = Record<string, any>;

/** Query parameters of an apply. */
export interface ApplyQuery {
  dry_run?: boolean;
  effective_at?: string;
  if_revision?: number;
  unversioned_now?: boolean;
}

export function applyPath(query: ApplyQuery = {}): string {
  const parameters = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) parameters.set(name, String(value));
  const text = parameters.toString();
  return text === '' ? PRICE_LIST : `${PRICE_LIST}?${text}`;
}

/** POSTs a document (an object is sent as JSON; text as `contentType`). */
export function apply(
  t: TestApp,
  document: PriceListDocument | string | Buffer,
  query: ApplyQuery = {},
  contentType = 'application/json',
): Promise<TestResponse> {
  const body = typeof document === 'string' || Buffer.isBuffer(document) ? document : JSON.stringify(document);
  return t.post(applyPath(query), body, { 'content-type': contentType });
}

/** An apply that must succeed; returns the diff. */
export async function applied(t: TestApp, document: PriceListDocument | string, query: ApplyQuery = {}, contentType?: string): Promise<any> {
  const response = await apply(t, document, query, contentType);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** The export (JSON), at `at` when given. */
export async function exported(t: TestApp, at?: string): Promise<PriceListDocument> {
  const response = await t.get(at === undefined ? PRICE_LIST : `${PRICE_LIST}?at=${encodeURIComponent(at)}`);
  expect(response.status, response.text).toBe(200);
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  return response.body;
}

/** The export as YAML text. */
export async function exportedYaml(t: TestApp): Promise<string> {
  const response = await t.request('GET', PRICE_LIST, undefined, { accept: 'application/yaml' });
  expect(response.status, response.text).toBe(200);
  expect(response.headers['content-type']).toBe('application/yaml; charset=utf-8');
  return response.text;
}

/** A document without its export-only members (`revision`, `at`): what two exports must share. */
export function content(document: PriceListDocument): PriceListDocument {
  const { revision: _revision, at: _at, ...rest } = document;
  return rest;
}

/** The export of a server process (JSON). */
export async function exportedFrom(server: ServerProcess): Promise<PriceListDocument> {
  const response = await fetch(`${server.url}${PRICE_LIST}`, { signal: AbortSignal.timeout(60_000) });
  expect(response.status).toBe(200);
  return (await response.json()) as PriceListDocument;
}

/** Applies a document to a server process; the status and the parsed answer. */
export async function applyTo(server: ServerProcess, document: PriceListDocument | string, query: ApplyQuery = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}${applyPath(query)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof document === 'string' ? document : JSON.stringify(document),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** No change at all: the diff of an apply that writes nothing. */
export const NO_CHANGES = { added: 0, replaced: 0, ended: 0, deleted: 0, updated: 0, created: 0 };

// ---------------------------------------------------------------------------------------------
// A generated rule set.

/** Times far enough ahead that a test's own duration never reaches them (whole seconds, UTC). */
export function isoFromNow(days: number): string {
  return new Date(Math.floor(Date.now() / 1000) * 1000 + days * 86_400_000).toISOString().replace('.000Z', '+00:00');
}

/** A cost as a document may write it (string or number text; exports normalize it). */
const costText = fc
  .tuple(fc.integer({ min: 0, max: 999 }), fc.integer({ min: 0, max: 9999 }), fc.constantFrom('', '0', '00'))
  .map(([units, fraction, zeros]) => `${units}.${String(fraction).padStart(4, '0')}${zeros}`);

/** Short names from a small alphabet, so generated services, fields and values collide as they would in real life. */
const word = fc.stringMatching(/^[a-z][a-z0-9_.-]{0,7}$/);

/** A tenant id (or none). */
const tenant = fc.option(fc.constantFrom('8f2a4c1e0b7d4f3a9e6c5b2d1a0f9e8c', 'proj-a', 'proj-b'), { nil: undefined });

/** The generated part of a rule set: names of services and fields, with their rules. */
export interface GeneratedRules {
  groups: string[];
  services: { name: string; mappings: Rule[]; thresholds: Rule[]; fields: { name: string; mappings: Rule[]; thresholds: Rule[] }[] }[];
  modules: { hashmap: { enabled: boolean; priority: number }; pyscripts: { enabled: boolean; priority: number } };
}

type Rule = Record<string, unknown>;

/** A mapping's identity key, to keep generated ones unique (the document refuses duplicates). */
const mappingKey = (rule: Rule) => JSON.stringify([rule.value ?? null, rule.tenant_id ?? null, rule.group ?? null]);
const thresholdKey = (rule: Rule) => JSON.stringify([Number(rule.level), rule.tenant_id ?? null]);

function uniqueBy(rules: Rule[], key: (rule: Rule) => string): Rule[] {
  const seen = new Set<string>();
  return rules.filter((rule) => (seen.has(key(rule)) ? false : (seen.add(key(rule)), true)));
}

/**
 * An arbitrary rule set: 1-3 services with 0-3 fields, mappings (flat or rate, with or without a
 * tenant and group, some named) and thresholds; the groups the rules name; module states.
 */
export const generatedRules: fc.Arbitrary<GeneratedRules> = fc
  .record({
    groups: fc.uniqueArray(word, { minLength: 1, maxLength: 3 }),
    services: fc.uniqueArray(
      fc.record({
        name: word,
        fields: fc.uniqueArray(word, { maxLength: 3 }),
        seeds: fc.array(
          fc.record({
            field: fc.nat(),
            value: word,
            type: fc.constantFrom('flat', 'rate'),
            cost: costText,
            tenant,
            group: fc.option(fc.nat(), { nil: undefined }),
            threshold: fc.boolean(),
            level: fc.integer({ min: 0, max: 5000 }),
          }),
          { maxLength: 8 },
        ),
      }),
      { minLength: 1, maxLength: 3, selector: (service) => service.name },
    ),
    hashmap: fc.record({ enabled: fc.boolean(), priority: fc.integer({ min: 1, max: 1000 }) }),
    pyscripts: fc.record({ enabled: fc.boolean(), priority: fc.integer({ min: 1, max: 1000 }) }),
  })
  .map(({ groups, services, hashmap, pyscripts }) => ({
    groups,
    modules: { hashmap, pyscripts },
    services: services.map((service) => {
      const parents: { mappings: Rule[]; thresholds: Rule[] }[] = [
        { mappings: [], thresholds: [] },
        ...service.fields.map(() => ({ mappings: [], thresholds: [] })),
      ];
      for (const seed of service.seeds) {
        const index = seed.field % parents.length;
        const group = seed.group === undefined ? undefined : groups[seed.group % groups.length];
        const common = { type: seed.type, cost: seed.cost, ...(seed.tenant ? { tenant_id: seed.tenant } : {}), ...(group ? { group } : {}) };
        if (seed.threshold) parents[index].thresholds.push({ level: String(seed.level), ...common });
        else parents[index].mappings.push({ ...(index === 0 ? {} : { value: seed.value }), ...common });
      }
      const clean = (parent: { mappings: Rule[]; thresholds: Rule[] }) => ({
        mappings: uniqueBy(parent.mappings, mappingKey),
        thresholds: uniqueBy(parent.thresholds, thresholdKey),
      });
      return {
        name: service.name,
        ...clean(parents[0]),
        fields: service.fields.map((name, index) => ({ name, ...clean(parents[index + 1]) })),
      };
    }),
  }));

/**
 * A document of the generated rules, plus fixed rules every rule set has (one of each kind the
 * round trip must keep, with exact expected export forms: see {@link FIXED_EXPORT}). `now` fixes
 * the scheduled start and the end.
 */
export function ruleSetDocument(rules: GeneratedRules, times: { scheduled: string; end: string }): PriceListDocument {
  const services: PriceListDocument = {};
  for (const service of rules.services) {
    services[`gen-${service.name}`] = {
      mappings: service.mappings,
      thresholds: service.thresholds,
      fields: Object.fromEntries(service.fields.map((field) => [field.name, { mappings: field.mappings, thresholds: field.thresholds }])),
    };
  }
  return {
    modules: rules.modules,
    groups: ['fixed_group', ...rules.groups.filter((group) => group !== 'fixed_group')],
    services: {
      ...services,
      compute: {
        mappings: [{ type: 'flat', cost: '1.50', name: 'compute-base' }],
        fields: {
          flavor: {
            mappings: [
              { value: 'm1.small', cost: 0.1, name: 'small-now', description: 'the current price', end: times.scheduled },
              { value: 'm1.small', cost: '0.12', name: 'small-next', start: times.scheduled },
              { value: 'm1.small', type: 'rate', cost: '0.08', tenant_id: 'proj-a', group: 'fixed_group', name: 'small-proj-a' },
              { value: 'm1.old', cost: '3', name: 'old-flavor', end: times.end },
            ],
            thresholds: [{ level: 100, type: 'rate', cost: '0.95', tenant_id: 'proj-a', group: 'fixed_group' }],
          },
          vcpus: { mappings: [{ value: 8, type: 'rate', cost: '2.0', name: 'eight-vcpus' }] },
        },
      },
    },
  };
}

/** The fixed service of {@link ruleSetDocument} as the export must show it. */
export function fixedExport(times: { scheduled: string; end: string }): PriceListDocument {
  return {
    mappings: [{ cost: '1.5', name: 'compute-base' }],
    fields: {
      flavor: {
        mappings: [
          { value: 'm1.old', cost: '3', name: 'old-flavor', end: times.end },
          { value: 'm1.small', cost: '0.1', name: 'small-now', description: 'the current price', end: times.scheduled },
          { value: 'm1.small', cost: '0.12', name: 'small-next', start: times.scheduled },
          { value: 'm1.small', type: 'rate', cost: '0.08', tenant_id: 'proj-a', group: 'fixed_group', name: 'small-proj-a' },
        ],
        thresholds: [{ level: '100', type: 'rate', cost: '0.95', tenant_id: 'proj-a', group: 'fixed_group' }],
      },
      vcpus: { mappings: [{ value: '8', type: 'rate', cost: '2', name: 'eight-vcpus' }] },
    },
  };
}
