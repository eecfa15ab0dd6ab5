/**
 * The rating API: `/v1/rating` (aliased `/v1/billing`) with the modules, the quote and the module
 * configuration of hashmap and pyscripts; `/v2/rating` with the v2 modules and quote.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Database } from '../database/connection.js';
import { GroupRepository } from './hashmap/repository/groups.js';
import { MappingRepository } from './hashmap/repository/mappings.js';
import { ServiceRepository } from './hashmap/repository/services.js';
import { ThresholdRepository } from './hashmap/repository/thresholds.js';
import { hashmapRoutes } from './hashmap/routes/index.js';
import { ModuleRepository } from './modules/repository.js';
import { moduleRoutesV1, moduleRoutesV2 } from './modules/routes.js';
import { ScriptRepository } from './pyscripts/repository.js';
import { pyscriptsRoutes } from './pyscripts/routes.js';
import { quoteRoutesV1, quoteRoutesV2 } from './quote/routes.js';
import type { ScriptRunner } from './quote/pricing.js';
import type { ScriptCompiler } from './pyscripts/compile.js';
import type { RatingSnapshotCache } from './snapshot.js';

/** What the rating routes share. */
export interface RatingRouteOptions {
  database: Database;
  snapshots: RatingSnapshotCache;
  /** The pyscripts sandbox (runs and compiles scripts), when available. */
  sandbox: () => (ScriptRunner & ScriptCompiler) | undefined;
  quoteBodyLimit: number;
  /** Quote quantities must be 0 or within [10^-n, 10^n) in magnitude (`TARIFF_DECIMAL_MAX_EXPONENT`). */
  maxDecimalExponent: number;
  /** Hide from the OpenAPI document (the alias). */
  hidden: boolean;
}

/** `/v1/rating` (and its alias): modules, quote, `module_config/hashmap/...`, `module_config/pyscripts/...`. */
export const ratingRoutes: FastifyPluginAsync<RatingRouteOptions> = async (app, { database, snapshots, sandbox, quoteBodyLimit, maxDecimalExponent, hidden }) => {
  const repositories = {
    services: new ServiceRepository(database),
    groups: new GroupRepository(database),
    mappings: new MappingRepository(database),
    thresholds: new ThresholdRepository(database),
  };
  const modules = new ModuleRepository(database);
  await app.register(moduleRoutesV1, { modules, onChange: () => snapshots.invalidate(), hidden });
  await app.register(quoteRoutesV1, { snapshots, scripts: sandbox, bodyLimit: quoteBodyLimit, maxDecimalExponent, hidden });
  await app.register(hashmapRoutes, { prefix: '/module_config/hashmap', repositories, hidden });
  await app.register(pyscriptsRoutes, { prefix: '/module_config/pyscripts', scripts: new ScriptRepository(database), compiler: sandbox, hidden });
};

/** `/v2/rating`: modules and quote. */
export const ratingRoutesV2: FastifyPluginAsync<RatingRouteOptions> = async (app, { database, snapshots, sandbox, quoteBodyLimit, maxDecimalExponent, hidden }) => {
  await app.register(moduleRoutesV2, { modules: new ModuleRepository(database), onChange: () => snapshots.invalidate(), hidden });
  await app.register(quoteRoutesV2, { snapshots, scripts: sandbox, bodyLimit: quoteBodyLimit, maxDecimalExponent, hidden });
};
