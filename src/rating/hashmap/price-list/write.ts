/**
 * Writes a hashmap plan in the apply's transaction, with the ids the plan chose: parents first
 * (their keys are read back by name), then the mappings ended, deleted and inserted, then the thresholds. Rows go in chunks of
 * a few hundred per statement, never one statement per rule. Between inserted chunks the process
 * turns to its other work: SQLite's driver is synchronous, and a 10,000-rule apply would
 * otherwise hold the event loop (and the log lines already written) for its whole length.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { StoredDateTimes } from '../../../database/stored-datetimes.js';
import type { Audit } from '../../common/rule-storage.js';
import type { HashmapDb } from '../tables.js';
import type { HashmapWrites } from './plan.js';
import { fieldKey, loadParents, type StoredParents } from './stored.js';
import type { ParentName } from './rules.js';

/** Rows per statement: below every dialect's bound-parameter limit (SQLite's 32,766) at 16 columns. */
const CHUNK_ROWS = 500;

function chunks<T>(items: readonly T[], size = CHUNK_ROWS): T[][] {
  const result: T[][] = [];
  for (let index = 0; index < items.length; index += size) result.push(items.slice(index, index + size));
  return result;
}

async function createParents(db: HashmapDb, writes: HashmapWrites): Promise<StoredParents> {
  for (const names of chunks(writes.groups)) {
    await db
      .insertInto('hashmap_groups')
      .values(names.map(({ name, newId }) => ({ group_id: newId, name })))
      .execute();
  }
  for (const names of chunks(writes.services)) {
    await db
      .insertInto('hashmap_services')
      .values(names.map(({ name, newId }) => ({ service_id: newId, name })))
      .execute();
  }
  let parents = await loadParents(db);
  if (writes.fields.length > 0) {
    for (const fields of chunks(writes.fields)) {
      await db
        .insertInto('hashmap_fields')
        .values(
          fields.map(({ name: { service, field }, newId }) => ({ field_id: newId, name: field ?? '', service_id: parents.services.get(service)?.id ?? 0 })),
        )
        .execute();
    }
    parents = await loadParents(db);
  }
  return parents;
}

/** The integer keys of a rule's parent and group. */
function keysOf(parents: StoredParents, parent: ParentName, group: string | null) {
  const service = parents.services.get(parent.service)?.id ?? null;
  const field = parent.field === null ? null : (parents.fields.get(fieldKey(parent.service, parent.field))?.id ?? null);
  return {
    service_id: parent.field === null ? service : null,
    field_id: field,
    group_id: group === null ? null : (parents.groups.get(group)?.id ?? null),
  };
}

/** Writes `writes`; `effectiveAt` is the end of the ended mappings. */
export async function writeHashmapPlan(db: HashmapDb, writes: HashmapWrites, effectiveAt: Date, audit: Audit, times: StoredDateTimes): Promise<void> {
  const parents = await createParents(db, writes);
  const now = times.toStorage(audit.now);
  for (const ids of chunks(writes.deleteMappings)) {
    await db.updateTable('hashmap_mappings').set({ deleted: now, deleted_by: audit.actor }).where('id', 'in', ids).execute();
  }
  for (const ids of chunks(writes.endMappings)) {
    await db
      .updateTable('hashmap_mappings')
      .set({ end: times.toStorage(effectiveAt), updated_by: audit.actor })
      .where('id', 'in', ids)
      .execute();
  }
  for (const { id, end } of writes.moveEnds) {
    await db
      .updateTable('hashmap_mappings')
      .set({ end: end === null ? null : times.toStorage(end), updated_by: audit.actor })
      .where('id', '=', id)
      .execute();
  }
  for (const rules of chunks(writes.insertMappings)) {
    await nextTurn();
    await db
      .insertInto('hashmap_mappings')
      .values(
        rules.map((rule) => ({
          mapping_id: rule.newId,
          value: rule.value,
          cost: rule.cost,
          map_type: rule.type,
          tenant_id: rule.tenantId,
          name: rule.name,
          description: rule.description,
          start: times.toStorage(rule.start),
          end: rule.end === null ? null : times.toStorage(rule.end),
          created_at: now,
          created_by: audit.actor,
          ...keysOf(parents, rule.parent, rule.group),
        })),
      )
      .execute();
  }
  for (const ids of chunks(writes.deleteThresholds)) await db.deleteFrom('hashmap_thresholds').where('id', 'in', ids).execute();
  for (const { id, rule } of writes.updateThresholds) {
    const { group_id } = keysOf(parents, rule.parent, rule.group);
    await db.updateTable('hashmap_thresholds').set({ map_type: rule.type, cost: rule.cost, group_id }).where('id', '=', id).execute();
  }
  for (const rules of chunks(writes.insertThresholds)) {
    await db
      .insertInto('hashmap_thresholds')
      .values(
        rules.map((rule) => ({
          threshold_id: rule.newId,
          level: rule.level,
          cost: rule.cost,
          map_type: rule.type,
          tenant_id: rule.tenantId,
          ...keysOf(parents, rule.parent, rule.group),
        })),
      )
      .execute();
  }
}
