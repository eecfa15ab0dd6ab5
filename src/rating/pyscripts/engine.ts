/**
 * PyScripts pricing of a dataframe (rating.md §6): the scripts active at the rating time run in
 * name order in the sandbox, each on the dataframe the previous one left; the last one's
 * dataframe replaces the points, prices included. Quantities and prices the scripts leave are read
 * back exactly and must be in range.
 */
import { quoteValue, TariffError } from '../../kernel/errors.js';
import { Exact } from '../common/exact.js';
import { QuoteDecimalError, readQuoteDecimal } from '../common/quote-decimal.js';
import { dataframeToJson, type ExplainEntry, type JsonDataframe, type PricedPoint, type RatingDataframe } from '../contract/dataframe.js';
import type { PricingContext } from '../contract/rating-module.js';
import { SandboxUnavailableError } from './errors.js';
import type { LiveScript } from './repository.js';
import { SandboxBusyError, SandboxError, ScriptError, ScriptResourceError, ScriptTimeoutError } from './sandbox/errors.js';
import { sandboxBusyFault } from './sandbox/faults.js';
import type { RunOptions, ScriptPrices, ScriptSource } from './sandbox/types.js';

/** Runs scripts over a dataframe (the PyScripts sandbox). */
export interface ScriptRunner {
  /**
   * Runs `scripts` in order, each on the dataframe the previous one left.
   *
   * @returns the dataframe the last script left.
   * @throws the sandbox's errors (`sandbox/errors.ts`).
   */
  run(scripts: ScriptSource[], dataframe: JsonDataframe, options?: RunOptions): Promise<JsonDataframe>;
  /** Counts a run whose output Tariff refused (a decimal out of range) among the script failures. */
  outputRefused?(): void;
}

/**
 * The HTTP answer to a failed script run: 422 naming the script for what the script did (raised,
 * left an invalid `data`, ran past its time or memory: rating.md §6), 503 when the sandbox itself
 * is not available, 503 with `Retry-After` when it has no room for the run.
 */
function scriptFailure(error: unknown): unknown {
  if (error instanceof ScriptError || error instanceof ScriptTimeoutError || error instanceof ScriptResourceError) return new TariffError(422, error.message);
  if (error instanceof SandboxBusyError) return sandboxBusyFault(error);
  if (error instanceof SandboxError) return new TariffError(503, `The PyScripts sandbox failed: ${error.message}`);
  return error;
}

/**
 * A decimal of the dataframe the scripts left, by `readQuoteDecimal`.
 *
 * @throws TariffError 422 naming the scripts that ran and the attribute.
 */
function scriptDecimal(value: unknown, where: string, maxExponent: number, scripts: readonly { name: string }[]): Exact {
  try {
    return readQuoteDecimal(value, maxExponent);
  } catch (error) {
    if (!(error instanceof QuoteDecimalError)) throw error;
    const names = scripts.map((script) => script.name).join(', ');
    throw new TariffError(422, `The PyScripts scripts (${names}) left an invalid dataframe: ${where} '${quoteValue(value)}'. ${error.message}`);
  }
}

/**
 * Reads back the dataframe the scripts left. A point keeps its earlier contributions (`explain`)
 * when its service still has as many points as before; with `traced` (explaining), each script
 * that changed a point's price adds a {@link ScriptEffect} to it.
 */
function fromScripts(
  dataframe: JsonDataframe,
  before: Map<string, PricedPoint[]>,
  maxExponent: number,
  scripts: readonly { name: string }[],
  traced: ScriptPrices[] | undefined,
): Map<string, PricedPoint[]> {
  const services = new Map<string, PricedPoint[]>();
  for (const [service, points] of Object.entries(dataframe.usage)) {
    const previous = before.get(service);
    const sameShape = previous !== undefined && previous.length === points.length;
    const explained = traced ? scriptEffects(service, previous, traced, scripts, points.length) : undefined;
    services.set(
      service,
      points.map((point, index) => ({
        point,
        quantity: scriptDecimal(point.vol?.qty, `usage.${service}[${index}].vol.qty`, maxExponent, scripts),
        price: scriptDecimal(point.rating?.price ?? '0', `usage.${service}[${index}].rating.price`, maxExponent, scripts),
        explain: explained ? explained[index] : sameShape ? previous[index].explain : previous?.[0]?.explain ? [] : undefined,
      })),
    );
  }
  return services;
}

