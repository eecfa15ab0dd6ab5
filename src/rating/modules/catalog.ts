/** The rating modules Tariff knows (rating.md §2), with CloudKitty's descriptions. */

/** A rating module's name. */
export type ModuleName = 'hashmap' | 'pyscripts' | 'noop';

/** What a module is, independent of its state. */
export interface ModuleInfo {
  name: ModuleName;
  description: string;
  /** CloudKitty's `hot-config`: whether configuration changes apply without a restart. */
  hotConfig: boolean;
}

/** Every module, by name. */
export const MODULES: ReadonlyMap<string, ModuleInfo> = new Map<string, ModuleInfo>([
  ['hashmap', { name: 'hashmap', description: 'HashMap rating module.', hotConfig: true }],
  ['noop', { name: 'noop', description: 'Dummy test module.', hotConfig: false }],
  ['pyscripts', { name: 'pyscripts', description: 'PyScripts rating module.', hotConfig: true }],
]);

/** A module with its state: enabled (default false, as in CloudKitty) and priority (≥ 1, default 1). */
export interface ModuleState extends ModuleInfo {
  enabled: boolean;
  priority: number;
}

/**
 * The order modules rate in: enabled ones only, descending priority, ties by name (rating.md §2).
 */
export function ratingOrder(states: readonly ModuleState[]): ModuleState[] {
  return states.filter((state) => state.enabled).sort((a, b) => b.priority - a.priority || a.name.localeCompare(b.name));
}
