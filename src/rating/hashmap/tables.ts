/**
 * Kysely row types of the hashmap tables, in CloudKitty's layout (api.md §7): an integer primary
 * key `id`, the public UUID in `<resource>_id`, integer foreign keys named as CloudKitty names
 * them. Decimals and datetimes are text on every dialect (`database/connection.ts`). The database
 * handle knows only Tariff's own tables; the repositories see these through {@link hashmapTables}.
 */
import type { Generated, Kysely } from 'kysely';
import type { DecimalText, TariffTables } from '../../database/tables.js';
import type { VersionedRuleColumns } from '../common/rule-storage.js';

/** `hashmap_services`. */
export interface HashmapServicesTable {
  id: Generated<number>;
  service_id: string;
  name: string;
}

/** `hashmap_fields`. */
export interface HashmapFieldsTable {
  id: Generated<number>;
  field_id: string;
  name: string;
  /** References `hashmap_services.id`; deleting the service deletes the field. */
  service_id: number;
}

/** `hashmap_groups`. */
export interface HashmapGroupsTable {
  id: Generated<number>;
  group_id: string;
  name: string;
}

/** `hashmap_mappings`: versioned rules, soft-deleted. */
export interface HashmapMappingsTable extends VersionedRuleColumns {
  id: Generated<number>;
  mapping_id: string;
  value: string | null;
  /**
   * Per unit of quantity per collection period (flat), or a factor (rate). CloudKitty compat:
   * nullable on MySQL (CloudKitty's layout); Tariff always writes one.
   */
  cost: DecimalText | null;
  /** `flat` or `rate` (CloudKitty's column name; an enum type on PostgreSQL and MySQL). */
  map_type: string;
  service_id: number | null;
  field_id: number | null;
  group_id: number | null;
  tenant_id: string | null;
}

/** `hashmap_thresholds`. */
export interface HashmapThresholdsTable {
  id: Generated<number>;
  threshold_id: string;
  /** CloudKitty compat: nullable in CloudKitty's layout; Tariff always writes one. */
  level: DecimalText | null;
  /** CloudKitty compat: nullable on MySQL (CloudKitty's layout); Tariff always writes one. */
  cost: DecimalText | null;
  map_type: string;
  service_id: number | null;
  field_id: number | null;
  group_id: number | null;
  tenant_id: string | null;
}

/** The hashmap module's tables (a type alias: `Kysely#withTables` wants an index signature). */
export type HashmapTables = {
  hashmap_services: HashmapServicesTable;
  hashmap_fields: HashmapFieldsTable;
  hashmap_groups: HashmapGroupsTable;
  hashmap_mappings: HashmapMappingsTable;
  hashmap_thresholds: HashmapThresholdsTable;
};

/** A Kysely handle (the database's or one transaction's) that knows the hashmap tables. */
export type HashmapDb = Kysely<TariffTables & HashmapTables>;

/** `db` (the database or a transaction) typed with the hashmap tables: the same connection, no copy. */
export function hashmapTables(db: Kysely<TariffTables>): HashmapDb {
  return db.withTables<HashmapTables>();
}
