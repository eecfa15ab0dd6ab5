/**
 * CloudKitty compat: the layout CloudKitty master's own migrations (commit 4595e098) leave, which
 * a fresh Tariff database has too (docs/operators/migrating.md: "CloudKitty's layout"): the constraint names of the
 * rating tables, the alembic version tables stamped at the heads of CloudKitty's three migration
 * chains, and CloudKitty's core tables `states` and `service_to_collector_mappings`. Where the
 * dialects differ, the facts are the dialect's (`traits.cloudKittyLayout`).
 */
import { sql, type Kysely } from 'kysely';
import type { CloudKittyLayout, DialectTraits } from './dialects/traits.js';
import { HASHMAP_LAYOUTS, PYSCRIPTS_LAYOUTS, RATING_TABLES } from './adoption/layout.js';

/** One alembic chain of CloudKitty: its version table and the head revision Tariff's tables stand for. */
export interface AlembicChain {
  versionTable: string;
  revision: string;
}

/** CloudKitty compat: the core chain (`cloudkitty/db/sqlalchemy/alembic`), 385e33fef139 in every release Tariff knows. */
export const CORE_CHAIN: AlembicChain = { versionTable: 'cloudkitty_alembic', revision: '385e33fef139' };
/** The hashmap chain at CloudKitty 23's head (master's too). */
export const HASHMAP_CHAIN: AlembicChain = { versionTable: HASHMAP_LAYOUTS.versionTable, revision: HASHMAP_LAYOUTS.versioned.revision };
/** The pyscripts chain at CloudKitty 23's head (master's too). */
export const PYSCRIPTS_CHAIN: AlembicChain = { versionTable: PYSCRIPTS_LAYOUTS.versionTable, revision: PYSCRIPTS_LAYOUTS.versioned.revision };

/** A constraint of CloudKitty's layout: a primary key, a unique constraint or a foreign key to a table's `id`. */
export interface ConstraintSpec {
  kind: 'primary' | 'unique' | 'foreign';
  name: string;
  columns: string[];
  /** For a foreign key: the referenced table (column `id`) and what deleting its row does. */
  references?: { table: string; onDelete: 'cascade' | 'set null' };
}

function unique(name: string, ...columns: string[]): ConstraintSpec {
  return { kind: 'unique', name, columns };
}

function foreignKey(prefix: string, column: string, table: string, onDelete: 'cascade' | 'set null'): ConstraintSpec {
  return { kind: 'foreign', name: `fk_${prefix}_${column}_${table}`, columns: [column], references: { table, onDelete } };
}

/** The foreign keys of a rule table (mapping, threshold) to its service, field and group. */
function ruleParents(prefix: string): ConstraintSpec[] {
  return [
    foreignKey(prefix, 'service_id', 'hashmap_services', 'cascade'),
    foreignKey(prefix, 'field_id', 'hashmap_fields', 'cascade'),
    foreignKey(prefix, 'group_id', 'hashmap_groups', 'set null'),
  ];
}

/**
 * CloudKitty compat: the constraints of the rating tables by table, named as master's migrations
 * name them on this dialect (primary keys `pk_<table>` for hashmap, PostgreSQL's default for
 * pyscripts; MySQL calls every primary key `PRIMARY`).
 */
export function ratingConstraints(layout: CloudKittyLayout): Record<string, ConstraintSpec[]> {
  const maps = layout.mappingsConstraintPrefix;
  const primary = (name: string): ConstraintSpec => ({ kind: 'primary', name, columns: ['id'] });
  return {
    hashmap_services: [primary('pk_hashmap_services'), unique('uq_hashmap_services_service_id', 'service_id'), unique('uq_hashmap_services_name', 'name')],
    hashmap_fields: [
      primary('pk_hashmap_fields'),
      unique('uq_hashmap_fields_field_id', 'field_id'),
      unique('uniq_field_per_service', 'service_id', 'name'),
      foreignKey('hashmap_fields', 'service_id', 'hashmap_services', 'cascade'),
    ],
    hashmap_groups: [primary('pk_hashmap_groups'), unique('uq_hashmap_groups_group_id', 'group_id'), unique('uq_hashmap_groups_name', 'name')],
    hashmap_mappings: [primary('pk_hashmap_mappings'), unique(`uq_${maps}_mapping_id`, 'mapping_id'), ...ruleParents(maps)],
    hashmap_thresholds: [
      primary('pk_hashmap_thresholds'),
      unique('uq_hashmap_thresholds_threshold_id', 'threshold_id'),
      unique('uniq_field_threshold', 'level', 'field_id', 'tenant_id'),
      unique('uniq_service_threshold', 'level', 'service_id', 'tenant_id'),
      ...ruleParents('hashmap_thresholds'),
    ],
    pyscripts_scripts: [primary('pyscripts_scripts_pkey'), unique(layout.scriptIdUniqueName, 'script_id')],
  };
}

