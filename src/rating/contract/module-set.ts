/** The rating modules one Tariff process serves, checked once: names well-formed and unique. */
import type { TariffMigration } from '../../database/migrate.js';
import type { RatingModule } from './rating-module.js';

/** A module name: a path segment and a `modules_state` key (CloudKitty's names are such). */
const MODULE_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/** The registered modules, by name. */
export class ModuleSet {
  /** Every module, in name order (the order `/v1/rating/modules` lists them in). */
  readonly all: readonly RatingModule[];
  private readonly byName: ReadonlyMap<string, RatingModule>;

  /**
   * @throws Error for a malformed or repeated module name, or a migration name two modules share.
   */
  constructor(modules: readonly RatingModule[]) {
    const byName = new Map<string, RatingModule>();
    for (const module of modules) {
      if (!MODULE_NAME.test(module.name)) throw new Error(`rating module name '${module.name}' must be letters, digits and _, starting with a letter`);
      if (byName.has(module.name)) throw new Error(`rating module '${module.name}' is registered twice`);
      byName.set(module.name, module);
    }
    this.byName = byName;
    this.all = [...byName.values()].sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    this.migrations();
  }

  /** The module named `name`, or undefined. */
  get(name: string): RatingModule | undefined {
    return this.byName.get(name);
  }

  /**
   * Every module's migrations, for the migrator.
   *
   * @throws Error when two modules declare a migration of the same name.
   */
  migrations(): Record<string, TariffMigration> {
    const migrations: Record<string, TariffMigration> = {};
    const owners = new Map<string, string>();
    for (const module of this.all) {
      for (const [name, migration] of Object.entries(module.migrations)) {
        const owner = owners.get(name);
        if (owner !== undefined) throw new Error(`rating modules '${owner}' and '${module.name}' both declare the migration '${name}'`);
        owners.set(name, module.name);
        migrations[name] = migration;
      }
    }
    return migrations;
  }
}
