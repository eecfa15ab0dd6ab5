/**
 * Hashmap pricing of a whole dataframe (rating.md §4-§5), the module's `price`: the rules that
 * apply at the rating time for the tenant are selected once (`select.ts`), then each point of a
 * service with rules gets the amount its rules give (`engine.ts`) added to its price.
 *
 * A large dataframe is priced in slices of {@link POINTS_PER_SLICE} points with a turn of the
 * event loop between them (fix, issue 24: one 32 MB quote held the event loop for seconds, and
 * `/healthcheck` with it). Points are priced one by one and independently, so the slices change
 * no price; another quote priced meanwhile only ever runs between two points.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { PricedPoint, RatingDataframe } from '../../contract/dataframe.js';
import type { PricingContext } from '../../contract/rating-module.js';
import { rateHashmapPoint } from './engine.js';
import { selectRules } from './select.js';
import type { RuleIndex, SelectedRules, SelectedServiceRules } from './types.js';

const NO_DESC: Readonly<Record<string, unknown>> = Object.freeze({});

/** Points priced without letting the event loop turn: a few milliseconds of work. */
export const POINTS_PER_SLICE = 2000;

/**
 * Adds each point's hashmap amount (per collection period) to its price, and its contributions
 * to its `explain` when explaining. Points of services without rules are left as they are.
 *
 * @returns nothing when the dataframe has at most {@link POINTS_PER_SLICE} points (priced at
 *   once); otherwise a promise of the slices' end.
 */
export function priceWithHashmap(index: RuleIndex, dataframe: RatingDataframe, context: PricingContext): void | Promise<void> {
  const rules = selectRules(index, context.at, context.tenantId);
  let count = 0;
  for (const points of dataframe.services.values()) count += points.length;
  if (count > POINTS_PER_SLICE) return priceInSlices(rules, dataframe);
  for (const [service, points] of dataframe.services) {
    const serviceRules = rules.get(service);
    if (serviceRules) pricePoints(serviceRules, points, 0, points.length);
  }
}

/** {@link priceWithHashmap} of a large dataframe: a turn of the event loop every {@link POINTS_PER_SLICE} points. */
async function priceInSlices(rules: SelectedRules, dataframe: RatingDataframe): Promise<void> {
  for (const [service, points] of dataframe.services) {
    const serviceRules = rules.get(service);
    if (!serviceRules) continue;
    for (let start = 0; start < points.length; start += POINTS_PER_SLICE) {
      pricePoints(serviceRules, points, start, Math.min(points.length, start + POINTS_PER_SLICE));
      await nextTurn();
    }
  }
}

/** Prices `points[start..end)`. */
function pricePoints(serviceRules: SelectedServiceRules, points: PricedPoint[], start: number, end: number): void {
  for (let at = start; at < end; at += 1) {
    const working = points[at];
    const { groupby, metadata } = working.point;
    working.price = working.price.plus(rateHashmapPoint(serviceRules, working.quantity, groupby ?? NO_DESC, metadata ?? NO_DESC, working.explain));
  }
}
