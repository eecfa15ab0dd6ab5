/**
 * Prices a dataframe with the enabled modules, by descending priority, ties by name (rating.md
 * §2-§3): each module in turn adds to the points' prices or replaces the points
 * (`RatingModule.price`). Exact decimals throughout.
 */
import { Exact } from '../common/exact.js';
import { inputDecimal } from '../common/quote-decimal.js';
import { dataframeToJson, type JsonDataframe, type PricedPoint, type RatingDataframe } from '../contract/dataframe.js';
import type { PricingContext } from '../contract/rating-module.js';
import type { RatingSnapshot } from './snapshot.js';
import type { Usage } from './schemas.js';

/** How to price: the modules' context and the rating period. */
export interface PricingOptions extends PricingContext {
  /** The rating period, ISO 8601 text. */
  period: { begin: string; end: string };
}

/** A priced dataframe. */
export interface PricedDataframe {
  /** The sum of every point's price (for the collection period). */
  total: Exact;
  /** The dataframe with every point's `rating.price` set (and `explain` when asked). */
  dataframe: JsonDataframe;
}

/**
 * Prices `usage` with the snapshot's enabled modules, in their rating order.
 *
 * @throws BadRequestError for a quantity that is not a decimal in range (naming the attribute);
 *   whatever a module throws (422 for what it could not price, 503 for a resource it lacks).
 */
export async function priceUsage(snapshot: RatingSnapshot, usage: Usage, options: PricingOptions): Promise<PricedDataframe> {
  const services = new Map<string, PricedPoint[]>();
  for (const [service, points] of Object.entries(usage)) {
    services.set(
      service,
      points.map((point, index) => ({
        point: point,
        quantity: inputDecimal(point.vol.qty, `usage.${service}[${index}].vol.qty`, options.maxDecimalExponent),
        price: Exact.ZERO,
        explain: options.explain ? [] : undefined,
      })),
    );
  }
  const dataframe: RatingDataframe = { period: options.period, services };
  for (const { module, rules } of snapshot.ratingOrder) await module.price(rules, dataframe, options);
  let total = Exact.ZERO;
  for (const points of dataframe.services.values()) for (const working of points) total = total.plus(working.price);
  return { total, dataframe: dataframeToJson(dataframe, options.explain) };
}
