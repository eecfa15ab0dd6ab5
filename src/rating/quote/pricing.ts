/**
 * Prices a dataframe with the enabled modules, by descending priority (rating.md §2-§3): hashmap
 * adds its amounts to each point's price, pyscripts hands the dataframe to the scripts active at
 * the rating time (in name order), noop does nothing. Exact decimals throughout.
 */
import { TariffError } from '../../kernel/errors.js';
import { Exact } from '../common/exact.js';
import { rateHashmapPoint } from '../hashmap/engine/engine.js';
import type { Contribution } from '../hashmap/engine/types.js';
import { selectRules } from '../hashmap/engine/select.js';
import { ratingOrder } from '../modules/catalog.js';
import { SandboxBusyError, SandboxError, ScriptError, ScriptResourceError, ScriptTimeoutError } from '../pyscripts/sandbox/index.js';
import { sandboxBusyFault } from '../pyscripts/sandbox/faults.js';
import type { RatingSnapshot } from '../snapshot.js';
import { inputDecimal, scriptDecimal } from './decimals.js';
import type { Point, Usage } from './schemas.js';

/** A dataframe as JSON (rating.md §1), decimals as text. */
export interface JsonDataframe {
  period: { begin: string; end: string };
  usage: Record<string, Array<Record<string, unknown> & { vol: { unit?: string; qty: string }; rating: { price: string } }>>;
}

/** Runs scripts over a dataframe (the pyscripts sandbox); `tenant` is whose share of it the run uses. */
export interface ScriptRunner {
  run(scripts: { name: string; source: string }[], dataframe: JsonDataframe, options?: { tenant?: string }): Promise<JsonDataframe>;
}

/** How to price. */
export interface PricingOptions {
  /** Rules active at this time apply (epoch milliseconds). */
  at: number;
  /** The tenant whose rules apply beside the global ones; null: global only. */
  tenantId: string | null;
  /** Collect each point's contributions. */
  explain: boolean;
  /** Whose share of the PyScripts sandbox the scripts' run counts against (see the sandbox README). */
  sandboxTenant?: string;
  period: { begin: string; end: string };
  /** Quantities and prices must be 0 or within [10^-n, 10^n) in magnitude (`TARIFF_DECIMAL_MAX_EXPONENT`). */
  maxDecimalExponent: number;
}

/** A priced dataframe. */
export interface PricedDataframe {
  total: Exact;
  /** The dataframe with every point's `rating.price` set (and `explain` when asked). */
  dataframe: JsonDataframe;
}

/** 503 when scripts must run and no sandbox is available. */
export class SandboxUnavailableError extends TariffError {
  constructor() {
    super(503, 'The PyScripts sandbox is not available; try again later.');
  }
}

const NO_DESC: Record<string, unknown> = {};

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

interface WorkingPoint {
  point: Point & Record<string, unknown>;
  quantity: Exact;
  price: Exact;
  explain?: Contribution[];
}

/**
 * Prices `usage` with the snapshot's enabled modules.
 *
 * @throws BadRequestError for a quantity that is not a decimal in range; 422 for one the scripts
 *   left; the script runner's errors (422, 5xx);
 *   SandboxUnavailableError when scripts must run and `scripts` is undefined.
 */
export async function priceUsage(snapshot: RatingSnapshot, usage: Usage, options: PricingOptions, scripts: ScriptRunner | undefined): Promise<PricedDataframe> {
  let services = new Map<string, WorkingPoint[]>();
  for (const [service, points] of Object.entries(usage)) {
    services.set(
      service,
      points.map((point, index) => ({
        point: point as WorkingPoint['point'],
        quantity: inputDecimal(point.vol.qty, `usage.${service}[${index}].vol.qty`, options.maxDecimalExponent),
        price: Exact.ZERO,
        explain: options.explain ? [] : undefined,
      })),
    );
  }
  for (const module of ratingOrder(snapshot.modules)) {
    if (module.name === 'hashmap') {
      const rules = selectRules(snapshot.hashmap, options.at, options.tenantId);
      for (const [service, points] of services) {
        const serviceRules = rules.get(service);
        if (!serviceRules) continue;
        for (const working of points) {
          const { groupby, metadata } = working.point;
          working.price = working.price.plus(rateHashmapPoint(serviceRules, working.quantity, groupby ?? NO_DESC, metadata ?? NO_DESC, working.explain));
        }
      }
    } else if (module.name === 'pyscripts') {
      const active = snapshot.scripts.filter((script) => script.start <= options.at && (script.end === null || script.end > options.at));
      if (active.length === 0) continue;
      if (!scripts) throw new SandboxUnavailableError();
      const result = await scripts.run(active.map(({ name, source }) => ({ name, source })), toJson(services, options.period, false), { tenant: options.sandboxTenant }).catch((error: unknown) => {
        throw scriptFailure(error);
      });
      services = fromJson(result, services, options.maxDecimalExponent, active);
    }
  }
  let total = Exact.ZERO;
  for (const points of services.values()) for (const working of points) total = total.plus(working.price);
  return { total, dataframe: toJson(services, options.period, options.explain) };
}

function toJson(services: Map<string, WorkingPoint[]>, period: PricingOptions['period'], explain: boolean): JsonDataframe {
  // Service names are caller text: a null-prototype object keeps `__proto__` an ordinary key.
  const usage: JsonDataframe['usage'] = Object.create(null) as JsonDataframe['usage'];
  for (const [service, points] of services) {
    usage[service] = points.map((working) => {
      const point = { ...working.point, vol: { ...working.point.vol, qty: working.quantity.toString() }, rating: { price: working.price.toString() } };
      return explain && working.explain ? { ...point, explain: working.explain } : point;
    });
  }
  return { period, usage };
}

/**
 * Reads back the dataframe the scripts left. A point keeps its earlier contributions (`explain`)
 * when its service still has as many points as before.
 */
function fromJson(dataframe: JsonDataframe, before: Map<string, WorkingPoint[]>, maxExponent: number, scripts: readonly { name: string }[]): Map<string, WorkingPoint[]> {
  const services = new Map<string, WorkingPoint[]>();
  for (const [service, points] of Object.entries(dataframe.usage)) {
    const previous = before.get(service);
    const sameShape = previous !== undefined && previous.length === points.length;
    services.set(
      service,
      points.map((point, index) => ({
        point: point as WorkingPoint['point'],
        quantity: scriptDecimal(point.vol?.qty, `usage.${service}[${index}].vol.qty`, maxExponent, scripts),
        price: scriptDecimal(point.rating?.price ?? '0', `usage.${service}[${index}].rating.price`, maxExponent, scripts),
        explain: sameShape ? previous[index].explain : previous?.[0]?.explain ? [] : undefined,
      })),
    );
  }
  return services;
}
