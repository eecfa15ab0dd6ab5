/** What a migration needs to know besides the Kysely handle: the dialect's traits and its column types. */
import { sql, type RawBuilder } from 'kysely';
import type { DialectTraits } from '../dialects/traits.js';

/** Passed to every migration. */
export interface MigrationContext {
  traits: DialectTraits;
  /** The zone migration `0006_time_zone` records for the naive datetime columns (database/time-zone-record.ts). */
  timeZoneToRecord: string;
}

/** The column types the rating tables use, ready for `addColumn`. */
export interface RatingColumnTypes {
  /** api.md §1: costs are `NUMERIC(40,28)`. */
  cost: RawBuilder<unknown>;
  /** api.md §1: threshold levels are `NUMERIC(20,8)`. */
  level: RawBuilder<unknown>;
  dateTime: RawBuilder<unknown>;
  blob: RawBuilder<unknown>;
}

/** The rating tables' column types on the dialect of `traits` (SQLite keeps decimals as TEXT: its NUMERIC is a float). */
export function columnTypes(traits: DialectTraits): RatingColumnTypes {
  const types = traits.columnTypes;
  return {
    cost: sql.raw(types.decimal(40, 28)),
    level: sql.raw(types.decimal(20, 8)),
    dateTime: sql.raw(types.dateTime),
    blob: sql.raw(types.blob),
  };
}
