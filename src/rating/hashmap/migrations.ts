/**
 * The hashmap tables in CloudKitty's layout (api.md §7), with its rule-versioning columns on
 * mappings. Column types, constraint names and table options are the dialect's (`DialectTraits`).
 */
import { sql, type ColumnDefinitionBuilder, type Kysely, type RawBuilder } from 'kysely';
import { columnTypes, type MigrationContext } from '../../database/migrations/context.js';
import type { TariffMigration } from '../../database/migrate.js';
import { HASHMAP_CHAIN, ratingConstraints, stampChain } from '../../database/cloudkitty-layout.js';
import { createRatingTable, tableExists, withCloudKittyConstraints, withVersionedRuleColumns, type TableBuilder } from '../common/rating-tables.js';
import { COLUMN_WIDTH, varchar } from '../../database/column-widths.js';

/**
 * Creates the five hashmap tables as CloudKitty master's migrations leave them on the dialect
 * (columns, types, nullability, constraint names: `traits.cloudKittyLayout`), Tariff's lookup
 * indexes, and `hashmap_alembic` stamped at the head those tables stand for, so that CloudKitty's
 * `cloudkitty-dbsync upgrade` takes them as its own. On a database adopted from CloudKitty (its
 * tables already at CloudKitty 23's layout, checked by database/adoption/) there is nothing to create.
 */
async function createHashmapTables(db: Kysely<unknown>, context: MigrationContext): Promise<void> {
  if (await tableExists(db, context, 'hashmap_services')) return;
  const { traits } = context;
  const layout = traits.cloudKittyLayout;
  const types = columnTypes(traits);
  const mapType = sql.raw(layout.mapTypeColumn);
  const cost = (column: ColumnDefinitionBuilder) => (layout.costNullable ? column : column.notNull());
  const collation = await traits.exactTextCollation?.choose(db);
  const table = (name: string, build: (table: TableBuilder) => TableBuilder) =>
    withCloudKittyConstraints(build(createRatingTable(db, context, name, collation)), context, name).execute();
  if (layout.createMapTypeEnum !== undefined) await sql.raw(layout.createMapTypeEnum).execute(db);

  await table('hashmap_services', (services) =>
    services
      .addColumn('service_id', varchar(COLUMN_WIDTH.publicId), (column) => column.notNull())
      .addColumn('name', varchar(COLUMN_WIDTH.name), (column) => column.notNull()),
  );
  await table('hashmap_fields', (fields) =>
    fields
      .addColumn('field_id', varchar(COLUMN_WIDTH.publicId), (column) => column.notNull())
      .addColumn('name', varchar(COLUMN_WIDTH.name), (column) => column.notNull())
      .addColumn('service_id', 'integer', (column) => column.notNull()),
  );
  await table('hashmap_groups', (groups) =>
    groups
      .addColumn('group_id', varchar(COLUMN_WIDTH.publicId), (column) => column.notNull())
      .addColumn('name', varchar(COLUMN_WIDTH.name), (column) => column.notNull()),
  );
  await table('hashmap_mappings', (mappings) =>
    withVersionedRuleColumns(
      withRuleColumns(
        mappings.addColumn('mapping_id', varchar(COLUMN_WIDTH.publicId), (column) => column.notNull()).addColumn('value', varchar(COLUMN_WIDTH.mappingValue)),
        types.cost,
        cost,
        mapType,
        layout.mapTypeCheck,
      ).addColumn('name', varchar(COLUMN_WIDTH.mappingName), (column) => column.notNull()),
      context,
    ),
  );
  if (layout.mappingsIdSequence !== undefined) {
    const rename = traits.cloudKittyLayout.changes?.renameIdSequence('hashmap_mappings', layout.mappingsIdSequence);
    if (rename !== undefined) await sql.raw(rename).execute(db);
  }
  await table('hashmap_thresholds', (thresholds) =>
    withRuleColumns(
      thresholds.addColumn('threshold_id', varchar(COLUMN_WIDTH.publicId), (column) => column.notNull()).addColumn('level', types.level),
      types.cost,
      cost,
      mapType,
      layout.mapTypeCheck,
    ),
  );

  // Tariff's own indexes: the conflict checks look mappings up by parent and value, and by name;
  // foreign keys get their index here where the database does not make one (InnoDB does).
  await db.schema.createIndex('ix_hashmap_mappings_service_value').on('hashmap_mappings').columns(['service_id', 'value', 'tenant_id']).execute();
  await db.schema.createIndex('ix_hashmap_mappings_field_value').on('hashmap_mappings').columns(['field_id', 'value', 'tenant_id']).execute();
  await db.schema.createIndex('ix_hashmap_mappings_name').on('hashmap_mappings').column('name').execute();
  await db.schema.createIndex('ix_hashmap_thresholds_service_level').on('hashmap_thresholds').columns(['service_id', 'level']).execute();
  await db.schema.createIndex('ix_hashmap_thresholds_field_level').on('hashmap_thresholds').columns(['field_id', 'level']).execute();
  if (!traits.indexesForeignKeys) {
    await db.schema.createIndex('ix_hashmap_mappings_group_id').on('hashmap_mappings').column('group_id').execute();
    await db.schema.createIndex('ix_hashmap_thresholds_group_id').on('hashmap_thresholds').column('group_id').execute();
  } else {
    // InnoDB drops the index it made for a foreign key once another index starts with the key's
    // column (the ix_ ones above); CloudKitty's layout has one per key, named as the key.
    await restoreForeignKeyIndexes(db, context, ['hashmap_mappings', 'hashmap_thresholds'], ['service_id', 'field_id']);
  }

  await stampChain(db, traits, HASHMAP_CHAIN);
}

