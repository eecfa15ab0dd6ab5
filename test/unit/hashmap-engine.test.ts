/**
 * The hashmap engine against every worked case of rating.md §5 (CloudKitty's own tests), with
 * exact decimal expectations, plus tenant overrides, validity, rate-only groups, service flat
 * thresholds and Python str() matching of desc values.
 */
import { describe, expect, it } from 'vitest';
import { buildRuleIndex, type LoadedMapping, type LoadedThreshold } from '../../src/rating/hashmap/engine/rules.js';
import { selectRules } from '../../src/rating/hashmap/engine/select.js';
import { rateHashmapPoint, type Contribution } from '../../src/rating/hashmap/engine/engine.js';
import { Exact } from '../../src/rating/hashmap/engine/exact.js';

const NOW = Date.parse('2026-06-01T00:00:00Z');
let counter = 0;

function mapping(rule: Partial<LoadedMapping> & Pick<LoadedMapping, 'cost'>): LoadedMapping {
  counter += 1;
  return { mappingId: `m${counter}`, type: 'flat', group: null, tenantId: null, value: null, start: 0, end: null, serviceName: 'compute', fieldName: null, ...rule };
}

function threshold(rule: Partial<LoadedThreshold> & Pick<LoadedThreshold, 'cost' | 'level'>): LoadedThreshold {
  counter += 1;
  return { thresholdId: `t${counter}`, type: 'flat', group: null, tenantId: null, serviceName: 'compute', fieldName: null, ...rule };
}

const POINTS: { qty: string; desc: Record<string, unknown> }[] = [
  { qty: '1', desc: { flavor: 'm1.nano', image_id: 'f5600101-8fa2-4864-899e-ebcb7ed6b568', memory: '64', vcpus: 1 } },
  { qty: '2', desc: { flavor: 'm1.tiny', image_id: 'a41fba37-2429-4f15-aa00-b5bc4bf557bf', memory: '512', vcpus: '1' } },
  { qty: '2', desc: { flavor: 'm1.xlarge', image_id: '0052f884-461d-4e4e-a9d2-ea1fb6cd4b02', memory: '16384', vcpus: 8 } },
  { qty: '1', desc: { flavor: 'm1.nano', image_id: 'a41fba37-2429-4f15-aa00-b5bc4bf557bf', memory: '64', vcpus: '1' } },
];

function prices(mappings: LoadedMapping[], thresholds: LoadedThreshold[], points = POINTS, tenant: string | null = null, service = 'compute'): string[] {
  const selected = selectRules(buildRuleIndex(mappings, thresholds), NOW, tenant);
  return points.map((point) => rateHashmapPoint(selected.get(service), Exact.from(point.qty), point.desc).toString());
}

describe('rating.md §5 worked cases', () => {
  it('A: service flats in two groups add up', () => {
    expect(prices([mapping({ cost: '1.337', group: 'test_group' }), mapping({ cost: '1.42' })], [])).toEqual(['2.757', '5.514', '5.514', '2.757']);
  });

  it('B: field flats and rates per group; a rate-only group yields 0', () => {
    const rules = [
      mapping({ fieldName: 'flavor', value: 'm1.nano', cost: '1.337', group: 'test_group' }),
      mapping({ fieldName: 'image_id', value: 'a41fba37-2429-4f15-aa00-b5bc4bf557bf', type: 'rate', cost: '1.10', group: 'test_group' }),
      mapping({ fieldName: 'flavor', value: 'm1.tiny', cost: '1.42' }),
    ];
    expect(prices(rules, [])).toEqual(['1.337', '2.84', '0', '1.4707']);
  });

  it('C: field thresholds (flat per quantity) and service thresholds (flat, not multiplied)', () => {
    const field = [threshold({ fieldName: 'memory', level: '64', cost: '0.1337' }), threshold({ fieldName: 'memory', level: '128', cost: '0.2' })];
    expect(prices([], field)).toEqual(['0.1337', '0.4', '0.4', '0.1337']);
    const service = [threshold({ level: '1', cost: '0.1' }), threshold({ level: '2', cost: '0.15' })];
    expect(prices([], service)).toEqual(['0.1', '0.15', '0.15', '0.1']);
  });

  it('D: groups, mappings and thresholds together', () => {
    const rules = [
      mapping({ cost: '1.00' }),
      mapping({ fieldName: 'flavor', value: 'm1.nano', cost: '1.337', group: 'test_group' }),
      mapping({ fieldName: 'flavor', value: 'm1.tiny', cost: '1.42', group: 'test_group' }),
      mapping({ fieldName: 'image_id', value: 'a41fba37-2429-4f15-aa00-b5bc4bf557bf', type: 'rate', cost: '1.10', group: 'test_group' }),
      mapping({ fieldName: 'vcpus', value: '8', cost: '16.0', group: 'second_test_group' }),
    ];
    const thresholds = [
      threshold({ fieldName: 'memory', level: '64', cost: '0.15', group: 'test_group' }),
      threshold({ fieldName: 'memory', level: '128', cost: '0.2', group: 'test_group' }),
    ];
    expect(prices(rules, thresholds)).toEqual(['2.487', '5.564', '34.4', '2.6357']);
  });

  it('E: a tenant rule replaces the global one with the same key in the same group', () => {
    const rules = [
      mapping({ fieldName: 'flavor', value: 'm1.tiny', cost: '1.337', group: 'g' }),
      mapping({ fieldName: 'flavor', value: 'm1.tiny', cost: '2', group: 'g', tenantId: 'X' }),
    ];
    const point = [{ qty: '1', desc: { flavor: 'm1.tiny' } }];
    expect(prices(rules, [], point, 'X')).toEqual(['2']);
    expect(prices(rules, [], point, null)).toEqual(['1.337']);
    expect(prices(rules, [], point, 'Y')).toEqual(['1.337']);
  });

  it('F: volume thresholds (rate) with a tenant override', () => {
    const rules = [mapping({ serviceName: 'volume.size', cost: '0.001' })];
    const thresholds = [
      threshold({ serviceName: 'volume.size', level: '50', type: 'rate', cost: '0.98' }),
      threshold({ serviceName: 'volume.size', level: '50', type: 'rate', cost: '0.97', tenantId: 'X' }),
      threshold({ serviceName: 'volume.size', level: '200', type: 'rate', cost: '0.95' }),
    ];
    const points = ['20', '50', '80', '250'].map((qty) => ({ qty, desc: {} }));
    expect(prices(rules, thresholds, points, null, 'volume.size')).toEqual(['0.02', '0.049', '0.0784', '0.2375']);
    expect(prices(rules, thresholds, points, 'X', 'volume.size')).toEqual(['0.02', '0.0485', '0.0776', '0.2375']);
  });
});

