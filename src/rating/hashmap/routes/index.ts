/** The hashmap module's routes, mounted under `module_config/hashmap`. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { groupRoutes } from './groups.js';
import { mappingRoutes } from './mappings.js';
import { serviceRoutes } from './services.js';
import { thresholdRoutes } from './thresholds.js';
import type { HashmapRouteOptions } from './context.js';

/** Registers every hashmap route. */
export const hashmapRoutes: FastifyPluginAsyncTypebox<HashmapRouteOptions> = async (app, { repositories, hidden }) => {
  const options = { repositories, hidden };
  await app.register(serviceRoutes, options);
  await app.register(groupRoutes, options);
  await app.register(mappingRoutes, options);
  await app.register(thresholdRoutes, options);
};
