/** The pyscripts table in CloudKitty's layout (api.md §7), a versioned rule with its compressed source. */
import type { Kysely } from 'kysely';
import { columnTypes, type MigrationContext } from '../../database/migrations/context.js';
import type { TariffMigration } from '../../database/migrate.js';
import { PYSCRIPTS_CHAIN, stampChain } from '../../database/cloudkitty-layout.js';
import { createRatingTable, tableExists, withCloudKittyConstraints, withVersionedRuleColumns } from '../common/rating-tables.js';
import { COLUMN_WIDTH, varchar } from '../../database/column-widths.js';

/**
 * Creates `pyscripts_scripts` as CloudKitty master's migrations leave it (fix: `data` holds more
 * than CloudKitty's 64 KiB MySQL `blob`) and `pyscripts_alembic` stamped at its head, unless the
 * table is there: databases migrated before the modules had their own migrations got it from
 * `0001_rating_tables`, and a database adopted from CloudKitty has CloudKitty's own.
 */
async function createScriptsTable(db: Kysely<unknown>, context: MigrationContext): Promise<void> {
  if (await tableExists(db, context, 'pyscripts_scripts')) return;
  const types = columnTypes(context.traits);
  const checksumNullable = context.traits.cloudKittyLayout.scriptChecksumNullable;
  const scripts = createRatingTable(db, context, 'pyscripts_scripts', await context.traits.exactTextCollation?.choose(db))
    .addColumn('script_id', varchar(COLUMN_WIDTH.publicId), (column) => column.notNull())
    .addColumn('name', varchar(COLUMN_WIDTH.name), (column) => column.notNull())
    .addColumn('data', types.blob, (column) => column.notNull())
    .addColumn('checksum', varchar(COLUMN_WIDTH.checksum), (column) => (checksumNullable ? column : column.notNull()));
  await withCloudKittyConstraints(withVersionedRuleColumns(scripts, context), context, 'pyscripts_scripts').execute();
  await stampChain(db, context.traits, PYSCRIPTS_CHAIN);
}

/**
 * A script's name is shared by its versions (api.md §6): two live scripts may have the same name
 * when their validity intervals do not intersect, which the conflict checks test under the
 * configuration lock. Drops the partial unique index `uniq_pyscripts_scripts_live_name` (one live
 * script per name) that earlier Tariff migrations and `tariff db upgrade` made where the database
 * has partial indexes (PostgreSQL, SQLite; never on MySQL).
 */
async function shareNamesByValidity(db: Kysely<unknown>, context: MigrationContext): Promise<void> {
  if (context.traits.partialIndexes) await db.schema.dropIndex('uniq_pyscripts_scripts_live_name').ifExists().execute();
}

/** The pyscripts module's migrations. */
export const PYSCRIPTS_MIGRATIONS: Readonly<Record<string, TariffMigration>> = {
  pyscripts_0001_scripts: { up: createScriptsTable },
  pyscripts_0002_names_by_validity: { up: shareNamesByValidity },
};
