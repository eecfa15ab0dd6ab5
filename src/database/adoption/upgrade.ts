/**
 * Upgrades CloudKitty 17-22 rating tables in place to CloudKitty 23's versioned layout (api.md
 * §7), as CloudKitty 23's migrations `8a591f85865f` (hashmap) and `c6e4cda29654` (pyscripts) do,
 * without their defects:
 * - fix: CloudKitty adds `name` and `created_by` as NOT NULL without a default, which PostgreSQL
 *   refuses on a table with rows; here columns are added nullable, filled, then made NOT NULL.
 * - fix: CloudKitty drops the script name constraint by MySQL's name (`name`), which does not
 *   exist on PostgreSQL (`pyscripts_scripts_name_key`); here it is looked up by its column.
 * - fix: generated names and start dates are set by one UPDATE per table, not row by row.
 * On PostgreSQL the whole upgrade is one transaction. MySQL commits each DDL statement, so there
 * the statements are ordered so that an interrupted upgrade is recognised as half-finished.
 */
import { sql, type Kysely } from 'kysely';
import type { Database, DialectName } from '../connection.js';
import { ADOPTED_RULES, HASHMAP_LAYOUTS, PYSCRIPTS_LAYOUTS } from './layout.js';
import type { ModuleState } from './inspect.js';

/** One step of the upgrade: what it does, in words and in SQL. */
export interface UpgradeStep {
  description: string;
  statements: string[];
}

function quote(dialect: DialectName, name: string): string {
  return dialect === 'mysql' ? `\`${name}\`` : `"${name}"`;
}

/** The versioning columns, nullable while rows are filled in. */
function versioningColumns(dialect: DialectName): [string, string][] {
  const dateTime = dialect === 'mysql' ? 'datetime' : 'timestamp';
  return [
    ['created_at', dateTime],
    ['start', dateTime],
    ['end', dateTime],
    ['description', 'varchar(256)'],
    ['deleted', dateTime],
    ['created_by', 'varchar(255)'],
    ['updated_by', 'varchar(255)'],
    ['deleted_by', 'varchar(255)'],
  ];
}

function nowUtc(dialect: DialectName): string {
  return dialect === 'mysql' ? 'UTC_TIMESTAMP()' : "(now() at time zone 'utc')";
}

/** A random 32-character hexadecimal name per row (CloudKitty: `uuid4().hex`). */
function generatedName(dialect: DialectName): string {
  return dialect === 'mysql' ? "REPLACE(UUID(), '-', '')" : "md5(random()::text || clock_timestamp()::text || id::text)";
}

/** `ALTER TABLE` making filled columns NOT NULL. */
function requireColumns(dialect: DialectName, table: string, columns: [string, string][]): string {
  const changes = columns.map(([name, type]) =>
    dialect === 'mysql' ? `MODIFY ${quote(dialect, name)} ${type} NOT NULL` : `ALTER COLUMN ${quote(dialect, name)} SET NOT NULL`,
  );
  return `ALTER TABLE ${table} ${changes.join(', ')}`;
}

function dropUnique(dialect: DialectName, constraint: string): string {
  return dialect === 'mysql' ? `DROP INDEX ${quote(dialect, constraint)}` : `DROP CONSTRAINT ${quote(dialect, constraint)}`;
}

/**
 * MySQL: CloudKitty's tables are utf8mb3 with a case-insensitive collation; Tariff compares
 * names exactly, so their text is converted to the dialect's exact collation (binary, NO PAD).
 */
function exactText(collation: string): string {
  return `CONVERT TO CHARACTER SET utf8mb4 COLLATE ${collation}`;
}

