/**
 * The overview's latest changes, read from Tariff's audit trail (`GET /v2/rating/changes`, api.md
 * §9): who (the acting user: the Keystone user, the `X-User-Id`, or `anonymous`), what was done
 * and to which rule, described by names. A price-list apply shows as its own entry and one entry
 * per rule it changed (issue 26: the console read CloudKitty's audit columns, which saw no
 * apply's changes and said `unknown` for every row of noauth mode).
 */
import { listChanges, type AuditChange } from '../../api/changes.js';
import { serviceOf, type Catalog, type Mapping } from '../../catalog.js';

/** One change as the overview shows it: when (ISO), who, what was done to which rule (by names). */
export interface Change {
  at: string;
  user: string;
  /** `mapping replaced`, `price list applied`... */
  what: string;
  /** The rule's name and where it applies (`large (compute / flavor = m1.large)`). */
  rule: string;
  /** The price-list revision that made it, when an apply did. */
  revision: number | null;
}

/** Where a mapping applies, by names: `service`, or `service / field = value`. */
export function mappingPlace(catalog: Catalog, mapping: Mapping): string {
  const service = serviceOf(catalog, mapping)?.name ?? '?';
  if (mapping.field_id === null) return service;
  return `${service} / ${catalog.fieldById.get(mapping.field_id)?.name ?? '?'} = ${mapping.value ?? ''}`;
}

const ACTIONS: Record<AuditChange['action'], string> = { create: 'created', update: 'updated', delete: 'deleted', replace: 'replaced', end: 'ended' };

const text = (value: unknown): string => (value === null || value === undefined ? '' : String(value));

/** A price-list rule change's rule, from the diff's terms (parents and groups by name). */
function ruleOfTerms(kind: string, terms: Record<string, unknown>): string {
  const place = `${text(terms.service)}${terms.field ? ` / ${text(terms.field)}` : ''}`;
  switch (kind) {
    case 'mapping':
      return `${text(terms.name)} (${place}${terms.field ? ` = ${text(terms.value)}` : ''})`;
    case 'threshold':
      return `${place} from ${text(terms.level)}`;
    case 'field':
      return `${text(terms.service)} / ${text(terms.name)}`;
    case 'module':
      return text(terms.module_id);
    default:
      return text(terms.name);
  }
}

/** An API write's rule, from the object in API form (ids resolved through the catalog). */
function ruleOfObject(catalog: Catalog, change: AuditChange, object: Record<string, unknown>): string {
  switch (change.kind) {
    case 'mapping':
      return `${text(object.name)} (${mappingPlace(catalog, object as unknown as Mapping)})`;
    case 'threshold': {
      const rule = object as { service_id: string | null; field_id: string | null };
      const service = serviceOf(catalog, rule)?.name ?? '?';
      const field = rule.field_id === null ? '' : ` / ${catalog.fieldById.get(rule.field_id)?.name ?? '?'}`;
      return `${service}${field} from ${text(object.level)}`;
    }
    case 'module':
      return change.object_id;
    default:
      return text(object.name) || change.object_id;
  }
}

/** A change described by names. */
export function describedChange(catalog: Catalog, change: AuditChange): Change {
  const shown = { at: change.at, user: change.user_id, revision: change.revision };
  if (change.kind === 'price_list') return { ...shown, what: 'price list applied', rule: `revision ${change.object_id}` };
  const object = change.after ?? change.before ?? {};
  const rule = change.name !== null ? ruleOfTerms(change.kind, object) : ruleOfObject(catalog, change, object);
  return { ...shown, what: `${change.kind} ${ACTIONS[change.action]}`, rule };
}

/** The `limit` most recent changes, newest first, described by names. @throws ApiError as {@link listChanges} */
export async function latestChanges(catalog: Catalog, limit: number): Promise<Change[]> {
  return (await listChanges(limit)).map((change) => describedChange(catalog, change));
}
