/** The fixed-fee module's migration: its table, created the way the built-in modules create theirs. */
import type { Kysely } from 'kysely';
import type { TariffMigration } from '../../../src/database/migrate.js';
import type { MigrationContext } from '../../../src/database/migrations/context.js';
import { createRatingTable, tableExists } from '../../../src/rating/common/rating-tables.js';

async function createFeesTable(db: Kysely<unknown>, context: MigrationContext): Promise<void> {
  if (await tableExists(db, context, 'fixed_fee_fees')) return;
  await createRatingTable(db, context, 'fixed_fee_fees', await context.traits.exactTextCollation?.choose(db))
    .addColumn('fee_id', 'varchar(36)', (column) => column.notNull().unique())
    .addColumn('service', 'varchar(255)', (column) => column.notNull().unique())
    .addColumn('fee', 'varchar(64)', (column) => column.notNull())
    .execute();
}

/** Migrations by name, `<module>_<NNNN>_<what>`. */
export const FIXED_FEE_MIGRATIONS: Readonly<Record<string, TariffMigration>> = {
  fixed_fee_0001_fees: { up: createFeesTable },
};
