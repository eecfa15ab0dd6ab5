/**
 * Prices a dataframe with the enabled modules, by descending priority, ties by name (rating.md
 * §2-§3): each module in turn adds to the points' prices or replaces the points
 * (`RatingModule.price`). Exact decimals throughout.
 *
 * A large dataframe is read and totalled in slices, with a turn of the event loop between them
 * (fix, issue 24: `/healthcheck` waited seconds behind one large quote); the hashmap prices in
 * slices too (`hashmap/engine/dataframe.ts`).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Exact } from '../common/exact.js';
import { inputDecimal } from '../common/quote-decimal.js';
import type { PricedPoint, RatingDataframe } from '../contract/dataframe.js';
import type { PricingContext } from '../contract/rating-module.js';
import type { RatingSnapshot } from './snapshot.js';
import type { Usage } from './schemas.js';

/** Points read or totalled without letting the event loop turn. */
const POINTS_PER_SLICE = 5000;

/** How to price: the modules' context and the rating period. */
export interface PricingOptions extends PricingContext {
  /** The rating period, ISO 8601 text. */
  period: { begin: string; end: string };
}

/** A priced dataframe. */
export interface PricedDataframe {
  /** The sum of every point's price (for the collection period). */
  total: Exact;
  /**
   * The dataframe with every point's `price` set (and `explain` when asked), as the modules left
   * it: `answer.ts` writes it as JSON (`pointToJson`).
   */
  dataframe: RatingDataframe;
}

/**
 * Prices `usage` with the snapshot's enabled modules, in their rating order.
 *
 * @throws BadRequestError for a quantity that is not a decimal in range (naming the attribute);
 *   whatever a module throws (422 for what it could not price, 503 for a resource it lacks).
 */
export async function priceUsage(snapshot: RatingSnapshot, usage: Usage, options: PricingOptions): Promise<PricedDataframe> {
  const services = new Map<string, PricedPoint[]>();
  let sliced = 0;
  for (const [service, points] of Object.entries(usage)) {
    const working: PricedPoint[] = new Array<PricedPoint>(points.length);
    for (let index = 0; index < points.length; index += 1) {
      const point = points[index];
      working[index] = {
        point: point,
        quantity: inputDecimal(point.vol.qty, `usage.${service}[${index}].vol.qty`, options.maxDecimalExponent),
        price: Exact.ZERO,
        explain: options.explain ? [] : undefined,
      };
      if (++sliced === POINTS_PER_SLICE) {
        sliced = 0;
        await nextTurn();
      }
    }
    services.set(service, working);
  }
  const dataframe: RatingDataframe = { period: options.period, services };
  await priceDataframe(snapshot, dataframe, options);
  let total = Exact.ZERO;
  sliced = 0;
  for (const points of dataframe.services.values()) {
    for (const working of points) {
      total = total.plus(working.price);
      if (++sliced === POINTS_PER_SLICE) {
        sliced = 0;
        await nextTurn();
      }
    }
  }
  return { total, dataframe };
}

/**
 * Prices a dataframe of working points with the snapshot's enabled modules, in their rating
 * order: each adds to the points' `price` (and `explain`), or replaces the points (rating.md §2).
 *
 * @throws whatever a module throws (422 for what it could not price, 503 for a resource it lacks).
 */
export async function priceDataframe(snapshot: RatingSnapshot, dataframe: RatingDataframe, context: PricingContext): Promise<void> {
  for (const { module, rules } of snapshot.ratingOrder) await module.price(rules, dataframe, context);
}
