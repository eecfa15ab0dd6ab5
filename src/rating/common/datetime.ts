/**
 * Datetimes: ISO 8601 in, UTC out, in whole seconds. How they are stored (wall time in the zone
 * of CloudKitty's hosts) is the database's `storedDateTimes` (database/stored-datetimes.ts).
 */
import { invalidInput } from '../../kernel/errors.js';
import { STORED_YEARS } from '../../database/stored-datetimes.js';

const ISO_DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** How a date without a time is completed: `start` → 00:00:00, `end` → 23:59:59 (CloudKitty's). */
export type DateOnlyMeaning = 'start' | 'end';

/**
 * Parses client text such as `2026-12-01`, `2026-12-01T10:00`, `2026-12-01T10:00:00+02:00` or
 * `...Z`. A time without an offset is UTC (fix: CloudKitty answered 500 on an offset). Fractions
 * of a second are dropped: rules are kept in whole seconds.
 *
 * @param dateOnly - how a date without a time is completed.
 * @throws BadRequestError (400) naming `attribute` when the text is not such a datetime.
 */
export function parseDateTime(value: unknown, attribute: string, dateOnly: DateOnlyMeaning = 'start'): Date {
  const match = typeof value === 'string' ? ISO_DATETIME.exec(value.trim()) : null;
  if (!match) {
    throw invalidInput(attribute, value, 'Value must be an ISO 8601 datetime such as 2026-12-01T10:00:00+00:00.');
  }
  const [, year, month, day, hour, minute, second, , offset] = match;
  const timeGiven = hour !== undefined;
  const fields = timeGiven ? [Number(hour), Number(minute), Number(second ?? 0)] : dateOnly === 'end' ? [23, 59, 59] : [0, 0, 0];
  // setUTCFullYear, not Date.UTC: the latter reads years 0-99 as 1900-1999.
  const check = new Date(Date.UTC(2000, 0, 1, fields[0], fields[1], fields[2]));
  check.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  const utc = check.getTime();
  if (
    check.getUTCFullYear() !== Number(year) ||
    check.getUTCMonth() !== Number(month) - 1 ||
    check.getUTCDate() !== Number(day) ||
    fields[0] > 23 ||
    fields[1] > 59 ||
    fields[2] > 59
  ) {
    throw invalidInput(attribute, value, 'Value is not a valid calendar date and time.');
  }
  const minutes = offsetMinutes(offset);
  if (minutes === null) throw invalidInput(attribute, value, 'Value has an invalid UTC offset: at most ±23:59.');
  const result = new Date(utc - minutes * 60_000);
  // Answered as `YYYY-MM-DDTHH:MM:SS+00:00`: a UTC year outside 1-9999 has no such text (Python's
  // range too). The stored wall time is checked where it is made (StoredDateTimes.toStorage).
  if (result.getUTCFullYear() < STORED_YEARS.first || result.getUTCFullYear() > STORED_YEARS.last) {
    throw invalidInput(attribute, value, `Value is out of range: the UTC year must be between ${STORED_YEARS.first} and ${STORED_YEARS.last}.`);
  }
  return result;
}

/** Minutes east of UTC of an ISO offset (`Z`, `+02`, `+0200`, `+02:00`); null when out of range. */
function offsetMinutes(offset: string | undefined): number | null {
  if (!offset || offset === 'Z') return 0;
  const sign = offset.startsWith('-') ? -1 : 1;
  const digits = offset.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || 0);
  if (hours > 23 || minutes > 59) return null;
  return sign * (hours * 60 + minutes);
}

/** API text of an instant: UTC with seconds and an explicit offset, `2026-12-01T10:00:00+00:00`. */
export function formatApiDateTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}+00:00`;
}

/** {@link formatApiDateTime}, null for no time (an open `end`). */
export function formatOptionalApiDateTime(date: Date | null): string | null {
  return date === null ? null : formatApiDateTime(date);
}

/** CloudKitty's text form of a datetime in messages, in UTC: `2014-01-01 00:00:00`. */
export function formatMessageDateTime(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}
