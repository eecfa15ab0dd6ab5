/**
 * The diff of the scripts (docs/price-list.md §3, common/versioned-plan.ts) and its writes: a
 * changed `data` or `description` ends the version in force and starts a new one of the same
 * name; a moved `end` moves it.
 */
import { randomUUID } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import type { StoredDateTimes } from '../../../database/stored-datetimes.js';
import { formatOptionalApiDateTime } from '../../common/datetime.js';
import type { Audit } from '../../common/rule-storage.js';
import { planVersions, sameTime } from '../../common/versioned-plan.js';
import type { PriceListChange } from '../../contract/price-list-section.js';
import type { PyscriptsDb } from '../tables.js';
import type { DocumentScript, StoredScript } from './scripts.js';

/** What an apply writes to `pyscripts_scripts`. */
export interface ScriptWrites {
  remove: number[];
  end: number[];
  moveEnds: { id: number; end: Date | null }[];
  /** New versions, with the `script_id` chosen when planned (the audit trail names it). */
  insert: { script: DocumentScript; start: Date; newId: string }[];
}

/** A script in a diff's terms (the API's names; `checksum` stands for the source, `data` is left out). */
function scriptTerms(script: StoredScript | DocumentScript, start?: Date): Record<string, unknown> {
  return {
    ...('scriptId' in script ? { script_id: script.scriptId } : {}),
    name: script.name,
    checksum: script.checksum,
    description: script.description,
    start: formatOptionalApiDateTime(start ?? script.start),
    end: formatOptionalApiDateTime(script.end),
  };
}

/** Plans the scripts' changes at `effectiveAt`. */
export function planScripts(
  wanted: readonly DocumentScript[],
  stored: readonly StoredScript[],
  effectiveAt: Date,
): { changes: PriceListChange[]; objectIds: Map<PriceListChange, string>; writes: ScriptWrites } {
  const changes: PriceListChange[] = [];
  const objectIds = new Map<PriceListChange, string>();
  const record = (change: PriceListChange, objectId: string) => {
    changes.push(change);
    objectIds.set(change, objectId);
  };
  const writes: ScriptWrites = { remove: [], end: [], moveEnds: [], insert: [] };
  const names = new Set([...wanted.map((script) => script.name), ...stored.map((script) => script.name)]);
  const path = (name: string, start?: Date) =>
    `scripts[name=${name}${start && start.getTime() > effectiveAt.getTime() ? `,start=${start.toISOString().slice(0, 19)}Z` : ''}]`;
  for (const name of names) {
    planVersions(
      wanted.filter((script) => script.name === name),
      stored.filter((script) => script.name === name),
      effectiveAt,
      {
        same: (old, next) => old.checksum === next.checksum && old.description === next.description,
        keep: (old, next) => {
          if (sameTime(old.end, next.end)) return;
          writes.moveEnds.push({ id: old.id, end: next.end });
          record(
            {
              action: 'updated',
              resource: 'script',
              path: path(name, old.start),
              before: scriptTerms(old),
              after: { ...scriptTerms(old), end: formatOptionalApiDateTime(next.end) },
            },
            old.scriptId,
          );
        },
        add: (next, start, old) => {
          const newId = randomUUID();
          writes.insert.push({ script: next, start, newId });
          if (!old) {
            record({ action: 'added', resource: 'script', path: path(name, start), after: scriptTerms(next, start) }, newId);
            return;
          }
          if (old.start.getTime() < start.getTime()) writes.end.push(old.id);
          else writes.remove.push(old.id);
          record({ action: 'replaced', resource: 'script', path: path(name, start), before: scriptTerms(old), after: scriptTerms(next, start) }, newId);
        },
        end: (old) => {
          writes.end.push(old.id);
          record(
            {
              action: 'ended',
              resource: 'script',
              path: path(name),
              before: scriptTerms(old),
              after: { ...scriptTerms(old), end: formatOptionalApiDateTime(effectiveAt) },
            },
            old.scriptId,
          );
        },
        remove: (old) => {
          writes.remove.push(old.id);
          record({ action: 'deleted', resource: 'script', path: path(name, old.start), before: scriptTerms(old) }, old.scriptId);
        },
      },
    );
  }
  return { changes, objectIds, writes };
}

/** Writes the scripts' changes in the apply's transaction. */
export async function writeScripts(db: PyscriptsDb, writes: ScriptWrites, effectiveAt: Date, audit: Audit, times: StoredDateTimes): Promise<void> {
  const now = times.toStorage(audit.now);
  if (writes.remove.length > 0) {
    await db.updateTable('pyscripts_scripts').set({ deleted: now, deleted_by: audit.actor }).where('id', 'in', writes.remove).execute();
  }
  if (writes.end.length > 0) {
    await db
      .updateTable('pyscripts_scripts')
      .set({ end: times.toStorage(effectiveAt), updated_by: audit.actor })
      .where('id', 'in', writes.end)
      .execute();
  }
  for (const { id, end } of writes.moveEnds) {
    await db
      .updateTable('pyscripts_scripts')
      .set({ end: end === null ? null : times.toStorage(end), updated_by: audit.actor })
      .where('id', '=', id)
      .execute();
  }
  for (const { script, start, newId } of writes.insert) {
    await db
      .insertInto('pyscripts_scripts')
      .values({
        script_id: newId,
        name: script.name,
        data: deflateSync(Buffer.from(script.data, 'utf8')),
        checksum: script.checksum,
        description: script.description,
        start: times.toStorage(start),
        end: script.end === null ? null : times.toStorage(script.end),
        created_at: now,
        created_by: audit.actor,
      })
      .execute();
  }
}
