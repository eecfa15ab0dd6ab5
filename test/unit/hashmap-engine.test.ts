/**
 * The hashmap engine against every worked case of rating.md §5 (CloudKitty's own tests), with
 * exact decimal expectations, plus tenant overrides, validity, rate-only groups, service flat
 * thresholds and Python str() matching of desc values.
 */
import { describe, expect, it } from 'vitest';
import { buildRuleIndex } from '../../src/rating/hashmap/engine/rule-index.js';
import { selectRules } from '../../src/rating/hashmap/engine/select.js';
import { rateHashmapPoint } from '../../src/rating/hashmap/engine/engine.js';
import type {
  Contribution,
  LoadedMapping,
  LoadedThreshold,
  SelectedMapping,
  SelectedServiceRules,
  SelectedThreshold,
} from '../../src/rating/hashmap/engine/types.js';
import { Exact, ExactAccumulator } from '../../src/rating/common/exact.js';
import { pythonDecimal as reference } from '../helpers/python-decimal.js';

const NOW = Date.parse('2026-06-01T00:00:00Z');
let counter = 0;

function mapping(rule: Partial<LoadedMapping> & Pick<LoadedMapping, 'cost'>): LoadedMapping {
  counter += 1;
  return {
    mappingId: `m${counter}`,
    type: 'flat',
    group: null,
    tenantId: null,
    value: null,
    start: 0,
    end: null,
    serviceName: 'compute',
    fieldName: null,
    ...rule,
  };
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
  it('shares the global selection among tenants without rules of their own; any kind of tenant rule gives its tenant its own', () => {
    const mappings = [
      mapping({ fieldName: 'flavor', value: 'm1.tiny', cost: '1', group: 'g' }),
      mapping({ cost: '0.5', tenantId: 'service mapping' }),
      mapping({ fieldName: 'flavor', value: 'm1.tiny', cost: '2', group: 'g', tenantId: 'field mapping' }),
      // A tenant rule that has ended still makes its tenant's selection (another time, another rule set).
      mapping({ fieldName: 'flavor', value: 'm1.tiny', cost: '3', tenantId: 'ended mapping', end: NOW - 1 }),
    ];
    const thresholds = [
      threshold({ level: '2', cost: '0.1', tenantId: 'service threshold' }),
      threshold({ fieldName: 'flavor', level: '2', cost: '0.1', tenantId: 'field threshold' }),
    ];
    const index = buildRuleIndex(mappings, thresholds);
    const global = selectRules(index, NOW, null);
    // More tenants than the 256 remembered: still the one global selection.
    for (let tenant = 0; tenant < 1000; tenant += 1) expect(selectRules(index, NOW, `project-${tenant}`)).toBe(global);
    for (const tenant of ['service mapping', 'field mapping', 'ended mapping', 'service threshold', 'field threshold']) {
      const own = selectRules(index, NOW, tenant);
      expect(own, tenant).not.toBe(global);
      expect(selectRules(index, NOW, tenant), tenant).toBe(own);
    }
  });

  it('applies mappings only inside their validity [start, end)', () => {
    const rules = [
      mapping({ cost: '5', start: NOW + 1, end: null }),
      mapping({ cost: '3', start: 0, end: NOW }),
      mapping({ cost: '1', start: NOW, end: NOW + 1 }),
    ];
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
    expect(
      prices([], thresholds, [
        { qty: '1', desc: { memory: 'lots' } },
        { qty: '1', desc: { memory: 3 } },
      ]),
    ).toEqual(['0', '1']);
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
    const selected = selectRules(
      buildRuleIndex([mapping({ mappingId: 'svc', cost: '2' })], [threshold({ thresholdId: 'thr', level: '1', type: 'rate', cost: '0.5' })]),
      NOW,
      null,
    );
    const explain: Contribution[] = [];
    const price = rateHashmapPoint(selected.get('compute'), Exact.from(3), {}, undefined, explain);
    expect(price.toString()).toBe('3');
    expect(explain).toEqual([
      { module: 'hashmap', group: '_DEFAULT_', rule_id: 'svc', kind: 'service mapping', type: 'flat', cost: '2', amount: '3' },
      { module: 'hashmap', group: '_DEFAULT_', rule_id: 'thr', kind: 'service threshold', type: 'rate', cost: '0.5', amount: '3' },
    ]);
  });
});

