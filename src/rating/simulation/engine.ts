/**
 * The simulation's pricing (docs/price-list.md §4): every stored point priced with the current
 * rules and with the draft's, by the quote's engine (`quote/pricing.ts`), and added up
 * (`totals.ts`). A point's tenant is its `groupby.project_id`, its rating time its dataframe's
 * begin; from `effectiveAt` on the draft's rules price it, before it the current ones on both sides.
 *
 * Work follows what differs, not how many points: when every enabled module prices each point
 * alone (`RatingModule.pricesEachPointAlone`), each distinct (rule version, tenant, service,
 * quantity, unit, stored price, groupby, metadata) is priced once per side and counted after; a
 * rule version is an interval between two times at which some rule of either side starts or ends
 * (`RatingModule.ruleChangeTimes`). The table of distinct points holds at most `maxDistinctPoints`:
 * past it, its counts are added to the totals and it starts again. Otherwise (a script sees whole
 * dataframes) each tenant's part of a dataframe is priced whole, on each side.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Exact } from '../common/exact.js';
import { formatApiDateTime } from '../common/datetime.js';
import type { PricedPoint } from '../contract/dataframe.js';
import { priceDataframe, priceUsage, type PricingOptions } from '../quote/pricing.js';
import type { Usage } from '../quote/schemas.js';
import type { RatingSnapshot } from '../quote/snapshot.js';
import { reconciles, type StoredDataframe, type StoredPoint } from './stored-dataframe.js';
import { descKey, projectOf } from './point-key.js';
import { changedRules } from './changed-rules.js';
import { SimulationTotals } from './totals.js';

/** The settings of one simulation. */
export interface SimulationSettings {
  /** From this time on (epoch ms), points are priced by the draft's rules. */
  effectiveAt: number;
  /** Distinct points kept priced at once (`TARIFF_SIMULATION_DISTINCT_POINTS`). */
  maxDistinctPoints: number;
  /** Reconciliation findings listed (`TARIFF_SIMULATION_MAX_FINDINGS`). */
  maxFindings: number;
  /** Quantities must be 0 or within [10^-n, 10^n) (`TARIFF_DECIMAL_MAX_EXPONENT`). */
  maxDecimalExponent: number;
  /** Who asks, for the PyScripts sandbox's fair share. */
  caller: string | undefined;
}

/** A collection period: a dataframe's begin and end. */
interface Window {
  begin: Date;
  end: Date;
}

/** Points of one distinct point seen in one window before its prices were known. */
interface Sighting extends Window {
  count: number;
}

/**
 * What a distinct point keeps until it is priced (then dropped: only its counts and prices stay):
 * the point, and the windows its points were seen in (the first one's begin its rating time, any
 * of its rule version's), the first one inline, as most distinct points are priced before their
 * next window.
 */
interface Unpriced extends Sighting {
  point: StoredPoint;
  /** The windows after the first one. */
  later: Sighting[] | undefined;
}

/** One distinct point: how many times it was seen, and its prices once known. */
interface DistinctPoint {
  projectId: string | null;
  service: string;
  /** Points seen. */
  count: number;
  /** Until priced: the point and where it was seen. */
  unpriced: Unpriced | undefined;
  stored: Exact;
  current: Exact;
  draft: Exact;
  /** Whether the stored price is not the current rules' price (a reconciliation finding each time it is seen). */
  mismatch: boolean;
  /** The rules whose contributions differ between the sides (`module \0 name`), when the prices do. */
  changedRules: readonly string[];
}

/** Distinct points priced between two turns of the event loop. */
const POINTS_PER_TURN = 5000;

/** No rule changes a point's price: shared by the distinct points whose price does not move. */
const NO_RULES: readonly string[] = Object.freeze([]);

/**
 * New distinct points priced together, per rule version and tenant: a few pricing calls, not one
 * per dataframe, and each tenant's rule selection made once per batch (the hashmap remembers 256
 * tenants' selections; a cloud of more tenants makes them again each batch).
 */
const BATCH_POINTS = 32_768;