/** Names of unique constraints (MySQL: unique indexes) on exactly these columns, in order. */
async function uniqueConstraintsOn(database: Database, table: string, columns: string[]): Promise<string[]> {
  const wanted = columns.join(',');
  if (database.dialect === 'mysql') {
    const { rows } = await sql<{ name: string; columns: string }>`
      select index_name as name, group_concat(column_name order by seq_in_index) as columns
      from information_schema.statistics
      where table_schema = database() and table_name = ${table} and non_unique = 0 and index_name <> 'PRIMARY'
      group by index_name`.execute(database.db);
    return rows.filter((row) => row.columns === wanted).map((row) => row.name);
  }
  const { rows } = await sql<{ name: string; columns: string }>`
    select c.conname as name, string_agg(a.attname, ',' order by k.position) as columns
    from pg_constraint c
    cross join lateral unnest(c.conkey) with ordinality as k(attnum, position)
    join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum
    where c.conrelid = ${table}::regclass and c.contype = 'u'
    group by c.conname`.execute(database.db);
  return rows.filter((row) => row.columns === wanted).map((row) => row.name);
}

/** The lookup indexes Tariff's conflict checks use (CloudKitty's dropped unique constraints served them). */
function mappingIndexes(dialect: DialectName): string[] {
  const statements = [
    'CREATE INDEX ix_hashmap_mappings_service_value ON hashmap_mappings (service_id, value, tenant_id)',
    'CREATE INDEX ix_hashmap_mappings_field_value ON hashmap_mappings (field_id, value, tenant_id)',
    'CREATE INDEX ix_hashmap_mappings_name ON hashmap_mappings (name)',
  ];
  // MySQL indexes foreign keys by itself; PostgreSQL does not.
  if (dialect === 'postgres') {
    statements.push(
      'CREATE INDEX ix_hashmap_mappings_group_id ON hashmap_mappings (group_id)',
      'CREATE UNIQUE INDEX uniq_hashmap_mappings_live_name ON hashmap_mappings (name) WHERE deleted IS NULL',
    );
  }
  return statements;
}

async function hashmapSteps(database: Database): Promise<UpgradeStep[]> {
  const { dialect } = database;
  const collation = await database.traits.exactTextCollation(database.db);
  const table = 'hashmap_mappings';
  const columns = versioningColumns(dialect);
  const replaced = [
    ...(await uniqueConstraintsOn(database, table, ['value', 'field_id', 'tenant_id'])),
    ...(await uniqueConstraintsOn(database, table, ['value', 'service_id', 'tenant_id'])),
  ];
  const alter = [
    ...replaced.map((constraint) => dropUnique(dialect, constraint)),
    `ADD COLUMN name varchar(32)`,
    ...columns.map(([name, type]) => `ADD COLUMN ${quote(dialect, name)} ${type}`),
    ...(collation !== undefined ? [exactText(collation)] : []),
  ];
  const steps: UpgradeStep[] = [];
  if (collation !== undefined) {
    steps.push({
      description: `convert the other hashmap tables to utf8mb4 with exact name comparison (${collation}: binary, no trailing-space padding)`,
      statements: ['hashmap_services', 'hashmap_fields', 'hashmap_groups', 'hashmap_thresholds'].map((other) => `ALTER TABLE ${other} ${exactText(collation)}`),
    });
  }
  steps.push(
    {
      description: `hashmap_mappings: drop the unique constraints that rule versioning replaces (${replaced.join(', ') || 'none found'}), add name and the versioning columns`,
      statements: [`ALTER TABLE ${table} ${alter.join(', ')}`],
    },
    {
      description: `hashmap_mappings: every existing mapping gets a generated name, start ${ADOPTED_RULES.mappingStart}, created_by '${ADOPTED_RULES.createdBy}'`,
      statements: [
        `UPDATE ${table} SET name = ${generatedName(dialect)}, created_at = ${nowUtc(dialect)}, ${quote(dialect, 'start')} = '${ADOPTED_RULES.mappingStart}', created_by = '${ADOPTED_RULES.createdBy}'`,
        requireColumns(dialect, table, [['name', 'varchar(32)'], ...columns.filter(([name]) => ['created_at', 'start', 'created_by'].includes(name))]),
      ],
    },
    { description: 'hashmap_mappings: lookup indexes for the conflict checks', statements: mappingIndexes(dialect) },
    { description: `hashmap_alembic: revision ${HASHMAP_LAYOUTS.versioned.revision}`, statements: [`UPDATE hashmap_alembic SET version_num = '${HASHMAP_LAYOUTS.versioned.revision}'`] },
  );
  return steps;
}

