/**
 * Module states in a price list: `modules.<name>.enabled` and `.priority`. Not versioned: a
 * change applies when written. A module the document leaves out keeps its state.
 */
import type { PriceListChange } from '../contract/price-list-section.js';
import type { ModuleState } from '../module-states/states.js';

/** The module state changes of an apply. */
export interface ModuleStatesPlan {
  changes: PriceListChange[];
  unversioned: string[];
  /** The new state of each changed module, by name. */
  writes: Map<string, { enabled: boolean; priority: number }>;
}

/** Compares the document's module states with the stored ones (registered modules only). */
export function planModuleStates(stored: readonly ModuleState[], wanted: Readonly<Record<string, { enabled?: boolean; priority?: number }>>): ModuleStatesPlan {
  const plan: ModuleStatesPlan = { changes: [], unversioned: [], writes: new Map() };
  for (const state of stored) {
    const entry = Object.hasOwn(wanted, state.name) ? wanted[state.name] : undefined;
    if (entry === undefined) continue;
    const next = { enabled: entry.enabled ?? state.enabled, priority: entry.priority ?? state.priority };
    if (next.enabled === state.enabled && next.priority === state.priority) continue;
    const path = `modules[${state.name}]`;
    plan.writes.set(state.name, next);
    plan.unversioned.push(path);
    plan.changes.push({
      action: 'updated',
      resource: 'module',
      path,
      before: { module_id: state.name, enabled: state.enabled, priority: state.priority },
      after: { module_id: state.name, ...next },
    });
  }
  return plan;
}
