/**
 * Kysely row types of Tariff's tables. The layout is CloudKitty's (api.md §7): an integer primary
 * key `id`, the public UUID in `<resource>_id`, integer foreign keys named as CloudKitty names
 * them. Decimals and datetimes are text on every dialect (see connection.ts).
 */
import type { ColumnType, Generated } from 'kysely';

/** Naive UTC `YYYY-MM-DD HH:MM:SS`. */
export type DateTimeText = string;
/** Fixed-scale decimal text. */
export type DecimalText = string;

export interface HashmapServicesTable {
  id: Generated<number>;
  service_id: string;
  name: string;
}

export interface HashmapFieldsTable {
  id: Generated<number>;
  field_id: string;
  name: string;
  /** References `hashmap_services.id`; deleting the service deletes the field. */
  service_id: number;
}

export interface HashmapGroupsTable {
  id: Generated<number>;
  group_id: string;
  name: string;
}

/** Columns shared by versioned rules (mappings and scripts). */
export interface VersionedRuleColumns {
  name: string;
  description: string | null;
  start: DateTimeText;
  end: DateTimeText | null;
  created_at: DateTimeText;
  created_by: string;
  updated_by: string | null;
  deleted: DateTimeText | null;
  deleted_by: string | null;
}

export interface HashmapMappingsTable extends VersionedRuleColumns {
  id: Generated<number>;
  mapping_id: string;
  value: string | null;
  cost: DecimalText;
  /** `flat` or `rate` (CloudKitty's column name). */
  map_type: string;
  service_id: number | null;
  field_id: number | null;
  group_id: number | null;
  tenant_id: string | null;
}

export interface HashmapThresholdsTable {
  id: Generated<number>;
  threshold_id: string;
  level: DecimalText;
  cost: DecimalText;
  map_type: string;
  service_id: number | null;
  field_id: number | null;
  group_id: number | null;
  tenant_id: string | null;
}

export interface PyscriptsScriptsTable extends VersionedRuleColumns {
  id: Generated<number>;
  script_id: string;
  /** The Python source, zlib-compressed (CloudKitty compat). */
  data: ColumnType<Buffer, Buffer, Buffer>;
  /** Lowercase hex SHA-512 of the UTF-8 source. */
  checksum: string;
}

/** Tariff's own: the configuration version, bumped by every configuration write. */
export interface TariffConfigVersionTable {
  name: string;
  /** bigint: drivers return it as a string or a number. */
  version: ColumnType<string | number, number, string | number>;
}

/** CloudKitty's rating module states. */
export interface ModulesStateTable {
  name: string;
  /** Enabled; drivers return a boolean (PostgreSQL) or 0/1 (SQLite, MySQL). */
  state: ColumnType<boolean | number, boolean, boolean>;
  priority: number | null;
}

/** Every table Tariff reads or writes. */
export interface TariffTables {
  modules_state: ModulesStateTable;
  tariff_config_version: TariffConfigVersionTable;
  hashmap_services: HashmapServicesTable;
  hashmap_fields: HashmapFieldsTable;
  hashmap_groups: HashmapGroupsTable;
  hashmap_mappings: HashmapMappingsTable;
  hashmap_thresholds: HashmapThresholdsTable;
  pyscripts_scripts: PyscriptsScriptsTable;
}
