import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../src/kernel/errors.js';
import { formatApiDateTime, formatMessageDateTime, parseDateTime } from '../../src/rating/common/datetime.js';
import { StoredDateTimes, UTC_STORED_DATETIMES } from '../../src/database/stored-datetimes.js';
import { TimeZone } from '../../src/kernel/time-zone.js';
import { wholeSeconds } from '../../src/kernel/time.js';

/** ISO text (UTC, no millis) of a parsed value, for compact assertions. */
function parsed(value: unknown, dateOnly: 'start' | 'end' = 'start'): string {
  return parseDateTime(value, 'start', dateOnly).toISOString().replace('.000Z', 'Z');
}

/** The 400 message of parseDateTime, or null when it parses. */
function failure(value: unknown, attribute = 'start', dateOnly: 'start' | 'end' = 'start'): string | null {
  try {
    parseDateTime(value, attribute, dateOnly);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).status).toBe(400);
    return (error as Error).message;
  }
}

const NOT_ISO = (attribute: string, value: string) =>
  `Invalid input for field/attribute ${attribute}. Value: '${value}'. Value must be an ISO 8601 datetime such as 2026-12-01T10:00:00+00:00.`;
const NOT_CALENDAR = (attribute: string, value: string) =>
  `Invalid input for field/attribute ${attribute}. Value: '${value}'. Value is not a valid calendar date and time.`;

describe('parseDateTime: accepted forms', () => {
  it('completes a date-only start with 00:00:00 and a date-only end with 23:59:59', () => {
    expect(parsed('2026-12-01')).toBe('2026-12-01T00:00:00Z');
    expect(parsed('2026-12-01', 'start')).toBe('2026-12-01T00:00:00Z');
    expect(parsed('2026-12-01', 'end')).toBe('2026-12-01T23:59:59Z');
    // The default meaning is start.
    expect(parseDateTime('2026-12-01', 'x').toISOString()).toBe('2026-12-01T00:00:00.000Z');
  });

  it('keeps a given time even for an end', () => {
    expect(parsed('2026-12-01T10:00', 'end')).toBe('2026-12-01T10:00:00Z');
    expect(parsed('2026-12-01T00:00:00', 'end')).toBe('2026-12-01T00:00:00Z');
  });

  it('reads a time without offset as UTC, with or without seconds, T or space', () => {
    expect(parsed('2026-12-01T10:00')).toBe('2026-12-01T10:00:00Z');
    expect(parsed('2026-12-01T10:00:05')).toBe('2026-12-01T10:00:05Z');
    expect(parsed('2026-12-01 10:00:05')).toBe('2026-12-01T10:00:05Z');
    expect(parsed('  2026-12-01T10:00:05  ')).toBe('2026-12-01T10:00:05Z');
  });

  it('converts offsets to UTC: Z, +hh:mm, -hh:mm, +hhmm, +hh', () => {
    expect(parsed('2026-12-01T10:00:00Z')).toBe('2026-12-01T10:00:00Z');
    expect(parsed('2026-12-01T10:00:00+02:00')).toBe('2026-12-01T08:00:00Z');
    expect(parsed('2026-12-01T10:00:00-05:30')).toBe('2026-12-01T15:30:00Z');
    expect(parsed('2026-12-01T10:00:00+0200')).toBe('2026-12-01T08:00:00Z');
    expect(parsed('2026-12-01T10:00:00+02')).toBe('2026-12-01T08:00:00Z');
    expect(parsed('2026-12-01T10:00+01:00')).toBe('2026-12-01T09:00:00Z');
    // Crossing midnight and a year boundary.
    expect(parsed('2027-01-01T01:00:00+03:00')).toBe('2026-12-31T22:00:00Z');
    expect(parsed('2026-12-31T23:30:00-01:00')).toBe('2027-01-01T00:30:00Z');
  });

  it('drops fractions of a second (rules are kept in whole seconds)', () => {
    expect(parsed('2026-12-01T10:00:00.999Z')).toBe('2026-12-01T10:00:00Z');
    expect(parsed('2026-12-01T10:00:59.123456')).toBe('2026-12-01T10:00:59Z');
  });

  it('accepts leap days of leap years and the last second of a day', () => {
    expect(parsed('2024-02-29')).toBe('2024-02-29T00:00:00Z');
    expect(parsed('2000-02-29T12:00:00')).toBe('2000-02-29T12:00:00Z');
    expect(parsed('2026-12-31T23:59:59')).toBe('2026-12-31T23:59:59Z');
  });
});

