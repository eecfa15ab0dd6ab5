/** The hashmap module's routes, mounted under `module_config/hashmap`. */
import type { FastifyPluginAsync } from 'fastify';
import type { ModuleRouteOptions } from '../../contract/rating-module.js';
import { GroupRepository } from '../repository/groups.js';
import { MappingRepository } from '../repository/mappings.js';
import { ServiceRepository } from '../repository/services.js';
import { ThresholdRepository } from '../repository/thresholds.js';
import type { HashmapRouteOptions } from './context.js';
import { groupRoutes } from './groups.js';
import { mappingRoutes } from './mappings.js';
import { serviceRoutes } from './services.js';
import { thresholdRoutes } from './thresholds.js';

/** Registers every hashmap route, with repositories on `database`. */
export const hashmapRoutes: FastifyPluginAsync<ModuleRouteOptions> = async (app, { database, hidden, runningRuleUpdates }) => {
  const options: HashmapRouteOptions = {
    repositories: {
      services: new ServiceRepository(database),
      groups: new GroupRepository(database),
      mappings: new MappingRepository(database, runningRuleUpdates),
      thresholds: new ThresholdRepository(database),
    },
    hidden,
  };
  await app.register(serviceRoutes, options);
  await app.register(groupRoutes, options);
  await app.register(mappingRoutes, options);
  await app.register(thresholdRoutes, options);
};
