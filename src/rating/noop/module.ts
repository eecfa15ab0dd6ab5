/**
 * The noop rating module (CloudKitty's `Noop`, "Dummy test module."): no rules, no tables, prices
 * nothing; `/v1/rating/module_config/noop` answers 409 `Module is not configurable`.
 */
import type { RatingModule } from '../contract/rating-module.js';

/** The noop module: enabling it changes no price. */
export const noopModule: RatingModule<undefined> = {
  name: 'noop',
  description: 'Dummy test module.',
  hotConfig: false,
  migrations: {},
  loadRules: async () => undefined,
  price: () => {},
  ruleChangeTimes: () => [],
  pricesEachPointAlone: () => true,
};
