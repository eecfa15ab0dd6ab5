/** SQL for hashmap groups: a plain (unversioned) resource that mappings and thresholds may belong to. */
import { randomUUID } from 'node:crypto';
import type { Database } from '../../../database/connection.js';
import { inWriteTransaction } from '../../../database/transaction.js';
import type { ChangeJournal } from '../../../database/change-journal.js';
import { hashmapTables, type HashmapDb } from '../tables.js';
import { groupExists, noSuchGroup } from '../errors.js';
import type { Group } from '../schemas.js';

/** Groups of the hashmap module. */
export class GroupRepository {
  private readonly db: HashmapDb;

  constructor(private readonly database: Database) {
    this.db = hashmapTables(database.db);
  }

  /** Every group, in creation order. */
  listGroups(): Promise<Group[]> {
    return this.db.selectFrom('hashmap_groups').select(['group_id', 'name']).orderBy('id').execute();
  }

  /** @throws NotFoundError `No such group: None (UUID: {id})`. */
  async getGroup(uuid: string): Promise<Group> {
    const row = await this.db.selectFrom('hashmap_groups').select(['group_id', 'name']).where('group_id', '=', uuid).executeTakeFirst();
    if (!row) throw noSuchGroup(uuid);
    return row;
  }

  /** Creates a group, recorded in `journal`. @throws ConflictError `Group {name} already exists (UUID: {id})`. */
  createGroup(name: string, journal: ChangeJournal): Promise<Group> {
    return inWriteTransaction(this.database, journal, async (tariffTransaction, serialize) => {
      const transaction = hashmapTables(tariffTransaction);
      await serialize();
      const existing = await transaction.selectFrom('hashmap_groups').select('group_id').where('name', '=', name).executeTakeFirst();
      if (existing) throw groupExists(name, existing.group_id);
      const group = { group_id: randomUUID(), name };
      await transaction.insertInto('hashmap_groups').values(group).execute();
      journal.record({ kind: 'group', objectId: group.group_id, action: 'create', before: null, after: group });
      return group;
    });
  }

  /**
   * Deletes a group. Not recursive: its rules are detached (`group_id` becomes null, by the
   * foreign key). Recursive: its live mappings are soft-deleted by `actor` and its thresholds
   * deleted first. Recorded in `journal` as one change, with the group as it was (`before`).
   *
   * @throws NotFoundError when unknown.
   */
  deleteGroup(uuid: string, options: { recursive: boolean; actor: string; now: Date }, journal: ChangeJournal): Promise<void> {
    return inWriteTransaction(this.database, journal, async (tariffTransaction) => {
      const transaction = hashmapTables(tariffTransaction);
      const group = await transaction.selectFrom('hashmap_groups').select(['id', 'name']).where('group_id', '=', uuid).executeTakeFirst();
      if (!group) throw noSuchGroup(uuid);
      if (options.recursive) {
        await transaction
          .updateTable('hashmap_mappings')
          .set({ deleted: this.database.storedDateTimes.toStorage(options.now), deleted_by: options.actor })
          .where('group_id', '=', group.id)
          .where('deleted', 'is', null)
          .execute();
        await transaction.deleteFrom('hashmap_thresholds').where('group_id', '=', group.id).execute();
      }
      await transaction.deleteFrom('hashmap_groups').where('id', '=', group.id).execute();
      journal.record({ kind: 'group', objectId: uuid, action: 'delete', before: { group_id: uuid, name: group.name }, after: null });
    });
  }
}
