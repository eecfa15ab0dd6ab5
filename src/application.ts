/**
 * The composition root: a Tariff app is the HTTP shell (`http/app.ts`) with the rating API of
 * the registered modules (`rating/`) handed to it. `server.ts`, `cli.ts` and the tests build
 * their apps and module lists here, so the shell never imports the rating code.
 */
import type { FastifyServerOptions, FastifyBaseLogger } from 'fastify';
import type { TariffConfig } from './config.js';
import type { Database } from './database/connection.js';
import type { KeystoneAuthOptions } from './http/keystone-auth.js';
import { buildApp, type TariffApp } from './http/app.js';
import { ModuleSet } from './rating/contract/module-set.js';
import type { RatingModule } from './rating/contract/rating-module.js';
import { defaultModules, type ModuleDependencies } from './rating/registry.js';
import { ratingApi } from './rating/routes.js';
import { RatingSnapshotCache } from './rating/quote/snapshot.js';
import { TariffMetrics } from './kernel/metrics.js';
import { registerCloudKittyForward } from './http/cloudkitty-forward/index.js';
import { KeystoneClient } from './auth/keystone.js';

/** Builds a list of rating modules from the process's dependencies (the sandbox). */
export type ModuleList = (dependencies: ModuleDependencies) => RatingModule[];

/**
 * The modules a process serves: `list` (default: `defaultModules`, the registry) built with the
 * process's dependencies and checked. Its `migrations()` go to the migrator, the set itself to
 * {@link buildTariffApp}.
 *
 * @throws Error for a malformed or repeated module name, or a migration name two modules share.
 */
export function ratingModules(dependencies: ModuleDependencies = {}, list: ModuleList = defaultModules): ModuleSet {
  return new ModuleSet(list(dependencies));
}

/** Keystone mode: Tariff's own token, for the calls it makes on its own behalf (a simulation reading CloudKitty). */
function serviceTokenOf(config: TariffConfig): ((stale?: string) => Promise<string>) | undefined {
  if (config.keystone === undefined) return undefined;
  const client = new KeystoneClient(config.keystone);
  return (stale) => client.ownToken(stale);
}

/** What {@link buildTariffApp} needs. */
export interface TariffAppOptions {
  config: TariffConfig;
  /** The database, migrated for `modules`; it stays the caller's to close. */
  database: Database;
  /** The modules to serve (`ratingModules()`). */
  modules: ModuleSet;
  /** pino options, `false` to silence (tests); default: JSON logs at `config.logLevel`. */
  logger?: FastifyServerOptions['logger'];
  /** A ready pino logger to use instead (the server's, which logged start-up already). */
  loggerInstance?: FastifyBaseLogger;
  /** Keystone mode: replaces the real Keystone client (tests). */
  keystoneClient?: KeystoneAuthOptions['client'];
  /**
   * The process's metrics (`src/server.ts` shares them with the database and the sandbox);
   * default: new ones when `config.metrics` is on.
   */
  metrics?: TariffMetrics;
  /** Keep the rating snapshot current without waiting for quotes (see `RatingApiOptions.watchRules`); the server's. */
  watchRules?: boolean;
}

/**
 * Creates the Tariff app: the HTTP shell with the rating API of `modules` under `/v1/rating`,
 * `/v1/billing` and `/v2/rating`, and CloudKitty's other routes forwarded to
 * `config.cloudKitty.url` (http/cloudkitty-forward/). The caller listens (or injects) and closes it.
 *
 * @throws ConfigurationError when the policy file (Keystone mode) cannot be loaded.
 */
export function buildTariffApp({
  config,
  database,
  modules,
  logger,
  loggerInstance,
  keystoneClient,
  watchRules,
  ...options
}: TariffAppOptions): Promise<TariffApp> {
  const metrics = options.metrics ?? (config.metrics ? new TariffMetrics() : undefined);
  const rating = ratingApi({
    database,
    modules,
    snapshots: new RatingSnapshotCache(database, modules, metrics),
    metrics,
    quoteBodyLimit: config.quoteBodyLimitBytes,
    maxDecimalExponent: config.maxDecimalExponent,
    quoteBudgets: { processBytes: config.quoteBytesInFlight, tenantBytes: config.quoteTenantBytes },
    quoteAnswerLimits: { growth: config.quoteAnswerGrowth, limitBytes: config.quoteAnswerLimitBytes },
    priceListLimits: {
      maxAliases: config.priceListMaxAliases,
      maxDepth: config.jsonMaxDepth,
      maxProblems: config.priceListMaxProblems,
      reads: config.priceListReads,
      bulkCollectionIntervalMs: config.bulkCollectionIntervalMs,
    },
    changesMaxLimit: config.changesMaxLimit,
    runningRuleUpdates: config.runningRuleUpdates,
    simulation: {
      limits: config.simulation,
      cloudKitty: {
        url: config.cloudKitty.url,
        timeoutMs: config.cloudKitty.timeoutMs,
        serviceToken: serviceTokenOf(config),
      },
    },
    watchRules,
  });
  // CloudKitty's routes Tariff does not serve: forwarded to its API, or a 404 naming the setting.
  const routes = async (app: TariffApp) => {
    await registerCloudKittyForward(app, { settings: config.cloudKitty, metrics });
    await rating(app);
  };
  return buildApp({ config, routes, logger, loggerInstance, keystoneClient, database, metrics });
}
