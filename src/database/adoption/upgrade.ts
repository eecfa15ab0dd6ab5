/**
 * Upgrades CloudKitty 17-22 rating tables in place to CloudKitty 23's versioned layout (api.md
 * §7), as CloudKitty 23's migrations `8a591f85865f` (hashmap) and `c6e4cda29654` (pyscripts) do,
 * without their defects:
 * - fix: CloudKitty adds `name` and `created_by` as NOT NULL without a default, which PostgreSQL
 *   refuses on a table with rows; here columns are added nullable, filled, then made NOT NULL.
 * - fix: CloudKitty drops the script name constraint by MySQL's name (`name`), which does not
 *   exist on PostgreSQL (`pyscripts_scripts_name_key`); here it is looked up by its column.
 * - fix: generated names and start dates are set by one UPDATE per table, not row by row.
 * Times are what CloudKitty would store on a host in `TARIFF_CLOUDKITTY_TIMEZONE` (its naive
 * columns hold that zone's wall time): `created_at` is now in that zone, computed here and
 * written as text, not the database's `now()`.
 * On PostgreSQL the whole upgrade is one transaction. MySQL commits each DDL statement, so there
 * the statements are ordered so that an interrupted upgrade is recognised as half-finished.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../connection.js';
import { exactTextConversion, type CloudKittyUpgradeSql, type DialectTraits } from '../dialects/traits.js';
import { ADOPTED_RULES, HASHMAP_LAYOUTS, PYSCRIPTS_LAYOUTS } from './layout.js';
import { UTC_STORED_DATETIMES } from '../stored-datetimes.js';
import { wholeSeconds } from '../../kernel/time.js';
import type { ModuleState } from './inspect.js';

/** One step of the upgrade: what it does, in words and in SQL. */
export interface UpgradeStep {
  description: string;
  statements: string[];
}

/** The versioning columns in CloudKitty 23's types (text description, 32-character audit), nullable while rows are filled in. */
function versioningColumns(traits: DialectTraits): [string, string][] {
  const { dateTime } = traits.columnTypes;
  return [
    ['created_at', dateTime],
    ['start', dateTime],
    ['end', dateTime],
    ['description', 'text'],
    ['deleted', dateTime],
    ['created_by', 'varchar(32)'],
    ['updated_by', 'varchar(32)'],
    ['deleted_by', 'varchar(32)'],
  ];
}

/** The filled versioning columns CloudKitty 23 makes NOT NULL. */
function filledColumns(columns: [string, string][]): [string, string][] {
  return columns.filter(([name]) => ['created_at', 'start', 'created_by'].includes(name));
}

/** `ALTER TABLE` making filled columns NOT NULL. */
function requireColumns(upgrade: CloudKittyUpgradeSql, table: string, columns: [string, string][]): string {
  return `ALTER TABLE ${table} ${columns.map(([name, type]) => upgrade.requireColumn(name, type)).join(', ')}`;
}

/** The lookup indexes Tariff's conflict checks use (CloudKitty's dropped unique constraints served them). */
function mappingIndexes(traits: DialectTraits): string[] {
  const statements = [
    'CREATE INDEX ix_hashmap_mappings_service_value ON hashmap_mappings (service_id, value, tenant_id)',
    'CREATE INDEX ix_hashmap_mappings_field_value ON hashmap_mappings (field_id, value, tenant_id)',
    'CREATE INDEX ix_hashmap_mappings_name ON hashmap_mappings (name)',
  ];
  if (!traits.indexesForeignKeys) statements.push('CREATE INDEX ix_hashmap_mappings_group_id ON hashmap_mappings (group_id)');
  return statements;
}

/**
 * CloudKitty compat: the text CloudKitty's migration `8a591f85865f` stores as old mappings' start
 * (an aware UTC epoch), on a host whose zone is the database's `storedDateTimes` zone.
 */
function adoptedMappingStart(database: Database, upgrade: CloudKittyUpgradeSql): string {
  const times = upgrade.storesAwareDateTimeAs === 'wall time' ? database.storedDateTimes : UTC_STORED_DATETIMES;
  return times.toStorage(ADOPTED_RULES.mappingStartInstant);
}

/** `created_at` of adopted rules: now, as the zone's wall time (CloudKitty: its server's `now()`). */
function adoptedCreatedAt(database: Database): string {
  return database.storedDateTimes.toStorage(wholeSeconds(new Date()));
}

