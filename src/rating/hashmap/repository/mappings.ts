/** SQL for hashmap mappings: versioned rules, soft-deleted. One query per list, never per row. */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../../../database/connection.js';
import type { StoredDateTimes } from '../../../database/stored-datetimes.js';
import { inWriteTransaction } from '../../../database/transaction.js';
import type { ChangeJournal } from '../../../database/change-journal.js';
import { hashmapTables, type HashmapDb } from '../tables.js';
import { ReusableQuery } from '../../../database/reusable-query.js';
import { normalizeDecimal, COST_COLUMN } from '../../common/decimal.js';
import { mappingHasNoGroup, noSuchMapping, type ParentRef } from '../errors.js';
import { validityOf, type RunningRuleUpdates } from '../../common/versioning.js';
import { findMappingConflict, planMappingUpdate, type LiveMapping, type MappingClashes, type MappingDraft, type MappingFilters } from '../validation.js';
import type { Group, Mapping, MappingUpdateBody } from '../schemas.js';
import { resolveField, resolveOptionalGroup, resolveService } from './parents.js';
import { nullSafeEquals, parentFilterConditions } from './sql.js';
import { matchesDescription, ruleFilterConditions } from '../../common/rule-filters.js';
import { checkStorableValidity, keepEndedVersion, ruleColumnChanges, softDeleteRule, type Audit } from '../../common/rule-storage.js';

function selectMappings(db: HashmapDb) {
  return db
    .selectFrom('hashmap_mappings as m')
    .leftJoin('hashmap_services as s', 's.id', 'm.service_id')
    .leftJoin('hashmap_fields as f', 'f.id', 'm.field_id')
    .leftJoin('hashmap_groups as g', 'g.id', 'm.group_id')
    .select([
      'm.mapping_id',
      'm.value',
      'm.map_type',
      'm.cost',
      's.service_id as service_uuid',
      'f.field_id as field_uuid',
      'g.group_id as group_uuid',
      'm.tenant_id',
      'm.name',
      'm.description',
      'm.start',
      'm.end',
      'm.created_at',
      'm.deleted',
      'm.created_by',
      'm.updated_by',
      'm.deleted_by',
    ]);
}

type MappingRow = Awaited<ReturnType<ReturnType<typeof selectMappings>['executeTakeFirstOrThrow']>>;

/** A mapping's API form; `times` reads the stored datetimes (wall time in CloudKitty's zone). */
function toMapping(row: MappingRow, times: StoredDateTimes): Mapping {
  return {
    mapping_id: row.mapping_id,
    value: row.value,
    type: row.map_type,
    cost: row.cost === null ? null : normalizeDecimal(row.cost, COST_COLUMN),
    service_id: row.service_uuid,
    field_id: row.field_uuid,
    group_id: row.group_uuid,
    tenant_id: row.tenant_id,
    name: row.name,
    description: row.description,
    start: times.toApiText(row.start),
    end: times.toApiText(row.end),
    created_at: times.toApiText(row.created_at),
    deleted: times.toApiText(row.deleted),
    created_by: row.created_by,
    updated_by: row.updated_by,
    deleted_by: row.deleted_by,
  };
}

/**
 * Live mappings sharing the candidate's name or key (parent, value, tenant, group): where a
 * conflict can come from. One statement (two index lookups in a UNION ALL, no joins): it runs
 * while the configuration write lock is held.
 */
async function clashCandidates(transaction: HashmapDb, candidate: LiveMapping, times: StoredDateTimes): Promise<MappingClashes> {
  const parentKey =
    candidate.parent.kind === 'service'
      ? transaction.selectFrom('hashmap_services').select('id').where('service_id', '=', candidate.parent.id)
      : transaction.selectFrom('hashmap_fields').select('id').where('field_id', '=', candidate.parent.id);
  const groupKey = candidate.groupId === null ? null : transaction.selectFrom('hashmap_groups').select('id').where('group_id', '=', candidate.groupId);
  const byName = transaction
    .selectFrom('hashmap_mappings')
    .select([sql<string>`'name'`.as('clash'), 'mapping_id', 'start', 'end'])
    .where('deleted', 'is', null)
    .where('name', '=', candidate.name);
  const byKey = transaction
    .selectFrom('hashmap_mappings')
    .select([sql<string>`'key'`.as('clash'), 'mapping_id', 'start', 'end'])
    .where('deleted', 'is', null)
    .where(candidate.parent.kind === 'service' ? 'service_id' : 'field_id', '=', parentKey)
    .where((eb) => eb.and([nullSafeEquals(eb, 'value', candidate.value), nullSafeEquals(eb, 'tenant_id', candidate.tenantId)]))
    .where((eb) => (groupKey === null ? eb('group_id', 'is', null) : eb('group_id', '=', groupKey)));
  const rows = await byName.unionAll(byKey).execute();
  const validity = (row: (typeof rows)[number]) => ({
    mappingId: row.mapping_id,
    start: times.fromStorage(row.start),
    end: row.end === null ? null : times.fromStorage(row.end),
  });
  return {
    sameName: rows.filter((row) => row.clash === 'name').map(validity),
    sameKey: rows.filter((row) => row.clash === 'key').map(validity),
  };
}

