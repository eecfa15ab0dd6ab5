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
import { collectGarbageSoon } from '../../kernel/memory.js';
import { Exact } from '../common/exact.js';
import { formatApiDateTime } from '../common/datetime.js';
import type { PricedPoint } from '../contract/dataframe.js';
import { priceDataframe, priceUsage, type PricingOptions } from '../quote/pricing.js';
import type { Usage } from '../quote/schemas.js';
import type { RatingSnapshot } from '../quote/snapshot.js';
import { reconciles, type StoredDataframe, type StoredPoint } from './stored-dataframe.js';
import { descKey, projectOf, sameResource } from './point-key.js';
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

/** One distinct point: its resource, how many times it was seen, and its prices once known. */
interface DistinctPoint {
  resource: Resource;
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

/**
 * What a table entry's points share but their quantity and stored price: a point's rule version,
 * service, unit, groupby and metadata. Kept once per resource, so that an entry's own key is short.
 */
interface Resource {
  /** The start of its entries' keys (`<number>;`). */
  prefix: string;
  service: string;
  projectId: string | null;
  /** Its unpriced entries' batch: `rule version \0 tenant`. */
  group: string;
}

/**
 * A service's points in a dataframe and their distinct points, for the service's next dataframe
 * of the same rule version: CloudKitty lists a window's points in the same order each window (and
 * so do usage files made from it, a dataframe a window or a metric type), so the point at the same
 * place is most often the same resource with the same quantity, found by comparing the two
 * points, without building a key.
 */
interface Hint {
  points: readonly StoredPoint[];
  distinct: readonly DistinctPoint[];
}

/**
 * A fold of at least this many distinct points is followed by a full garbage collection: V8
 * collects its old generation lazily, and a folded table of 250,000 points left up to 250 MB of
 * garbage on top of the next one (measured, bench/simulate.js: peak RSS +390 MB above idle on
 * 1,000,000 distinct points, +260 MB with the collection, which costs some 30 ms a fold).
 */
const FOLD_COLLECTION_POINTS = 65_536;

/** Distinct points priced between two turns of the event loop. */
const POINTS_PER_TURN = 5000;

/** No rule changes a point's price: shared by the distinct points whose price does not move. */
const NO_RULES: readonly string[] = Object.freeze([]);

/**
 * New distinct points priced together, per rule version and tenant: a few pricing calls, not one
 * per dataframe. The hashmap selects the rules once for all tenants without rules of their own
 * and remembers 256 tenants with some (a cloud with more selects theirs again each batch).
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

/** A distinct point's key in the table: its resource's prefix, quantity and stored price. */
function distinctKey(resource: Resource, point: StoredPoint): string {
  // Quantities and prices are decimal text (digits, sign, point, exponent): `;` ends them.
  return resource.prefix + point.qty + ';' + point.price;
}

/** `known` when `value` equals it, else `value`. */
function sameOrOwn(known: Exact, value: Exact): Exact {
  return known.eq(value) ? known : value;
}

/** A simulation under way: give it the stored dataframes in any order, then read its totals. */
export class Simulation {
  readonly totals: SimulationTotals;
  /** Points read so far. */
  points = 0;
  private readonly times: number[] | null;
  private readonly pointwise: boolean;
  /** The table of distinct points, by resource prefix, quantity and stored price. */
  private readonly distinct = new Map<string, DistinctPoint>();
  /** The resources of the table's points, by resource key (emptied with the table). */
  private readonly resources = new Map<string, Resource>();
  /** Tables folded so far: a fold leaves every hint out of the table. */
  private folds = 0;
  /** By service, the points and distinct points of its last dataframe of rule version `hintVersion`. */
  private hints = new Map<string, Hint>();
  private hintVersion: string | undefined;
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

