/**
 * The rules the engines price with, loaded once and kept in memory: module states, the hashmap
 * rule index and the live scripts. A snapshot is dropped after a configuration write through this
 * process, and when `tariff_config_version` shows a write by another process sharing the database
 * (checked at most once a second), never reloaded per request.
 */
import type { Database } from '../database/connection.js';
import { loadRuleIndex } from './hashmap/repository/engine-rules.js';
import type { RuleIndex } from './hashmap/engine/types.js';
import type { ModuleState } from './modules/catalog.js';
import { ModuleRepository } from './modules/repository.js';
import { ScriptRepository, type LiveScript } from './pyscripts/repository.js';

/** Everything a quote reads, as of one configuration version. */
export interface RatingSnapshot {
  modules: ModuleState[];
  hashmap: RuleIndex;
  scripts: LiveScript[];
}

interface Loaded {
  snapshot: RatingSnapshot;
  version: string;
  localWrites: number;
  /** The {@link RatingSnapshotCache.invalidate} generation the load started in. */
  generation: number;
}

/** A load under way, and the local write count and generation it started at. */
interface Loading {
  promise: Promise<Loaded>;
  localWrites: number;
  generation: number;
}

/** How long a snapshot is trusted before the database's version is looked at again. */
const VERSION_CHECK_INTERVAL_MS = 1000;

/** Keeps the current {@link RatingSnapshot}. */
export class RatingSnapshotCache {
  private loaded: Loaded | undefined;
  private loading: Loading | undefined;
  private checkedAt = 0;
  private generation = 0;

  constructor(private readonly database: Database) {}

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

  private async version(): Promise<string> {
    const row = await this.database.db.selectFrom('tariff_config_version').select('version').where('name', '=', 'rating').executeTakeFirst();
    return String(row?.version ?? '0');
  }

  /** Reads a snapshot; keeps it only if no local write or invalidation happened meanwhile. */
  private async load(localWrites: number, generation: number): Promise<Loaded> {
    const version = await this.version();
    const [modules, hashmap, scripts] = await Promise.all([
      new ModuleRepository(this.database).list(),
      loadRuleIndex(this.database.db),
      new ScriptRepository(this.database).loadLive(),
    ]);
    const loaded = { snapshot: { modules, hashmap, scripts }, version, localWrites, generation };
    if (localWrites === this.database.writes.count && generation === this.generation) {
      this.loaded = loaded;
      this.checkedAt = Date.now();
    }
    return loaded;
  }
}