/** @throws ConflictError when the candidate clashes with a live mapping. */
async function refuseConflicts(transaction: HashmapDb, candidate: LiveMapping, times: StoredDateTimes): Promise<void> {
  const conflict = findMappingConflict(candidate, await clashCandidates(transaction, candidate, times));
  if (conflict) throw conflict;
}

function parentOfMapping(mapping: Mapping): ParentRef {
  return mapping.service_id !== null ? { kind: 'service', id: mapping.service_id } : { kind: 'field', id: mapping.field_id ?? '' };
}

function liveMapping(mapping: Mapping): LiveMapping {
  return {
    mappingId: mapping.mapping_id,
    name: mapping.name,
    parent: parentOfMapping(mapping),
    value: mapping.value,
    tenantId: mapping.tenant_id,
    groupId: mapping.group_id,
    ...validityOf(mapping),
  };
}

/** Hashmap mappings. */
export class MappingRepository {
  /** The live mapping with a given id: the hottest read, compiled once. */
  private readonly liveById = new ReusableQuery((db: HashmapDb, uuid: string) =>
    selectMappings(db).where('m.mapping_id', '=', uuid).where('m.deleted', 'is', null),
  );

  private readonly db: HashmapDb;
  /** The database's stored-datetime conversion (wall time in CloudKitty's zone). */
  private readonly times: StoredDateTimes;
  /** A row's API form. */
  private readonly toMapping = (row: MappingRow): Mapping => toMapping(row, this.times);

  /**
   * @param runningRuleUpdates - what an update of a running mapping's terms does
   *   (`TARIFF_RUNNING_RULE_UPDATES`, versioning.ts).
   */
  constructor(
    private readonly database: Database,
    private readonly runningRuleUpdates: RunningRuleUpdates = 'new-version',
  ) {
    this.db = hashmapTables(database.db);
    this.times = database.storedDateTimes;
  }

  /** Mappings matching every filter, in creation order; one query. */
  async list(filters: MappingFilters): Promise<Mapping[]> {
    let query = selectMappings(this.db);
    for (const condition of parentFilterConditions('m', filters)) query = query.where(condition);
    for (const condition of ruleFilterConditions('hashmap_mappings', 'm', filters, this.times)) query = query.where(condition);
    const rows = await query.orderBy('m.id').execute();
    return rows.filter((row) => matchesDescription(filters, row.description)).map(this.toMapping);
  }

  /** @throws NotFoundError `No such mapping: {id}`, also when soft-deleted. */
  async get(uuid: string): Promise<Mapping> {
    return this.getLive(this.db, uuid);
  }

  private async getLive(db: HashmapDb, uuid: string): Promise<Mapping> {
    const [row] = await this.liveById.execute(db, uuid);
    if (!row) throw noSuchMapping(uuid);
    return this.toMapping(row);
  }

  /** Live mappings of a group; none for an unknown group (CloudKitty compat: an empty list, not a 404). */
  async listOfGroup(groupUuid: string): Promise<Mapping[]> {
    const group = await this.db.selectFrom('hashmap_groups').select('id').where('group_id', '=', groupUuid).executeTakeFirst();
    if (!group) return [];
    const rows = await selectMappings(this.db).where('m.group_id', '=', group.id).where('m.deleted', 'is', null).orderBy('m.id').execute();
    return rows.map(this.toMapping);
  }

  /**
   * The group of a live mapping.
   *
   * @throws NotFoundError `Mapping has no group (UUID: {id})`, also for an unknown mapping
   *   (CloudKitty compat: its query joins the group and finds no row either way).
   */
  async groupOf(uuid: string): Promise<Group> {
    const row = await this.db
      .selectFrom('hashmap_mappings as m')
      .leftJoin('hashmap_groups as g', 'g.id', 'm.group_id')
      .select(['g.group_id', 'g.name'])
      .where('m.mapping_id', '=', uuid)
      .where('m.deleted', 'is', null)
      .executeTakeFirst();
    if (!row || row.group_id === null || row.name === null) throw mappingHasNoGroup(uuid);
    return { group_id: row.group_id, name: row.name };
  }

