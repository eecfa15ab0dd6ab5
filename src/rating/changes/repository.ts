/** Reads Tariff's audit trail (`tariff_changes`, written by database/change-journal.ts), newest first. */
import type { Database } from '../../database/connection.js';
import { CHANGES_TABLE } from '../../database/change-journal.js';
import { UTC_STORED_DATETIMES } from '../../database/stored-datetimes.js';
import { inReadSnapshot, type Transaction } from '../../database/transaction.js';
import type { Change } from './schemas.js';

/** Which changes, and which page of them. */
export interface ChangeQuery {
  /** Changes at or after this instant (whole seconds); undefined: all. */
  since: Date | undefined;
  /** Changes of this kind only; undefined: all. */
  kind: string | undefined;
  /** Changes of this object only (its id, a module's name, a price list's revision); undefined: all. */
  objectId: string | undefined;
  /** The changes of the price-list apply that made this revision (its entry and its rule changes); undefined: all. */
  revision: number | undefined;
  /** Changes skipped, newest first. */
  offset: number;
  /** Most changes answered. */
  limit: number;
}

/** A page of changes and how many match in all. */
export interface ChangePage {
  total: number;
  changes: Change[];
}

/** JSON text stored by the journal, back to its object. */
function parsedAttributes(text: string | null): Record<string, unknown> | null {
  return text === null ? null : (JSON.parse(text) as Record<string, unknown>);
}

/** The audit trail. */
export class ChangeRepository {
  constructor(private readonly database: Database) {}

  /**
   * One page of the changes matching `query`, newest first (by `change_id`, which grows in commit
   * order), and their total, read from one snapshot so that both agree.
   */
  list(query: ChangeQuery): Promise<ChangePage> {
    return inReadSnapshot(this.database, async (db) => {
      const matching = this.matching(db, query);
      const count = await matching.select((eb) => eb.fn.countAll().as('total')).executeTakeFirst();
      const rows = await matching.selectAll().orderBy('change_id', 'desc').limit(query.limit).offset(query.offset).execute();
      return {
        total: Number(count?.total ?? 0),
        changes: rows.map((row) => ({
          change_id: Number(row.change_id),
          at: UTC_STORED_DATETIMES.toApiText(row.at) ?? '',
          user_id: row.user_id,
          project_id: row.project_id,
          request_id: row.request_id,
          route: row.route,
          kind: row.kind,
          object_id: row.object_id,
          action: row.action,
          before: parsedAttributes(row.before),
          after: parsedAttributes(row.after),
          revision: row.revision === null ? null : Number(row.revision),
          name: row.name,
        })),
      };
    });
  }

  private matching(db: Transaction, query: ChangeQuery) {
    let matching = db.selectFrom(CHANGES_TABLE);
    if (query.since !== undefined) matching = matching.where('at', '>=', UTC_STORED_DATETIMES.toStorage(query.since));
    if (query.kind !== undefined) matching = matching.where('kind', '=', query.kind);
    if (query.objectId !== undefined) matching = matching.where('object_id', '=', query.objectId);
    if (query.revision !== undefined) matching = matching.where('revision', '=', query.revision);
    return matching;
  }
}
