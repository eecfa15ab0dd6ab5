/** The rating API (`/v1/rating`, aliased `/v1/billing`): module configuration of hashmap and pyscripts. */
import type { FastifyPluginAsync } from 'fastify';
import type { Database } from '../database/connection.js';
import { HashmapCatalogRepository } from './hashmap/repository/services.js';
import { MappingRepository } from './hashmap/repository/mappings.js';
import { ThresholdRepository } from './hashmap/repository/thresholds.js';
import { hashmapRoutes } from './hashmap/routes/index.js';
import { ScriptRepository } from './pyscripts/repository.js';
import { pyscriptsRoutes } from './pyscripts/routes.js';

/** Options of {@link ratingRoutes}. */
export interface RatingRouteOptions {
  database: Database;
  /** Hide from the OpenAPI document (the alias). */
  hidden: boolean;
}

/** Registers `module_config/hashmap/...` and `module_config/pyscripts/...`. */
export const ratingRoutes: FastifyPluginAsync<RatingRouteOptions> = async (app, { database, hidden }) => {
  const repositories = {
    catalog: new HashmapCatalogRepository(database),
    mappings: new MappingRepository(database),
    thresholds: new ThresholdRepository(database),
  };
  await app.register(hashmapRoutes, { prefix: '/module_config/hashmap', repositories, hidden });
  await app.register(pyscriptsRoutes, { prefix: '/module_config/pyscripts', scripts: new ScriptRepository(database), hidden });
};
