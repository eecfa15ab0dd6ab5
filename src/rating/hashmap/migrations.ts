/**
 * The hashmap tables in CloudKitty's layout (api.md §7), with its rule-versioning columns on
 * mappings. Column types and table options are the dialect's (`DialectTraits`).
 */
import { sql, type Kysely } from 'kysely';
import { columnTypes, type MigrationContext } from '../../database/migrations/context.js';
import type { TariffMigration } from '../../database/migrate.js';
import { createRatingTable, tableExists, withVersionedRuleColumns } from '../common/rating-tables.js';

/**
 * Creates the five hashmap tables and their indexes; on a database adopted from CloudKitty (its
 * tables already at CloudKitty 23's layout, checked by database/adoption/) there is nothing to create.
 */
async function createHashmapTables(db: Kysely<unknown>, context: MigrationContext): Promise<void> {
  if (await tableExists(db, context, 'hashmap_services')) return;
  const types = columnTypes(context.traits);
  const collation = await context.traits.exactTextCollation?.choose(db);
  await createRatingTable(db, context, 'hashmap_services', collation)
    .addColumn('service_id', 'varchar(36)', (column) => column.notNull().unique())
    .addColumn('name', 'varchar(255)', (column) => column.notNull().unique())
    .execute();

  await createRatingTable(db, context, 'hashmap_fields', collation)
    .addColumn('field_id', 'varchar(36)', (column) => column.notNull().unique())
    .addColumn('name', 'varchar(255)', (column) => column.notNull())
    .addColumn('service_id', 'integer', (column) => column.notNull().references('hashmap_services.id').onDelete('cascade'))
    .addUniqueConstraint('uniq_field_per_service', ['name', 'service_id'])
    .execute();

  await createRatingTable(db, context, 'hashmap_groups', collation)
    .addColumn('group_id', 'varchar(36)', (column) => column.notNull().unique())
    .addColumn('name', 'varchar(255)', (column) => column.notNull().unique())
    .execute();

  const mappings = createRatingTable(db, context, 'hashmap_mappings', collation)
    .addColumn('mapping_id', 'varchar(36)', (column) => column.notNull().unique())
    .addColumn('value', 'varchar(255)')
    .addColumn('cost', types.cost, (column) => column.notNull())
    .addColumn('map_type', 'varchar(5)', (column) => column.notNull().defaultTo('flat'))
    .addColumn('service_id', 'integer', (column) => column.references('hashmap_services.id').onDelete('cascade'))
    .addColumn('field_id', 'integer', (column) => column.references('hashmap_fields.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (column) => column.references('hashmap_groups.id').onDelete('set null'))
    .addColumn('tenant_id', 'varchar(255)')
    .addColumn('name', 'varchar(32)', (column) => column.notNull());
  await withVersionedRuleColumns(mappings, context).execute();
  // The conflict checks look mappings up by parent and value, and by name.
  await db.schema.createIndex('ix_hashmap_mappings_service_value').on('hashmap_mappings').columns(['service_id', 'value', 'tenant_id']).execute();
  await db.schema.createIndex('ix_hashmap_mappings_field_value').on('hashmap_mappings').columns(['field_id', 'value', 'tenant_id']).execute();
  await db.schema.createIndex('ix_hashmap_mappings_group_id').on('hashmap_mappings').column('group_id').execute();
  await db.schema.createIndex('ix_hashmap_mappings_name').on('hashmap_mappings').column('name').execute();

  await createRatingTable(db, context, 'hashmap_thresholds', collation)
    .addColumn('threshold_id', 'varchar(36)', (column) => column.notNull().unique())
    .addColumn('level', types.level, (column) => column.notNull())
    .addColumn('cost', types.cost, (column) => column.notNull())
    .addColumn('map_type', 'varchar(5)', (column) => column.notNull().defaultTo('flat'))
    .addColumn('service_id', 'integer', (column) => column.references('hashmap_services.id').onDelete('cascade'))
    .addColumn('field_id', 'integer', (column) => column.references('hashmap_fields.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (column) => column.references('hashmap_groups.id').onDelete('set null'))
    .addColumn('tenant_id', 'varchar(255)')
    .execute();
  await db.schema.createIndex('ix_hashmap_thresholds_service_level').on('hashmap_thresholds').columns(['service_id', 'level']).execute();
  await db.schema.createIndex('ix_hashmap_thresholds_field_level').on('hashmap_thresholds').columns(['field_id', 'level']).execute();
  await db.schema.createIndex('ix_hashmap_thresholds_group_id').on('hashmap_thresholds').column('group_id').execute();

  // Mapping names are unique among live (non-deleted) mappings; without partial indexes (MySQL)
  // the rule is kept by the write transaction alone.
  if (context.traits.partialIndexes) {
    await sql`create unique index uniq_hashmap_mappings_live_name on hashmap_mappings (name) where deleted is null`.execute(db);
  }
}

/**
 * The hashmap module's migrations. The first keeps the name it had when one migration created
 * the hashmap and pyscripts tables together (`0001_rating_tables`): databases record it.
 */
export const HASHMAP_MIGRATIONS: Readonly<Record<string, TariffMigration>> = {
  '0001_rating_tables': { up: createHashmapTables },
};