async function hashmapSteps(database: Database, upgrade: CloudKittyUpgradeSql): Promise<UpgradeStep[]> {
  const { traits } = database;
  const quote = traits.quoteIdentifier;
  // MySQL: CloudKitty's tables are utf8mb3 with a case-insensitive collation; Tariff compares
  // names exactly, so their text is converted to the dialect's exact collation (binary, NO PAD).
  const exact = await exactTextConversion(traits, database.db);
  const table = 'hashmap_mappings';
  const columns = versioningColumns(traits);
  const replaced = [
    ...(await upgrade.uniqueConstraintsOn(database.db, table, ['value', 'field_id', 'tenant_id'])),
    ...(await upgrade.uniqueConstraintsOn(database.db, table, ['value', 'service_id', 'tenant_id'])),
  ];
  const alter = [
    ...replaced.map((constraint) => upgrade.dropUniqueConstraint(constraint)),
    `ADD COLUMN name varchar(32)`,
    ...columns.map(([name, type]) => `ADD COLUMN ${quote(name)} ${type}`),
    ...(exact !== undefined ? [exact.convertTable] : []),
  ];
  const steps: UpgradeStep[] = [];
  const mappingStart = adoptedMappingStart(database, upgrade);
  if (exact !== undefined) {
    steps.push({
      description: `convert the other hashmap tables to utf8mb4 with exact name comparison (${exact.collation}: binary, no trailing-space padding)`,
      statements: ['hashmap_services', 'hashmap_fields', 'hashmap_groups', 'hashmap_thresholds'].map((other) => `ALTER TABLE ${other} ${exact.convertTable}`),
    });
  }
  steps.push(
    {
      description: `hashmap_mappings: drop the unique constraints that rule versioning replaces (${replaced.join(', ') || 'none found'}), add name and the versioning columns`,
      statements: [`ALTER TABLE ${table} ${alter.join(', ')}`],
    },
    {
      description: `hashmap_mappings: every existing mapping gets a generated name, start ${mappingStart} (${database.storedDateTimes.zone.name}), created_by '${ADOPTED_RULES.createdBy}'`,
      statements: [
        `UPDATE ${table} SET name = ${upgrade.randomHexPerRow}, created_at = '${adoptedCreatedAt(database)}', ${quote('start')} = '${mappingStart}', created_by = '${ADOPTED_RULES.createdBy}'`,
        requireColumns(upgrade, table, [['name', 'varchar(32)'], ...filledColumns(columns)]),
      ],
    },
    { description: 'hashmap_mappings: lookup indexes for the conflict checks', statements: mappingIndexes(traits) },
    {
      description: `hashmap_alembic: revision ${HASHMAP_LAYOUTS.versioned.revision}`,
      statements: [`UPDATE hashmap_alembic SET version_num = '${HASHMAP_LAYOUTS.versioned.revision}'`],
    },
  );
  return steps;
}

async function pyscriptsSteps(database: Database, upgrade: CloudKittyUpgradeSql): Promise<UpgradeStep[]> {
  const { traits } = database;
  const quote = traits.quoteIdentifier;
  const exact = await exactTextConversion(traits, database.db);
  const table = 'pyscripts_scripts';
  const columns = versioningColumns(traits);
  const replaced = await upgrade.uniqueConstraintsOn(database.db, table, ['name']);
  const alter = [
    ...replaced.map((constraint) => upgrade.dropUniqueConstraint(constraint)),
    ...columns.map(([name, type]) => `ADD COLUMN ${quote(name)} ${type}`),
    ...(exact !== undefined ? [exact.convertTable] : []),
    // CloudKitty's BLOB holds 64 KiB; Tariff's column holds larger scripts.
    ...(upgrade.widenScriptData !== undefined ? [upgrade.widenScriptData] : []),
  ];
  return [
    {
      description: `pyscripts_scripts: drop the unique name constraint that rule versioning replaces (${replaced.join(', ') || 'none found'}), add the versioning columns`,
      statements: [`ALTER TABLE ${table} ${alter.join(', ')}`],
    },
    {
      description: `pyscripts_scripts: every existing script gets start ${ADOPTED_RULES.scriptStartWallTime} (${database.storedDateTimes.zone.name}), created_by '${ADOPTED_RULES.createdBy}'`,
      statements: [
        `UPDATE ${table} SET created_at = '${adoptedCreatedAt(database)}', ${quote('start')} = '${ADOPTED_RULES.scriptStartWallTime}', created_by = '${ADOPTED_RULES.createdBy}'`,
        requireColumns(upgrade, table, filledColumns(columns)),
      ],
    },
    {
      description: `pyscripts_alembic: revision ${PYSCRIPTS_LAYOUTS.versioned.revision}`,
      statements: [`UPDATE pyscripts_alembic SET version_num = '${PYSCRIPTS_LAYOUTS.versioned.revision}'`],
    },
  ];
}

/**
 * The steps that bring every module still at CloudKitty 17-22's layout to CloudKitty 23's. Reads
 * the database (constraint names) but changes nothing.
 *
 * @returns no steps when every module is already versioned.
 * @throws Error when a module needs upgrading on a dialect without in-place upgrade SQL (SQLite;
 *   inspectDatabase refuses such a database first).
 */
export async function planCloudKittyUpgrade(database: Database, modules: ModuleState[]): Promise<UpgradeStep[]> {
  const steps: UpgradeStep[] = [];
  for (const module of modules) {
    if (module.at !== 'before') continue;
    const upgrade = database.traits.cloudKittyUpgrade;
    if (upgrade === undefined) throw new Error(`CloudKitty's tables are not upgraded in place on ${database.traits.displayName}`);
    steps.push(...(module.layouts.module === 'hashmap' ? await hashmapSteps(database, upgrade) : await pyscriptsSteps(database, upgrade)));
  }
  return steps;
}

async function run(db: Kysely<unknown>, steps: UpgradeStep[]): Promise<void> {
  for (const step of steps) for (const statement of step.statements) await sql.raw(statement).execute(db);
}

/**
 * Applies the steps: in one transaction where DDL is transactional (PostgreSQL); statement by
 * statement elsewhere (MySQL, whose DDL commits implicitly).
 *
 * @throws the database error of the first failing statement (with transactional DDL nothing is
 *   changed).
 */
export async function applyCloudKittyUpgrade(database: Database, steps: UpgradeStep[]): Promise<void> {
  const db = database.db as unknown as Kysely<unknown>;
  if (database.traits.transactionalDdl) await db.transaction().execute((transaction) => run(transaction, steps));
  else await run(db, steps);
}