/** The sorted times at which some module of `snapshots` changes its prices; null when a module cannot tell. */
function changeTimes(snapshots: readonly RatingSnapshot[], effectiveAt: number): number[] | null {
  const times = new Set<number>([effectiveAt]);
  for (const snapshot of snapshots) {
    for (const { module, rules } of snapshot.ratingOrder) {
      if (!module.ruleChangeTimes) return null;
      for (const time of module.ruleChangeTimes(rules)) times.add(time);
    }
  }
  return [...times].sort((a, b) => a - b);
}

/** Whether every enabled module of `snapshots` prices each point from itself alone. */
function pricesEachPointAlone(snapshots: readonly RatingSnapshot[]): boolean {
  return snapshots.every((snapshot) => snapshot.ratingOrder.every(({ module, rules }) => module.pricesEachPointAlone?.(rules) ?? false));
}

/** A simulation under way: give it the stored dataframes in any order, then read its totals. */
export class Simulation {
  readonly totals: SimulationTotals;
  /** Points read so far. */
  points = 0;
  private readonly times: number[] | null;
  private readonly pointwise: boolean;
  private readonly distinct = new Map<string, DistinctPoint>();
  /** Distinct points not priced yet, by `rule version \0 tenant`. */
  private readonly unpriced = new Map<string, DistinctPoint[]>();
  private unpricedCount = 0;

  constructor(
    private readonly current: RatingSnapshot,
    private readonly draft: RatingSnapshot,
    private readonly settings: SimulationSettings,
  ) {
    this.totals = new SimulationTotals(settings.maxFindings);
    this.times = changeTimes([current, draft], settings.effectiveAt);
    this.pointwise = pricesEachPointAlone([current, draft]);
  }

  /**
   * Prices one stored dataframe's points on both sides and adds them up (new distinct points may
   * wait for others to be priced with; {@link result} prices the last ones).
   *
   * @throws what pricing throws: BadRequestError for a quantity out of range, a module's 422/503.
   */
  async add(dataframe: StoredDataframe): Promise<void> {
    if (this.pointwise) await this.addDistinct(dataframe);
    else await this.addWhole(dataframe);
  }

  /** The result's totals (docs/price-list.md §4), once the last distinct points are priced and counted. */
  async result(top: number) {
    await this.priceUnpriced();
    this.fold();
    return this.totals.toJson(top);
  }