/** The `ADD CONSTRAINT` clause creating `spec` on an existing table. */
export function addConstraintSql(spec: ConstraintSpec): string {
  const columns = spec.columns.join(', ');
  if (spec.kind === 'primary') return `ADD CONSTRAINT ${spec.name} PRIMARY KEY (${columns})`;
  if (spec.kind === 'unique') return `ADD CONSTRAINT ${spec.name} UNIQUE (${columns})`;
  return `ADD CONSTRAINT ${spec.name} FOREIGN KEY (${columns}) REFERENCES ${spec.references?.table ?? ''} (id) ON DELETE ${spec.references?.onDelete ?? 'no action'}`;
}

/** Whether `table` exists (PostgreSQL: in the connection's own schema). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handle of any schema: migrations work on tables not typed here
export async function hasTable(db: Kysely<any>, traits: DialectTraits, table: string): Promise<boolean> {
  return (await traits.tableColumns(db, table)).has(table);
}

/**
 * Creates the chain's alembic version table with its one row, as alembic does
 * (`version_num varchar(32) NOT NULL`, primary key `<table>_pkc`), unless it exists.
 *
 * @returns whether it was created.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handle of any schema: migrations work on tables not typed here
export async function stampChain(db: Kysely<any>, traits: DialectTraits, chain: AlembicChain): Promise<boolean> {
  if (await hasTable(db, traits, chain.versionTable)) return false;
  await db.schema
    .createTable(chain.versionTable)
    .addColumn('version_num', 'varchar(32)', (column) => column.notNull())
    .addPrimaryKeyConstraint(`${chain.versionTable}_pkc`, ['version_num'])
    .execute();
  await sql`insert into ${sql.table(chain.versionTable)} (version_num) values (${chain.revision})`.execute(db);
  return true;
}

/**
 * Creates CloudKitty's core tables Tariff does not use but CloudKitty's services expect
 * (`states`, from 464e951dc3b8; `service_to_collector_mappings`, from 2ac2217dcbd9), empty, each
 * unless it exists. `modules_state` is migration 0003's.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handle of any schema: migrations work on tables not typed here
export async function createCoreTables(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('states')
    .ifNotExists()
    .addColumn('name', 'varchar(255)', (column) => column.notNull())
    .addColumn('state', 'bigint', (column) => column.notNull())
    .addColumn('s_metadata', 'text')
    .addPrimaryKeyConstraint('states_pkey', ['name'])
    .execute();
  await db.schema
    .createTable('service_to_collector_mappings')
    .ifNotExists()
    .addColumn('service', 'varchar(255)', (column) => column.notNull())
    .addColumn('collector', 'varchar(255)', (column) => column.notNull())
    .addPrimaryKeyConstraint('service_to_collector_mappings_pkey', ['service'])
    .execute();
}

/**
 * What Tariff's migrations create in a new database, in words, for `tariff db upgrade --dry-run`:
 * CloudKitty's tables in master's layout, stamped at the chains' heads, and Tariff's own.
 */
export function newDatabaseContents(): string[] {
  return [
    `CloudKitty's rating tables in CloudKitty master's layout: ${RATING_TABLES.join(', ')}, modules_state`,
    "CloudKitty's core tables, empty: states, service_to_collector_mappings",
    `alembic version tables, stamped at the heads those tables stand for: ${[CORE_CHAIN, HASHMAP_CHAIN, PYSCRIPTS_CHAIN]
      .map((chain) => `${chain.versionTable} ${chain.revision}`)
      .join(', ')}`,
    "Tariff's own tables: tariff_config_version, tariff_changes (the audit trail), tariff_migration, tariff_migration_lock",
  ];
}
