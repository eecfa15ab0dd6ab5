/** SQL for hashmap thresholds (unversioned; deleted for good). One query per list. */
import { randomUUID } from 'node:crypto';
import type { Database } from '../../../database/connection.js';
import { inWriteTransaction } from '../../../database/transaction.js';
import type { ChangeJournal } from '../../../database/change-journal.js';
import { hashmapTables, type HashmapDb } from '../tables.js';
import { COST_COLUMN, LEVEL_COLUMN, normalizeDecimal } from '../../common/decimal.js';
import { noSuchThreshold, thresholdHasNoGroup, type ParentRef } from '../errors.js';
import { findThresholdConflict, planThresholdUpdate, type ParentFilters, type ThresholdDraft, type ThresholdKey } from '../validation.js';
import type { Group, Threshold, ThresholdUpdateBody } from '../schemas.js';
import { resolveField, resolveOptionalGroup, resolveService } from './parents.js';
import { nullSafeEquals, parentFilterConditions } from './sql.js';

function selectThresholds(db: HashmapDb) {
  return db
    .selectFrom('hashmap_thresholds as t')
    .leftJoin('hashmap_services as s', 's.id', 't.service_id')
    .leftJoin('hashmap_fields as f', 'f.id', 't.field_id')
    .leftJoin('hashmap_groups as g', 'g.id', 't.group_id')
    .select([
      't.threshold_id',
      't.level',
      't.map_type',
      't.cost',
      's.service_id as service_uuid',
      'f.field_id as field_uuid',
      'g.group_id as group_uuid',
      't.tenant_id',
    ]);
}

type ThresholdRow = Awaited<ReturnType<ReturnType<typeof selectThresholds>['executeTakeFirstOrThrow']>>;

function toThreshold(row: ThresholdRow): Threshold {
  return {
    threshold_id: row.threshold_id,
    level: row.level === null ? null : normalizeDecimal(row.level, LEVEL_COLUMN),
    type: row.map_type,
    cost: row.cost === null ? null : normalizeDecimal(row.cost, COST_COLUMN),
    service_id: row.service_uuid,
    field_id: row.field_uuid,
    group_id: row.group_uuid,
    tenant_id: row.tenant_id,
  };
}

function keyOf(threshold: Threshold): ThresholdKey {
  const parent: ParentRef = threshold.service_id !== null ? { kind: 'service', id: threshold.service_id } : { kind: 'field', id: threshold.field_id ?? '' };
  return { thresholdId: threshold.threshold_id, parent, level: threshold.level, tenantId: threshold.tenant_id, groupId: threshold.group_id };
}

/** @throws ConflictError when a threshold with the same key exists. */
async function refuseConflicts(transaction: HashmapDb, candidate: ThresholdKey): Promise<void> {
  const parentColumn = candidate.parent.kind === 'service' ? 's.service_id' : 'f.field_id';
  const rows = await selectThresholds(transaction)
    .where(parentColumn, '=', candidate.parent.id)
    .where('t.level', '=', candidate.level)
    .where((eb) => nullSafeEquals(eb, 't.tenant_id', candidate.tenantId))
    .execute();
  const conflict = findThresholdConflict(
    candidate,
    rows.map((row) => keyOf(toThreshold(row))),
  );
  if (conflict) throw conflict;
}

/** Hashmap thresholds. */
export class ThresholdRepository {
  private readonly db: HashmapDb;

  constructor(private readonly database: Database) {
    this.db = hashmapTables(database.db);
  }

  /** Thresholds matching every filter (none: all, fix: CloudKitty 500), in creation order; one query. */
  async list(filters: ParentFilters): Promise<Threshold[]> {
    let query = selectThresholds(this.db);
    for (const condition of parentFilterConditions('t', filters)) query = query.where(condition);
    const rows = await query.orderBy('t.id').execute();
    return rows.map(toThreshold);
  }

  /** @throws NotFoundError `No such threshold: {id}`. */
  get(uuid: string): Promise<Threshold> {
    return this.getIn(this.db, uuid);
  }

  private async getIn(db: HashmapDb, uuid: string): Promise<Threshold> {
    const row = await selectThresholds(db).where('t.threshold_id', '=', uuid).executeTakeFirst();
    if (!row) throw noSuchThreshold(uuid);
    return toThreshold(row);
  }

  /** Thresholds of a group; none for an unknown group (CloudKitty compat: an empty list, not a 404). */
  async listOfGroup(groupUuid: string): Promise<Threshold[]> {
    const group = await this.db.selectFrom('hashmap_groups').select('id').where('group_id', '=', groupUuid).executeTakeFirst();
    if (!group) return [];
    const rows = await selectThresholds(this.db).where('t.group_id', '=', group.id).orderBy('t.id').execute();
    return rows.map(toThreshold);
  }