/** A deterministic pseudo-random source (mulberry32), so that a failure can be replayed. */
function randomSource(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
  const integer = (low: number, high: number) => low + Math.floor(next() * (high - low + 1));
  const digits = (count: number) => Array.from({ length: count }, () => String(integer(0, 9))).join('');
  const pick = <T>(list: readonly T[]): T => list[integer(0, list.length - 1)];
  /** Decimal text from 1 to 30 significant digits, any sign and scale. */
  const decimal = () => {
    const sign = next() < 0.2 ? '-' : '';
    const kind = integer(0, 5);
    if (kind === 0) return `${sign}${integer(0, 999)}`;
    if (kind === 1) return `${sign}${integer(0, 99)}.${digits(integer(1, 6))}`;
    if (kind === 2) return `${sign}0.${'0'.repeat(integer(0, 8))}${digits(integer(1, 18))}`;
    if (kind === 3) return `${sign}${digits(integer(1, 12))}.${digits(integer(0, 16))}`;
    if (kind === 4) return `${sign}${integer(1, 9)}${digits(integer(15, 29))}e${integer(-40, 10)}`;
    return `${sign}${digits(integer(14, 17))}`;
  };
  return { next, integer, digits, pick, decimal };
}

const MINUS_ONE = Exact.from('-1');

/** Parse, sum, difference, product and comparison of two decimal texts, as the reference has them. */
function expectAsReference(leftText: string, rightText: string): void {
  const [left, right] = [Exact.from(leftText), Exact.from(rightText)];
  const [leftReference, rightReference] = [reference.parse(leftText), reference.parse(rightText)];
  const negated = { coefficient: -rightReference.coefficient, exponent: rightReference.exponent };
  const context = `${leftText} and ${rightText}`;
  expect(left.toString(), context).toBe(reference.text(leftReference));
  expect(left.plus(right).toString(), context).toBe(reference.text(reference.plus(leftReference, rightReference)));
  expect(left.plus(right.times(MINUS_ONE)).toString(), context).toBe(reference.text(reference.plus(leftReference, negated)));
  expect(left.times(right).toString(), context).toBe(reference.text(reference.times(leftReference, rightReference)));
  const difference = reference.plus(leftReference, negated).coefficient;
  expect(left.compare(right), context).toBe(difference < 0n ? -1 : difference > 0n ? 1 : 0);
}

describe('exact arithmetic (28 significant digits, half-even) against a BigInt reference', () => {
  it('parses, adds, multiplies, compares and prints as the reference does', () => {
    const random = randomSource(7);
    for (let round = 0; round < 20000; round += 1) expectAsReference(random.decimal(), random.decimal());
  });

  it('keeps exact results beyond 2^53 and rounds half to even at the 28th digit', () => {
    expect(Exact.from('9007199254740991').plus(Exact.from('1')).toString()).toBe('9007199254740992');
    expect(Exact.from('94906267').times(Exact.from('94906267')).toString()).toBe('9007199515875289');
    expect(Exact.from('1234567890123456789012345678').plus(Exact.from('0.5')).toString()).toBe('1234567890123456789012345678');
    expect(Exact.from('1234567890123456789012345677').plus(Exact.from('0.5')).toString()).toBe('1234567890123456789012345678');
    expect(Exact.from('9999999999999999999999999999').plus(Exact.from('0.5')).toString()).toBe('10000000000000000000000000000');
    expect(Exact.from('-0.00000000000000000000000000001').times(Exact.from('3')).toString()).toBe('-0.00000000000000000000000000003');
  });

  it('rounds wide sums and products as the reference does: ties, carries, cancellation, far exponents', () => {
    const random = randomSource(23);
    // Digit patterns at the rounding edges: runs of 9s, of 0s, and a 5 at the cut.
    const pattern = () => {
      const length = random.integer(1, 30);
      const kind = random.integer(0, 3);
      if (kind === 0) return '9'.repeat(length);
      if (kind === 1) return `${random.integer(1, 9)}${'0'.repeat(length - 1)}`;
      if (kind === 2) return `${random.digits(Math.min(length, 27))}5${'0'.repeat(random.integer(0, 3))}`;
      return `${random.integer(1, 9)}${random.digits(length - 1)}`;
    };
    const operand = () => `${random.next() < 0.4 ? '-' : ''}${pattern()}e${random.integer(-70, 30)}`;
    for (let round = 0; round < 20000; round += 1) expectAsReference(operand(), operand());
    // A value minus itself is zero; long text is rounded once, with what follows the 29th digit.
    expect(Exact.from('1234567890123456789012345678').plus(Exact.from('-1234567890123456789012345678')).isZero()).toBe(true);
    expect(Exact.from(`1${'0'.repeat(26)}25${'0'.repeat(40)}1`).toString()).toBe(`1${'0'.repeat(26)}3${'0'.repeat(42)}`);
    expect(Exact.from(`1${'0'.repeat(26)}25${'0'.repeat(41)}`).toString()).toBe(`1${'0'.repeat(26)}2${'0'.repeat(42)}`);
  });

  it('gives an accumulator the results of the same operations on Exact', () => {
    const random = randomSource(11);
    const accumulator = new ExactAccumulator();
    for (let round = 0; round < 2000; round += 1) {
      let value = Exact.from(random.decimal());
      accumulator.set(value);
      for (let step = 0; step < 6; step += 1) {
        const operand = Exact.from(random.decimal());
        if (random.next() < 0.5) {
          value = value.plus(operand);
          accumulator.add(operand);
        } else {
          value = value.times(operand);
          accumulator.multiply(operand);
        }
        expect(accumulator.toExact().toString()).toBe(value.toString());
      }
    }
  });
});

