/**
 * The selected rules as the engine applies them (plan.ts builds them, state.ts applies them):
 * group numbers instead of names, ranks instead of decimal comparisons, and where each rule
 * comes from for `explain`.
 */
import type { Exact } from '../../common/exact.js';
import type { Contribution } from './engine.js';

/** The name CloudKitty gives the rules without a group. */
export const DEFAULT_GROUP = '_DEFAULT_';

/** Where a planned rule comes from, for `explain`. */
export interface RuleSource {
  /** The group's name (`_DEFAULT_` for the rules without a group). */
  group: string;
  ruleId: string;
  kind: Contribution['kind'];
  type: 'flat' | 'rate';
}

/** A mapping as the plan applies it. */
export interface PlannedMapping {
  /** The group's number: its index in the plan's `groupNames`. */
  group: number;
  flat: boolean;
  /** The cost: per unit of quantity per collection period (flat), or a factor (rate). */
  cost: Exact;
  /** Flats only: the cost's rank among the service's flat costs and zero. */
  flatRank: number;
  source: RuleSource;
}

/** A threshold as the plan applies it. */
export interface PlannedThreshold {
  group: number;
  flat: boolean;
  cost: Exact;
  /** What reaches it: the point's quantity (service) or a desc value (field). */
  scope: 'service' | 'field';
  /** The level's rank among all the service's levels (service and field thresholds compete). */
  levelRank: number;
  source: RuleSource;
}

/** The `explain` entry of a rule that contributed `amount` (decimal text) through its group. */
export function contribution(rule: PlannedMapping | PlannedThreshold, amount: string): Contribution {
  const { group, ruleId, kind, type } = rule.source;
  return { module: 'hashmap', group, rule_id: ruleId, kind, type, cost: rule.cost.toString(), amount };
}
