/**
 * `tariff_settings`: Tariff's facts about the database, one row per name. Its first row,
 * `cloudkitty_timezone`, records the zone whose wall time CloudKitty's naive datetime columns
 * hold (docs/operators/deploying-next-to-cloudkitty.md: One time zone with CloudKitty), so a process configured with another
 * `TARIFF_CLOUDKITTY_TIMEZONE` refuses to start instead of reinterpreting every stored time
 * (database/time-zone-record.ts).
 */
import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.js';
import { SETTINGS_TABLE, TIME_ZONE_SETTING, type SettingsTables } from '../time-zone-record.js';

/**
 * Creates the table and records `context.timeZoneToRecord`; a table or row already there (Tariff's
 * tables dropped and migrated again) is kept: the zone was checked against it before migrating.
 */
export async function up(db: Kysely<unknown>, context: MigrationContext): Promise<void> {
  await db.schema
    .createTable(SETTINGS_TABLE)
    .ifNotExists()
    .addColumn('name', 'varchar(64)', (column) => column.primaryKey())
    .addColumn('value', 'varchar(255)', (column) => column.notNull())
    .execute();
  const settings = db as Kysely<SettingsTables>;
  const recorded = await settings.selectFrom(SETTINGS_TABLE).select('value').where('name', '=', TIME_ZONE_SETTING).executeTakeFirst();
  if (recorded === undefined) await settings.insertInto(SETTINGS_TABLE).values({ name: TIME_ZONE_SETTING, value: context.timeZoneToRecord }).execute();
}
