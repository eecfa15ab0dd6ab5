/**
 * The contract of a rating module (CloudKitty compat: its `RatingProcessorBase`): what Tariff
 * needs to serve, store and run one. `hashmap`, `pyscripts` and `noop` implement it, each in its
 * own folder (`<module>/module.ts`); `src/rating/registry.ts` lists the modules a process serves.
 * Module states (enabled, priority), the module routes, the migrations, the rating snapshot and
 * the quote all loop over that list: adding a module is a folder and a line in the registry.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Database } from '../../database/connection.js';
import type { Transaction } from '../../database/transaction.js';
import type { TariffMigration } from '../../database/migrate.js';
import type { ExplainEntry, RatingDataframe } from './dataframe.js';
import type { PriceListSection } from './price-list-section.js';
import type { RunningRuleUpdates } from '../common/versioning.js';

/** What a module's configuration routes are given. */
export interface ModuleRouteOptions {
  database: Database;
  /** Hide the routes from the OpenAPI document (the `/v1/billing` alias). */
  hidden: boolean;
  /** What an update of a running rule's terms does (`TARIFF_RUNNING_RULE_UPDATES`, common/versioning.ts). */
  runningRuleUpdates: RunningRuleUpdates;
}

/** How a quote is priced; the same for every module of one quote. */
export interface PricingContext {
  /** Rules active at this time apply (epoch milliseconds). */
  at: number;
  /** The tenant whose rules apply beside the global ones; null: global rules only (v1 quote). */
  tenantId: string | null;
  /** Whether points collect `explain` entries (`PricedPoint.explain` is set when true). */
  explain: boolean;
  /**
   * Who asks for the quote, for modules that share a resource fairly between callers (the
   * PyScripts sandbox): the Keystone project, else the quote's tenant, else the client's address.
   */
  caller: string | undefined;
  /** Quantities and prices must be 0 or within [10^-n, 10^n) in magnitude (`TARIFF_DECIMAL_MAX_EXPONENT`). */
  maxDecimalExponent: number;
}

/**
 * A rating module. `Rules` is what {@link RatingModule.loadRules} loads: the module's part of the
 * rating snapshot, loaded once per configuration version and priced with many times.
 */
export interface RatingModule<Rules = unknown> {
  /**
   * CloudKitty's module name: the `module_id` of `/v1/rating/modules`, the `name` in
   * `modules_state`, the path segment of `/v1/rating/module_config/<name>`. Letters, digits and
   * `_`; unique among the registered modules.
   */
  readonly name: string;
  /** CloudKitty's description (`HashMap rating module.`). */
  readonly description: string;
  /** CloudKitty's `hot-config`: whether configuration changes apply without a restart. */
  readonly hotConfig: boolean;
  /**
   * The module's tables: migrations by name, applied by the migrator with Tariff's own (names are
   * shared with them and must be unique; by convention `<module>_<NNNN>_<what>`, applied in name
   * order). Each must do nothing when its tables are already there (a database adopted from
   * CloudKitty). Its table types stay in the module's folder (`Kysely#withTables`).
   */
  readonly migrations: Readonly<Record<string, TariffMigration>>;
  /**
   * The configuration API, mounted under `/v1/rating/module_config/<name>` (and the
   * `/v1/billing` alias). Without it, every path there answers 409 `Module is not configurable`
   * (CloudKitty compat: `noop`).
   */
  readonly routes?: FastifyPluginAsync<ModuleRouteOptions>;
  /**
   * The kinds of object its configuration writes record in the audit trail (api.md §9; e.g.
   * `mapping`), which `GET /v2/rating/changes?kind=` accepts. Each write of its routes records
   * one change in the journal it runs its transaction with (`http/change-journal.ts`).
   */
  readonly changeKinds?: readonly string[];
  /**
   * The module's part of the price list (docs/price-list.md): its document members, export and
   * apply. Without it, the module has no rules in the document (its state is there still).
   */
  readonly priceList?: PriceListSection;
  /**
   * Loads the module's live rules for the rating snapshot (a few queries, never one per rule).
   *
   * @param database - the module's database: its settings (`storedDateTimes`, `traits`), never
   *   its pool for this read.
   * @param snapshot - one read-only transaction on one consistent state of the database
   *   (`inReadSnapshot`), shared by every module's load and the configuration revision: every
   *   query of the load must go through it, so that a quote never prices with half of one
   *   configuration write and half of the next (fix, issue 24: separate pooled connections did).
   *   Its statements run one at a time on its connection.
   * @throws the database's errors (the quote then answers 503).
   */
  loadRules(database: Database, snapshot: Transaction): Promise<Rules>;
  /**
   * Told the module's rules and whether it is enabled each time a process that watches its rules
   * (the server: `RatingSnapshotCache.watch`) loads a rating snapshot: at start, then after a
   * configuration change here or, within about a second, in another process sharing the database. A module holding a resource only while it has rules starts
   * or stops it here (pyscripts: the sandbox's workers, issue 26). Must not throw or wait.
   */
  rulesLoaded?(rules: Rules, enabled: boolean): void;
  /**
   * The times (epoch milliseconds) at which some of `rules` starts or ends: between two of them
   * the module prices a given point the same, whatever the time. A simulation (issue 27) prices
   * each distinct point once per such interval. Without it, every rating time is its own interval.
   */
  ruleChangeTimes?(rules: Rules): Iterable<number>;
  /**
   * Whether each point's price comes from the point alone (its tenant, service, quantity, unit,
   * groupby, metadata and the rating time), never from the other points of its dataframe or its
   * period: then a simulation prices each distinct point once. Without it, false (a module that
   * sees whole dataframes: PyScripts with a script).
   */
  pricesEachPointAlone?(rules: Rules): boolean;
  /**
   * The name a person knows one of the module's `explain` entries by (hashmap: the rule's
   * place, `instance/flavor_name/m1.large`; pyscripts: the script's name), for the simulation's
   * list of rules that change prices; undefined when the entry names no rule of `rules`.
   */
  ruleName?(rules: Rules, entry: ExplainEntry): string | undefined;
  /**
   * Prices a dataframe when the module is enabled, in its turn (descending priority, ties by
   * name): adds to each point's `price` (and `explain`), or replaces the points. Synchronous
   * modules return nothing; a module that waits (PyScripts) returns a promise.
   *
   * @throws a TariffError for an answer the caller should get (422 for what the module could not
   *   price, 503 for a resource it lacks).
   */
  price(rules: Rules, dataframe: RatingDataframe, context: PricingContext): void | Promise<void>;
}