  /**
   * Creates a mapping in one transaction: resolves its parent and group (400 `No such ...`),
   * refuses a clash (409), inserts; recorded in `journal`.
   */
  create(draft: MappingDraft, audit: Audit, journal: ChangeJournal): Promise<Mapping> {
    checkStorableValidity(draft, this.times);
    return inWriteTransaction(this.database, journal, async (tariffTransaction, serialize) => {
      const transaction = hashmapTables(tariffTransaction);
      const parent = draft.parent.kind === 'service' ? await resolveService(transaction, draft.parent.id) : await resolveField(transaction, draft.parent.id);
      const group = await resolveOptionalGroup(transaction, draft.groupId);
      await serialize();
      const mappingId = randomUUID();
      await refuseConflicts(
        transaction,
        {
          mappingId,
          name: draft.name,
          parent: draft.parent,
          value: draft.value,
          tenantId: draft.tenantId,
          groupId: group?.uuid ?? null,
          start: draft.start,
          end: draft.end,
        },
        this.times,
      );
      const row = {
        mapping_id: mappingId,
        value: draft.value,
        cost: draft.cost,
        map_type: draft.type,
        tenant_id: draft.tenantId,
        name: draft.name,
        description: draft.description,
        start: this.times.toStorage(draft.start, 'start'),
        end: draft.end === null ? null : this.times.toStorage(draft.end, 'end'),
        created_at: this.times.toStorage(audit.now),
        created_by: audit.actor,
      };
      await transaction
        .insertInto('hashmap_mappings')
        .values({
          ...row,
          service_id: draft.parent.kind === 'service' ? parent.key : null,
          field_id: draft.parent.kind === 'field' ? parent.key : null,
          group_id: group?.key ?? null,
        })
        .execute();
      // The answer is built from what was inserted: no second read.
      const mapping = this.toMapping({
        ...row,
        service_uuid: draft.parent.kind === 'service' ? parent.uuid : null,
        field_uuid: draft.parent.kind === 'field' ? parent.uuid : null,
        group_uuid: group?.uuid ?? null,
        deleted: null,
        updated_by: null,
        deleted_by: null,
      });
      journal.record({ kind: 'mapping', objectId: mappingId, action: 'create', before: null, after: mapping });
      return mapping;
    });
  }

  /**
   * Updates a live mapping in one transaction (api.md §6), recorded in `journal` with its
   * attributes before and after.
   *
   * @throws NotFoundError when unknown or deleted; BadRequestError for rule-state or value faults;
   *   ConflictError for a clash.
   */
  update(uuid: string, body: MappingUpdateBody, audit: Audit, journal: ChangeJournal): Promise<Mapping> {
    return inWriteTransaction(this.database, journal, async (tariffTransaction, serialize) => {
      const transaction = hashmapTables(tariffTransaction);
      await serialize();
      const stored = await this.getLive(transaction, uuid);
      const plan = planMappingUpdate(stored, body, audit.now, this.runningRuleUpdates);
      const { changes, result } = plan;
      const ruleColumns = ruleColumnChanges(changes, audit, this.times);
      const group = 'group_id' in changes ? await resolveOptionalGroup(transaction, changes.group_id ?? null) : undefined;
      if (plan.needsConflictCheck) await refuseConflicts(transaction, liveMapping(result), this.times);
      if (plan.outcome === 'new-version') await keepEndedVersion(tariffTransaction, 'hashmap_mappings', 'mapping_id', uuid, audit, this.times);
      await transaction
        .updateTable('hashmap_mappings')
        .set({
          ...('value' in changes ? { value: changes.value } : {}),
          ...('type' in changes ? { map_type: changes.type } : {}),
          ...('cost' in changes ? { cost: changes.cost } : {}),
          ...(group !== undefined ? { group_id: group?.key ?? null } : {}),
          ...('tenant_id' in changes ? { tenant_id: changes.tenant_id } : {}),
          ...ruleColumns,
        })
        .where('mapping_id', '=', uuid)
        .execute();
      const updated = await this.getLive(transaction, uuid);
      journal.record({ kind: 'mapping', objectId: uuid, action: 'update', before: stored, after: updated });
      return updated;
    });
  }

  /** Soft-deletes a live mapping, recorded in `journal`. @throws NotFoundError when unknown or already deleted. */
  async delete(uuid: string, audit: Audit, journal: ChangeJournal): Promise<void> {
    await softDeleteRule(this.database, 'hashmap_mappings', 'mapping_id', uuid, audit, noSuchMapping, {
      kind: 'mapping',
      journal,
      readLive: async (transaction, id) => ({ ...(await this.getLive(hashmapTables(transaction), id)) }),
    });
  }
}