describe('parseDateTime: refused input', () => {
  it('refuses invalid calendar dates, naming the attribute and value', () => {
    expect(failure('2026-02-30')).toBe(NOT_CALENDAR('start', '2026-02-30'));
    expect(failure('2026-02-29', 'end', 'end')).toBe(NOT_CALENDAR('end', '2026-02-29'));
    expect(failure('1900-02-29')).toBe(NOT_CALENDAR('start', '1900-02-29'));
    expect(failure('2026-04-31')).toBe(NOT_CALENDAR('start', '2026-04-31'));
    expect(failure('2026-13-01')).toBe(NOT_CALENDAR('start', '2026-13-01'));
    expect(failure('2026-00-10')).toBe(NOT_CALENDAR('start', '2026-00-10'));
    expect(failure('2026-12-00')).toBe(NOT_CALENDAR('start', '2026-12-00'));
  });

  it('refuses invalid times of day', () => {
    expect(failure('2026-12-01T24:00')).toBe(NOT_CALENDAR('start', '2026-12-01T24:00'));
    expect(failure('2026-12-01T10:60')).toBe(NOT_CALENDAR('start', '2026-12-01T10:60'));
    expect(failure('2026-12-01T10:00:60')).toBe(NOT_CALENDAR('start', '2026-12-01T10:00:60'));
  });

  it('refuses text that is not an ISO 8601 datetime', () => {
    for (const text of ['notadate', '', '2026-1-1', '2026/12/01', '01-12-2026', '2026-12-01T10', '2026-12-01T10:00:00 UTC', '20261201', 'tomorrow']) {
      expect(failure(text)).toBe(NOT_ISO('start', text));
    }
    expect(failure('2026-12-01X', 'end')).toBe(NOT_ISO('end', '2026-12-01X'));
  });

  it('refuses non-text values', () => {
    expect(failure(20261201)).toBe(
      "Invalid input for field/attribute start. Value: '20261201'. Value must be an ISO 8601 datetime such as 2026-12-01T10:00:00+00:00.",
    );
    expect(failure(null)).toBe("Invalid input for field/attribute start. Value: 'None'. Value must be an ISO 8601 datetime such as 2026-12-01T10:00:00+00:00.");
    expect(failure(true)).toBe("Invalid input for field/attribute start. Value: 'True'. Value must be an ISO 8601 datetime such as 2026-12-01T10:00:00+00:00.");
  });

  it('refuses an offset of 24 hours or more', () => {
    expect(failure('2026-01-01T10:00:00+25:00')).toMatch(/^Invalid input for field\/attribute start\. Value: '2026-01-01T10:00:00\+25:00'\. .+/);
    expect(failure('2026-01-01T10:00:00-24:00')).toMatch(/^Invalid input for field\/attribute start\. Value: '2026-01-01T10:00:00-24:00'\. .+/);
    expect(failure('2026-01-01T10:00:00+02:60')).toMatch(/^Invalid input for field\/attribute start\. Value: '2026-01-01T10:00:00\+02:60'\. .+/);
    expect(parsed('2026-01-01T10:00:00+23:59')).toBe('2025-12-31T10:01:00Z');
  });

  it('refuses a value whose UTC year leaves 0001-9999 (the storage text has four-digit years)', () => {
    expect(failure('9999-12-31T23:00:00-02:00', 'end')).toMatch(/^Invalid input for field\/attribute end\. Value: '9999-12-31T23:00:00-02:00'\. .+/);
    expect(parsed('9999-12-31T23:59:59')).toBe('9999-12-31T23:59:59Z');
  });
});

