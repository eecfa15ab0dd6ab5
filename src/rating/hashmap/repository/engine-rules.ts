/**
 * Loads every live hashmap rule for the engine in three queries (fields, mappings, thresholds),
 * never one per rule.
 */
import type { StoredDateTimes } from '../../../database/stored-datetimes.js';
import { buildRuleIndex } from '../engine/rule-index.js';
import type { RuleIndex } from '../engine/types.js';
import type { HashmapDb } from '../tables.js';

const asRuleType = (type: string): 'flat' | 'rate' => (type === 'rate' ? 'rate' : 'flat');

/**
 * Builds the engine's rule index from the database.
 *
 * @param times - the database's stored-datetime conversion: rule starts and ends become instants
 *   (wall time in CloudKitty's zone; UTC needs no conversion).
 */
export async function loadRuleIndex(db: HashmapDb, times: StoredDateTimes): Promise<RuleIndex> {
  const [fields, mappings, thresholds] = await Promise.all([
    db
      .selectFrom('hashmap_fields as f')
      .innerJoin('hashmap_services as s', 's.id', 'f.service_id')
      .select(['s.name as serviceName', 'f.name as fieldName'])
      .execute(),
    db
      .selectFrom('hashmap_mappings as m')
      .leftJoin('hashmap_fields as f', 'f.id', 'm.field_id')
      .leftJoin('hashmap_services as s', (join) => join.on((eb) => eb.or([eb('s.id', '=', eb.ref('m.service_id')), eb('s.id', '=', eb.ref('f.service_id'))])))
      .leftJoin('hashmap_groups as g', 'g.id', 'm.group_id')
      .select([
        'm.mapping_id',
        'm.map_type',
        'm.cost',
        'm.value',
        'm.tenant_id',
        'm.start',
        'm.end',
        'g.name as groupName',
        's.name as serviceName',
        'f.name as fieldName',
      ])
      .where('m.deleted', 'is', null)
      .orderBy('m.id')
      .execute(),
    db
      .selectFrom('hashmap_thresholds as t')
      .leftJoin('hashmap_fields as f', 'f.id', 't.field_id')
      .leftJoin('hashmap_services as s', (join) => join.on((eb) => eb.or([eb('s.id', '=', eb.ref('t.service_id')), eb('s.id', '=', eb.ref('f.service_id'))])))
      .leftJoin('hashmap_groups as g', 'g.id', 't.group_id')
      .select(['t.threshold_id', 't.map_type', 't.cost', 't.level', 't.tenant_id', 'g.name as groupName', 's.name as serviceName', 'f.name as fieldName'])
      .orderBy('t.id')
      .execute(),
  ]);
  // CloudKitty compat: its layout lets cost and level be null (rows only CloudKitty can write);
  // such a rule prices nothing here, where CloudKitty's processor would fail on it.
  return buildRuleIndex(
    mappings
      .flatMap((row) => (row.cost === null ? [] : [{ ...row, cost: row.cost }]))
      .map((row) => ({
        mappingId: row.mapping_id,
        type: asRuleType(row.map_type),
        cost: row.cost,
        value: row.value,
        tenantId: row.tenant_id,
        group: row.groupName,
        start: times.epochMsOf(row.start),
        end: row.end === null ? null : times.epochMsOf(row.end),
        serviceName: row.serviceName ?? '',
        fieldName: row.fieldName,
      })),
    thresholds
      .flatMap((row) => (row.cost === null || row.level === null ? [] : [{ ...row, cost: row.cost, level: row.level }]))
      .map((row) => ({
        thresholdId: row.threshold_id,
        type: asRuleType(row.map_type),
        cost: row.cost,
        level: row.level,
        tenantId: row.tenant_id,
        group: row.groupName,
        serviceName: row.serviceName ?? '',
        fieldName: row.fieldName,
      })),
    fields,
  );
}
