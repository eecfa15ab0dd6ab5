/**
 * The rating modules a Tariff process serves: the one place that lists them. A new module is a
 * folder implementing `RatingModule` (`contract/rating-module.ts`) and a line here; callers that
 * serve another set (tests) pass their own list to `buildTariffApp` and `migrateTariffDatabase`.
 */
import type { RatingModule } from './contract/rating-module.js';
import { hashmapModule } from './hashmap/module.js';
import { noopModule } from './noop/module.js';
import { pyscriptsModule, type PyscriptsSandbox } from './pyscripts/module.js';

/** What the default modules need from the process. */
export interface ModuleDependencies {
  /** The PyScripts sandbox; without one, sources are not compile-checked and quotes needing scripts answer 503. */
  sandbox?: PyscriptsSandbox;
}

/** CloudKitty's rating modules (rating.md §2): hashmap, noop and pyscripts. */
export function defaultModules({ sandbox }: ModuleDependencies = {}): RatingModule[] {
  return [hashmapModule, noopModule, pyscriptsModule(sandbox)];
}

/**
 * The names of {@link defaultModules}, in name order (the order `/v1/rating/modules` lists them
 * in): for callers that mean every module a default process serves (tests, tools), so that a new
 * module is a line in the registry only.
 */
export function defaultModuleNames(): string[] {
  return defaultModules()
    .map((module) => module.name)
    .sort();
}
