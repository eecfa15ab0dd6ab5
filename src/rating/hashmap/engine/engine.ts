/**
 * The hashmap engine (rating.md §5), pure: prices one point of a service from the selected rules.
 *
 * Per group (rules without a group form `_DEFAULT_`): flat = 0, rate = 1, no threshold; service
 * mappings then field mappings matching the point's desc apply (flat: the most expensive wins;
 * rate: multiplied); thresholds whose level the quantity (service scope) or the numeric field
 * value (field scope) reaches compete, the highest level winning per group; a field-scoped
 * winner adds to flat or multiplies rate, then amount = rate × flat × qty; a service-scoped
 * winner is added to the amount (flat, not multiplied by qty) or multiplies it (rate).
 *
 * The work is split for speed (plan.ts: what does not depend on the point is done once per
 * selection; state.ts: the per-group state in arrays), the arithmetic and its order unchanged.
 */
import { Exact } from '../../common/exact.js';
import { levelsReachedByQuantity } from './matching.js';
import { fieldEffect, planService } from './plan.js';
import type { ExplainEntry } from '../../contract/dataframe.js';
import type { SelectedServiceRules } from './types.js';

const ZERO = Exact.ZERO;

const NO_DESC: Readonly<Record<string, unknown>> = Object.freeze({});

/** A desc value, or undefined when absent or only inherited from Object.prototype (a field named `constructor`). */
function ownValue(desc: Readonly<Record<string, unknown>>, name: string): unknown {
  const value = desc[name];
  return typeof value === 'function' ? undefined : value;
}

/**
 * Prices one point.
 *
 * CloudKitty compat: a point's desc is its metadata merged with its groupby, groupby winning;
 * the two are read in that order instead of being merged (no copy per point).
 *
 * @param rules - the selected rules of the point's service (undefined: the service has none).
 * @param quantity - the point's `vol.qty`.
 * @param groupby - the point's groupby (a JSON object: values are never functions).
 * @param metadata - the point's metadata, for the fields its groupby lacks.
 * @param explain - when given, receives one `Contribution` per rule that contributed.
 * @returns the amount to add to the point's price (per collection period).
 */
export function rateHashmapPoint(
  rules: SelectedServiceRules | undefined,
  quantity: Exact,
  groupby: Readonly<Record<string, unknown>>,
  metadata: Readonly<Record<string, unknown>> = NO_DESC,
  explain?: ExplainEntry[],
): Exact {
  if (!rules) return ZERO;
  const plan = (rules.plan ??= planService(rules));
  const state = plan.state;
  state.begin(plan.starts[levelsReachedByQuantity(plan.quantityLevels, quantity)], explain !== undefined);
  for (const field of plan.fields) {
    let value = ownValue(groupby, field.name);
    if (value === undefined) value = ownValue(metadata, field.name);
    if (value === undefined) continue;
    const effect = field.effects.get(value) ?? fieldEffect(field, value);
    for (const mapping of effect.mappings) state.applyMapping(mapping);
    for (const threshold of effect.thresholds) state.consider(threshold);
  }
  return state.finish(quantity, explain);
}
