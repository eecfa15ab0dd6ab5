/**
 * The pyscripts rating module (rating.md §6; CloudKitty's `PyScripts`): operators' Python scripts,
 * versioned, run in the sandbox over the whole dataframe. Its parts: `schemas.ts`, `routes.ts`,
 * `repository.ts`, `validation.ts` (and `compile.ts`, the compile check), `engine.ts`,
 * `errors.ts`, `migrations.ts`, `tables.ts`, `price-list/` (its part of the price list), and `sandbox/`.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ModuleRouteOptions, RatingModule } from '../contract/rating-module.js';
import type { ScriptCompiler } from './compile.js';
import { priceWithScripts, type ScriptRunner } from './engine.js';
import { PYSCRIPTS_MIGRATIONS } from './migrations.js';
import { ScriptRepository, type LiveScript } from './repository.js';
import { scriptRoutes } from './routes.js';
import { pyscriptsPriceList } from './price-list/section.js';

/** Told whether scripts need the sandbox's workers (`ScriptSandbox.setDemand`). */
export interface WorkerDemand {
  /** True while the module is enabled and has a script (live, of any validity); false otherwise. */
  setDemand?(needed: boolean): void;
}

/**
 * What the module needs of the PyScripts sandbox (`sandbox/pool.ts`'s `ScriptSandbox`): runs and
 * compile checks, and being told when scripts need its workers.
 */
export type PyscriptsSandbox = ScriptRunner & ScriptCompiler & WorkerDemand;

/**
 * The pyscripts module on a sandbox: configured under `module_config/pyscripts`, hot-config.
 *
 * @param sandbox - runs and compiles the scripts; without one (`TARIFF_SANDBOX_WORKERS=0`) sources
 *   are not compile-checked and quotes that must run scripts answer 503.
 */
export function pyscriptsModule(sandbox: PyscriptsSandbox | undefined): RatingModule<LiveScript[]> {
  const routes: FastifyPluginAsync<ModuleRouteOptions> = async (app, { database, hidden, runningRuleUpdates }) => {
    await app.register(scriptRoutes, { scripts: new ScriptRepository(database, runningRuleUpdates), compiler: sandbox, hidden });
  };
  return {
    name: 'pyscripts',
    description: 'PyScripts rating module.',
    hotConfig: true,
    migrations: PYSCRIPTS_MIGRATIONS,
    routes,
    changeKinds: ['script'],
    loadRules: (database, snapshot) => new ScriptRepository(database).loadLive(snapshot),
    // Workers only while they can be needed: a quote may be rated at any time, so any script counts.
    rulesLoaded: (scripts, enabled) => sandbox?.setDemand?.(enabled && scripts.length > 0),
    price: (scripts, dataframe, context) => priceWithScripts(scripts, dataframe, context, sandbox),
    priceList: pyscriptsPriceList(sandbox),
    ruleChangeTimes: (scripts) => scripts.flatMap((script) => (script.end === null ? [script.start] : [script.start, script.end])),
    // A script sees the whole dataframe: a point's price may follow from the others'.
    pricesEachPointAlone: (scripts) => scripts.length === 0,
    ruleName: (_scripts, entry) => (entry as { script?: unknown }).script as string | undefined,
  };
}
