/**
 * Wall-clock time in an IANA time zone, both ways, with the tz database Node's ICU carries.
 *
 * A wall-clock time is kept as "wall milliseconds": the epoch milliseconds its fields would have
 * if they were read as UTC (`2026-12-01 09:00:00` → `Date.UTC(2026, 11, 1, 9)`), so the UTC zone
 * is the identity both ways.
 *
 * CloudKitty compat: a wall time is read as Python reads a naive local datetime with `fold=0`
 * (PEP 495): a time that occurs twice (clocks set back) is the earlier instant, the offset before
 * the transition; a time that never occurs (clocks set forward) is read with the offset before
 * the transition too, which lands after the gap (02:30 on Paris's spring-forward night is
 * 01:30 UTC, shown as 03:30 CEST).
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Thrown for a time zone name the tz database does not know. */
export class UnknownTimeZoneError extends Error {}

/** One IANA time zone (or UTC). Immutable; build with {@link TimeZone.named}. */
export class TimeZone {
  /** The UTC zone: wall time and instant are the same. */
  static readonly UTC = new TimeZone('UTC', undefined);

  /**
   * The zone named `name` (`Asia/Tokyo`, `Europe/Paris`, `UTC`...), under its canonical name
   * (`Etc/UTC` → `UTC`; case is normalised: `asia/tokyo` → `Asia/Tokyo`).
   *
   * @throws UnknownTimeZoneError when the tz database has no such zone.
   */
  static named(name: string): TimeZone {
    let formatter: Intl.DateTimeFormat;
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone: name,
        hourCycle: 'h23',
        era: 'short',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      throw new UnknownTimeZoneError(`unknown time zone '${name}' (an IANA name such as UTC, Europe/Paris or Asia/Tokyo)`);
    }
    const canonical = formatter.resolvedOptions().timeZone;
    return canonical === 'UTC' ? TimeZone.UTC : new TimeZone(canonical, formatter);
  }

  private constructor(
    /** The canonical IANA name (`UTC`, `Asia/Tokyo`). */
    readonly name: string,
    private readonly formatter: Intl.DateTimeFormat | undefined,
  ) {}

  /** Whether this is UTC, where no conversion is needed. */
  get isUtc(): boolean {
    return this.formatter === undefined;
  }

  /** The zone's wall milliseconds at the instant `epochMs` (milliseconds are dropped). */
  wallClockAt(epochMs: number): number {
    const wholeSecond = Math.floor(epochMs / 1000) * 1000;
    return this.formatter === undefined ? wholeSecond : wholeSecond + this.offsetAt(wholeSecond);
  }

  /**
   * The instant (epoch milliseconds) at which the zone's clock shows `wallMs`, read with Python's
   * `fold=0` (see the file comment) for a repeated or skipped wall time.
   */
  instantOf(wallMs: number): number {
    if (this.formatter === undefined) return wallMs;
    // Offsets a day either side: one transition at most lies between (true of the tz database).
    const before = this.offsetAt(wallMs - DAY_MS);
    const after = this.offsetAt(wallMs + DAY_MS);
    const candidates = [wallMs - before];
    if (after !== before) candidates.push(wallMs - after);
    const valid = candidates.filter((instant) => instant + this.offsetAt(instant) === wallMs);
    // A repeated time: the earlier instant; a skipped one: the offset before the transition.
    return valid.length > 0 ? Math.min(...valid) : wallMs - before;
  }

  /** The zone's offset from UTC at the instant `epochMs` (whole seconds), in milliseconds. */
  offsetAt(epochMs: number): number {
    if (this.formatter === undefined) return 0;
    const instant = Math.floor(epochMs / 1000) * 1000;
    const fields: Record<string, string> = {};
    for (const part of this.formatter.formatToParts(instant)) fields[part.type] = part.value;
    const year = fields.era === 'BC' || fields.era === 'B' ? 1 - Number(fields.year) : Number(fields.year);
    const wall = new Date(Date.UTC(2000, 0, 1, Number(fields.hour), Number(fields.minute), Number(fields.second)));
    // setUTCFullYear, not Date.UTC: the latter reads years 0-99 as 1900-1999.
    wall.setUTCFullYear(year, Number(fields.month) - 1, Number(fields.day));
    return wall.getTime() - instant;
  }
}
