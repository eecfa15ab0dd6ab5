/**
 * The pricing plan of one service's selected rules (rating.md §5), built once per selection (on
 * the first point of the service) and reused for every point:
 * - groups are numbered, so that a point's per-group state lives in arrays, not maps;
 * - flat costs and threshold levels are ranked, so that "the most expensive flat wins" and "the
 *   highest level wins" are integer comparisons (equal values get equal ranks: ties keep the
 *   first, as the comparisons on the decimals did);
 * - what the service's own rules do does not depend on the point's desc: the group states after
 *   the service mappings and the service thresholds are computed in advance, one per number of
 *   service levels a quantity can reach;
 * - a field's thresholds reached by a value are, likewise, listed per number of levels reached,
 *   and each desc value's effect on a field (mappings matched, thresholds reached) is remembered:
 *   desc values repeat from point to point.
 */
import { Exact } from '../../common/exact.js';
import { levelsReachedByValue, plannedLevels, pythonText } from './matching.js';
import { PointState } from './state.js';
import {
  DEFAULT_GROUP,
  type FieldEffect,
  type PlannedField,
  type PlannedLevels,
  type PlannedMapping,
  type PlannedThreshold,
  type RuleSource,
  type SelectedMapping,
  type SelectedServiceRules,
  type SelectedThreshold,
  type ServicePlan,
} from './types.js';

/** The effect of a value that matches nothing. */
export const NO_EFFECT: FieldEffect = Object.freeze({ mappings: [], thresholds: [] });

/** At most this many desc values per field have their effect remembered (per selection). */
const REMEMBERED_VALUES = 4096;
/** Longest desc text remembered in a field's effects (4,096 of them at most: 1 MiB of text per field). */
const LONGEST_REMEMBERED_TEXT = 256;

/**
 * The effect of a desc value on a field, remembered in `field.effects` (up to
 * {@link REMEMBERED_VALUES} values; objects and arrays, compared by identity there, never).
 */
export function fieldEffect(field: PlannedField, value: unknown): FieldEffect {
  const known = field.effects.get(value);
  if (known !== undefined) return known;
  const hasThresholds = field.levels.exact.length > 0;
  if (typeof value === 'string' && !hasThresholds) return NO_EFFECT;
  const mappings = field.mappings.get(pythonText(value)) ?? [];
  const thresholds = hasThresholds ? field.reached[levelsReachedByValue(field.levels, value)] : [];
  const effect = mappings.length === 0 && thresholds.length === 0 ? NO_EFFECT : { mappings, thresholds };
  if (field.effects.size < REMEMBERED_VALUES && isRememberable(value)) field.effects.set(value, effect);
  return effect;
}

/**
 * Values worth remembering: scalars, and text no longer than {@link LONGEST_REMEMBERED_TEXT}, so the
 * cache of a plan stays small whatever callers send (fix: a caller's megabyte-long desc values
 * would otherwise stay in memory until the rules change).
 */
function isRememberable(value: unknown): boolean {
  if (typeof value === 'string') return value.length <= LONGEST_REMEMBERED_TEXT;
  return value === null || typeof value !== 'object';
}

/** The rank of each value among the distinct values, ascending from 0 (equal values, equal ranks). */
function ranks(values: readonly Exact[]): number[] {
  const order = values.map((_value, index) => index).sort((left, right) => values[left].compare(values[right]));
  const result = new Array<number>(values.length);
  let rank = -1;
  order.forEach((index, position) => {
    if (position === 0 || !values[index].eq(values[order[position - 1]])) rank += 1;
    result[index] = rank;
  });
  return result;
}

/** Builds the plan of a service's selected rules. */
export function planService(rules: SelectedServiceRules): ServicePlan {
  const groupNames: string[] = [];
  const groupIndex = (group: string | null): number => {
    const name = group ?? DEFAULT_GROUP;
    const index = groupNames.indexOf(name);
    return index >= 0 ? index : groupNames.push(name) - 1;
  };
  // Ranks, by rule: the flat costs with zero first (the flat every group starts with), the levels.
  const flats = [...rules.mappings, ...rules.fields.flatMap((field) => [...field.mappings.values()].flat())].filter(
    (selected) => selected.rule.type === 'flat',
  );
  const flatRanks = ranks([Exact.ZERO, ...flats.map((selected) => selected.cost)]);
  const flatRank = new Map(flats.map((selected, index) => [selected, flatRanks[index + 1]]));
  const thresholds = [...rules.thresholds, ...rules.fields.flatMap((field) => field.thresholds)];
  const levelRanks = ranks(thresholds.map((selected) => selected.level));
  const levelRank = new Map(thresholds.map((selected, index) => [selected, levelRanks[index]]));

  const planMapping = (selected: SelectedMapping, kind: RuleSource['kind']): PlannedMapping => ({
    group: groupIndex(selected.rule.group),
    flat: selected.rule.type === 'flat',
    cost: selected.cost,
    flatRank: flatRank.get(selected) ?? -1,
    source: { group: selected.rule.group ?? DEFAULT_GROUP, ruleId: selected.rule.mappingId, kind, type: selected.rule.type },
  });
  const planThreshold = (selected: SelectedThreshold, scope: PlannedThreshold['scope']): PlannedThreshold => ({
    group: groupIndex(selected.rule.group),
    flat: selected.rule.type === 'flat',
    cost: selected.cost,
    scope,
    levelRank: levelRank.get(selected) ?? -1,
    source: { group: selected.rule.group ?? DEFAULT_GROUP, ruleId: selected.rule.thresholdId, kind: `${scope} threshold`, type: selected.rule.type },
  });
  /** `reached[n]` for thresholds over their distinct levels. */
  const reachedByCount = (selected: readonly SelectedThreshold[], planned: readonly PlannedThreshold[], distinct: PlannedLevels): PlannedThreshold[][] =>
    Array.from({ length: distinct.exact.length + 1 }, (_, count) =>
      count === 0 ? [] : planned.filter((_threshold, index) => selected[index].level.compare(distinct.exact[count - 1]) <= 0),
    );

  const serviceMappings = rules.mappings.map((selected) => planMapping(selected, 'service mapping'));
  const serviceThresholds = rules.thresholds.map((selected) => planThreshold(selected, 'service'));
  const fields = rules.fields.map((field): PlannedField => {
    const mappings = new Map<string, PlannedMapping[]>();
    for (const [value, selected] of field.mappings)
      mappings.set(
        value,
        selected.map((one) => planMapping(one, 'field mapping')),
      );
    const thresholds = field.thresholds.map((selected) => planThreshold(selected, 'field'));
    const fieldLevels = plannedLevels(field.thresholds.map((selected) => selected.level));
    const effects = new Map<unknown, FieldEffect>();
    if (fieldLevels.exact.length === 0) for (const [value, matching] of mappings) effects.set(value, { mappings: matching, thresholds: [] });
    return { name: field.name, mappings, levels: fieldLevels, reached: reachedByCount(field.thresholds, thresholds, fieldLevels), effects };
  });

  const quantityLevels = plannedLevels(rules.thresholds.map((selected) => selected.level));
  const state = new PointState(groupNames.length, flatRanks[0]);
  const starts = reachedByCount(rules.thresholds, serviceThresholds, quantityLevels).map((reached) => {
    state.begin(undefined, true);
    for (const mapping of serviceMappings) state.applyMapping(mapping);
    for (const threshold of reached) state.consider(threshold);
    return state.capture();
  });
  return { groupNames, quantityLevels, starts, fields, state };
}