  /**
   * The group of a threshold.
   *
   * @throws NotFoundError `Threshold has no group (UUID: {id})`, also for an unknown threshold
   *   (CloudKitty compat).
   */
  async groupOf(uuid: string): Promise<Group> {
    const row = await selectThresholds(this.db).where('t.threshold_id', '=', uuid).executeTakeFirst();
    const threshold = row && toThreshold(row);
    if (!threshold || threshold.group_id === null) throw thresholdHasNoGroup(uuid);
    const group = await this.db.selectFrom('hashmap_groups').select(['group_id', 'name']).where('group_id', '=', threshold.group_id).executeTakeFirstOrThrow();
    return group;
  }

  /** Creates a threshold in one transaction: parents (400), clash (409), insert; recorded in `journal`. */
  create(draft: ThresholdDraft, journal: ChangeJournal): Promise<Threshold> {
    return inWriteTransaction(this.database, journal, async (tariffTransaction, serialize) => {
      const transaction = hashmapTables(tariffTransaction);
      const parent = draft.parent.kind === 'service' ? await resolveService(transaction, draft.parent.id) : await resolveField(transaction, draft.parent.id);
      const group = await resolveOptionalGroup(transaction, draft.groupId);
      await serialize();
      const thresholdId = randomUUID();
      await refuseConflicts(transaction, { thresholdId, parent: draft.parent, level: draft.level, tenantId: draft.tenantId, groupId: group?.uuid ?? null });
      await transaction
        .insertInto('hashmap_thresholds')
        .values({
          threshold_id: thresholdId,
          level: draft.level,
          cost: draft.cost,
          map_type: draft.type,
          service_id: draft.parent.kind === 'service' ? parent.key : null,
          field_id: draft.parent.kind === 'field' ? parent.key : null,
          group_id: group?.key ?? null,
          tenant_id: draft.tenantId,
        })
        .execute();
      const threshold = await this.getIn(transaction, thresholdId);
      journal.record({ kind: 'threshold', objectId: thresholdId, action: 'create', before: null, after: threshold });
      return threshold;
    });
  }

  /**
   * Updates a threshold in one transaction, recorded in `journal` with its attributes before and
   * after (an update that changes nothing writes and records nothing).
   *
   * @throws NotFoundError, BadRequestError, ConflictError.
   */
  update(uuid: string, body: ThresholdUpdateBody, journal: ChangeJournal): Promise<Threshold> {
    return inWriteTransaction(this.database, journal, async (tariffTransaction, serialize) => {
      const transaction = hashmapTables(tariffTransaction);
      await serialize();
      const stored = await this.getIn(transaction, uuid);
      const { changes, result } = planThresholdUpdate(stored, body);
      if (Object.keys(changes).length === 0) return stored;
      const group = 'group_id' in changes ? await resolveOptionalGroup(transaction, changes.group_id ?? null) : undefined;
      await refuseConflicts(transaction, keyOf(result));
      await transaction
        .updateTable('hashmap_thresholds')
        .set({
          ...(changes.level !== undefined ? { level: changes.level } : {}),
          ...(changes.cost !== undefined ? { cost: changes.cost } : {}),
          ...(changes.type !== undefined ? { map_type: changes.type } : {}),
          ...(group !== undefined ? { group_id: group?.key ?? null } : {}),
          ...('tenant_id' in changes ? { tenant_id: changes.tenant_id } : {}),
        })
        .where('threshold_id', '=', uuid)
        .execute();
      const updated = await this.getIn(transaction, uuid);
      journal.record({ kind: 'threshold', objectId: uuid, action: 'update', before: stored, after: updated });
      return updated;
    });
  }

  /** Deletes a threshold, recorded in `journal`. @throws NotFoundError when unknown. */
  async delete(uuid: string, journal: ChangeJournal): Promise<void> {
    // The 404 is thrown inside the transaction: a refused delete writes nothing.
    await inWriteTransaction(this.database, journal, async (transaction) => {
      const before = await this.getIn(hashmapTables(transaction), uuid);
      const result = await hashmapTables(transaction).deleteFrom('hashmap_thresholds').where('threshold_id', '=', uuid).executeTakeFirst();
      if (result.numDeletedRows === 0n) throw noSuchThreshold(uuid);
      journal.record({ kind: 'threshold', objectId: uuid, action: 'delete', before, after: null });
    });
  }
}
