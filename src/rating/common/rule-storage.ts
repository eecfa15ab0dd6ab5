/**
 * Storage of what every versioned rule (mapping, script) shares: the validity and audit columns,
 * and the soft delete (api.md §6: the row stays with `deleted` and `deleted_by` set).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../../database/connection.js';
import { inWriteTransaction, type Transaction } from '../../database/transaction.js';
import type { ChangeJournal } from '../../database/change-journal.js';
import type { DateTimeText } from '../../database/tables.js';
import type { StoredDateTimes } from '../../database/stored-datetimes.js';

/** The columns every versioned rule table (mappings, scripts) has, beside its own. */
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

/** Who acts and when (whole seconds). */
export interface Audit {
  actor: string;
  now: Date;
}

/** Changed versioned-rule attributes in API form (`start`/`end` as UTC text). */
export interface RuleChanges {
  description?: string | null;
  start?: string | null;
  end?: string | null;
}

/**
 * The column values for the changed `description`, `start` and `end`, plus `updated_by`. Make
 * them before the update's other checks (conflicts), so that a datetime the database cannot
 * store is the 400 whatever else is wrong.
 *
 * @param storedDateTimes - the database's: `start` and `end` are stored as wall time in CloudKitty's zone.
 * @throws BadRequestError (400) naming `start` or `end` when its wall time is outside the stored
 *   years (StoredDateTimes.toStorage).
 */
export function ruleColumnChanges(changes: RuleChanges, audit: Audit, storedDateTimes: StoredDateTimes): Partial<VersionedRuleColumns> {
  return {
    ...('description' in changes ? { description: changes.description ?? null } : {}),
    ...(changes.start ? { start: storedDateTimes.toStorage(new Date(changes.start), 'start') } : {}),
    ...('end' in changes ? { end: changes.end ? storedDateTimes.toStorage(new Date(changes.end), 'end') : null } : {}),
    updated_by: audit.actor,
  };
}

/**
 * Checks that a new rule's `start` and `end` can be stored: in CloudKitty's time zone their year
 * is within the stored years (StoredDateTimes.toStorage). Called before anything else of a create
 * is looked up, as CloudKitty checks dates before parents.
 *
 * @throws BadRequestError (400) naming `start` or `end`.
 */
export function checkStorableValidity(validity: { start: Date; end: Date | null }, storedDateTimes: StoredDateTimes): void {
  storedDateTimes.checkStorable(validity.start, 'start');
  if (validity.end !== null) storedDateTimes.checkStorable(validity.end, 'end');
}

/**
 * Keeps a running rule's stored terms as an ended version before an update changes them from now
 * on (versioning.ts, `new-version`): a copy of its row with a new public id, `end` = now and
 * `updated_by` the actor, everything else as stored (created_at, created_by, start, the terms), so
 * CloudKitty's processor and Tariff's quotes price the time before now as they did. Read and
 * written in the update's transaction. Two statements, the row read as the driver returns it
 * (timestamps and decimals as text, script data as bytes), so no dialect's casts are involved.
 *
 * @returns the ended version's new public id.
 */
export async function keepEndedVersion(
  transaction: Transaction,
  table: 'hashmap_mappings' | 'pyscripts_scripts',
  idColumn: 'mapping_id' | 'script_id',
  uuid: string,
  audit: Audit,
  storedDateTimes: StoredDateTimes,
): Promise<string> {
  const versionId = randomUUID();
  const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)} where ${sql.ref(idColumn)} = ${uuid}`.execute(transaction);
  const { id: _key, ...columns } = rows[0];
  const copy: Record<string, unknown> = { ...columns, [idColumn]: versionId, end: storedDateTimes.toStorage(audit.now), updated_by: audit.actor };
  const names = Object.keys(copy);
  await sql`insert into ${sql.table(table)} (${sql.join(names.map((name) => sql.ref(name)))}) values (${sql.join(names.map((name) => copy[name]))})`.execute(
    transaction,
  );
  return versionId;
}

/**
 * Soft-deletes the live rule whose public id column equals `uuid`, in one transaction, recorded
 * in `journal` as a `kind` delete with the rule as `readLive` reads it (API form) as `before`.
 *
 * @param notFound - the error for an unknown or already deleted rule; thrown inside the
 *   transaction, so a refused delete writes nothing, not even the configuration version
 *   (fix, issue 11: the 404 came after the commit).
 * @throws the `notFound` error.
 */
export async function softDeleteRule(
  database: Database,
  table: 'hashmap_mappings' | 'pyscripts_scripts',
  idColumn: 'mapping_id' | 'script_id',
  uuid: string,
  audit: Audit,
  notFound: (uuid: string) => Error,
  change: { kind: string; journal: ChangeJournal; readLive: (transaction: Transaction, uuid: string) => Promise<Record<string, unknown>> },
): Promise<void> {
  const { kind, journal, readLive } = change;
  await inWriteTransaction(database, journal, async (transaction) => {
    // What the delete removes from the live rules, for the audit trail; an unknown or deleted rule is the 404.
    const before = await readLive(transaction, uuid);
    const result = await sql`update ${sql.table(table)} set deleted = ${database.storedDateTimes.toStorage(audit.now)}, deleted_by = ${audit.actor}
        where ${sql.ref(idColumn)} = ${uuid} and deleted is null`.execute(transaction);
    if ((result.numAffectedRows ?? 0n) === 0n) throw notFound(uuid);
    journal.record({ kind, objectId: uuid, action: 'delete', before, after: null });
  });
}