  /** The rule version of a rating time: how many change times are at or before it (or the time itself). */
  private versionOf(at: number): string {
    const times = this.times;
    if (times === null) return String(at);
    let low = 0;
    let high = times.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (times[middle] <= at) low = middle + 1;
      else high = middle;
    }
    return String(low);
  }

  private async addDistinct(dataframe: StoredDataframe): Promise<void> {
    const version = this.versionOf(dataframe.begin.getTime());
    // Quantities and prices are decimal text (digits, sign, point, exponent): `;` ends them.
    const prefix = `${version};`;
    for (const [service, points] of dataframe.usage) {
      const servicePart = JSON.stringify(service);
      for (const point of points) {
        // The tenant is the groupby's project_id: the groupby's text tells it.
        const key = prefix + servicePart + point.qty + ';' + JSON.stringify(point.unit) + point.price + ';' + descKey(point.groupby) + descKey(point.metadata);
        let distinct = this.distinct.get(key);
        if (distinct === undefined) {
          const projectId = projectOf(point);
          if (this.distinct.size >= this.settings.maxDistinctPoints) {
            await this.priceUnpriced();
            this.fold();
          }
          distinct = {
            projectId,
            service,
            count: 0,
            unpriced: { point, begin: dataframe.begin, end: dataframe.end, count: 0, later: undefined },
            stored: Exact.ZERO,
            current: Exact.ZERO,
            draft: Exact.ZERO,
            mismatch: false,
            changedRules: NO_RULES,
          };
          this.distinct.set(key, distinct);
          const group = `${version}\u0000${projectId ?? ''}`;
          const list = this.unpriced.get(group);
          if (list) list.push(distinct);
          else this.unpriced.set(group, [distinct]);
          this.unpricedCount += 1;
        }
        distinct.count += 1;
        const unpriced = distinct.unpriced;
        if (unpriced !== undefined) {
          const last = unpriced.later?.at(-1) ?? unpriced;
          if (last.begin === dataframe.begin) last.count += 1;
          else (unpriced.later ??= []).push({ begin: dataframe.begin, end: dataframe.end, count: 1 });
        } else if (distinct.mismatch) {
          this.totals.addFinding(
            { projectId: distinct.projectId, service, begin: dataframe.begin, end: dataframe.end, point, current: distinct.current },
            distinct.stored,
          );
        }
      }
      this.points += points.length;
    }
    if (this.unpricedCount >= BATCH_POINTS) await this.priceUnpriced();
  }

  /** Prices the distinct points not priced yet: per rule version and tenant, each side once, and again with `explain` for those whose price changes. */
  private async priceUnpriced(): Promise<void> {
    let sinceTurn = 0;
    for (const list of this.unpriced.values()) {
      // Other requests (and /healthcheck) are served between the groups of a large batch.
      sinceTurn += list.length;
      if (sinceTurn >= POINTS_PER_TURN) {
        sinceTurn = 0;
        await nextTurn();
      }
      const tenant = list[0].projectId;
      const window = list[0].unpriced!;
      const points = list.map((distinct) => ({ service: distinct.service, point: distinct.unpriced!.point }));
      const [current, draft] = await this.priceBothSides(window, tenant, points, false);
      const changed: number[] = [];
      list.forEach((distinct, index) => {
        distinct.stored = Exact.from(points[index].point.price);
        distinct.current = current[index].price;
        distinct.draft = draft[index].price;
        if (!distinct.current.eq(distinct.draft)) changed.push(index);
      });
      if (changed.length > 0) {
        const explained = await this.priceBothSides(
          window,
          tenant,
          changed.map((index) => points[index]),
          true,
        );
        changed.forEach((index, at) => {
          list[index].changedRules = changedRules(this.current, this.draft, explained[0][at].explain, explained[1][at].explain);
        });
      }
      list.forEach((distinct, index) => {
        this.totals.distinctPoints += 1;
        distinct.mismatch = !reconciles(distinct.stored, points[index].point.price, distinct.current);
        if (distinct.mismatch) {
          const unpriced = distinct.unpriced!;
          for (const { begin, end, count } of [unpriced, ...(unpriced.later ?? [])]) {
            const finding = { projectId: distinct.projectId, service: distinct.service, begin, end, point: points[index].point, current: distinct.current };
            for (let seen = 0; seen < count; seen += 1) this.totals.addFinding(finding, distinct.stored);
          }
        }
        distinct.unpriced = undefined;
      });
    }
    this.unpriced.clear();
    this.unpricedCount = 0;
  }

  /**
   * Prices distinct points of one tenant and rule version as of `window`'s begin (any time of
   * the version gives the same prices), with the current rules and, from the effective time, the
   * draft's: the priced points in `points`' order, the same list twice when the draft does not
   * apply yet.
   */
  private async priceBothSides(
    window: Window,
    tenant: string | null,
    points: readonly { service: string; point: StoredPoint }[],
    explain: boolean,
  ): Promise<[PricedPoint[], PricedPoint[]]> {
    const { period, ...context } = this.pricingOptions(window, tenant, explain);
    // Each distinct point as a module reads it, and its quantity (the reader checked it), once for both sides.
    const usagePoints = points.map(({ point }) => ({ vol: { unit: point.unit, qty: point.qty }, groupby: point.groupby, metadata: point.metadata }));
    const quantities = points.map(({ point }) => Exact.from(point.qty));
    const price = async (snapshot: RatingSnapshot): Promise<PricedPoint[]> => {
      const working = usagePoints.map((point, index): PricedPoint => ({
        point,
        quantity: quantities[index],
        price: Exact.ZERO,
        explain: explain ? [] : undefined,
      }));
      const services = new Map<string, PricedPoint[]>();
      points.forEach(({ service }, index) => {
        const list = services.get(service);
        if (list) list.push(working[index]);
        else services.set(service, [working[index]]);
      });
      await priceDataframe(snapshot, { period, services }, context);
      return working;
    };
    const current = await price(this.current);
    return [current, context.at < this.settings.effectiveAt ? current : await price(this.draft)];
  }

  /** Prices `usage` of one tenant as of `dataframe`'s begin on both sides (the same map twice before the effective time); for modules that may replace the points. */
  private async priceUsageBothSides(
    dataframe: StoredDataframe,
    tenant: string | null,
    usage: Usage,
  ): Promise<[Map<string, PricedPoint[]>, Map<string, PricedPoint[]>]> {
    const options = this.pricingOptions(dataframe, tenant, true);
    const current = (await priceUsage(this.current, usage, options)).dataframe.services;
    if (options.at < this.settings.effectiveAt) return [current, current];
    return [current, (await priceUsage(this.draft, usage, options)).dataframe.services];
  }

  /** How one tenant's points of `window` are priced: rated at its begin, with its period. */
  private pricingOptions(window: Window, tenant: string | null, explain: boolean): PricingOptions {
    return {
      period: { begin: formatApiDateTime(window.begin), end: formatApiDateTime(window.end) },
      at: window.begin.getTime(),
      tenantId: tenant,
      explain,
      caller: this.settings.caller,
      maxDecimalExponent: this.settings.maxDecimalExponent,
    };
  }

  /** Adds every distinct point's counts to the totals and empties the table. */
  private fold(): void {
    for (const distinct of this.distinct.values()) {
      if (distinct.count === 0) continue;
      this.totals.add(distinct.projectId, distinct.service, distinct.count, distinct.stored, distinct.current, distinct.draft);
      if (distinct.changedRules.length > 0) this.totals.addChangedRules(distinct.changedRules, distinct.count);
    }
    this.distinct.clear();
  }

  /** A dataframe priced whole per tenant and side (a script sees whole dataframes), every point added up. */
  private async addWhole(dataframe: StoredDataframe): Promise<void> {
    const byTenant = new Map<string | null, Map<string, StoredPoint[]>>();
    for (const [service, points] of dataframe.usage) {
      for (const point of points) {
        const projectId = projectOf(point);
        let services = byTenant.get(projectId);
        if (!services) byTenant.set(projectId, (services = new Map<string, StoredPoint[]>()));
        const list = services.get(service);
        if (list) list.push(point);
        else services.set(service, [point]);
      }
      this.points += points.length;
    }
    for (const [tenant, services] of byTenant) {
      const usage: Usage = Object.create(null) as Usage;
      for (const [service, points] of services) {
        usage[service] = points.map((point) => ({ vol: { unit: point.unit, qty: point.qty }, groupby: point.groupby, metadata: point.metadata }));
      }
      const [current, draft] = await this.priceUsageBothSides(dataframe, tenant, usage);
      for (const [service, points] of services) {
        const currentPoints = current.get(service) ?? [];
        const draftPoints = draft.get(service) ?? [];
        const samePoints = currentPoints.length === points.length && draftPoints.length === points.length;
        points.forEach((point, index) => {
          const stored = Exact.from(point.price);
          const currentPrice = samePoints ? currentPoints[index].price : Exact.ZERO;
          const draftPrice = samePoints ? draftPoints[index].price : Exact.ZERO;
          this.totals.distinctPoints += 1;
          this.totals.add(tenant, service, 1, stored, currentPrice, draftPrice);
          if (samePoints && !currentPrice.eq(draftPrice)) {
            this.totals.addChangedRules(changedRules(this.current, this.draft, currentPoints[index].explain, draftPoints[index].explain), 1);
          }
          if (samePoints && !reconciles(stored, point.price, currentPrice))
            this.totals.addFinding({ projectId: tenant, service, begin: dataframe.begin, end: dataframe.end, point, current: currentPrice }, stored);
        });
        // A script that changed the number of points: its prices count by service, point by point as it left them.
        if (!samePoints) {
          const sum = (priced: PricedPoint[]) => priced.reduce((total, point) => total.plus(point.price), Exact.ZERO);
          this.totals.addAmounts(tenant, service, sum(currentPoints), sum(draftPoints));
        }
      }
    }
  }
}