  /**
   * Counts each point of `dataframe` to its distinct point: the one of the point at the same place
   * in its service's last dataframe when the two are alike (no key built), else the table's, else
   * a new one (priced with the next batch). A full table is priced, counted and emptied first.
   */
  private async addDistinct(dataframe: StoredDataframe): Promise<void> {
    const version = this.versionOf(dataframe.begin.getTime());
    if (version !== this.hintVersion) {
      this.hints = new Map<string, Hint>();
      this.hintVersion = version;
    }
    for (const [service, points] of dataframe.usage) {
      const folds = this.folds;
      const hint = this.hints.get(service);
      const hinted = hint === undefined ? 0 : Math.min(hint.points.length, points.length);
      const found = new Array<DistinctPoint>(points.length);
      for (let index = 0; index < points.length; index += 1) {
        const point = points[index];
        let distinct: DistinctPoint | undefined;
        let resource: Resource | undefined;
        // The point at the same place in the service's last dataframe: the same distinct point, or another of the same resource.
        if (index < hinted && this.folds === folds && sameResource(point, hint!.points[index])) {
          const hintPoint = hint!.points[index];
          if (point.qty === hintPoint.qty && point.price === hintPoint.price) distinct = hint!.distinct[index];
          else resource = hint!.distinct[index].resource;
        }
        let key: string | undefined;
        if (distinct === undefined) {
          if (resource === undefined) resource = this.resources.get((key = this.resourceKey(version, service, point)));
          if (resource !== undefined) distinct = this.distinct.get(distinctKey(resource, point));
        }
        if (distinct === undefined) {
          if (this.distinct.size >= this.settings.maxDistinctPoints) {
            await this.priceUnpriced();
            this.fold();
            resource = undefined;
          }
          resource ??= this.newResource(key ?? this.resourceKey(version, service, point), version, service, point);
          distinct = this.insert(resource, point, dataframe);
        }
        found[index] = distinct;
        this.sight(distinct, point, dataframe);
      }
      // A fold among these points left some of `found` out of the table: no hint from them.
      if (this.folds === folds) this.hints.set(service, { points, distinct: found });
      this.points += points.length;
    }
    if (this.unpricedCount >= BATCH_POINTS) await this.priceUnpriced();
  }

  /** The key of a point's resource: its rule version, service, unit, groupby and metadata. */
  private resourceKey(version: string, service: string, point: StoredPoint): string {
    // The service and unit as JSON strings, then two self-delimiting descKeys: no two alike.
    return version + ';' + JSON.stringify(service) + JSON.stringify(point.unit) + descKey(point.groupby) + descKey(point.metadata);
  }

  /** The table's resource of a point, new, under its key. */
  private newResource(key: string, version: string, service: string, point: StoredPoint): Resource {
    const projectId = projectOf(point);
    const resource = { prefix: `${this.resources.size};`, service, projectId, group: `${version}\u0000${projectId ?? ''}` };
    this.resources.set(key, resource);
    return resource;
  }

  /** A new distinct point of `resource` for `point`, first seen in `window`, waiting to be priced with its tenant's others. */
  private insert(resource: Resource, point: StoredPoint, window: Window): DistinctPoint {
    const distinct: DistinctPoint = {
      resource,
      count: 0,
      unpriced: { point, begin: window.begin, end: window.end, count: 0, later: undefined },
      stored: Exact.ZERO,
      current: Exact.ZERO,
      draft: Exact.ZERO,
      mismatch: false,
      changedRules: NO_RULES,
    };
    this.distinct.set(distinctKey(resource, point), distinct);
    const list = this.unpriced.get(resource.group);
    if (list) list.push(distinct);
    else this.unpriced.set(resource.group, [distinct]);
    this.unpricedCount += 1;
    return distinct;
  }

  /** Counts one point of `distinct` seen in `window`: where, until it is priced; a finding each time, once priced, when its stored price is off. */
  private sight(distinct: DistinctPoint, point: StoredPoint, window: Window): void {
    distinct.count += 1;
    const unpriced = distinct.unpriced;
    if (unpriced !== undefined) {
      const last = unpriced.later?.at(-1) ?? unpriced;
      if (last.begin === window.begin) last.count += 1;
      else (unpriced.later ??= []).push({ begin: window.begin, end: window.end, count: 1 });
    } else if (distinct.mismatch) {
      const { projectId, service } = distinct.resource;
      this.totals.addFinding({ projectId, service, begin: window.begin, end: window.end, point, current: distinct.current }, distinct.stored);
    }
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
      const tenant = list[0].resource.projectId;
      const window = list[0].unpriced!;
      const points = list.map((distinct) => ({ service: distinct.resource.service, point: distinct.unpriced!.point }));
      const [current, draft] = await this.priceBothSides(window, tenant, points, false);
      const changed: number[] = [];
      list.forEach((distinct, index) => {
        // Equal prices share one object: the table keeps fewer.
        distinct.stored = Exact.from(points[index].point.price);
        distinct.current = sameOrOwn(distinct.stored, current[index].price);
        distinct.draft = sameOrOwn(distinct.current, draft[index].price);
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
            const { projectId, service } = distinct.resource;
            const finding = { projectId, service, begin, end, point: points[index].point, current: distinct.current };
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

  /**
   * Adds every distinct point's counts to the totals and empties the table; a large table's
   * entries, garbage at once, are collected right away (see {@link FOLD_COLLECTION_POINTS}).
   */
  private fold(): void {
    if (this.distinct.size >= FOLD_COLLECTION_POINTS) collectGarbageSoon();
    this.folds += 1;
    this.resources.clear();
    this.hints = new Map<string, Hint>();
    for (const distinct of this.distinct.values()) {
      if (distinct.count === 0) continue;
      this.totals.add(distinct.resource.projectId, distinct.resource.service, distinct.count, distinct.stored, distinct.current, distinct.draft);
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
