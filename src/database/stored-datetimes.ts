/**
 * CloudKitty's naive `DateTime` columns (`start`, `end`, `created_at`, `deleted`) hold wall-clock
 * time in one zone, `TARIFF_CLOUDKITTY_TIMEZONE` (docs/operators/deploying-next-to-cloudkitty.md: One time zone with CloudKitty).
 *
 * CloudKitty compat: CloudKitty writes `datetime.now()` (its host's local wall time) and compares
 * `start <= now < end` with its host's naive local time, so the zone is its hosts' `TZ` (and, on
 * PostgreSQL, its sessions' `timezone`). Stored text is `YYYY-MM-DD HH:MM:SS` in whole seconds,
 * which sorts and compares correctly as text on SQLite and as a timestamp elsewhere.
 */
import { invalidInput } from '../kernel/errors.js';
import { TimeZone } from '../kernel/time-zone.js';

/**
 * The years a stored datetime may have, the same on every database: PostgreSQL's `timestamp` and
 * MySQL's `datetime` stop at 9999, and so does Python's `datetime` that CloudKitty reads them
 * with; SQLite would store any text (fix, issue 24: `+010000-01-01 08:00` was stored there, a 500
 * elsewhere).
 */
export const STORED_YEARS = { first: 1, last: 9999 } as const;

/** The first and the first-after-last wall milliseconds of {@link STORED_YEARS}. */
const FIRST_WALL_MS = yearStart(STORED_YEARS.first);
const AFTER_LAST_WALL_MS = yearStart(STORED_YEARS.last + 1);

function yearStart(year: number): number {
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: the latter reads years 0-99 as 1900-1999.
  date.setUTCFullYear(year, 0, 1);
  return date.getTime();
}

/** Most stored texts whose instants are remembered (rule loading reads the same starts and ends again). */
const REMEMBERED_READS = 50_000;

/** `YYYY-MM-DD HH:MM:SS` of wall milliseconds (fields read as UTC). */
function wallText(wallMs: number): string {
  return new Date(wallMs).toISOString().slice(0, 19).replace('T', ' ');
}

/** Wall milliseconds of stored text `YYYY-MM-DD HH:MM:SS[.ffffff]` (the fraction is dropped). */
function wallMsOf(stored: string): number {
  return new Date(`${stored.slice(0, 19).replace(' ', 'T')}Z`).getTime();
}

/**
 * Converts between instants and the stored wall-clock text of one zone. One per opened database
 * (`Database.storedDateTimes`), built from the configured zone, so processes and test apps with
 * different zones never share one.
 */
export class StoredDateTimes {
  private readonly instants = new Map<string, number>();

  /** @param zone - the zone the naive columns hold wall time in (UTC: no conversion, the fast path). */
  constructor(readonly zone: TimeZone) {}

  /**
   * The column text for the instant `date`: the zone's wall time, whole seconds,
   * `YYYY-MM-DD HH:MM:SS` (`2026-12-01T00:00:00Z` in Asia/Tokyo → `2026-12-01 09:00:00`). Every
   * write and every comparison with a stored datetime goes through here, so none reaches the
   * database out of {@link STORED_YEARS}.
   *
   * @param attribute - what the instant is (`start`, `effective_at`), for the fault.
   * @throws BadRequestError (400) naming `attribute` when the wall time's year is outside
   *   {@link STORED_YEARS} (`9999-12-31T23:00:00Z` is 10000-01-01 08:00 in Asia/Tokyo).
   */
  toStorage(date: Date, attribute = 'datetime'): string {
    return wallText(this.storableWallMs(date, attribute));
  }

  /**
   * Checks that `date` can be stored ({@link toStorage}'s check, without the text): for the
   * checks that must come before a write's other faults (a conflict, a missing parent).
   *
   * @throws BadRequestError (400) naming `attribute`, as {@link toStorage}.
   */
  checkStorable(date: Date, attribute: string): void {
    this.storableWallMs(date, attribute);
  }

  private storableWallMs(date: Date, attribute: string): number {
    const wallMs = this.zone.wallClockAt(date.getTime());
    if (wallMs >= FIRST_WALL_MS && wallMs < AFTER_LAST_WALL_MS) return wallMs;
    const wall = new Date(wallMs).getUTCFullYear();
    throw invalidInput(
      attribute,
      date.toISOString().replace(/\.\d{3}Z$/, '+00:00'),
      `Value is out of range: in CloudKitty's time zone (${this.zone.name}, TARIFF_CLOUDKITTY_TIMEZONE) its year is ${wall}, and stored datetimes are within the years ${STORED_YEARS.first} to ${STORED_YEARS.last}.`,
    );
  }

  /**
   * The instant (epoch milliseconds) of a stored value: wall-time text as the drivers return it
   * (`YYYY-MM-DD HH:MM:SS[.ffffff]`), read in the zone as Python reads a naive local time
   * (kernel/time-zone.ts: a repeated time is the earlier instant); a `Date` is taken as it is.
   */
  epochMsOf(stored: string | Date): number {
    if (stored instanceof Date) return stored.getTime();
    if (this.zone.isUtc) return wallMsOf(stored);
    let instant = this.instants.get(stored);
    if (instant === undefined) {
      instant = this.zone.instantOf(wallMsOf(stored));
      if (this.instants.size >= REMEMBERED_READS) this.instants.clear();
      this.instants.set(stored, instant);
    }
    return instant;
  }

  /** The instant of a stored value as a `Date` (see {@link epochMsOf}). */
  fromStorage(stored: string | Date): Date {
    return new Date(this.epochMsOf(stored));
  }

  /** API text of a stored value: UTC with seconds and an explicit offset, `2026-12-01T00:00:00+00:00`; null stays null. */
  toApiText(stored: string | Date | null): string | null {
    if (stored === null) return null;
    if (typeof stored === 'string' && this.zone.isUtc) return `${stored.slice(0, 10)}T${stored.slice(11, 19)}+00:00`;
    return `${new Date(this.epochMsOf(stored)).toISOString().slice(0, 19)}+00:00`;
  }
}

/** UTC, Tariff's zone before `TARIFF_CLOUDKITTY_TIMEZONE` and its default. */
export const UTC_STORED_DATETIMES = new StoredDateTimes(TimeZone.UTC);
