/**
 * Versioned rules (api.md §6): mappings and scripts are valid from `start` (inclusive) to `end`
 * (exclusive; null = forever). Pure checks, no I/O.
 */
import { BadRequestError } from '../../kernel/errors.js';
import { formatMessageDateTime } from './datetime.js';

/** A rule's validity interval `[start, end)`. */
export interface Validity {
  start: Date;
  end: Date | null;
}

/**
 * Whether two half-open intervals intersect: exactly `a.start < b.end and b.start < a.end`, an
 * open end being +∞ (fix: CloudKitty's test let two open-ended rules be active at once).
 */
export function intervalsOverlap(a: Validity, b: Validity): boolean {
  const aStartsBeforeBEnds = b.end === null || a.start.getTime() < b.end.getTime();
  const bStartsBeforeAEnds = a.end === null || b.start.getTime() < a.end.getTime();
  return aStartsBeforeBEnds && bStartsBeforeAEnds;
}

/**
 * Create-time checks of a validity interval.
 *
 * @param startGiven - whether the client chose `start` (a default `start` is "now").
 * @param force - `?force=true` allows a start in the past.
 * @throws BadRequestError `Cannot create a rule with start in the past. ...` or
 *   `Cannot create a rule with start after end. ...` (CloudKitty's messages).
 */
export function checkNewValidity(validity: Validity, now: Date, options: { startGiven: boolean; force: boolean }): void {
  if (options.startGiven && !options.force && validity.start.getTime() < now.getTime()) {
    throw new BadRequestError(
      `Cannot create a rule with start in the past. start=[${formatMessageDateTime(validity.start)}] current time=[${formatMessageDateTime(now)}].`,
    );
  }
  if (validity.end !== null && validity.end.getTime() < validity.start.getTime()) {
    throw new BadRequestError(
      `Cannot create a rule with start after end. start=[${formatMessageDateTime(validity.start)}] end=[${formatMessageDateTime(validity.end)}].`,
    );
  }
}

/** Where a rule stands at a given time. */
export type RuleState = 'not-started' | 'running' | 'over';

/** `not-started` when start > now; `over` when end ≤ now; else `running`. */
export function ruleState(validity: Validity, now: Date): RuleState {
  if (validity.start.getTime() > now.getTime()) return 'not-started';
  if (validity.end !== null && validity.end.getTime() <= now.getTime()) return 'over';
  return 'running';
}

/**
 * What an update that changes a running rule's terms (anything but `end`) does
 * (`TARIFF_RUNNING_RULE_UPDATES`, api.md §6):
 * - `new-version` (the default): the rule takes the new terms from now on and keeps its id; its
 *   terms until now stay as an ended version, a rule of their own with a new id, `end` = now, which
 *   prices (and CloudKitty's processor applies) everything before now. fix: CloudKitty 23 refused
 *   such updates, so Horizon's "Edit", the 4.6 client and tempest could not change a price.
 * - `refuse`: CloudKitty 23's 400 `You are allowed to update only the attribute [end] …`.
 */
export type RunningRuleUpdates = 'new-version' | 'refuse';

/** How an accepted update is stored: in place, or as a new version from now (see {@link RunningRuleUpdates}). */
export type UpdateOutcome = 'in-place' | 'new-version';

/**
 * Update-time checks (api.md §6), given the stored interval, the proposed one and the names of
 * the mutable attributes whose value the request changes.
 *
 * - over (`end ≤ now`): nothing may change;
 * - running: `end` may change, not to before now (it may be moved again later: fix, CloudKitty
 *   allowed it once); other terms per `runningRuleUpdates` (never `start`: the past stays);
 * - not started: anything, with the create checks applied again.
 *
 * @returns `new-version` when a running rule's terms change from now on (its start was before now).
 * @throws BadRequestError with CloudKitty's messages.
 */
export function checkValidityUpdate(
  stored: Validity,
  proposed: Validity,
  changed: readonly string[],
  now: Date,
  runningRuleUpdates: RunningRuleUpdates = 'refuse',
): UpdateOutcome {
  const state = ruleState(stored, now);
  if (state === 'over') {
    throw new BadRequestError('Cannot update a rule that was already processed and has a defined end date.');
  }
  if (state === 'running') {
    const terms = changed.filter((attribute) => attribute !== 'end');
    if (terms.length > 0 && (runningRuleUpdates === 'refuse' || terms.includes('start'))) {
      throw new BadRequestError(
        `You are allowed to update only the attribute [end] as this rule is already running as it started on [${formatMessageDateTime(stored.start)}]`,
      );
    }
    if (changed.includes('end') && proposed.end !== null && proposed.end.getTime() < now.getTime()) {
      throw new BadRequestError(
        // CloudKitty's text, without a final period (unlike the create messages).
        `End date must be in the future. end=[${formatMessageDateTime(proposed.end)}] current time=[${formatMessageDateTime(now)}]`,
      );
    }
    // A rule that started this very second has no past to keep.
    return terms.length > 0 && stored.start.getTime() < now.getTime() ? 'new-version' : 'in-place';
  }
  checkNewValidity(proposed, now, { startGiven: changed.includes('start'), force: false });
  return 'in-place';
}

/** The validity of a mapping or script in API form (`start`/`end` as UTC text). */
export function validityOf(rule: { start: string | null; end: string | null }): Validity {
  return { start: new Date(rule.start ?? 0), end: rule.end === null ? null : new Date(rule.end) };
}
