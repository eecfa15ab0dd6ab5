/**
 * SQL for pyscripts scripts: versioned rules, soft-deleted. `data` is stored zlib-compressed
 * (CloudKitty compat), with the SHA-512 checksum of the uncompressed text.
 */
import { randomUUID } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import type { Database } from '../../database/connection.js';
import type { StoredDateTimes } from '../../database/stored-datetimes.js';
import { inWriteTransaction, type Transaction } from '../../database/transaction.js';
import type { ChangeJournal } from '../../database/change-journal.js';
import { scriptTables, type PyscriptsDb } from './tables.js';
import { matchesDescription, ruleFilterConditions, type RuleFilters } from '../common/rule-filters.js';
import { compareCodePoints } from '../common/text.js';
import { checkStorableValidity, keepEndedVersion, ruleColumnChanges, softDeleteRule, type Audit } from '../common/rule-storage.js';
import { validityOf, type RunningRuleUpdates } from '../common/versioning.js';
import { noSuchScript } from './errors.js';
import { findScriptConflict, planScriptUpdate, scriptChecksum, type ScriptDraft, type ScriptVersion } from './validation.js';
import type { Script, ScriptUpdateBody } from './schemas.js';

const SUMMARY_COLUMNS = [
  's.script_id',
  's.name',
  's.checksum',
  's.description',
  's.start',
  's.end',
  's.created_at',
  's.deleted',
  's.created_by',
  's.updated_by',
  's.deleted_by',
] as const;

function selectScripts(db: PyscriptsDb) {
  return db.selectFrom('pyscripts_scripts as s').select(SUMMARY_COLUMNS);
}

type ScriptRow = Awaited<ReturnType<ReturnType<typeof selectScripts>['executeTakeFirstOrThrow']>> & { data?: Buffer };

/** A script's API form; `times` reads the stored datetimes (wall time in CloudKitty's zone). */
function toScript(row: ScriptRow, times: StoredDateTimes): Script {
  const script: Script = {
    script_id: row.script_id,
    name: row.name,
    checksum: row.checksum,
    description: row.description,
    start: times.toApiText(row.start),
    end: times.toApiText(row.end),
    created_at: times.toApiText(row.created_at),
    deleted: times.toApiText(row.deleted),
    created_by: row.created_by,
    updated_by: row.updated_by,
    deleted_by: row.deleted_by,
  };
  if (row.data !== undefined) script.data = decompressedSource(row.data, row.checksum);
  return script;
}

/** Sources already decompressed, by checksum (the SHA-512 of the source: a content address). */
const sources = new Map<string, string>();
const SOURCE_CACHE_SIZE = 1000;

/**
 * The source text of stored `data`. Decompressing was a quarter of the cost of listing scripts
 * (measured), so each checksum is inflated once; the cache starts over past 1,000 entries.
 */
export function decompressedSource(data: Buffer, checksum: string): string {
  let source = sources.get(checksum);
  if (source === undefined) {
    source = inflateSync(data).toString('utf8');
    if (sources.size >= SOURCE_CACHE_SIZE) sources.clear();
    sources.set(checksum, source);
  }
  return source;
}

/**
 * A script as the audit trail records it: every attribute but `data`, which its `checksum`
 * stands for (a source may be a mebibyte; the trail and the log keep it out).
 */
function auditedScript(script: Script): Record<string, unknown> {
  const { data: _data, ...attributes } = script;
  return attributes;
}

/** A live (not deleted) script as the rating engine needs it; validity in epoch milliseconds. */
export interface LiveScript {
  scriptId: string;
  name: string;
  source: string;
  start: number;
  end: number | null;
}

/** PyScripts scripts. */
export class ScriptRepository {
  private readonly db: PyscriptsDb;

  /**
   * @param runningRuleUpdates - what an update of a running script's data or description does
   *   (`TARIFF_RUNNING_RULE_UPDATES`, versioning.ts).
   */
  constructor(
    private readonly database: Database,
    private readonly runningRuleUpdates: RunningRuleUpdates = 'new-version',
  ) {
    this.db = scriptTables(database.db);
  }

  /** Scripts matching the filters, in creation order; `withData: false` leaves `data` out. */
  async list(filters: RuleFilters, options: { withData: boolean }): Promise<Script[]> {
    let query = options.withData ? selectScripts(this.db).select('s.data') : selectScripts(this.db);
    for (const condition of ruleFilterConditions('pyscripts_scripts', 's', filters, this.database.storedDateTimes)) query = query.where(condition);
    const rows = await query.orderBy('s.id').execute();
    return rows.filter((row) => matchesDescription(filters, row.description)).map((row) => toScript(row, this.database.storedDateTimes));
  }

  /**
   * Every live script with its source and validity, in name order by code point (the order they
   * run in), sorted here: SQL's `order by name` follows PostgreSQL's locale.
   *
   * @param snapshot - the rating snapshot's read transaction (`RatingModule.loadRules`); the
   *   database's pool when left out.
   */
  async loadLive(snapshot?: Transaction): Promise<LiveScript[]> {
    const rows = await (snapshot ? scriptTables(snapshot) : this.db)
      .selectFrom('pyscripts_scripts')
      .select(['script_id', 'name', 'data', 'checksum', 'start', 'end'])
      .where('deleted', 'is', null)
      .orderBy('id')
      .execute();
    rows.sort((left, right) => compareCodePoints(left.name, right.name));
    const times = this.database.storedDateTimes;
    return rows.map((row) => ({
      scriptId: row.script_id,
      name: row.name,
      source: decompressedSource(row.data, row.checksum),
      start: times.epochMsOf(row.start),
      end: row.end === null ? null : times.epochMsOf(row.end),
    }));
  }

