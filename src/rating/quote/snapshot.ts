/**
 * The rules the modules price with, loaded once and kept in memory: module states and each
 * registered module's rules (`RatingModule.loadRules`: the hashmap rule index, the live
 * scripts...). A snapshot is dropped after a configuration write through this process, and when
 * `tariff_config_version` shows a write by another process sharing the database (checked at most
 * once a second), never reloaded per request. A load reads everything in one read-only
 * transaction, so a snapshot is one whole configuration, the one of its revision.
 *
 * With {@link RatingSnapshotCache.watch} (the server's), the cache also looks once a second
 * without a quote asking, and then tells each module its rules as loaded (`RatingModule.rulesLoaded`):
 * how the pyscripts module learns, in every process, that a script or its module state changed.
 */
import type { Database } from '../../database/connection.js';
import { inReadSnapshot, readRevision, type Transaction } from '../../database/transaction.js';
import type { ModuleSet } from '../contract/module-set.js';
import type { RatingModule } from '../contract/rating-module.js';
import { ModuleStateRepository } from '../module-states/repository.js';
import { ratingOrder, type ModuleState } from '../module-states/states.js';
import type { TariffMetrics } from '../../kernel/metrics.js';

/** An enabled module with its rules as loaded: one step of pricing. */
export interface LoadedModule {
  module: RatingModule;
  /** What `module.loadRules` loaded; handed back to `module.price`. */
  rules: unknown;
}

/** Everything a quote reads, as of one configuration version. */
export interface RatingSnapshot {
  /** Every registered module's state, by name. */
  states: ModuleState[];
  /** The enabled modules in the order they rate in (descending priority, ties by name), with their rules. */
  ratingOrder: LoadedModule[];
}

interface Loaded {
  snapshot: RatingSnapshot;
  version: string;
  localWrites: number;
  /** The {@link RatingSnapshotCache.invalidate} generation the load started in. */
  generation: number;
  /** When it was read (`performance.now()`, ms). */
  loadedAt: number;
}

/** A load under way, and the local write count and generation it started at. */
interface Loading {
  promise: Promise<Loaded>;
  localWrites: number;
  generation: number;
}

/**
 * Every registered module's state and rules as `transaction` sees them (one connection, one
 * consistent state: `inReadSnapshot`, or a write transaction that has not committed, as the
 * simulation's draft is read), and the enabled ones in rating order.
 *
 * @returns the snapshot, and each registered module with its rules by name (enabled or not).
 * @throws the database's errors.
 */
export async function loadRatingSnapshot(
  database: Database,
  modules: ModuleSet,
  transaction: Transaction,
): Promise<{ snapshot: RatingSnapshot; rulesByName: Map<string, LoadedModule> }> {
  const registered = modules.all;
  // One connection: its statements run one after the other, whatever the promises say.
  const [states, ...rules] = await Promise.all([
    new ModuleStateRepository(database, modules).listIn(transaction),
    ...registered.map((module) => module.loadRules(database, transaction)),
  ]);
  const rulesByName = new Map(registered.map((module, index) => [module.name, { module, rules: rules[index] }]));
  const order = ratingOrder(states).map((state) => rulesByName.get(state.name) as LoadedModule);
  return { snapshot: { states, ratingOrder: order }, rulesByName };
}

/** How long a snapshot is trusted before the database's version is looked at again. */
const VERSION_CHECK_INTERVAL_MS = 1000;

/** Keeps the current {@link RatingSnapshot}. */
export class RatingSnapshotCache {
  private loaded: Loaded | undefined;
  private loading: Loading | undefined;
  private checkedAt = 0;
  private generation = 0;
  /**
   * Whether {@link watch} runs: only then are the modules told their rules as loaded (an unwatched
   * cache learns of other processes' changes only when a quote asks, too late to start or stop
   * anything by; the tests' apps drive their sandboxes themselves).
   */
  private watched = false;
  /** Snapshots read from the database since this cache was created. */
  private reloads = 0;
  /** Reads of a snapshot or of the revision that failed (the quote waiting for it failed too). */
  private reloadFailures = 0;