/**
 * The engine as it was written before it was made fast (rating.md §5 step by step, groups in a
 * Map in the order they are first touched): what the engine must still compute, price and
 * `explain` alike.
 */
function referencePrice(rules: SelectedServiceRules | undefined, quantity: Exact, desc: Record<string, unknown>, explain?: Contribution[]): Exact {
  if (!rules) return Exact.ZERO;
  type Candidate = { threshold: SelectedThreshold; scope: 'service' | 'field' };
  type Group = { flat: Exact; rate: Exact; winner: Candidate | undefined; applied: Omit<Contribution, 'amount'>[] };
  const groups = new Map<string, Group>();
  const group = (name: string | null) => {
    const key = name ?? '_DEFAULT_';
    if (!groups.has(key)) groups.set(key, { flat: Exact.ZERO, rate: Exact.ONE, winner: undefined, applied: [] });
    return groups.get(key)!;
  };
  const applyMapping = (selected: SelectedMapping, kind: Contribution['kind']) => {
    const state = group(selected.rule.group);
    if (selected.rule.type === 'flat') {
      if (selected.cost.compare(state.flat) > 0) state.flat = selected.cost;
    } else {
      state.rate = state.rate.times(selected.cost);
    }
    state.applied.push({
      module: 'hashmap',
      group: selected.rule.group ?? '_DEFAULT_',
      rule_id: selected.rule.mappingId,
      kind,
      type: selected.rule.type,
      cost: selected.cost.toString(),
    });
  };
  const consider = (threshold: SelectedThreshold, scope: 'service' | 'field', reached: Exact) => {
    if (reached.compare(threshold.level) < 0) return;
    const state = group(threshold.rule.group);
    if (!state.winner || threshold.level.compare(state.winner.threshold.level) > 0) state.winner = { threshold, scope };
  };
  for (const mapping of rules.mappings) applyMapping(mapping, 'service mapping');
  for (const threshold of rules.thresholds) consider(threshold, 'service', quantity);
  for (const field of rules.fields) {
    const value = desc[field.name];
    if (value === undefined || typeof value === 'function') continue;
    const text = typeof value === 'string' ? value : value === null ? 'None' : typeof value === 'boolean' ? (value ? 'True' : 'False') : String(value);
    for (const mapping of field.mappings.get(text) ?? []) applyMapping(mapping, 'field mapping');
    const numeric =
      typeof value === 'number'
        ? Exact.from(value)
        : typeof value === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(value)
          ? Exact.from(value)
          : undefined;
    if (numeric) for (const threshold of field.thresholds) consider(threshold, 'field', numeric);
  }
  let total = Exact.ZERO;
  for (const [name, state] of groups) {
    const winner = state.winner;
    if (winner?.scope === 'field') {
      if (winner.threshold.rule.type === 'flat') state.flat = state.flat.plus(winner.threshold.cost);
      else state.rate = state.rate.times(winner.threshold.cost);
    }
    let amount = state.flat.isZero() ? Exact.ZERO : state.rate.times(state.flat).times(quantity);
    if (winner?.scope === 'service') amount = winner.threshold.rule.type === 'flat' ? amount.plus(winner.threshold.cost) : amount.times(winner.threshold.cost);
    total = total.plus(amount);
    if (explain) {
      if (winner) {
        const { rule, cost } = winner.threshold;
        state.applied.push({
          module: 'hashmap',
          group: name,
          rule_id: rule.thresholdId,
          kind: `${winner.scope} threshold`,
          type: rule.type,
          cost: cost.toString(),
        });
      }
      for (const contribution of state.applied) explain.push({ ...contribution, amount: amount.toString() });
    }
  }
  return total;
}

