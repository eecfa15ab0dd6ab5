/**
 * CloudKitty's layout for databases made by an earlier Tariff (docs/operators/migrating.md: "CloudKitty's layout"):
 * they have Tariff's rating tables in an approximate layout and no alembic version tables, so
 * CloudKitty's `cloudkitty-dbsync upgrade` started every chain from the beginning and failed on
 * the first table Tariff had. This migration
 * - stops, changing nothing, when an audit column holds a value CloudKitty's 32-character audit
 *   columns cannot (the message names table, column and count);
 * - changes the rating tables' types, widths, nullability, defaults and constraint names to the
 *   ones CloudKitty master's migrations leave (`traits.cloudKittyLayout`; SQLite: none, it only
 *   gets the tables below);
 * - creates CloudKitty's core tables `states` and `service_to_collector_mappings` and the alembic
 *   version tables stamped at the heads the tables stand for.
 * A fresh database gets the layout from the modules' first migrations; there, and on a database
 * adopted from CloudKitty (it has the version tables), only what is missing is created.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './context.js';
import type { CloudKittyLayoutChanges, ColumnDefinition, DialectTraits } from '../dialects/traits.js';
import {
  addConstraintSql,
  CORE_CHAIN,
  createCoreTables,
  HASHMAP_CHAIN,
  hasTable,
  PYSCRIPTS_CHAIN,
  ratingConstraints,
  stampChain,
  type ConstraintSpec,
} from '../cloudkitty-layout.js';

/** CloudKitty compat: the width of `created_by`, `updated_by`, `deleted_by`. */
const AUDIT_WIDTH = 32;
const AUDIT_COLUMNS = ['created_by', 'updated_by', 'deleted_by'] as const;

/** Thrown when old rows hold audit values CloudKitty's columns cannot; nothing was changed. */
export class AuditValueTooLongError extends Error {}

/** The rating tables of one module made by an earlier Tariff: present, but their chain is not stamped. */
interface EarlierTables {
  hashmap: boolean;
  pyscripts: boolean;
}

async function earlierTables(db: Kysely<unknown>, traits: DialectTraits): Promise<EarlierTables> {
  return {
    hashmap: (await hasTable(db, traits, 'hashmap_mappings')) && !(await hasTable(db, traits, HASHMAP_CHAIN.versionTable)),
    pyscripts: (await hasTable(db, traits, 'pyscripts_scripts')) && !(await hasTable(db, traits, PYSCRIPTS_CHAIN.versionTable)),
  };
}

/**
 * @throws AuditValueTooLongError naming the first table and column with values longer than 32
 *   characters and how many there are.
 */
async function refuseLongAuditValues(db: Kysely<unknown>, tables: string[]): Promise<void> {
  for (const table of tables) {
    for (const column of AUDIT_COLUMNS) {
      const { rows } = await sql<{ count: number | string }>`
        select count(*) as count from ${sql.table(table)} where char_length(${sql.ref(column)}) > ${AUDIT_WIDTH}`.execute(db);
      const count = Number(rows[0]?.count ?? 0);
      if (count > 0) {
        throw new AuditValueTooLongError(
          `${table}.${column} holds ${count} value(s) longer than ${AUDIT_WIDTH} characters, which CloudKitty's audit column cannot hold ` +
            `(docs/operators/migrating.md: "CloudKitty's layout"). Shorten them (they name the users who wrote the rules), then upgrade again; nothing was changed.`,
        );
      }
    }
  }
}

/** The versioned-rule columns in CloudKitty's definitions. */
function versionedRuleColumns(traits: DialectTraits): Record<string, ColumnDefinition> {
  const { dateTime } = traits.columnTypes;
  const now = traits.cloudKittyLayout.nowDefault;
  const audit = `varchar(${AUDIT_WIDTH})`;
  return {
    created_at: { type: dateTime, nullable: false, default: now },
    start: { type: dateTime, nullable: false, default: now },
    description: { type: 'text', nullable: true },
    created_by: { type: audit, nullable: false },
    updated_by: { type: audit, nullable: true },
    deleted_by: { type: audit, nullable: true },
  };
}

/** The columns of each table whose definition changes, in CloudKitty's. */
function changedColumns(traits: DialectTraits, earlier: EarlierTables): Record<string, Record<string, ColumnDefinition>> {
  const layout = traits.cloudKittyLayout;
  const cost: ColumnDefinition = { type: traits.columnTypes.decimal(40, 28), nullable: layout.costNullable };
  const mapType: ColumnDefinition = { type: layout.mapTypeColumn, nullable: false };
  const changes: Record<string, Record<string, ColumnDefinition>> = {};
  if (earlier.hashmap) {
    changes.hashmap_mappings = { cost, map_type: mapType, ...versionedRuleColumns(traits) };
    changes.hashmap_thresholds = { level: { type: traits.columnTypes.decimal(20, 8), nullable: true }, cost, map_type: mapType };
  }
  if (earlier.pyscripts) {
    changes.pyscripts_scripts = { checksum: { type: 'varchar(128)', nullable: layout.scriptChecksumNullable }, ...versionedRuleColumns(traits) };
  }
  return changes;
}

