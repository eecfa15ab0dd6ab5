/** A rating module's state (rating.md §2) and the order enabled modules rate in. */
import type { RatingModule } from '../contract/rating-module.js';

/** What the module API shows of a module besides its state. */
export type ModuleInfo = Pick<RatingModule, 'name' | 'description' | 'hotConfig'>;

/** A module with its state: enabled (default false, as in CloudKitty) and priority (≥ 1, default 1). */
export interface ModuleState extends ModuleInfo {
  enabled: boolean;
  priority: number;
}

/**
 * The order modules rate in: enabled ones only, descending priority, ties by name (rating.md §2).
 */
export function ratingOrder<State extends ModuleState>(states: readonly State[]): State[] {
  return states.filter((state) => state.enabled).sort((a, b) => b.priority - a.priority || a.name.localeCompare(b.name));
}
