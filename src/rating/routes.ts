/**
 * The rating API, for the registered modules: `/v1/rating` (aliased `/v1/billing`, hidden from
 * the OpenAPI document) with the module states, the quote and each module's configuration under
 * `module_config/<name>`; `/v2/rating` with the v2 module states, quote, price list and changes.
 */
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Database } from '../database/connection.js';
import { faultResponses } from '../http/fault-schema.js';
import { installCloudKittyDateTimes } from '../http/cloudkitty-datetimes.js';
import { dropEmptyGetContentType, mergeGetBodyArguments } from '../http/request.js';
import { appendRouteHook } from '../http/route-hooks.js';
import { ConflictError } from '../kernel/errors.js';
import type { ModuleSet } from './contract/module-set.js';
import { ModuleStateRepository } from './module-states/repository.js';
import { moduleRoutesV1, moduleRoutesV2 } from './module-states/routes.js';
import { quoteRoutesV1, quoteRoutesV2, type QuoteRouteOptions } from './quote/routes.js';
import type { RatingSnapshotCache } from './quote/snapshot.js';
import { PriceList, type PriceListLimits } from './price-list/price-list.js';
import { priceListRoutes } from './price-list/routes.js';
import { simulationRoutes } from './simulation/routes.js';
import { Simulator, type CloudKittyReading, type SimulationLimits } from './simulation/simulator.js';
import { ChangeRepository } from './changes/repository.js';
import { changeRoutes, CORE_CHANGE_KINDS } from './changes/routes.js';
import type { TariffMetrics } from '../kernel/metrics.js';
import type { RunningRuleUpdates } from './common/versioning.js';
import { QuoteAdmission, type QuoteBudgets } from './quote/admission.js';
import type { AnswerLimits } from './quote/answer.js';

/** What the rating routes share. */
export interface RatingApiOptions {
  database: Database;
  /** The registered modules. */
  modules: ModuleSet;
  /** The rules the quotes price with (dropped on module state changes and `reload_modules`). */
  snapshots: RatingSnapshotCache;
  /** Largest quote body, in bytes (`TARIFF_QUOTE_BODY_LIMIT_MB`). */
  quoteBodyLimit: number;
  /** Quote quantities must be 0 or within [10^-n, 10^n) in magnitude (`TARIFF_DECIMAL_MAX_EXPONENT`). */
  maxDecimalExponent: number;
  /** Quote bytes in flight per process and per tenant (`TARIFF_QUOTE_BYTES_IN_FLIGHT_MB`, `TARIFF_QUOTE_TENANT_BYTES_MB`). */
  quoteBudgets: QuoteBudgets;
  /** The bounds of a v2 quote's answer (`TARIFF_QUOTE_ANSWER_GROWTH`, `TARIFF_QUOTE_ANSWER_LIMIT_MB`). */
  quoteAnswerLimits: AnswerLimits;
  /** How much of a price-list document is read (aliases, depth, problems listed). */
  priceListLimits: PriceListLimits;
  /** The largest page of `GET /v2/rating/changes` (`TARIFF_CHANGES_MAX_LIMIT`). */
  changesMaxLimit: number;
  /** What an update of a running rule's terms does (`TARIFF_RUNNING_RULE_UPDATES`). */
  runningRuleUpdates: RunningRuleUpdates;
  /** The limits of simulations (`TARIFF_SIMULATION*`) and where CloudKitty's stored usage is read. */
  simulation: { limits: SimulationLimits; cloudKitty: CloudKittyReading };
  /** Where priced quotes are counted (`GET /metrics`); absent when metrics are off. */
  metrics?: TariffMetrics;
  /**
   * Keep the rating snapshot current while the app is open, without waiting for quotes
   * (`RatingSnapshotCache.watch`): the server's, so the modules learn of configuration changes
   * (the pyscripts sandbox starts and stops its workers). Default false (tests' apps).
   */
  watchRules?: boolean;
}

/** {@link RatingApiOptions} and whether to hide the routes from the OpenAPI document. */
interface RatingRouteOptions extends RatingApiOptions {
  hidden: boolean;
  /** The quote bytes in flight, one for every quote route of the app (v1, its alias, v2). */
  quoteAdmission: QuoteAdmission;
}

