/**
 * The hashmap and pyscripts tables in CloudKitty's layout (api.md §7), with its rule-versioning
 * columns. Decimal and datetime column types differ per dialect (see `columnTypes`).
 */
import { sql, type Kysely, type CreateTableBuilder } from 'kysely';
import { columnTypes, type MigrationContext } from './context.js';

type Table = CreateTableBuilder<string, string>;

function versionedRuleColumns(table: Table, context: MigrationContext): Table {
  const types = columnTypes(context.dialect);
  return table
    .addColumn('description', 'varchar(256)')
    .addColumn('start', types.dateTime, (column) => column.notNull())
    .addColumn('end', types.dateTime)
    .addColumn('created_at', types.dateTime, (column) => column.notNull())
    .addColumn('created_by', 'varchar(255)', (column) => column.notNull())
    .addColumn('updated_by', 'varchar(255)')
    .addColumn('deleted', types.dateTime)
    .addColumn('deleted_by', 'varchar(255)');
}

/** Creates the six tables and their indexes. */
export async function up(db: Kysely<unknown>, context: MigrationContext): Promise<void> {
  const types = columnTypes(context.dialect);
  await db.schema
    .createTable('hashmap_services')
    .addColumn('id', types.primaryKey, (column) => column.primaryKey().autoIncrement())
    .addColumn('service_id', 'varchar(36)', (column) => column.notNull().unique())
    .addColumn('name', 'varchar(255)', (column) => column.notNull().unique())
    .execute();

  await db.schema
    .createTable('hashmap_fields')
    .addColumn('id', types.primaryKey, (column) => column.primaryKey().autoIncrement())
    .addColumn('field_id', 'varchar(36)', (column) => column.notNull().unique())
    .addColumn('name', 'varchar(255)', (column) => column.notNull())
    .addColumn('service_id', 'integer', (column) => column.notNull().references('hashmap_services.id').onDelete('cascade'))
    .addUniqueConstraint('uniq_field_per_service', ['name', 'service_id'])
    .execute();

  await db.schema
    .createTable('hashmap_groups')
    .addColumn('id', types.primaryKey, (column) => column.primaryKey().autoIncrement())
    .addColumn('group_id', 'varchar(36)', (column) => column.notNull().unique())
    .addColumn('name', 'varchar(255)', (column) => column.notNull().unique())
    .execute();

  const mappings = db.schema
    .createTable('hashmap_mappings')
    .addColumn('id', types.primaryKey, (column) => column.primaryKey().autoIncrement())
    .addColumn('mapping_id', 'varchar(36)', (column) => column.notNull().unique())
    .addColumn('value', 'varchar(255)')
    .addColumn('cost', types.cost, (column) => column.notNull())
    .addColumn('map_type', 'varchar(5)', (column) => column.notNull().defaultTo('flat'))
    .addColumn('service_id', 'integer', (column) => column.references('hashmap_services.id').onDelete('cascade'))
    .addColumn('field_id', 'integer', (column) => column.references('hashmap_fields.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (column) => column.references('hashmap_groups.id').onDelete('set null'))
    .addColumn('tenant_id', 'varchar(255)')
    .addColumn('name', 'varchar(32)', (column) => column.notNull());
  await versionedRuleColumns(mappings, context).execute();
  for (const column of ['service_id', 'field_id', 'group_id']) {
    await db.schema.createIndex(`ix_hashmap_mappings_${column}`).on('hashmap_mappings').column(column).execute();
  }

  await db.schema
    .createTable('hashmap_thresholds')
    .addColumn('id', types.primaryKey, (column) => column.primaryKey().autoIncrement())
    .addColumn('threshold_id', 'varchar(36)', (column) => column.notNull().unique())
    .addColumn('level', types.level, (column) => column.notNull())
    .addColumn('cost', types.cost, (column) => column.notNull())
    .addColumn('map_type', 'varchar(5)', (column) => column.notNull().defaultTo('flat'))
    .addColumn('service_id', 'integer', (column) => column.references('hashmap_services.id').onDelete('cascade'))
    .addColumn('field_id', 'integer', (column) => column.references('hashmap_fields.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (column) => column.references('hashmap_groups.id').onDelete('set null'))
    .addColumn('tenant_id', 'varchar(255)')
    .execute();
  for (const column of ['service_id', 'field_id', 'group_id']) {
    await db.schema.createIndex(`ix_hashmap_thresholds_${column}`).on('hashmap_thresholds').column(column).execute();
  }

  const scripts = db.schema
    .createTable('pyscripts_scripts')
    .addColumn('id', types.primaryKey, (column) => column.primaryKey().autoIncrement())
    .addColumn('script_id', 'varchar(36)', (column) => column.notNull().unique())
    .addColumn('name', 'varchar(255)', (column) => column.notNull())
    .addColumn('data', types.blob, (column) => column.notNull())
    .addColumn('checksum', 'varchar(128)', (column) => column.notNull());
  await versionedRuleColumns(scripts, context).execute();

  // Names are unique among live (non-deleted) rules; MySQL has no partial index, so there the
  // rule is kept by the write transaction alone.
  if (context.dialect !== 'mysql') {
    await sql`create unique index uniq_hashmap_mappings_live_name on hashmap_mappings (name) where deleted is null`.execute(db);
    await sql`create unique index uniq_pyscripts_scripts_live_name on pyscripts_scripts (name) where deleted is null`.execute(db);
  }
}
