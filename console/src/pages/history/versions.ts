/**
 * A rule's versions over time, for the history page: every mapping or script sharing a name,
 * soft-deleted ones included (`?deleted=true`), ordered by start, each with its state, its dates,
 * what it charges or runs, and who created, updated and deleted it (CloudKitty's audit columns).
 */
import { groupName, loadCatalog, serviceOf, type Catalog, type Mapping } from '../../catalog.js';
import type { RuleState } from '../../components/state-badge.js';
import { validityState } from '../../validity.js';
import { listScripts, type Script } from '../../api/scripts.js';
import { formatDecimal, orDash } from '../../format.js';

/** The kinds of versioned rule, as the route names them. */
export type VersionedKind = 'mappings' | 'scripts';

/** One version of a rule, in the words the page shows. */
export interface RuleVersion {
  key: string;
  /** Its validity state now, or `deleted` when soft-deleted (it no longer rates anything). */
  state: RuleState;
  start: string | null;
  end: string | null;
  /** What the version says, by column (the same columns for every version of a kind). */
  details: string[];
  createdAt: string | null;
  createdBy: string | null;
  updatedBy: string | null;
  deletedAt: string | null;
  deletedBy: string | null;
}

/** The detail columns of each kind, in the order of {@link RuleVersion.details}. */
export const DETAIL_COLUMNS: Record<VersionedKind, string[]> = {
  mappings: ['Service / field', 'Value', 'Type', 'Cost', 'Group', 'Tenant', 'Description'],
  scripts: ['Checksum (SHA-512)', 'Description'],
};

/** Whether `kind` is one the history page knows. */
export function isVersionedKind(kind: string | undefined): kind is VersionedKind {
  return kind === 'mappings' || kind === 'scripts';
}

/** A datetime as epoch ms, none first. */
const timeOf = (value: string | null) => (value === null ? -Infinity : Date.parse(value));

const byStart = (left: RuleVersion, right: RuleVersion) => timeOf(left.start) - timeOf(right.start) || timeOf(left.createdAt) - timeOf(right.createdAt);

function stateOf(rule: { start: string | null; end: string | null; deleted: string | null }, now: number): RuleState {
  return rule.deleted === null ? validityState(rule.start, rule.end, now) : 'deleted';
}

function placeOf(catalog: Catalog, mapping: Mapping): string {
  const service = serviceOf(catalog, mapping)?.name ?? '—';
  const field = mapping.field_id === null ? undefined : catalog.fieldById.get(mapping.field_id)?.name;
  return field === undefined ? service : `${service} / ${field}`;
}

function mappingVersion(catalog: Catalog, mapping: Mapping, now: number): RuleVersion {
  return {
    key: mapping.mapping_id,
    state: stateOf(mapping, now),
    start: mapping.start,
    end: mapping.end,
    details: [
      placeOf(catalog, mapping),
      orDash(mapping.value),
      mapping.type,
      formatDecimal(mapping.cost),
      groupName(catalog, mapping.group_id),
      orDash(mapping.tenant_id),
      orDash(mapping.description),
    ],
    createdAt: mapping.created_at,
    createdBy: mapping.created_by,
    updatedBy: mapping.updated_by,
    deletedAt: mapping.deleted,
    deletedBy: mapping.deleted_by,
  };
}

function scriptVersion(script: Script, now: number): RuleVersion {
  return {
    key: script.script_id,
    state: stateOf(script, now),
    start: script.start,
    end: script.end,
    details: [script.checksum, orDash(script.description)],
    createdAt: script.created_at,
    createdBy: script.created_by,
    updatedBy: script.updated_by,
    deletedAt: script.deleted,
    deletedBy: script.deleted_by,
  };
}

/**
 * Every version of the `kind` rule named `name`, deleted ones included, by start (then creation);
 * states taken at `now` (epoch ms). Empty when no rule ever had that name.
 *
 * @throws ApiError when a call is refused.
 */
export async function loadVersions(kind: VersionedKind, name: string, now: number = Date.now()): Promise<RuleVersion[]> {
  if (kind === 'scripts') {
    return (await listScripts(true))
      .filter((script) => script.name === name)
      .map((script) => scriptVersion(script, now))
      .sort(byStart);
  }
  const catalog = await loadCatalog({ deleted: true });
  return catalog.mappings
    .filter((mapping) => mapping.name === name)
    .map((mapping) => mappingVersion(catalog, mapping, now))
    .sort(byStart);
}
