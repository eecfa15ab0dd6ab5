/**
 * The zone of CloudKitty's naive datetime columns, recorded in the database (`tariff_settings`,
 * migration `0006_time_zone`) and checked against `TARIFF_CLOUDKITTY_TIMEZONE` before anything is
 * read or migrated: Tariff never silently reinterprets stored times.
 */
import type { Kysely } from 'kysely';
import { TimeZone } from '../kernel/time-zone.js';
import { ConfigurationError } from '../config.js';
import type { Database } from './connection.js';
import type { DatabaseState } from './adoption/inspect.js';

/** Tariff's settings table. */
export const SETTINGS_TABLE = 'tariff_settings';
/** The row naming the zone (an IANA name) whose wall time the naive datetime columns hold. */
export const TIME_ZONE_SETTING = 'cloudkitty_timezone';

/** Kysely row type of {@link SETTINGS_TABLE}. */
export interface SettingsTables {
  tariff_settings: { name: string; value: string };
}

/** The zone a database's naive datetime columns hold, and whether the database records it. */
export interface StoredTimeZone {
  /** IANA name (`UTC`, `Asia/Tokyo`). */
  zone: string;
  /**
   * `recorded`: read from `tariff_settings`. Otherwise what migration `0006_time_zone` will
   * record: `tariff-before-0006`: UTC, which Tariff wrote before it knew zones; `configured`: a
   * new database, or one CloudKitty made (its times are its hosts' zone, the configured one).
   */
  source: 'recorded' | 'tariff-before-0006' | 'configured';
}

/**
 * Thrown when the database records another zone than `TARIFF_CLOUDKITTY_TIMEZONE`. Its message
 * is one line naming both zones and what to do.
 */
export class TimeZoneMismatchError extends ConfigurationError {}

/** The recorded zone under its canonical name (as written when the tz database no longer knows it), or undefined. */
async function recordedTimeZone(database: Database): Promise<string | undefined> {
  if (!(await database.traits.tableColumns(database.db, SETTINGS_TABLE)).has(SETTINGS_TABLE)) return undefined;
  const db = database.db as unknown as Kysely<SettingsTables>;
  const row = await db.selectFrom(SETTINGS_TABLE).select('value').where('name', '=', TIME_ZONE_SETTING).executeTakeFirst();
  if (row === undefined) return undefined;
  try {
    return TimeZone.named(row.value).name;
  } catch {
    return row.value;
  }
}

/**
 * The zone the naive datetime columns of `database` hold (see {@link StoredTimeZone}).
 *
 * @param state - what inspectDatabase found.
 */
export async function storedTimeZone(database: Database, state: DatabaseState): Promise<StoredTimeZone> {
  const recorded = await recordedTimeZone(database);
  if (recorded !== undefined) return { zone: recorded, source: 'recorded' };
  if (state.kind === 'tariff') return { zone: 'UTC', source: 'tariff-before-0006' };
  return { zone: database.storedDateTimes.zone.name, source: 'configured' };
}

/**
 * Refuses a database whose naive times are in another zone than the configured one (the
 * database's `storedDateTimes`).
 *
 * @returns the stored zone, equal to the configured one.
 * @throws TimeZoneMismatchError naming both zones and what to do.
 */
export async function refuseOtherTimeZone(database: Database, state: DatabaseState): Promise<StoredTimeZone> {
  const stored = await storedTimeZone(database, state);
  const configured = database.storedDateTimes.zone.name;
  if (stored.zone !== configured) {
    const holds = stored.source === 'recorded' ? `records time zone ${stored.zone}` : `was written by an earlier Tariff in ${stored.zone}`;
    throw new TimeZoneMismatchError(
      `${database.description} ${holds} for its naive datetimes, but TARIFF_CLOUDKITTY_TIMEZONE is ${configured}: ` +
        `set TARIFF_CLOUDKITTY_TIMEZONE=${stored.zone} (the zone CloudKitty's hosts must use too), or convert the stored times and the ${SETTINGS_TABLE} row first (docs/operators/deploying-next-to-cloudkitty.md: One time zone with CloudKitty); nothing was changed.`,
    );
  }
  return stored;
}
