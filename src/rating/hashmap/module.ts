/**
 * The hashmap rating module (rating.md §5; CloudKitty's `HashMap`): services, fields, groups,
 * mappings and thresholds, priced by an in-memory rule index. Its parts: `schemas.ts`, `routes/`,
 * `repository/`, `validation.ts`, `engine/` (the rule index, selection, plan and per-point
 * pricing; `engine/dataframe.ts` prices a dataframe), `price-list/` (its part of the price list), `errors.ts`, `migrations.ts`, `tables.ts`.
 */
import type { RatingModule } from '../contract/rating-module.js';
import type { RuleIndex } from './engine/types.js';
import { HASHMAP_MIGRATIONS } from './migrations.js';
import { priceWithHashmap } from './engine/dataframe.js';
import { loadRuleIndex } from './repository/engine-rules.js';
import { hashmapRoutes } from './routes/index.js';
import { hashmapTables } from './tables.js';
import { hashmapPriceList } from './price-list/section.js';
import { hashmapRuleChangeTimes, hashmapRuleName } from './engine/rule-names.js';

/** The hashmap module: configured under `module_config/hashmap`, hot-config (rules apply at once). */
export const hashmapModule: RatingModule<RuleIndex> = {
  name: 'hashmap',
  description: 'HashMap rating module.',
  hotConfig: true,
  migrations: HASHMAP_MIGRATIONS,
  routes: hashmapRoutes,
  changeKinds: ['service', 'field', 'group', 'mapping', 'threshold'],
  loadRules: (database, snapshot) => loadRuleIndex(hashmapTables(snapshot), database.storedDateTimes),
  price: priceWithHashmap,
  ruleChangeTimes: hashmapRuleChangeTimes,
  // Each point is priced from its own desc and quantity (engine/dataframe.ts).
  pricesEachPointAlone: () => true,
  ruleName: hashmapRuleName,
  priceList: hashmapPriceList,
};
