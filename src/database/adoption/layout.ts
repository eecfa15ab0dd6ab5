/**
 * The layouts of CloudKitty's rating tables that Tariff recognises, as CloudKitty's alembic
 * migrations leave them. Each rating module keeps its own alembic version table
 * (`hashmap_alembic`, `pyscripts_alembic`), so each is recognised on its own.
 */

/** A rating module's tables at one CloudKitty layout. */
export interface ModuleLayout {
  /** The alembic revision in the module's version table. */
  revision: string;
  /** Which CloudKitty releases leave the module there. */
  releases: string;
  /** Columns per table, exactly (a table with more or fewer is mid-way, not this layout). */
  tables: Record<string, readonly string[]>;
}

/** The columns CloudKitty 23's migrations add to versioned rules (`create_common_tables`). */
export const RULE_VERSIONING_COLUMNS = ['created_at', 'start', 'end', 'description', 'deleted', 'created_by', 'updated_by', 'deleted_by'] as const;

const SERVICES = ['id', 'service_id', 'name'];
const FIELDS = ['id', 'field_id', 'name', 'service_id'];
const GROUPS = ['id', 'group_id', 'name'];
const RULE_PARENTS = ['service_id', 'field_id', 'group_id', 'tenant_id'];
const MAPPINGS_17 = ['id', 'mapping_id', 'value', 'cost', 'map_type', ...RULE_PARENTS];
const THRESHOLDS = ['id', 'threshold_id', 'level', 'cost', 'map_type', ...RULE_PARENTS];
const SCRIPTS_17 = ['id', 'script_id', 'name', 'data', 'checksum'];

/** One rating module: its alembic version table and the layouts it can be found at. */
export interface RatingModuleLayouts {
  module: 'hashmap' | 'pyscripts';
  versionTable: string;
  /** CloudKitty 17 to 22: what Tariff upgrades in place. */
  before: ModuleLayout;
  /** CloudKitty 23 on (rule versioning): api.md §7, used as it is. */
  versioned: ModuleLayout;
}

/**
 * CloudKitty compat: hashmap revision `4e0232ce` (17.0.0 to 22.x) and `8a591f85865f`
 * ("extend hashmapping", 23.0.0: mappings gain a name and the versioning columns; thresholds,
 * services, fields and groups are unchanged).
 */
export const HASHMAP_LAYOUTS: RatingModuleLayouts = {
  module: 'hashmap',
  versionTable: 'hashmap_alembic',
  before: {
    revision: '4e0232ce',
    releases: 'CloudKitty 17 to 22',
    tables: { hashmap_services: SERVICES, hashmap_fields: FIELDS, hashmap_groups: GROUPS, hashmap_mappings: MAPPINGS_17, hashmap_thresholds: THRESHOLDS },
  },
  versioned: {
    revision: '8a591f85865f',
    releases: 'CloudKitty 23 or later',
    tables: {
      hashmap_services: SERVICES,
      hashmap_fields: FIELDS,
      hashmap_groups: GROUPS,
      hashmap_mappings: [...MAPPINGS_17, 'name', ...RULE_VERSIONING_COLUMNS],
      hashmap_thresholds: THRESHOLDS,
    },
  },
};

/**
 * CloudKitty compat: pyscripts revision `75c205f6f1a2` (sha512 checksums, 17.0.0 to 22.x) and
 * `c6e4cda29654` ("extend pyscript", 23.0.0: the versioning columns, names no longer unique).
 */
export const PYSCRIPTS_LAYOUTS: RatingModuleLayouts = {
  module: 'pyscripts',
  versionTable: 'pyscripts_alembic',
  before: { revision: '75c205f6f1a2', releases: 'CloudKitty 17 to 22', tables: { pyscripts_scripts: SCRIPTS_17 } },
  versioned: { revision: 'c6e4cda29654', releases: 'CloudKitty 23 or later', tables: { pyscripts_scripts: [...SCRIPTS_17, ...RULE_VERSIONING_COLUMNS] } },
};

/** Both modules, hashmap first. */
export const RATING_MODULE_LAYOUTS = [HASHMAP_LAYOUTS, PYSCRIPTS_LAYOUTS] as const;

/** Every rating table Tariff serves, in the order they are created. */
export const RATING_TABLES = ['hashmap_services', 'hashmap_fields', 'hashmap_groups', 'hashmap_mappings', 'hashmap_thresholds', 'pyscripts_scripts'] as const;

/**
 * CloudKitty compat: what CloudKitty 23's migrations give rules that predate versioning:
 * mappings start at the epoch, scripts at 2014-01-01 (the project's start), both created by
 * `migration`; mappings get a generated 32-character hexadecimal name.
 */
export const ADOPTED_RULES = {
  /**
   * `8a591f85865f` passes an aware UTC 1970-01-01 00:00: what is stored depends on the driver
   * (`CloudKittyUpgradeSql.storesAwareDateTimeAs`): PostgreSQL stores the zone's wall time of
   * that instant (`1970-01-01 09:00:00` in Asia/Tokyo), MySQL its UTC fields.
   */
  mappingStartInstant: new Date(0),
  /** `c6e4cda29654` passes a naive 2014-01-01 00:00: this wall-time text is stored in every zone. */
  scriptStartWallTime: '2014-01-01 00:00:00',
  createdBy: 'migration',
} as const;
