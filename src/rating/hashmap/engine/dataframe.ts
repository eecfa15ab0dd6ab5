/**
 * Hashmap pricing of a whole dataframe (rating.md §4-§5), the module's `price`: the rules that
 * apply at the rating time for the tenant are selected once (`select.ts`), then each point of a
 * service with rules gets the amount its rules give (`engine.ts`) added to its price.
 */
import type { RatingDataframe } from '../../contract/dataframe.js';
import type { PricingContext } from '../../contract/rating-module.js';
import { rateHashmapPoint } from './engine.js';
import { selectRules } from './select.js';
import type { RuleIndex } from './types.js';

const NO_DESC: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * Adds each point's hashmap amount (per collection period) to its price, and its contributions
 * to its `explain` when explaining. Points of services without rules are left as they are.
 */
export function priceWithHashmap(index: RuleIndex, dataframe: RatingDataframe, context: PricingContext): void {
  const rules = selectRules(index, context.at, context.tenantId);
  for (const [service, points] of dataframe.services) {
    const serviceRules = rules.get(service);
    if (!serviceRules) continue;
    for (const working of points) {
      const { groupby, metadata } = working.point;
      working.price = working.price.plus(rateHashmapPoint(serviceRules, working.quantity, groupby ?? NO_DESC, metadata ?? NO_DESC, working.explain));
    }
  }
}
