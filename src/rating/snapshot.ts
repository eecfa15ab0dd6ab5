/**
 * The rules the engines price with, loaded once and kept in memory: module states, the hashmap
 * rule index and the live scripts. A snapshot is dropped after a configuration write through this
 * process, and when `tariff_config_version` shows a write by another process sharing the database
 * (checked at most once a second), never reloaded per request.
 */
import type { Database } from '../database/connection.js';
import { loadRuleIndex } from './hashmap/repository/engine-rules.js';
import type { RuleIndex } from './hashmap/engine/rules.js';
import type { ModuleState } from './modules/catalog.js';
import { ModuleRepository } from './modules/repository.js';
import { ScriptRepository, type ScriptSource } from './pyscripts/repository.js';

/** Everything a quote reads, as of one configuration version. */
export interface RatingSnapshot {
  modules: ModuleState[];
  hashmap: RuleIndex;
  scripts: ScriptSource[];
}

interface Loaded {
  snapshot: RatingSnapshot;
  version: string;
  localWrites: number;
}

/** How long a snapshot is trusted before the database's version is looked at again. */
const VERSION_CHECK_INTERVAL_MS = 1000;

/** Keeps the current {@link RatingSnapshot}. */
export class RatingSnapshotCache {
  private loaded: Loaded | undefined;
  private loading: Promise<Loaded> | undefined;
  private checkedAt = 0;

  constructor(private readonly database: Database) {}

  /** Drops the snapshot (`reload_modules`, module changes). */
  invalidate(): void {
    this.loaded = undefined;
  }

  /** The current snapshot, loaded or refreshed when stale. */
  async current(): Promise<RatingSnapshot> {
    const loaded = this.loaded;
    const now = Date.now();
    if (loaded && loaded.localWrites === this.database.writes.count) {
      if (now - this.checkedAt < VERSION_CHECK_INTERVAL_MS) return loaded.snapshot;
      const version = await this.version();
      this.checkedAt = now;
      if (version === loaded.version) return loaded.snapshot;
    }
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    return (await this.loading).snapshot;
  }

  private async version(): Promise<string> {
    const row = await this.database.db.selectFrom('tariff_config_version').select('version').where('name', '=', 'rating').executeTakeFirst();
    return String(row?.version ?? '0');
  }

  private async load(): Promise<Loaded> {
    const localWrites = this.database.writes.count;
    const version = await this.version();
    const [modules, hashmap, scripts] = await Promise.all([
      new ModuleRepository(this.database).list(),
      loadRuleIndex(this.database.db),
      new ScriptRepository(this.database).loadLive(),
    ]);
    this.loaded = { snapshot: { modules, hashmap, scripts }, version, localWrites };
    this.checkedAt = Date.now();
    return this.loaded;
  }
}
