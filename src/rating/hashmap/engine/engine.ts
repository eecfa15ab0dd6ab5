/**
 * The hashmap engine (rating.md §5), pure: prices one point of a service from the selected rules.
 *
 * Per group (rules without a group form `_DEFAULT_`): flat = 0, rate = 1, no threshold; service
 * mappings then field mappings matching the point's desc apply (flat: the most expensive wins;
 * rate: multiplied); thresholds whose level the quantity (service scope) or the numeric field
 * value (field scope) reaches compete, the highest level winning per group; a field-scoped
 * winner adds to flat or multiplies rate, then amount = rate × flat × qty; a service-scoped
 * winner is added to the amount (flat, not multiplied by qty) or multiplies it (rate).
 */
import { Exact } from './exact.js';
import type { SelectedMapping, SelectedServiceRules, SelectedThreshold } from './select.js';

/** The name CloudKitty gives the rules without a group. */
export const DEFAULT_GROUP = '_DEFAULT_';

/** One rule that contributed to a point's price (`explain`). */
export interface Contribution {
  module: 'hashmap';
  group: string;
  rule_id: string;
  kind: 'service mapping' | 'field mapping' | 'service threshold' | 'field threshold';
  type: 'flat' | 'rate';
  /** Decimal text: the rule's cost. */
  cost: string;
  /** Decimal text: the amount the rule's group added to the price. */
  amount: string;
}

interface GroupState {
  flat: Exact;
  rate: Exact;
  threshold: { selected: SelectedThreshold; scope: 'service' | 'field' } | undefined;
  applied: Omit<Contribution, 'amount'>[] | undefined;
}

const ZERO = Exact.ZERO;
const ONE = Exact.ONE;

/**
 * Python's `str()` of a desc value as CloudKitty sees it: strings as they are, `true` → `True`,
 * `null` → `None`, numbers in their shortest form.
 */
export function pythonText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return String(value);
}

/** The numeric value of a desc value, or undefined (fix: CloudKitty aborted on non-numeric). */
function numericValue(value: unknown): Exact | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? Exact.from(value) : undefined;
  if (typeof value === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(value)) return Exact.from(value);
  return undefined;
}

/** The per-point work of {@link rateHashmapPoint}; methods on a prototype, no closures per point. */
class PointPricing {
  readonly groups = new Map<string, GroupState>();

  constructor(private readonly explain: boolean) {}

  state(group: string | null): GroupState {
    const name = group ?? DEFAULT_GROUP;
    let current = this.groups.get(name);
    if (!current) {
      current = { flat: ZERO, rate: ONE, threshold: undefined, applied: this.explain ? [] : undefined };
      this.groups.set(name, current);
    }
    return current;
  }

  applyMapping(selected: SelectedMapping, kind: Contribution['kind']): void {
    const group = this.state(selected.rule.group);
    if (selected.rule.type === 'flat') {
      if (selected.cost.gt(group.flat)) group.flat = selected.cost;
    } else {
      group.rate = group.rate.times(selected.cost);
    }
    group.applied?.push({ module: 'hashmap', group: selected.rule.group ?? DEFAULT_GROUP, rule_id: selected.rule.mappingId, kind, type: selected.rule.type, cost: selected.cost.toString() });
  }

  consider(selected: SelectedThreshold, scope: 'service' | 'field', reached: Exact): void {
    if (reached.lt(selected.level)) return;
    const group = this.state(selected.rule.group);
    if (!group.threshold || selected.level.gt(group.threshold.selected.level)) group.threshold = { selected, scope };
  }
}

/**
 * Prices one point.
 *
 * @param rules - the selected rules of the point's service (undefined: the service has none).
 * @param quantity - the point's `vol.qty`.
 * @param desc - metadata merged with groupby (a JSON object: values are never functions).
 * @param explain - when given, receives one entry per rule that contributed.
 * @returns the amount to add to the point's price (per collection period).
 */
export function rateHashmapPoint(
  rules: SelectedServiceRules | undefined,
  quantity: Exact,
  desc: Readonly<Record<string, unknown>>,
  explain?: Contribution[],
): Exact {
  if (!rules) return ZERO;
  const pricing = new PointPricing(explain !== undefined);
  for (const mapping of rules.mappings) pricing.applyMapping(mapping, 'service mapping');
  for (const threshold of rules.thresholds) pricing.consider(threshold, 'service', quantity);
  for (const field of rules.fields) {
    const value = desc[field.name];
    // Absent, or only inherited from Object.prototype (a field named `constructor`).
    if (value === undefined || typeof value === 'function') continue;
    const matching = field.mappings.get(pythonText(value));
    if (matching) for (const mapping of matching) pricing.applyMapping(mapping, 'field mapping');
    if (field.thresholds.length > 0) {
      const numeric = numericValue(value);
      if (numeric) for (const threshold of field.thresholds) pricing.consider(threshold, 'field', numeric);
    }
  }
  const groups = pricing.groups;

  let total = ZERO;
  for (const [name, group] of groups) {
    const winner = group.threshold;
    if (winner?.scope === 'field') {
      if (winner.selected.rule.type === 'flat') group.flat = group.flat.plus(winner.selected.cost);
      else group.rate = group.rate.times(winner.selected.cost);
    }
    let amount = group.flat.isZero() ? ZERO : group.rate.times(group.flat).times(quantity);
    if (winner?.scope === 'service') {
      amount = winner.selected.rule.type === 'flat' ? amount.plus(winner.selected.cost) : amount.times(winner.selected.cost);
    }
    total = total.plus(amount);
    if (explain && group.applied) {
      if (winner) {
        const { rule, cost } = winner.selected;
        group.applied.push({ module: 'hashmap', group: name, rule_id: rule.thresholdId, kind: `${winner.scope} threshold`, type: rule.type, cost: cost.toString() });
      }
      for (const contribution of group.applied) explain.push({ ...contribution, amount: amount.toString() });
    }
  }
  return total;
}