describe('rule selection and matching', () => {
  it('applies mappings only inside their validity [start, end)', () => {
    const rules = [mapping({ cost: '5', start: NOW + 1, end: null }), mapping({ cost: '3', start: 0, end: NOW }), mapping({ cost: '1', start: NOW, end: NOW + 1 })];
    expect(prices(rules, [], [{ qty: '1', desc: {} }])).toEqual(['1']);
  });

  it('matches desc values by their Python str(): 2 and "2", true as True, null as None', () => {
    const rules = [
      mapping({ fieldName: 'n', value: '2', cost: '1' }),
      mapping({ fieldName: 'b', value: 'True', cost: '10', group: 'b' }),
      mapping({ fieldName: 'z', value: 'None', cost: '100', group: 'z' }),
      mapping({ fieldName: 'f', value: '2.5', cost: '1000', group: 'f' }),
    ];
    expect(prices(rules, [], [{ qty: '1', desc: { n: 2, b: true, z: null, f: 2.5 } }])).toEqual(['1111']);
    expect(prices(rules, [], [{ qty: '1', desc: { n: '2', b: 'true', f: '2.50' } }])).toEqual(['1']);
  });

  it('ignores thresholds for a non-numeric field value instead of failing (fix)', () => {
    const thresholds = [threshold({ fieldName: 'memory', level: '1', cost: '1' })];
    expect(prices([], thresholds, [{ qty: '1', desc: { memory: 'lots' } }, { qty: '1', desc: { memory: 3 } }])).toEqual(['0', '1']);
  });

  it('does not multiply a service flat threshold by the quantity', () => {
    const thresholds = [threshold({ level: '10', cost: '0.5' })];
    expect(prices([], thresholds, [{ qty: '100', desc: {} }])).toEqual(['0.5']);
  });

  it('keeps the most expensive flat of a group rather than summing flats', () => {
    const rules = [mapping({ cost: '1' }), mapping({ fieldName: 'flavor', value: 'a', cost: '3' })];
    expect(prices(rules, [], [{ qty: '2', desc: { flavor: 'a' } }])).toEqual(['6']);
  });

  it('computes in 28 significant digits, half-even, like Python decimal', () => {
    const rules = [mapping({ cost: '1' }), mapping({ type: 'rate', cost: '0.3333333333333333333333333333' }), mapping({ type: 'rate', cost: '3' })];
    expect(prices(rules, [], [{ qty: '1', desc: {} }])).toEqual(['0.9999999999999999999999999999']);
  });

  it('explains what contributed', () => {
    const selected = selectRules(buildRuleIndex([mapping({ mappingId: 'svc', cost: '2' })], [threshold({ thresholdId: 'thr', level: '1', type: 'rate', cost: '0.5' })]), NOW, null);
    const explain: Contribution[] = [];
    const price = rateHashmapPoint(selected.get('compute'), Exact.from(3), {}, explain);
    expect(price.toString()).toBe('3');
    expect(explain).toEqual([
      { module: 'hashmap', group: '_DEFAULT_', rule_id: 'svc', kind: 'service mapping', type: 'flat', cost: '2', amount: '3' },
      { module: 'hashmap', group: '_DEFAULT_', rule_id: 'thr', kind: 'service threshold', type: 'rate', cost: '0.5', amount: '3' },
    ]);
  });
});
