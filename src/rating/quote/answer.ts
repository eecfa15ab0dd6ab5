/**
 * The v2 quote's answer, `{"total": …, "period": …, "usage": {…}}` (rating.md §3), bounded and
 * written with back-pressure (fix, issue 24: a 1.3 MB explained quote of `qty 1e-99` answered
 * 44 MB, a 31 MB one failed after 70 s with `RangeError: Invalid string length`, and a client
 * that stopped reading held the whole answer in memory).
 *
 * - Its size is estimated from the priced decimals before anything is written; past
 *   `TARIFF_QUOTE_ANSWER_GROWTH` × the request body (never under 1 MiB) or
 *   `TARIFF_QUOTE_ANSWER_LIMIT_MB`, the quote is refused with 413 naming the setting.
 * - A small answer is one `JSON.stringify`, as before. A large one is a stream of pieces
 *   (http/streamed-answer.ts), each written when the client has read the previous ones, with a
 *   turn of the event loop between pieces: the process never holds the answer as one string.
 *   Both are the same bytes.
 */
import type { Readable } from 'node:stream';
import { streamedAnswer } from '../../http/streamed-answer.js';
import { TariffError } from '../../kernel/errors.js';
import type { Exact } from '../common/exact.js';
import { pointToJson, type PricedPoint, type RatingDataframe } from '../contract/dataframe.js';
import type { PricedDataframe } from './pricing.js';

/** The bounds of an answer. */
export interface AnswerLimits {
  /** An answer may be this many times its request body (`TARIFF_QUOTE_ANSWER_GROWTH`). */
  growth: number;
  /** Largest answer in bytes (`TARIFF_QUOTE_ANSWER_LIMIT_MB`). */
  limitBytes: number;
}

/** Answers up to this size are never refused for their growth (a small quote with explain grows many times). */
export const ANSWER_GROWTH_FLOOR_BYTES = 1024 * 1024;

/** Answers estimated larger than this are streamed; smaller ones are one string. */
export const STREAM_FROM_BYTES = 1024 * 1024;

/** 413: the answer would be larger than the settings allow. */
export class AnswerTooLargeError extends TariffError {
  constructor(estimatedBytes: number, allowedBytes: number, setting: string, requestBytes: number) {
    const bound = setting === 'TARIFF_QUOTE_ANSWER_GROWTH' ? `${setting} × the request's ${requestBytes} bytes` : setting;
    super(
      413,
      `The quote's answer would be about ${estimatedBytes} bytes, more than ${allowedBytes} (${bound}): ` +
        'ask for fewer points, without explain, or with shorter quantities.',
    );
  }
}

/** The longest text `Exact.toString` can give for `value` (plain notation, no exponent). */
function decimalTextBound(value: Exact): number {
  if (value.isZero()) return 1;
  return Math.max(value.adjusted(), 0) + 1 + Math.max(-value.exponent, 0) + 2;
}

/** About the JSON size of one explain entry: its members are short scalars (hashmap: ids, kind, cost, amount). */
function entryBytes(entry: object): number {
  let bytes = 2;
  for (const [key, value] of Object.entries(entry)) {
    bytes += key.length + 4;
    if (typeof value === 'string') bytes += value.length + 2;
    else if (typeof value === 'number' || typeof value === 'boolean' || value === null) bytes += 24;
    else bytes += JSON.stringify(value)?.length ?? 4;
  }
  return bytes;
}

/**
 * An upper estimate of the answer's size in bytes: the request (the points pass through), plus
 * each point's new quantity and price texts, plus its explain entries. Reads the priced decimals
 * only, never writes the answer.
 */
export function estimateAnswerBytes(requestBytes: number, dataframe: RatingDataframe): number {
  let bytes = requestBytes + 256;
  for (const points of dataframe.services.values()) {
    for (const working of points) {
      bytes += decimalTextBound(working.quantity) + decimalTextBound(working.price) + 40;
      if (working.explain) for (const entry of working.explain) bytes += entryBytes(entry);
    }
  }
  return bytes;
}

/**
 * Refuses an answer past its bounds.
 *
 * @returns the estimated size in bytes.
 * @throws AnswerTooLargeError naming `TARIFF_QUOTE_ANSWER_LIMIT_MB` or `TARIFF_QUOTE_ANSWER_GROWTH`.
 */
export function checkAnswerSize(requestBytes: number, dataframe: RatingDataframe, limits: AnswerLimits): number {
  const estimated = estimateAnswerBytes(requestBytes, dataframe);
  if (estimated > limits.limitBytes) throw new AnswerTooLargeError(estimated, limits.limitBytes, 'TARIFF_QUOTE_ANSWER_LIMIT_MB', requestBytes);
  const grown = Math.max(ANSWER_GROWTH_FLOOR_BYTES, Math.floor(limits.growth * requestBytes));
  if (estimated > grown) throw new AnswerTooLargeError(estimated, grown, 'TARIFF_QUOTE_ANSWER_GROWTH', requestBytes);
  return estimated;
}

/**
 * The services in the order `JSON.stringify` writes an object's members (integer-like names
 * first, ascending; then the others in insertion order), so that streamed and whole answers agree.
 */
function servicesInJsonOrder(dataframe: RatingDataframe): [string, PricedPoint[]][] {
  const byName = Object.create(null) as Record<string, PricedPoint[]>;
  for (const [service, points] of dataframe.services) byName[service] = points;
  return Object.keys(byName).map((service) => [service, byName[service]]);
}

/** The answer as one string: `JSON.stringify` of the whole answer. */
export function answerText(priced: PricedDataframe, explain: boolean): string {
  const usage = Object.create(null) as Record<string, unknown>;
  for (const [service, points] of priced.dataframe.services) usage[service] = points.map((working) => pointToJson(working, explain));
  return JSON.stringify({ total: priced.total.toString(), period: priced.dataframe.period, usage });
}

/** The answer's JSON text as small parts: its head, each point, the closing brackets. */
function* answerParts(priced: PricedDataframe, explain: boolean): Generator<string> {
  yield `{"total":${JSON.stringify(priced.total.toString())},"period":${JSON.stringify(priced.dataframe.period)},"usage":{`;
  let firstService = true;
  for (const [service, points] of servicesInJsonOrder(priced.dataframe)) {
    yield `${firstService ? '' : ','}${JSON.stringify(service)}:[`;
    firstService = false;
    for (let index = 0; index < points.length; index += 1) yield (index === 0 ? '' : ',') + JSON.stringify(pointToJson(points[index], explain));
    yield ']';
  }
  yield '}}';
}

/**
 * The answer as a stream of UTF-8 pieces, each made when the client has read enough of the
 * previous ones (http/streamed-answer.ts).
 */
export function answerStream(priced: PricedDataframe, explain: boolean): Readable {
  return streamedAnswer(answerParts(priced, explain));
}
