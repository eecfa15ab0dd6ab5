/**
 * List filters shared by the versioned rules (mappings and scripts), api.md §4-§5: `deleted`,
 * `start`, `end`, `created_by`, `updated_by`, `deleted_by`, `description`, `is_active`. All are
 * SQL conditions except `description`'s case-insensitive match, which every database would fold
 * differently: SQL keeps the rules with a description, {@link matchesDescription} decides.
 */
import { sql, type RawBuilder } from 'kysely';
import type { StoredDateTimes } from '../../database/stored-datetimes.js';
import { parseDateTime } from './datetime.js';
import { containsIgnoringCase } from './text.js';
import { Type } from 'typebox';
import { BooleanText, queryBoolean } from './schemas.js';

/** Parsed filters of a versioned-rule list. */
export interface RuleFilters {
  /** Include soft-deleted rules. */
  includeDeleted?: boolean;
  /** Rule start ≥ this. */
  startFrom?: Date;
  /** Rule end < this (open-ended rules excluded). */
  endBefore?: Date;
  createdBy?: string;
  updatedBy?: string;
  deletedBy?: string;
  /** Case-insensitive substring of the description (text.ts: `containsIgnoringCase`). */
  description?: string;
  /** true: active at `now` (not deleted, start ≤ now, end null or > now); false: the others. */
  isActive?: boolean;
  /** The time `isActive` is judged at. */
  now: Date;
}

/** Query-string schema properties of {@link RuleFilters}, spread into the list query schemas. */
export const RULE_FILTERS = {
  deleted: Type.Optional(BooleanText),
  start: Type.Optional(Type.String()),
  end: Type.Optional(Type.String()),
  created_by: Type.Optional(Type.String()),
  updated_by: Type.Optional(Type.String()),
  deleted_by: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  is_active: Type.Optional(BooleanText),
};

/** The query-string form of {@link RuleFilters}. */
export interface RuleFilterQuery {
  deleted?: string;
  start?: string;
  end?: string;
  created_by?: string;
  updated_by?: string;
  deleted_by?: string;
  description?: string;
  is_active?: string;
}

/**
 * Parses the shared filters of a list query.
 *
 * @throws BadRequestError for an invalid `start` or `end` datetime.
 */
export function ruleFiltersFrom(query: RuleFilterQuery, now: Date): RuleFilters {
  return {
    includeDeleted: queryBoolean(query.deleted),
    startFrom: query.start !== undefined ? parseDateTime(query.start, 'start', 'start') : undefined,
    endBefore: query.end !== undefined ? parseDateTime(query.end, 'end', 'end') : undefined,
    createdBy: query.created_by,
    updatedBy: query.updated_by,
    deletedBy: query.deleted_by,
    description: query.description,
    isActive: queryBoolean(query.is_active),
    now,
  };
}

/**
 * Whether a list shows superseded versions: only when it asks about time or deletion (`deleted`,
 * `start`, `end` or `is_active`).
 */
function showsHistory(filters: RuleFilters): boolean {
  return filters.includeDeleted === true || filters.startFrom !== undefined || filters.endBefore !== undefined || filters.isActive !== undefined;
}

/**
 * SQL conditions (to AND together) for the filters, on the rule table `table` aliased `alias`. For
 * `description` only `description is not null`: apply {@link matchesDescription} to the rows.
 *
 * Without a time or deletion filter, superseded versions are left out: a rule whose `end` is past
 * and which another rule of the same name continues from that `end`, deleted since or not (the
 * ended version an update of a running rule keeps, versioning.ts; a price list's replaced rules).
 * They still price the time before their end; the list shows one row per rule, as CloudKitty's
 * dashboard and client 4.6 expect after an edit and after a delete (fix: Horizon showed the edited
 * rule twice, and its old version again once the rule was deleted).
 *
 * @param storedDateTimes - the database's: times are compared as the columns hold them (wall time
 *   in CloudKitty's zone).
 * @throws BadRequestError (400) naming `start` or `end` when the filter's wall time is outside the
 *   stored years (StoredDateTimes.toStorage; fix, issue 24: a 500 on PostgreSQL).
 */
export function ruleFilterConditions(
  table: 'hashmap_mappings' | 'pyscripts_scripts',
  alias: string,
  filters: RuleFilters,
  storedDateTimes: StoredDateTimes,
): RawBuilder<boolean>[] {
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  const conditions: RawBuilder<boolean>[] = [];
  if (!showsHistory(filters)) {
    const now = storedDateTimes.toStorage(filters.now);
    conditions.push(sql<boolean>`(${column('end')} is null or ${column('end')} > ${now} or not exists (
      select 1 from ${sql.table(table)} as successor
      where successor.name = ${column('name')} and successor.id <> ${column('id')} and successor.start = ${column('end')}))`);
  }
  if (!filters.includeDeleted) conditions.push(sql<boolean>`${column('deleted')} is null`);
  if (filters.startFrom) conditions.push(sql<boolean>`${column('start')} >= ${storedDateTimes.toStorage(filters.startFrom, 'start')}`);
  if (filters.endBefore) conditions.push(sql<boolean>`${column('end')} < ${storedDateTimes.toStorage(filters.endBefore, 'end')}`);
  if (filters.createdBy !== undefined) conditions.push(sql<boolean>`${column('created_by')} = ${filters.createdBy}`);
  if (filters.updatedBy !== undefined) conditions.push(sql<boolean>`${column('updated_by')} = ${filters.updatedBy}`);
  if (filters.deletedBy !== undefined) conditions.push(sql<boolean>`${column('deleted_by')} = ${filters.deletedBy}`);
  if (filters.description !== undefined) conditions.push(sql<boolean>`${column('description')} is not null`);
  if (filters.isActive !== undefined) {
    const now = storedDateTimes.toStorage(filters.now);
    const active = sql<boolean>`(${column('deleted')} is null and ${column('start')} <= ${now} and (${column('end')} is null or ${column('end')} > ${now}))`;
    conditions.push(filters.isActive ? active : sql<boolean>`not ${active}`);
  }
  return conditions;
}

/**
 * The `description` filter, applied to the rows the SQL conditions returned: true without the
 * filter, else when the rule's description contains it ignoring case, the same on every
 * database (text.ts: `containsIgnoringCase`; `école` finds `ÉCOLE`). A rule without a
 * description never matches.
 */
export function matchesDescription(filters: Pick<RuleFilters, 'description'>, description: string | null): boolean {
  if (filters.description === undefined) return true;
  return description !== null && containsIgnoringCase(description, filters.description);
}