  /**
   * @param modules - the registered modules, whose rules a snapshot holds.
   * @param metrics - where the reloads, the snapshot's age and its revision are read (`GET /metrics`).
   */
  constructor(
    private readonly database: Database,
    private readonly modules: ModuleSet,
    metrics?: TariffMetrics,
  ) {
    metrics?.watchRules(() => {
      const loaded = this.loaded;
      return {
        reloads: this.reloads,
        reloadFailures: this.reloadFailures,
        ageSeconds: loaded ? (performance.now() - loaded.loadedAt) / 1000 : 0,
        revision: loaded ? Number(loaded.version) : 0,
      };
    });
  }

  /** Drops the snapshot (`reload_modules`, module changes), and any load already under way. */
  invalidate(): void {
    this.loaded = undefined;
    this.generation += 1;
  }

  /** The current snapshot, loaded or refreshed when stale. */
  async current(): Promise<RatingSnapshot> {
    const loaded = this.loaded;
    const now = Date.now();
    if (loaded && loaded.localWrites === this.database.writes.count && loaded.generation === this.generation) {
      if (now - this.checkedAt < VERSION_CHECK_INTERVAL_MS) return loaded.snapshot;
      const version = await this.version();
      this.checkedAt = now;
      if (version === loaded.version) return loaded.snapshot;
    }
    return (await this.reload()).snapshot;
  }

  /**
   * Joins the load under way when it started after the last local write and invalidation;
   * otherwise starts a new one: a load that began before a write may not see it, and the quote
   * that follows the write must (read your writes).
   */
  private reload(): Promise<Loaded> {
    const localWrites = this.database.writes.count;
    const generation = this.generation;
    const loading = this.loading;
    if (loading && loading.localWrites === localWrites && loading.generation === generation) return loading.promise;
    const promise = this.load(localWrites, generation).finally(() => {
      if (this.loading?.promise === promise) this.loading = undefined;
    });
    this.loading = { promise, localWrites, generation };
    return promise;
  }

  /** The configuration's revision, read on its own (is the snapshot still current?). */
  private async version(): Promise<string> {
    try {
      return String(await readRevision(this.database.db));
    } catch (error) {
      this.reloadFailures += 1;
      throw error;
    }
  }

  /**
   * Reads a snapshot; keeps it only if no local write or invalidation happened meanwhile.
   *
   * fix (issue 24): the revision, the module states and each module's rules are read in one
   * read-only transaction (`inReadSnapshot`: one consistent state of the database), the revision
   * first. Read by separate statements on separate pooled connections, a load that overlapped a
   * price-list apply of another process could keep its mappings from before the apply and its
   * thresholds from after it, and price quotes under no configuration ever applied.
   */
  private async load(localWrites: number, generation: number): Promise<Loaded> {
    this.reloads += 1;
    const registered = this.modules.all;
    const { version, snapshot, rulesByName } = await inReadSnapshot(this.database, async (transaction) => {
      const revision = String(await readRevision(transaction));
      return { version: revision, ...(await loadRatingSnapshot(this.database, this.modules, transaction)) };
    }).catch((error: unknown) => {
      this.reloadFailures += 1;
      throw error;
    });
    const order = snapshot.ratingOrder;
    const loaded = { snapshot, version, localWrites, generation, loadedAt: performance.now() };
    if (localWrites === this.database.writes.count && generation === this.generation) {
      this.loaded = loaded;
      this.checkedAt = Date.now();
      if (this.watched) {
        const enabled = new Set(order.map((step) => step.module.name));
        for (const module of registered) module.rulesLoaded?.(rulesByName.get(module.name)?.rules, enabled.has(module.name));
      }
    }
    return loaded;
  }

  /**
   * Keeps the snapshot current without waiting for a quote: loads it now, then looks at the
   * configuration's revision every `intervalMs` (a write through this process or another one
   * sharing the database reloads it, and the modules are told: `RatingModule.rulesLoaded`). A load
   * that fails (the database is away) is tried again at the next tick; quotes report such faults.
   *
   * @returns stops the watch.
   */
  watch(intervalMs: number = VERSION_CHECK_INTERVAL_MS): () => void {
    this.watched = true;
    // The first tick loads afresh, so the modules are told even of a snapshot loaded before.
    this.invalidate();
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const tick = () => {
      void this.current()
        .catch(() => undefined)
        .then(() => {
          if (!stopped) timer = setTimeout(tick, intervalMs).unref();
        });
    };
    tick();
    return () => {
      stopped = true;
      this.watched = false;
      clearTimeout(timer);
    };
  }
}
