/**
 * PyScripts pricing of a dataframe (rating.md §6): the scripts active at the rating time run in
 * name order in the sandbox, each on the dataframe the previous one left; the last one's
 * dataframe replaces the points, prices included. Quantities and prices the scripts leave are read
 * back exactly and must be in range.
 */
import { quoteValue, TariffError } from '../../kernel/errors.js';
import type { Exact } from '../common/exact.js';
import { QuoteDecimalError, readQuoteDecimal } from '../common/quote-decimal.js';
import { dataframeToJson, type JsonDataframe, type PricedPoint, type RatingDataframe } from '../contract/dataframe.js';
import type { PricingContext } from '../contract/rating-module.js';
import { SandboxUnavailableError } from './errors.js';
import type { LiveScript } from './repository.js';
import { SandboxBusyError, SandboxError, ScriptError, ScriptResourceError, ScriptTimeoutError } from './sandbox/errors.js';
import { sandboxBusyFault } from './sandbox/faults.js';
import type { RunOptions, ScriptSource } from './sandbox/types.js';

/** Runs scripts over a dataframe (the PyScripts sandbox). */
export interface ScriptRunner {
  /**
   * Runs `scripts` in order, each on the dataframe the previous one left.
   *
   * @returns the dataframe the last script left.
   * @throws the sandbox's errors (`sandbox/errors.ts`).
   */
  run(scripts: ScriptSource[], dataframe: JsonDataframe, options?: RunOptions): Promise<JsonDataframe>;
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
 * when its service still has as many points as before.
 */
function fromScripts(
  dataframe: JsonDataframe,
  before: Map<string, PricedPoint[]>,
  maxExponent: number,
  scripts: readonly { name: string }[],
): Map<string, PricedPoint[]> {
  const services = new Map<string, PricedPoint[]>();
  for (const [service, points] of Object.entries(dataframe.usage)) {
    const previous = before.get(service);
    const sameShape = previous !== undefined && previous.length === points.length;
    services.set(
      service,
      points.map((point, index) => ({
        point,
        quantity: scriptDecimal(point.vol?.qty, `usage.${service}[${index}].vol.qty`, maxExponent, scripts),
        price: scriptDecimal(point.rating?.price ?? '0', `usage.${service}[${index}].rating.price`, maxExponent, scripts),
        explain: sameShape ? previous[index].explain : previous?.[0]?.explain ? [] : undefined,
      })),
    );
  }
  return services;
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
  const result = await runner
    .run(
      active.map(({ name, source }) => ({ name, source })),
      dataframeToJson(dataframe, false),
      { tenant: context.caller },
    )
    .catch((error: unknown) => {
      throw scriptFailure(error);
    });
  dataframe.services = fromScripts(result, dataframe.services, context.maxDecimalExponent, active);
}
