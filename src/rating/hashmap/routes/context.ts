/** What every hashmap route plugin receives: the repositories and whether to hide from OpenAPI. */
import type { GroupRepository } from '../repository/groups.js';
import type { MappingRepository } from '../repository/mappings.js';
import type { ServiceRepository } from '../repository/services.js';
import type { ThresholdRepository } from '../repository/thresholds.js';

/** The hashmap repositories. */
export interface HashmapRepositories {
  services: ServiceRepository;
  groups: GroupRepository;
  mappings: MappingRepository;
  thresholds: ThresholdRepository;
}

/** Options of the hashmap route plugins. */
export interface HashmapRouteOptions {
  repositories: HashmapRepositories;
  /** Hide these routes from the OpenAPI document (the `/v1/billing` alias). */
  hidden: boolean;
}