async function pyscriptsSteps(database: Database): Promise<UpgradeStep[]> {
  const { dialect } = database;
  const collation = await database.traits.exactTextCollation(database.db);
  const table = 'pyscripts_scripts';
  const columns = versioningColumns(dialect);
  const replaced = await uniqueConstraintsOn(database, table, ['name']);
  const alter = [
    ...replaced.map((constraint) => dropUnique(dialect, constraint)),
    ...columns.map(([name, type]) => `ADD COLUMN ${quote(dialect, name)} ${type}`),
    // CloudKitty's BLOB holds 64 KiB; Tariff's column holds larger scripts.
    ...(collation !== undefined ? [exactText(collation)] : []),
    ...(dialect === 'mysql' ? ['MODIFY data longblob NOT NULL'] : []),
  ];
  return [
    {
      description: `pyscripts_scripts: drop the unique name constraint that rule versioning replaces (${replaced.join(', ') || 'none found'}), add the versioning columns`,
      statements: [`ALTER TABLE ${table} ${alter.join(', ')}`],
    },
    {
      description: `pyscripts_scripts: every existing script gets start ${ADOPTED_RULES.scriptStart}, created_by '${ADOPTED_RULES.createdBy}'`,
      statements: [
        `UPDATE ${table} SET created_at = ${nowUtc(dialect)}, ${quote(dialect, 'start')} = '${ADOPTED_RULES.scriptStart}', created_by = '${ADOPTED_RULES.createdBy}'`,
        requireColumns(dialect, table, columns.filter(([name]) => ['created_at', 'start', 'created_by'].includes(name))),
        ...(dialect === 'postgres' ? ['CREATE UNIQUE INDEX uniq_pyscripts_scripts_live_name ON pyscripts_scripts (name) WHERE deleted IS NULL'] : []),
      ],
    },
    { description: `pyscripts_alembic: revision ${PYSCRIPTS_LAYOUTS.versioned.revision}`, statements: [`UPDATE pyscripts_alembic SET version_num = '${PYSCRIPTS_LAYOUTS.versioned.revision}'`] },
  ];
}

/**
 * The steps that bring every module still at CloudKitty 17-22's layout to CloudKitty 23's. Reads
 * the database (constraint names) but changes nothing.
 *
 * @returns no steps when every module is already versioned.
 */
export async function planCloudKittyUpgrade(database: Database, modules: ModuleState[]): Promise<UpgradeStep[]> {
  const steps: UpgradeStep[] = [];
  for (const module of modules) {
    if (module.at !== 'before') continue;
    steps.push(...(module.layouts.module === 'hashmap' ? await hashmapSteps(database) : await pyscriptsSteps(database)));
  }
  return steps;
}

async function run(db: Kysely<unknown>, steps: UpgradeStep[]): Promise<void> {
  for (const step of steps) for (const statement of step.statements) await sql.raw(statement).execute(db);
}

/**
 * Applies the steps: in one transaction on PostgreSQL; statement by statement on MySQL, whose
 * DDL commits implicitly.
 *
 * @throws the database error of the first failing statement (PostgreSQL: nothing is changed).
 */
export async function applyCloudKittyUpgrade(database: Database, steps: UpgradeStep[]): Promise<void> {
  const db = database.db as unknown as Kysely<unknown>;
  if (database.dialect === 'postgres') await db.transaction().execute((transaction) => run(transaction, steps));
  else await run(db, steps);
}