/** The quote routes' options (v1, its alias and v2 share one admission budget). */
function quoteRouteOptions(options: RatingRouteOptions): QuoteRouteOptions {
  const { snapshots, quoteBodyLimit, maxDecimalExponent, hidden, metrics, quoteAdmission, quoteAnswerLimits } = options;
  return { snapshots, bodyLimit: quoteBodyLimit, maxDecimalExponent, hidden, metrics, admission: quoteAdmission, answerLimits: quoteAnswerLimits };
}

/** CloudKitty compat: the configuration paths of a module without a configuration API. */
async function notConfigurable(): Promise<never> {
  throw new ConflictError('Module is not configurable');
}

/** `/v1/rating` (and its alias): module states, quote, `module_config/<module>/...`. */
const ratingRoutesV1: FastifyPluginAsync<RatingRouteOptions> = async (app, options) => {
  const { database, modules, snapshots, hidden, runningRuleUpdates } = options;
  // CloudKitty compat: v1 is WSME's API, whose GETs take arguments from a JSON body too, and
  // whose datetimes are naive wall time in CloudKitty's zone.
  app.addHook('onRoute', (route) => {
    appendRouteHook(route, 'onRequest', dropEmptyGetContentType);
    appendRouteHook(route, 'preValidation', mergeGetBodyArguments);
  });
  installCloudKittyDateTimes(app, database.storedDateTimes.zone);
  const states = new ModuleStateRepository(database, modules);
  await app.register(moduleRoutesV1, { modules: states, onChange: () => snapshots.invalidate(), hidden });
  await app.register(quoteRoutesV1, quoteRouteOptions(options));
  for (const module of modules.all) {
    const prefix = `/module_config/${module.name}`;
    if (module.routes) {
      await app.register(module.routes, { prefix, database, hidden, runningRuleUpdates });
    } else {
      const schema = {
        hide: true,
        response: faultResponses(401, 403, 409),
      };
      app.all(prefix, { schema }, notConfigurable);
      app.all(`${prefix}/*`, { schema }, notConfigurable);
    }
  }
};

/** `/v2/rating`: module states, quote, price list and the audit trail of configuration changes. */
const ratingRoutesV2: FastifyPluginAsync<RatingRouteOptions> = async (app, options) => {
  const { database, modules, snapshots, priceListLimits, changesMaxLimit, hidden } = options;
  // v2 GETs take no body arguments, but the client sends them a Content-Type too: nothing to parse.
  app.addHook('onRequest', dropEmptyGetContentType);
  await app.register(moduleRoutesV2, { modules: new ModuleStateRepository(database, modules), onChange: () => snapshots.invalidate(), hidden });
  await app.register(quoteRoutesV2, quoteRouteOptions(options));
  const priceList = new PriceList(database, modules, priceListLimits);
  await app.register(priceListRoutes, { priceList, onChange: () => snapshots.invalidate(), bodyLimit: options.quoteBodyLimit, hidden });
  const { limits, cloudKitty } = options.simulation;
  const simulator = new Simulator(database, modules, priceList, limits, cloudKitty, options.maxDecimalExponent);
  await app.register(simulationRoutes, { simulator, draftBytes: options.quoteBodyLimit, hidden });
  await app.register(changeRoutes, {
    changes: new ChangeRepository(database),
    kinds: [...CORE_CHANGE_KINDS, ...modules.all.flatMap((module) => module.changeKinds ?? [])],
    maxLimit: changesMaxLimit,
    hidden,
  });
};

/**
 * Registers the rating API on an app: `/v1/rating`, its alias `/v1/billing` and `/v2/rating`.
 * Handed to `buildApp` as its `routes` by the composition root (`src/application.ts`).
 */
export function ratingApi(options: RatingApiOptions): (app: FastifyInstance) => Promise<void> {
  return async (app) => {
    if (options.watchRules) {
      const stopWatching = options.snapshots.watch();
      app.addHook('onClose', async () => stopWatching());
    }
    const quoteAdmission = new QuoteAdmission(options.quoteBudgets);
    options.metrics?.watchQuoteBytes(() => quoteAdmission.bytesInFlight);
    await app.register(ratingRoutesV1, { prefix: '/v1/rating', ...options, quoteAdmission, hidden: false });
    await app.register(ratingRoutesV1, { prefix: '/v1/billing', ...options, quoteAdmission, hidden: true });
    await app.register(ratingRoutesV2, { prefix: '/v2/rating', ...options, quoteAdmission, hidden: false });
  };
}