/**
 * One script's effect on a point's price, in the point's v2 quote `explain` (docs/api.md): the
 * script's name, the price before and after it (decimal text, for the collection period), and
 * after − before. fix (issue 26): the explain left the scripts out, so a total with a script's
 * discount did not add up from its entries.
 */
export interface ScriptEffect extends ExplainEntry {
  module: 'pyscripts';
  script: string;
  price_before: string;
  price_after: string;
  delta: string;
}

const MINUS_ONE = Exact.from(-1);

/**
 * The `explain` entries of a service's points after the scripts: the earlier modules' entries,
 * then one {@link ScriptEffect} for each script that changed the point's price. Points are
 * followed by position while a script leaves the service as many points as it found; a script that
 * adds or removes points of the service starts its points' entries afresh (they are not the
 * points the earlier entries were about). Undefined when the trace does not match the result.
 */
function scriptEffects(
  service: string,
  previous: PricedPoint[] | undefined,
  traced: ScriptPrices[],
  scripts: readonly { name: string }[],
  finalLength: number,
): ExplainEntry[][] | undefined {
  let prices: string[] | undefined = previous?.map((working) => working.price.toString());
  let entries: ExplainEntry[][] = previous?.map((working) => [...(working.explain ?? [])]) ?? [];
  for (let index = 0; index < traced.length; index += 1) {
    const after = traced[index]?.[service];
    if (after === undefined) {
      prices = undefined;
      entries = [];
      continue;
    }
    if (prices === undefined || prices.length !== after.length) {
      entries = after.map(() => []);
    } else {
      for (let point = 0; point < after.length; point += 1) {
        if (samePrice(prices[point], after[point])) continue;
        entries[point].push(scriptEffect(scripts[index]?.name ?? '?', prices[point], after[point]));
      }
    }
    prices = after;
  }
  return entries.length === finalLength ? entries : undefined;
}

/** Whether two price texts are the same number (`0.0000001` and Python's `1E-7` are). */
function samePrice(left: string, right: string): boolean {
  if (left === right) return true;
  try {
    return Exact.from(left).eq(Exact.from(right));
  } catch {
    return false;
  }
}

function scriptEffect(script: string, before: string, after: string): ScriptEffect {
  let delta: string;
  try {
    delta = Exact.from(after).plus(Exact.from(before).times(MINUS_ONE)).toString();
  } catch {
    delta = '';
  }
  return { module: 'pyscripts', script, price_before: before, price_after: after, delta };
}

/**
 * Runs the scripts active at `context.at` (start ≤ at, end null or after) over the dataframe and
 * replaces its points with what they leave; nothing happens when none is active.
 *
 * @param scripts - the live scripts, in the order they run (name, by code point).
 * @param runner - the sandbox; undefined in a process without one.
 * @throws SandboxUnavailableError (503) when scripts must run and there is no sandbox; 422 naming
 *   the script (raised, invalid data, time or memory limit) or the scripts and the attribute (a
 *   decimal out of range); 503 when the sandbox failed or had no room (with `Retry-After`).
 */
export async function priceWithScripts(
  scripts: readonly LiveScript[],
  dataframe: RatingDataframe,
  context: PricingContext,
  runner: ScriptRunner | undefined,
): Promise<void> {
  const active = scripts.filter((script) => script.start <= context.at && (script.end === null || script.end > context.at));
  if (active.length === 0) return;
  if (!runner) throw new SandboxUnavailableError();
  let traced: ScriptPrices[] | undefined;
  const result = await runner
    .run(
      active.map(({ name, source }) => ({ name, source })),
      dataframeToJson(dataframe, false),
      { tenant: context.caller, ...(context.explain ? { tracePrices: (prices: ScriptPrices[]) => (traced = prices) } : {}) },
    )
    .catch((error: unknown) => {
      throw scriptFailure(error);
    });
  try {
    dataframe.services = fromScripts(result, dataframe.services, context.maxDecimalExponent, active, traced);
  } catch (error) {
    runner.outputRefused?.();
    throw error;
  }
}