describe('the engine against the step-by-step reference', () => {
  const FIELDS = ['flavor', 'size', 'flag', 'zone'];
  const GROUPS = [null, 'a', 'b', 'c', '_DEFAULT_'];

  function randomRules(random: ReturnType<typeof randomSource>) {
    const mappings: LoadedMapping[] = [];
    const thresholds: LoadedThreshold[] = [];
    const cost = () => (random.next() < 0.1 ? '0' : random.decimal().replace(/e.*$/, ''));
    for (const group of GROUPS) if (random.next() < 0.6) mappings.push(mapping({ group, type: random.next() < 0.3 ? 'rate' : 'flat', cost: cost() }));
    for (let index = 0; index < 40; index += 1) {
      const fieldName = random.pick(FIELDS);
      const value =
        fieldName === 'flag' ? random.pick(['True', 'False', 'None']) : fieldName === 'size' ? String(random.integer(1, 8)) : `v${random.integer(0, 9)}`;
      mappings.push(mapping({ fieldName, value, group: random.pick(GROUPS), type: random.next() < 0.3 ? 'rate' : 'flat', cost: cost() }));
    }
    for (let index = 0; index < 12; index += 1) {
      const level = random.pick(['0', '1', '2', '2.5', '4', '8', '100', '0.001', '123456789012345678901']);
      const fieldName = random.next() < 0.5 ? null : 'size';
      thresholds.push(threshold({ fieldName, level, group: random.pick(GROUPS), type: random.next() < 0.5 ? 'rate' : 'flat', cost: cost() }));
    }
    return { mappings, thresholds };
  }

  function randomPoint(random: ReturnType<typeof randomSource>) {
    const desc: Record<string, unknown> = {};
    const sizes = [
      2,
      '2',
      '2.0',
      ' 4 ',
      '1e2',
      2.5,
      '0.001',
      '123456789012345678901',
      '123456789012345678900.5',
      'lots',
      null,
      true,
      7,
      8,
      '8.00000000000000000001',
    ];
    if (random.next() < 0.8) desc.flavor = `v${random.integer(0, 12)}`;
    if (random.next() < 0.8) desc.size = random.next() < 0.7 ? random.pick(sizes) : random.integer(0, 10) / 4;
    if (random.next() < 0.8) desc.flag = random.pick([true, false, null, 'True', 'x']);
    if (random.next() < 0.5) desc.zone = `v${random.integer(0, 3)}`;
    const quantity = random.pick(['0', '1', '2.5', '150.5', '0.000001', '12345678.123', '99999999999999999', random.decimal().replace(/^-/, '')]);
    return { desc, quantity };
  }

  it('prices and explains every point as the reference does', () => {
    const random = randomSource(3);
    for (let set = 0; set < 60; set += 1) {
      const { mappings, thresholds } = randomRules(random);
      // The same rules, selected twice: the engine's plan lives in the first, the reference reads the second.
      const engineRules = selectRules(buildRuleIndex(mappings, thresholds), NOW, null).get('compute');
      const referenceRules = selectRules(buildRuleIndex(mappings, thresholds), NOW, null).get('compute');
      for (let index = 0; index < 200; index += 1) {
        const { desc, quantity } = randomPoint(random);
        const context = JSON.stringify({ set, desc, quantity });
        const expected = referencePrice(referenceRules, Exact.from(quantity), desc).toString();
        expect(rateHashmapPoint(engineRules, Exact.from(quantity), desc).toString(), context).toBe(expected);
        const [explained, referenceExplained]: Contribution[][] = [[], []];
        expect(rateHashmapPoint(engineRules, Exact.from(quantity), desc, undefined, explained).toString(), context).toBe(expected);
        referencePrice(referenceRules, Exact.from(quantity), desc, referenceExplained);
        expect(explained, context).toEqual(referenceExplained);
      }
    }
  });

  it('prices right past the desc values it remembers (4,096 per field)', () => {
    const rules = selectRules(buildRuleIndex([mapping({ cost: '1' })], [threshold({ fieldName: 'size', level: '5000', cost: '2' })]), NOW, null).get('compute');
    for (let value = 0; value < 10000; value += 7) {
      const expected = value >= 5000 ? '3' : '1';
      expect(rateHashmapPoint(rules, Exact.ONE, { size: value }).toString()).toBe(expected);
      expect(rateHashmapPoint(rules, Exact.ONE, { size: String(value) }).toString()).toBe(expected);
    }
  });
});

describe('selection reuse', () => {
  it('returns the same selection while no mapping starts or ends, a new one after', () => {
    const index = buildRuleIndex([mapping({ cost: '1' }), mapping({ cost: '5', group: 'later', start: NOW + 1000, end: NOW + 2000 })], []);
    const first = selectRules(index, NOW, null);
    expect(selectRules(index, NOW + 999, null)).toBe(first);
    // X has no rule of its own: it shares the global selection.
    expect(selectRules(index, NOW, 'X')).toBe(first);
    const later = selectRules(index, NOW + 1000, null);
    expect(later).not.toBe(first);
    expect(rateHashmapPoint(later.get('compute'), Exact.ONE, {}).toString()).toBe('6');
    expect(rateHashmapPoint(selectRules(index, NOW + 2000, null).get('compute'), Exact.ONE, {}).toString()).toBe('1');
    expect(rateHashmapPoint(selectRules(index, NOW + 500, null).get('compute'), Exact.ONE, {}).toString()).toBe('1');
  });
});
