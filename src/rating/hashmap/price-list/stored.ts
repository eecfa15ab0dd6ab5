/**
 * The stored hashmap rules a price list is compared with: services, fields and groups by name,
 * the live mappings in force at a time or scheduled after it, and the thresholds. One query each,
 * never one per rule.
 */
import type { StoredDateTimes } from '../../../database/stored-datetimes.js';
import { COST_COLUMN, LEVEL_COLUMN, normalizeDecimal } from '../../common/decimal.js';
import type { RuleType } from '../schemas.js';
import type { HashmapDb } from '../tables.js';
import type { StoredMapping, StoredThreshold } from './rules.js';

/** A stored service, field or group: its integer key and public UUID. */
export interface StoredParent {
  id: number;
  uuid: string;
}

/** Services, fields (by `service\0field`) and groups, by name. */
export interface StoredParents {
  services: Map<string, StoredParent>;
  fields: Map<string, StoredParent>;
  groups: Map<string, StoredParent>;
}

/** The key of a field in {@link StoredParents.fields}. */
export function fieldKey(service: string, field: string): string {
  return `${service}\u0000${field}`;
}

/** Every service, field and group. */
export async function loadParents(db: HashmapDb): Promise<StoredParents> {
  const [services, fields, groups] = await Promise.all([
    db.selectFrom('hashmap_services').select(['id', 'service_id', 'name']).execute(),
    db
      .selectFrom('hashmap_fields as f')
      .innerJoin('hashmap_services as s', 's.id', 'f.service_id')
      .select(['f.id', 'f.field_id', 'f.name', 's.name as service'])
      .execute(),
    db.selectFrom('hashmap_groups').select(['id', 'group_id', 'name']).execute(),
  ]);
  return {
    services: new Map(services.map((row) => [row.name, { id: row.id, uuid: row.service_id }])),
    fields: new Map(fields.map((row) => [fieldKey(row.service, row.name), { id: row.id, uuid: row.field_id }])),
    groups: new Map(groups.map((row) => [row.name, { id: row.id, uuid: row.group_id }])),
  };
}

/**
 * Live mappings with a cost whose `end` is null or after `after`: those in force then and those
 * scheduled later. (Rows CloudKitty wrote without a cost rate nothing and are left alone.)
 */
export async function loadMappings(db: HashmapDb, after: Date, times: StoredDateTimes): Promise<StoredMapping[]> {
  const rows = await db
    .selectFrom('hashmap_mappings as m')
    .leftJoin('hashmap_services as s', 's.id', 'm.service_id')
    .leftJoin('hashmap_fields as f', 'f.id', 'm.field_id')
    .leftJoin('hashmap_services as fs', 'fs.id', 'f.service_id')
    .leftJoin('hashmap_groups as g', 'g.id', 'm.group_id')
    .select([
      'm.id',
      'm.mapping_id',
      'm.value',
      'm.map_type',
      'm.cost',
      'm.tenant_id',
      'm.name',
      'm.description',
      'm.start',
      'm.end',
      's.name as service',
      'f.name as field',
      'fs.name as field_service',
      'g.name as group',
    ])
    .where('m.deleted', 'is', null)
    .where('m.cost', 'is not', null)
    .where((eb) => eb.or([eb('m.end', 'is', null), eb('m.end', '>', times.toStorage(after))]))
    .orderBy('m.id')
    .execute();
  const mappings: StoredMapping[] = [];
  for (const row of rows) {
    const service = row.service ?? row.field_service;
    if (service === null || row.cost === null) continue;
    mappings.push({
      id: row.id,
      mappingId: row.mapping_id,
      parent: { service, field: row.field },
      value: row.value,
      type: row.map_type as RuleType,
      cost: normalizeDecimal(row.cost, COST_COLUMN),
      tenantId: row.tenant_id,
      group: row.group,
      name: row.name,
      description: row.description,
      start: times.fromStorage(row.start),
      end: row.end === null ? null : times.fromStorage(row.end),
    });
  }
  return mappings;
}

/** Every threshold with a level and a cost. */
export async function loadThresholds(db: HashmapDb): Promise<StoredThreshold[]> {
  const rows = await db
    .selectFrom('hashmap_thresholds as t')
    .leftJoin('hashmap_services as s', 's.id', 't.service_id')
    .leftJoin('hashmap_fields as f', 'f.id', 't.field_id')
    .leftJoin('hashmap_services as fs', 'fs.id', 'f.service_id')
    .leftJoin('hashmap_groups as g', 'g.id', 't.group_id')
    .select([
      't.id',
      't.threshold_id',
      't.level',
      't.map_type',
      't.cost',
      't.tenant_id',
      's.name as service',
      'f.name as field',
      'fs.name as field_service',
      'g.name as group',
    ])
    .orderBy('t.id')
    .execute();
  const thresholds: StoredThreshold[] = [];
  for (const row of rows) {
    const service = row.service ?? row.field_service;
    if (service === null || row.cost === null || row.level === null) continue;
    thresholds.push({
      id: row.id,
      thresholdId: row.threshold_id,
      parent: { service, field: row.field },
      level: normalizeDecimal(row.level, LEVEL_COLUMN),
      type: row.map_type as RuleType,
      cost: normalizeDecimal(row.cost, COST_COLUMN),
      tenantId: row.tenant_id,
      group: row.group,
    });
  }
  return thresholds;
}
