/**
 * A versioned rule's validity as a state (docs/api.md §6): `scheduled` before its start, `running`
 * from its start (inclusive) to its end (exclusive, none = forever), `ended` from its end on.
 */

/** The state of a rule valid over `[start, end)` at `now`. */
export type ValidityState = 'scheduled' | 'running' | 'ended';

/** A rule's state at `now` (epoch ms); dates are the API's ISO texts, `null` when unset. */
export function validityState(start: string | null, end: string | null, now: number = Date.now()): ValidityState {
  if (start !== null && Date.parse(start) > now) return 'scheduled';
  if (end !== null && Date.parse(end) <= now) return 'ended';
  return 'running';
}

/** An API datetime (`2026-12-01T10:00:00+00:00`) as the console shows it: `2026-12-01 10:00 UTC`. */
export function formatDateTime(value: string | null): string {
  if (value === null) return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  const iso = date.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, iso.endsWith(':00.000Z') ? 16 : 19)} UTC`;
}
