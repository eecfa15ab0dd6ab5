/**
 * The dataframe a quote prices (rating.md §1), as every rating module sees it: the JSON form the
 * API takes and answers (and the PyScripts sandbox exchanges), and the working form the modules
 * price in turn, with exact quantities and prices.
 */
import type { Exact } from '../common/exact.js';

/**
 * One usage point of a dataframe as JSON (rating.md §1). Decimals are exact decimal text
 * (`"1"`, `"0.25"`, `"1E+2"`); keys beyond the four named ones pass through unchanged. A point
 * the caller sent may lack `unit`, `groupby` and `metadata`; the PyScripts sandbox always answers
 * with all of them (empty dicts by default).
 */
export interface JsonPoint {
  /** Quantity used: `qty` is a decimal text, `unit` a free label. */
  vol: { unit?: string; qty: string };
  /** The point's price for the collection period, a decimal text. */
  rating: { price: string };
  /** Grouping attributes (JSON scalars). */
  groupby?: Record<string, unknown>;
  /** Descriptive attributes (JSON scalars). */
  metadata?: Record<string, unknown>;
  [extra: string]: unknown;
}

/**
 * A dataframe as JSON (rating.md §1): the rating period (ISO 8601 datetimes; from the sandbox
 * always UTC with an explicit `+00:00` offset) and the usage points by service name.
 */
export interface JsonDataframe {
  period: { begin: string; end: string };
  usage: Record<string, JsonPoint[]>;
}

/**
 * A usage point as a caller sent it (rating.md §1): quantities and prices as JSON numbers or
 * decimal text, extra keys kept.
 */
export interface UsagePoint {
  vol: { unit?: string; qty: unknown };
  rating?: { price?: unknown };
  groupby?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  [extra: string]: unknown;
}

/**
 * One entry of a point's `explain` (v2 quote): what contributed to its price, named by `module`;
 * the other members are the module's own (hashmap: group, rule, kind, cost, amount).
 */
export interface ExplainEntry {
  module: string;
}

/** A point being priced. */
export interface PricedPoint {
  /** The point as given; its `vol.qty` and `rating.price` are superseded by `quantity` and `price`. */
  point: UsagePoint;
  /** The quantity used in the collection period. */
  quantity: Exact;
  /** The price so far, for the collection period; modules add to it or replace it. */
  price: Exact;
  /** The contributions so far, in the order the modules made them; only when explaining. */
  explain?: ExplainEntry[];
}

/** A dataframe being priced: each enabled module in turn adds to (or replaces) the prices. */
export interface RatingDataframe {
  /** The rating period, ISO 8601 text. */
  period: { begin: string; end: string };
  /** Points by service name, in the caller's order. A module may replace the whole map (PyScripts does). */
  services: Map<string, PricedPoint[]>;
}

/**
 * The JSON form of a dataframe being priced: every point as given with its `vol.qty` and
 * `rating.price` set from the exact values, and, with `explain`, its `explain` entries.
 */
export function dataframeToJson(dataframe: RatingDataframe, explain: boolean): JsonDataframe {
  // Service names are caller text: a null-prototype object keeps `__proto__` an ordinary key.
  const usage: JsonDataframe['usage'] = Object.create(null) as JsonDataframe['usage'];
  for (const [service, points] of dataframe.services) usage[service] = points.map((working) => pointToJson(working, explain));
  return { period: dataframe.period, usage };
}

/**
 * The JSON form of one point being priced: the point as given with its `vol.qty` and
 * `rating.price` set from the exact values, and, with `explain`, its `explain` entries.
 */
export function pointToJson(working: PricedPoint, explain: boolean): JsonPoint {
  const point = { ...working.point, vol: { ...working.point.vol, qty: working.quantity.toString() }, rating: { price: working.price.toString() } };
  return explain && working.explain ? { ...point, explain: working.explain } : point;
}
