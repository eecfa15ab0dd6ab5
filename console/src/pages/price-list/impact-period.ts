/** The impact form's default period: the last full calendar month, in UTC, before `now`. */

/** The first instant of the month before `now`'s and the first of `now`'s (UTC). */
export function lastFullMonth(now: Date): { begin: Date; end: Date } {
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const begin = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return { begin, end };
}

/** A collection period as one text: `2026-10-05 05:00–06:00 UTC` on one day, both ends in full otherwise. */
export function periodText(begin: string, end: string): string {
  const from = new Date(begin);
  const to = new Date(end);
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) return `${begin} – ${end}`;
  const time = (date: Date) => date.toISOString().slice(11, date.getUTCSeconds() === 0 ? 16 : 19);
  const day = (date: Date) => date.toISOString().slice(0, 10);
  if (day(from) === day(to)) return `${day(from)} ${time(from)}–${time(to)} UTC`;
  return `${day(from)} ${time(from)} – ${day(to)} ${time(to)} UTC`;
}