  /** @throws NotFoundError `No such script: None (UUID: {id})`, also when soft-deleted. */
  get(uuid: string): Promise<Required<Script>> {
    return this.getLive(this.db, uuid);
  }

  private async getLive(db: PyscriptsDb, uuid: string): Promise<Required<Script>> {
    const row = await selectScripts(db).select('s.data').where('s.script_id', '=', uuid).where('s.deleted', 'is', null).executeTakeFirst();
    if (!row) throw noSuchScript(uuid);
    return toScript(row, this.database.storedDateTimes) as Required<Script>;
  }

  /**
   * The live scripts named `name`, with their validity: where a name conflict can come from. Runs
   * while the configuration write lock is held.
   */
  private async namesakes(transaction: PyscriptsDb, name: string): Promise<ScriptVersion[]> {
    const times = this.database.storedDateTimes;
    const rows = await transaction
      .selectFrom('pyscripts_scripts')
      .select(['script_id', 'start', 'end'])
      .where('name', '=', name)
      .where('deleted', 'is', null)
      .orderBy('id')
      .execute();
    return rows.map((row) => ({ scriptId: row.script_id, start: times.fromStorage(row.start), end: row.end === null ? null : times.fromStorage(row.end) }));
  }

  /**
   * Creates a script in one transaction, recorded in `journal` (without its source, see
   * {@link auditedScript}).
   *
   * @throws ConflictError when a live script with the name has an intersecting validity interval.
   */
  create(draft: ScriptDraft, audit: Audit, journal: ChangeJournal): Promise<Required<Script>> {
    checkStorableValidity(draft, this.database.storedDateTimes);
    return inWriteTransaction(this.database, journal, async (tariffTransaction, serialize) => {
      const transaction = scriptTables(tariffTransaction);
      await serialize();
      const scriptId = randomUUID();
      const conflict = findScriptConflict({ scriptId, name: draft.name, start: draft.start, end: draft.end }, await this.namesakes(transaction, draft.name));
      if (conflict) throw conflict;
      await transaction
        .insertInto('pyscripts_scripts')
        .values({
          script_id: scriptId,
          name: draft.name,
          data: deflateSync(Buffer.from(draft.data, 'utf8')),
          checksum: scriptChecksum(draft.data),
          description: draft.description,
          start: this.database.storedDateTimes.toStorage(draft.start, 'start'),
          end: draft.end === null ? null : this.database.storedDateTimes.toStorage(draft.end, 'end'),
          created_at: this.database.storedDateTimes.toStorage(audit.now),
          created_by: audit.actor,
        })
        .execute();
      const script = await this.getLive(transaction, scriptId);
      journal.record({ kind: 'script', objectId: scriptId, action: 'create', before: null, after: auditedScript(script) });
      return script;
    });
  }

  /**
   * Updates a live script in one transaction (api.md §6); a changed source must pass
   * `checkSource` (after the rule-state checks, before anything is written). Recorded in
   * `journal` with its attributes before and after (a changed source: a changed `checksum`).
   *
   * @throws NotFoundError, BadRequestError; ConflictError when a changed interval intersects that
   *   of a live script with the same name.
   */
  update(
    uuid: string,
    body: ScriptUpdateBody,
    audit: Audit,
    journal: ChangeJournal,
    checkSource: (name: string, source: string) => Promise<void> = async () => {},
  ): Promise<Required<Script>> {
    return inWriteTransaction(this.database, journal, async (tariffTransaction, serialize) => {
      const transaction = scriptTables(tariffTransaction);
      await serialize();
      const stored = await this.getLive(transaction, uuid);
      const { changes, result, intervalChanged, outcome } = planScriptUpdate(stored, body, audit.now, this.runningRuleUpdates);
      const ruleColumns = ruleColumnChanges(changes, audit, this.database.storedDateTimes);
      // As on create: a changed source is checked before the name conflict.
      if (changes.data !== undefined) await checkSource(result.name, result.data);
      if (intervalChanged) {
        const conflict = findScriptConflict({ scriptId: uuid, name: stored.name, ...validityOf(result) }, await this.namesakes(transaction, stored.name));
        if (conflict) throw conflict;
      }
      if (outcome === 'new-version') await keepEndedVersion(tariffTransaction, 'pyscripts_scripts', 'script_id', uuid, audit, this.database.storedDateTimes);
      await transaction
        .updateTable('pyscripts_scripts')
        .set({
          ...(changes.data !== undefined ? { data: deflateSync(Buffer.from(result.data, 'utf8')), checksum: result.checksum } : {}),
          ...ruleColumns,
        })
        .where('script_id', '=', uuid)
        .execute();
      const updated = await this.getLive(transaction, uuid);
      journal.record({ kind: 'script', objectId: uuid, action: 'update', before: auditedScript(stored), after: auditedScript(updated) });
      return updated;
    });
  }

  /** Soft-deletes a live script, recorded in `journal`. @throws NotFoundError when unknown or already deleted. */
  async delete(uuid: string, audit: Audit, journal: ChangeJournal): Promise<void> {
    await softDeleteRule(this.database, 'pyscripts_scripts', 'script_id', uuid, audit, noSuchScript, {
      kind: 'script',
      journal,
      readLive: async (transaction, id) => auditedScript(await this.getLive(scriptTables(transaction), id)),
    });
  }
}
