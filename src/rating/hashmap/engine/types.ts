/**
 * The hashmap engine's vocabulary, in one file that imports no other engine file (so the engine's
 * files import each other in one direction only):
 * - the rule index the repository loads (`rule-index.ts` builds it);
 * - the rules selected for a rating time and tenant (`select.ts`);
 * - the plan of a service's selected rules and its rules as the plan applies them (`plan.ts`);
 * - the per-point state the plan prices with (`state.ts`) and what it reports (`explain`).
 *
 * Costs are per unit of quantity per collection period (flat) or factors (rate); levels are
 * quantities or numeric desc values.
 */
import type { Exact } from '../../common/exact.js';
import type { ExplainEntry } from '../../contract/dataframe.js';

/** The name CloudKitty gives the rules without a group. */
export const DEFAULT_GROUP = '_DEFAULT_';

// ---- The rule index: every live rule, loaded once ---------------------------------------------

/** A mapping as the engine sees it. Costs are decimal text, per unit of quantity per period. */
export interface MappingRule {
  mappingId: string;
  type: 'flat' | 'rate';
  cost: string;
  /** Group name, or null for the rules without a group (the `_DEFAULT_` group). */
  group: string | null;
  tenantId: string | null;
  /** Field value (text) of a field mapping; null for a service mapping. */
  value: string | null;
  /** Validity in epoch milliseconds; `end` null = forever. */
  start: number;
  end: number | null;
}

/** A threshold as the engine sees it; `level` is decimal text. */
export interface ThresholdRule {
  thresholdId: string;
  type: 'flat' | 'rate';
  cost: string;
  level: string;
  group: string | null;
  tenantId: string | null;
}

/** The rules of one field of a service. */
export interface FieldRules {
  /** Field mappings by value (CloudKitty compares the text form of the desc value). */
  mappings: Map<string, MappingRule[]>;
  thresholds: ThresholdRule[];
}

/** The rules of one service. */
export interface ServiceRules {
  mappings: MappingRule[];
  thresholds: ThresholdRule[];
  fields: Map<string, FieldRules>;
}

/** Every hashmap rule, by service name. */
export type RuleIndex = Map<string, ServiceRules>;

/** One loaded rule row with the names of what it hangs on. */
export interface LoadedMapping extends MappingRule {
  serviceName: string;
  /** Field name for a field mapping, null for a service mapping. */
  fieldName: string | null;
}

/** One loaded threshold row with the names of what it hangs on. */
export interface LoadedThreshold extends ThresholdRule {
  serviceName: string;
  fieldName: string | null;
}

// ---- The selection: the rules that apply at a time for a tenant --------------------------------

/** A mapping ready to apply. */
export interface SelectedMapping {
  rule: MappingRule;
  cost: Exact;
}

/** A threshold ready to apply. */
export interface SelectedThreshold {
  rule: ThresholdRule;
  cost: Exact;
  level: Exact;
}

/** The applicable rules of one field. */
export interface SelectedFieldRules {
  name: string;
  mappings: Map<string, SelectedMapping[]>;
  thresholds: SelectedThreshold[];
}

/** The applicable rules of one service. */
export interface SelectedServiceRules {
  mappings: SelectedMapping[];
  thresholds: SelectedThreshold[];
  /** Fields with at least one applicable rule (an array: the engine walks it for every point). */
  fields: SelectedFieldRules[];
  /** The engine's plan of these rules, built on the first point priced with them. */
  plan: ServicePlan | undefined;
}

/** The applicable rules of every service, for one rating time and tenant. */
export type SelectedRules = Map<string, SelectedServiceRules>;

// ---- The plan: the selected rules as the engine applies them ----------------------------------

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

/** Distinct threshold levels, ascending, and their nearest doubles (NaN: none to trust, see `Exact.toApproximateNumber`). */
export interface PlannedLevels {
  exact: Exact[];
  approximations: Float64Array;
}

/** What one desc value of a field does: the mappings it matches and the thresholds it reaches. */
export interface FieldEffect {
  mappings: readonly PlannedMapping[];
  thresholds: readonly PlannedThreshold[];
}

/** The rules of one field of the service. */
export interface PlannedField {
  name: string;
  /** Field mappings by the text form of the desc value, in rule order. */
  mappings: Map<string, PlannedMapping[]>;
  /** The field's distinct threshold levels, ascending. */
  levels: PlannedLevels;
  /** `reached[n]`: the field's thresholds whose level is one of the `n` lowest, in rule order. */
  reached: PlannedThreshold[][];
  /**
   * Effects by desc value (a string, number, boolean or null as given): for a field without
   * thresholds, every mapped text from the start (a string found nowhere matches nothing);
   * otherwise, and for values that are not strings, filled as values come (`fieldEffect`).
   */
  effects: Map<unknown, FieldEffect>;
}

/** A copy of the touched groups' states, in the order they were touched. */
export interface GroupStates {
  groups: number[];
  flats: Exact[];
  flatRanks: number[];
  rates: Exact[];
  winners: (PlannedThreshold | undefined)[];
  applied: PlannedMapping[][];
}

/**
 * The per-group state of the point being priced (rating.md §5 steps 1-7); `state.ts`'s
 * `PointState` is the one implementation.
 */
export interface PointPricingState {
  /** Starts a point: no group touched, or the groups of `start`. */
  begin(start: GroupStates | undefined, explaining: boolean): void;
  /** The touched groups' states, for {@link PointPricingState.begin}. */
  capture(): GroupStates;
  /** A matching mapping: flat → the most expensive flat wins; rate → multiplies the rate. */
  applyMapping(mapping: PlannedMapping): void;
  /** A reached threshold: a candidate of its group, winning over a strictly lower level only. */
  consider(threshold: PlannedThreshold): void;
  /**
   * Ends the point: the sum of its group amounts (per collection period).
   *
   * @param explain - when given, receives one {@link Contribution} per contributing rule.
   */
  finish(quantity: Exact, explain: ExplainEntry[] | undefined): Exact;
}

/** Everything needed to price a point of the service. */
export interface ServicePlan {
  /** Group names by index (`_DEFAULT_` for the rules without a group). */
  groupNames: string[];
  /** The distinct levels of the service thresholds, ascending. */
  quantityLevels: PlannedLevels;
  /** `starts[n]`: the groups after the service mappings and the service thresholds whose level is one of the `n` lowest. */
  starts: GroupStates[];
  /** The fields with applicable rules, in rule-index order. */
  fields: PlannedField[];
  /** The per-point working state (pricing is synchronous: one point at a time). */
  state: PointPricingState;
}

// ---- What the engine reports ------------------------------------------------------------------

/** One rule that contributed to a point's price (an entry of the v2 quote's `explain`). */
export interface Contribution extends ExplainEntry {
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
