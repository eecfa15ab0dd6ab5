/** A versioned rule's state as a coloured badge, in words (the colour only repeats them). */
import type { ValidityState } from '../validity.js';
import './state-badge.css';

/** A rule's state: its validity state, or `deleted` for a soft-deleted version. */
export type RuleState = ValidityState | 'deleted';

/** Shows `state` as a badge. */
export function StateBadge({ state }: { state: RuleState }) {
  return <span class={`state state-${state}`}>{state}</span>;
}
