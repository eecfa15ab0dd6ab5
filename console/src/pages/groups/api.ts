/**
 * The hashmap module's groups through the v1 API (docs/api.md §4): creating and deleting a group
 * and reading the rules it holds.
 */
import { call, HASHMAP } from '../../api/client.js';
import type { Group, Mapping, Threshold } from '../../catalog.js';

/** A group's rules: its non-deleted mappings and its thresholds. */
export interface GroupRules {
  mappings: Mapping[];
  thresholds: Threshold[];
}

const groupPath = (group: Group) => `${HASHMAP}/groups/${encodeURIComponent(group.group_id)}`;

/** Creates a group. @throws ApiError (409 `Group {name} already exists (UUID: {id})`, 400 bad name) */
export function createGroup(name: string): Promise<Group> {
  return call<Group>('POST', `${HASHMAP}/groups`, { name });
}

/**
 * Deletes a group. Not `recursive`: its rules stay and lose their group (`group_id` → null).
 * `recursive`: its mappings are soft-deleted and its thresholds deleted for good.
 *
 * @throws ApiError (404 when already gone)
 */
export async function deleteGroup(group: Group, recursive: boolean): Promise<void> {
  await call('DELETE', `${HASHMAP}/groups`, { group_id: group.group_id, recursive });
}

/** The rules of a group (`GET H/groups/{id}/mappings` and `…/thresholds`). @throws ApiError */
export async function loadGroupRules(group: Group): Promise<GroupRules> {
  const [mappings, thresholds] = await Promise.all([
    call<{ mappings: Mapping[] }>('GET', `${groupPath(group)}/mappings`),
    call<{ thresholds: Threshold[] }>('GET', `${groupPath(group)}/thresholds`),
  ]);
  return { mappings: mappings.mappings, thresholds: thresholds.thresholds };
}
