/**
 * Tariff's v2 quote (`POST /v2/rating/quote`, docs/rating.md §3): a usage priced whole, each
 * point's price explained by what contributed to it. The body and the answer's total and period
 * are the generated shapes (answers.ts); the answer's points are not described by the OpenAPI
 * document (it lists them as `unknown[]`), so their price and `explain` entries are written here
 * by hand.
 */
import type { Answer, RequestBody } from './answers.js';
import { call } from './client.js';

/**
 * What a quote sends: the usage by service (each point's `vol` with its `qty` as decimal text, its
 * `metadata` read by the hashmap as the point's desc), the tenant whose own rules apply too, the
 * rating time (ISO; the request's when absent), and `explain`.
 */
export type QuoteRequest = RequestBody<'/v2/rating/quote', 'post'>;

/**
 * One `explain` entry: what contributed to a point's price. The hashmap's (src/rating/hashmap/
 * engine/types.ts `Contribution`) carry all the members; another module's may carry only `module`.
 * Written by hand: the OpenAPI document does not describe the answer's points.
 */
export interface ExplainEntry {
  module: string;
  /** The group's name; `_DEFAULT_` for rules without a group. */
  group?: string;
  rule_id?: string;
  kind?: string;
  type?: 'flat' | 'rate';
  /** Decimal text: the rule's cost (flat: per unit of quantity per collection period; rate: a factor). */
  cost?: string;
  /** Decimal text: what the rule's group added to the price. */
  amount?: string;
  /** A pyscripts entry (src/rating/pyscripts): the script that changed the point's price. */
  script?: string;
  /** Decimal text: the point's price before the script ran. */
  price_before?: string;
  /** Decimal text: the point's price after the script ran. */
  price_after?: string;
  /** Decimal text: what the script added to the price (negative for a discount). */
  delta?: string;
}

/**
 * A rated point of the answer: its price (decimal text) and, with `explain`, what contributed to
 * it. Written by hand: the OpenAPI document lists the points as `unknown[]`.
 */
export interface QuotedPoint {
  rating?: { price?: string };
  explain?: ExplainEntry[];
}

/**
 * The v2 quote's answer: the total (exact decimal text) and the period (ISO) from the generated
 * shape, and the rated points by service.
 */
export type QuoteAnswer = Omit<Answer<'/v2/rating/quote', 'post'>, 'usage'> & { usage: Record<string, QuotedPoint[]> };

/**
 * Prices a usage.
 *
 * @throws ApiError (400 for a usage, tenant or time refused, with the server's message; 422 when a
 *   rating script failed on the usage; 403 without `rating:quote`; 503 when the database or the
 *   script sandbox is unavailable)
 */
export function quoteUsage(body: QuoteRequest): Promise<QuoteAnswer> {
  return call<QuoteAnswer>('POST', '/v2/rating/quote', body);
}