function sameConstraint(found: { kind: string; columns: string[]; references?: string }, spec: ConstraintSpec): boolean {
  return (
    found.kind === spec.kind && found.columns.join(',') === spec.columns.join(',') && (spec.kind !== 'foreign' || found.references === spec.references?.table)
  );
}

/** Gives `table` CloudKitty's constraints: drops those CloudKitty has not, renames or re-creates the others under CloudKitty's names. */
async function renameConstraints(db: Kysely<unknown>, changes: CloudKittyLayoutChanges, table: string, wanted: ConstraintSpec[]): Promise<void> {
  const alter = (clause: string) => sql`alter table ${sql.table(table)} ${sql.raw(clause)}`.execute(db);
  const found = await changes.constraintsOf(db, table);
  for (const constraint of found) {
    if (constraint.kind !== 'primary' && !wanted.some((spec) => sameConstraint(constraint, spec))) await alter(changes.dropConstraint(constraint));
  }
  for (const spec of wanted) {
    if (spec.kind === 'primary' && !changes.namesPrimaryKeys) continue;
    const match = found.find((constraint) => sameConstraint(constraint, spec));
    if (match?.name === spec.name) continue;
    if (match !== undefined) {
      const rename = changes.renameConstraint(table, match, spec.name);
      if (rename !== undefined) {
        for (const statement of rename) await sql.raw(statement).execute(db);
        continue;
      }
      await alter(changes.dropConstraint(match));
    }
    await alter(addConstraintSql(spec));
  }
}

async function changeTables(db: Kysely<unknown>, traits: DialectTraits, changes: CloudKittyLayoutChanges, earlier: EarlierTables): Promise<void> {
  const layout = traits.cloudKittyLayout;
  if (earlier.hashmap && layout.createMapTypeEnum !== undefined) await sql.raw(layout.createMapTypeEnum).execute(db);
  for (const [table, columns] of Object.entries(changedColumns(traits, earlier))) {
    const clauses = Object.entries(columns).flatMap(([column, wanted]) => changes.alterColumn(column, wanted));
    await sql`alter table ${sql.table(table)} ${sql.raw(clauses.join(', '))}`.execute(db);
  }
  const constraints = ratingConstraints(layout);
  const tables = [
    ...(earlier.hashmap ? ['hashmap_services', 'hashmap_fields', 'hashmap_groups', 'hashmap_mappings', 'hashmap_thresholds'] : []),
    ...(earlier.pyscripts ? ['pyscripts_scripts'] : []),
  ];
  for (const table of tables) await renameConstraints(db, changes, table, constraints[table] ?? []);
  if (earlier.hashmap && layout.mappingsIdSequence !== undefined) {
    const rename = changes.renameIdSequence('hashmap_mappings', layout.mappingsIdSequence);
    if (rename !== undefined) await sql.raw(rename).execute(db);
  }
}

/** Brings an earlier Tariff database to CloudKitty's layout; creates only what is missing elsewhere. */
export async function up(db: Kysely<unknown>, context: MigrationContext): Promise<void> {
  const { traits } = context;
  const earlier = await earlierTables(db, traits);
  const changes = traits.cloudKittyLayout.changes;
  const madeByTariff = !(await hasTable(db, traits, CORE_CHAIN.versionTable));
  if (changes !== undefined) {
    await refuseLongAuditValues(db, [...(earlier.hashmap ? ['hashmap_mappings'] : []), ...(earlier.pyscripts ? ['pyscripts_scripts'] : [])]);
    await changeTables(db, traits, changes, earlier);
    if (madeByTariff && (await hasTable(db, traits, 'modules_state'))) {
      // CloudKitty compat: no default state (earlier Tariff databases default to false).
      const clauses = changes.alterColumn('state', { type: traits.columnTypes.boolean, nullable: false });
      await sql`alter table modules_state ${sql.raw(clauses.join(', '))}`.execute(db);
    }
  }
  await createCoreTables(db);
  await stampChain(db, traits, CORE_CHAIN);
  if (earlier.hashmap) await stampChain(db, traits, HASHMAP_CHAIN);
  if (earlier.pyscripts) await stampChain(db, traits, PYSCRIPTS_CHAIN);
}