describe('storage and output forms', () => {
  const date = new Date('2026-12-01T10:00:05.750Z');

  it('wholeSeconds rounds down to the second', () => {
    expect(wholeSeconds(date).toISOString()).toBe('2026-12-01T10:00:05.000Z');
    expect(wholeSeconds(new Date('2026-12-01T10:00:05.000Z')).toISOString()).toBe('2026-12-01T10:00:05.000Z');
  });

  it('stores naive UTC text YYYY-MM-DD HH:MM:SS by default', () => {
    expect(UTC_STORED_DATETIMES.toStorage(date)).toBe('2026-12-01 10:00:05');
    expect(UTC_STORED_DATETIMES.toStorage(parseDateTime('2026-12-01T10:00:00+02:00', 'start'))).toBe('2026-12-01 08:00:00');
  });

  it('reads stored text (with or without microseconds) and Date objects back', () => {
    expect(UTC_STORED_DATETIMES.fromStorage('2026-12-01 10:00:05').toISOString()).toBe('2026-12-01T10:00:05.000Z');
    expect(UTC_STORED_DATETIMES.fromStorage('2026-12-01 10:00:05.123456').toISOString()).toBe('2026-12-01T10:00:05.000Z');
    expect(UTC_STORED_DATETIMES.fromStorage(date).getTime()).toBe(date.getTime());
  });

  it('formats API output as UTC with seconds and +00:00, null stays null', () => {
    expect(UTC_STORED_DATETIMES.toApiText('2026-12-01 10:00:05')).toBe('2026-12-01T10:00:05+00:00');
    expect(UTC_STORED_DATETIMES.toApiText('2026-12-01 10:00:05.123456')).toBe('2026-12-01T10:00:05+00:00');
    expect(UTC_STORED_DATETIMES.toApiText(date)).toBe('2026-12-01T10:00:05+00:00');
    expect(UTC_STORED_DATETIMES.toApiText(null)).toBeNull();
    expect(formatApiDateTime(date)).toBe('2026-12-01T10:00:05+00:00');
  });

  it("stores another zone's wall time and reads it back as the same instant (TARIFF_CLOUDKITTY_TIMEZONE)", () => {
    const tokyo = new StoredDateTimes(TimeZone.named('Asia/Tokyo'));
    expect(tokyo.toStorage(new Date('2026-12-01T00:00:00Z'))).toBe('2026-12-01 09:00:00');
    expect(tokyo.toApiText('2026-12-01 09:00:00')).toBe('2026-12-01T00:00:00+00:00');
    expect(tokyo.epochMsOf('2026-12-01 09:00:00.250000')).toBe(Date.parse('2026-12-01T00:00:00Z'));
    const paris = new StoredDateTimes(TimeZone.named('Europe/Paris'));
    // Repeated at the end of summer time: the earlier instant, as Python's fold=0.
    expect(paris.toApiText('2026-10-25 02:30:00')).toBe('2026-10-25T00:30:00+00:00');
    expect(paris.toStorage(new Date('2026-10-25T01:30:00Z'))).toBe('2026-10-25 02:30:00');
  });

  it("quotes times in messages in CloudKitty's text form", () => {
    expect(formatMessageDateTime(new Date('2014-01-01T00:00:00Z'))).toBe('2014-01-01 00:00:00');
    expect(formatMessageDateTime(parseDateTime('2026-12-01', 'end', 'end'))).toBe('2026-12-01 23:59:59');
  });

  it('round-trips: parse → store → output', () => {
    const stored = UTC_STORED_DATETIMES.toStorage(parseDateTime('2026-06-15T12:34:56-03:00', 'start'));
    expect(UTC_STORED_DATETIMES.toApiText(stored)).toBe('2026-06-15T15:34:56+00:00');
    expect(parsed(UTC_STORED_DATETIMES.toApiText(stored))).toBe('2026-06-15T15:34:56Z');
  });
});

describe('parseDateTime: years below 100', () => {
  it('keeps a two-digit year as written (Date.UTC would read 0050 as 1950)', () => {
    expect(parseDateTime('0050-01-01', 'start').toISOString()).toBe('0050-01-01T00:00:00.000Z');
  });
});