/** Creates, named as the foreign key, an index on each of `columns`' foreign keys in `tables`. */
async function restoreForeignKeyIndexes(db: Kysely<unknown>, context: MigrationContext, tables: string[], columns: string[]): Promise<void> {
  const constraints = ratingConstraints(context.traits.cloudKittyLayout);
  for (const table of tables) {
    for (const key of constraints[table] ?? []) {
      if (key.kind === 'foreign' && columns.includes(key.columns[0])) await db.schema.createIndex(key.name).on(table).columns(key.columns).execute();
    }
  }
}

/** The columns mappings and thresholds share after their own: cost, map_type, parents, tenant. */
function withRuleColumns(
  table: TableBuilder,
  costType: RawBuilder<unknown>,
  cost: (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder,
  mapType: RawBuilder<unknown>,
  mapTypeCheck: string | undefined,
): TableBuilder {
  return table
    .addColumn('cost', costType, cost)
    .addColumn('map_type', mapType, (column) => (mapTypeCheck !== undefined ? column.notNull().check(sql.raw(mapTypeCheck)) : column.notNull()))
    .addColumn('service_id', 'integer')
    .addColumn('field_id', 'integer')
    .addColumn('group_id', 'integer')
    .addColumn('tenant_id', varchar(COLUMN_WIDTH.tenantId));
}

/**
 * A mapping's name is shared by its versions (api.md §6): two live mappings may have the same
 * name when their validity intervals do not intersect, which the conflict checks test under the
 * configuration lock. Drops the partial unique index `uniq_hashmap_mappings_live_name` (one live
 * mapping per name) that earlier Tariff migrations and `tariff db upgrade` made where the database
 * has partial indexes (PostgreSQL, SQLite; never on MySQL). The name lookups keep
 * `ix_hashmap_mappings_name`.
 */
async function shareNamesByValidity(db: Kysely<unknown>, context: MigrationContext): Promise<void> {
  if (context.traits.partialIndexes) await db.schema.dropIndex('uniq_hashmap_mappings_live_name').ifExists().execute();
}

/**
 * The hashmap module's migrations. The first keeps the name it had when one migration created
 * the hashmap and pyscripts tables together (`0001_rating_tables`): databases record it.
 */
export const HASHMAP_MIGRATIONS: Readonly<Record<string, TariffMigration>> = {
  '0001_rating_tables': { up: createHashmapTables },
  hashmap_0002_names_by_validity: { up: shareNamesByValidity },
};
