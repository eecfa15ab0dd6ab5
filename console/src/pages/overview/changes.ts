/**
 * The overview's latest changes, read from CloudKitty's audit columns: a mapping or script was
 * created (`created_at`, `created_by`) and perhaps deleted (`deleted`, `deleted_by`); the columns
 * keep who last updated it (`updated_by`) but not when, so an update shows on its rule's entries.
 */
import { serviceOf, type Catalog, type Mapping } from '../../catalog.js';
import type { Script } from '../scripts/api.js';

/** One change: when (ISO), who, what was done to which rule (described by names). */
export interface Change {
  at: string;
  user: string;
  action: 'created' | 'deleted';
  kind: 'mapping' | 'script';
  /** The rule's name and, for a mapping, where it applies (`compute / flavor = m1.large`). */
  rule: string;
  /** Who last updated the rule, when someone did. */
  updatedBy: string | null;
}

/** Where a mapping applies, by names: `service`, or `service / field = value`. */
export function mappingPlace(catalog: Catalog, mapping: Mapping): string {
  const service = serviceOf(catalog, mapping)?.name ?? '?';
  if (mapping.field_id === null) return service;
  return `${service} / ${catalog.fieldById.get(mapping.field_id)?.name ?? '?'} = ${mapping.value ?? ''}`;
}

/** The `limit` most recent creations and deletions of mappings and scripts, newest first. */
export function latestChanges(catalog: Catalog, scripts: Script[], limit: number): Change[] {
  const changes: Change[] = [];
  const add = (rule: Script | Mapping, kind: Change['kind'], description: string) => {
    if (rule.created_at !== null)
      changes.push({ at: rule.created_at, user: rule.created_by ?? 'unknown', action: 'created', kind, rule: description, updatedBy: rule.updated_by });
    if (rule.deleted !== null)
      changes.push({ at: rule.deleted, user: rule.deleted_by ?? 'unknown', action: 'deleted', kind, rule: description, updatedBy: rule.updated_by });
  };
  for (const mapping of catalog.mappings) add(mapping, 'mapping', `${mapping.name} (${mappingPlace(catalog, mapping)})`);
  for (const script of scripts) add(script, 'script', script.name);
  return changes.sort((left, right) => Date.parse(right.at) - Date.parse(left.at)).slice(0, limit);
}
