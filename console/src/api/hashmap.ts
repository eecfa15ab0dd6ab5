/**
 * The hashmap module's configuration through the v1 API (docs/api.md §4): its services, fields,
 * groups, mappings and thresholds, read and written. The shapes are the generated ones
 * (answers.ts); what the console does with them (names for ids, the editor's inputs) is above.
 */
import type { Answer, RequestBody } from './answers.js';
import { call, HASHMAP } from './client.js';

/** A service (`H/services`). */
export type Service = Answer<'/v1/rating/module_config/hashmap/services/{service_id}', 'get'>;
/** A field of a service (`H/fields?service_id=`). */
export type Field = Answer<'/v1/rating/module_config/hashmap/fields/{field_id}', 'get'>;
/** A group (`H/groups`). */
export type Group = Answer<'/v1/rating/module_config/hashmap/groups/{group_id}', 'get'>;
/**
 * A mapping: `cost` a decimal string (28 fraction digits; per unit of quantity per collection
 * period), dates ISO with offset or null, exactly one of `service_id` / `field_id`.
 */
export type Mapping = Answer<'/v1/rating/module_config/hashmap/mappings/{mapping_id}', 'get'>;
/** A threshold: `level` a decimal string (8 fraction digits), no validity interval. */
export type Threshold = Answer<'/v1/rating/module_config/hashmap/thresholds/{threshold_id}', 'get'>;

/** What a mapping's create sends. */
export type MappingCreation = RequestBody<'/v1/rating/module_config/hashmap/mappings', 'post'>;
/** What a mapping's change sends: only the attributes that change. */
export type MappingChange = RequestBody<'/v1/rating/module_config/hashmap/mappings/{mapping_id}', 'put'>;
/** What a threshold's create sends. */
export type ThresholdCreation = RequestBody<'/v1/rating/module_config/hashmap/thresholds', 'post'>;
/** What a threshold's change sends: only the attributes that change. */
export type ThresholdChange = RequestBody<'/v1/rating/module_config/hashmap/thresholds/{threshold_id}', 'put'>;

const at = (collection: string, id: string) => `${HASHMAP}/${collection}/${encodeURIComponent(id)}`;

/** Every service. @throws ApiError */
export async function listServices(): Promise<Service[]> {
  return (await call<Answer<'/v1/rating/module_config/hashmap/services', 'get'>>('GET', `${HASHMAP}/services`)).services;
}

/** The fields of one service (the API lists fields per service only). @throws ApiError */
export async function listFields(service: Service): Promise<Field[]> {
  const path = `${HASHMAP}/fields?service_id=${encodeURIComponent(service.service_id)}`;
  return (await call<Answer<'/v1/rating/module_config/hashmap/fields', 'get'>>('GET', path)).fields;
}

/** Every group. @throws ApiError */
export async function listGroups(): Promise<Group[]> {
  return (await call<Answer<'/v1/rating/module_config/hashmap/groups', 'get'>>('GET', `${HASHMAP}/groups`)).groups;
}

/** Every mapping; soft-deleted ones too with `deleted` (history, audit). @throws ApiError */
export async function listMappings(deleted = false): Promise<Mapping[]> {
  const path = `${HASHMAP}/mappings${deleted ? '?deleted=true' : ''}`;
  return (await call<Answer<'/v1/rating/module_config/hashmap/mappings', 'get'>>('GET', path)).mappings;
}

/** Every threshold. @throws ApiError */
export async function listThresholds(): Promise<Threshold[]> {
  return (await call<Answer<'/v1/rating/module_config/hashmap/thresholds', 'get'>>('GET', `${HASHMAP}/thresholds`)).thresholds;
}

/** A group's rules: its non-deleted mappings and its thresholds. */
export interface GroupRules {
  mappings: Mapping[];
  thresholds: Threshold[];
}

/** The rules of a group (`GET H/groups/{id}/mappings` and `…/thresholds`). @throws ApiError */
export async function listGroupRules(group: Group): Promise<GroupRules> {
  const [mappings, thresholds] = await Promise.all([
    call<Answer<'/v1/rating/module_config/hashmap/groups/{group_id}/mappings', 'get'>>('GET', `${at('groups', group.group_id)}/mappings`),
    call<Answer<'/v1/rating/module_config/hashmap/groups/{group_id}/thresholds', 'get'>>('GET', `${at('groups', group.group_id)}/thresholds`),
  ]);
  return { mappings: mappings.mappings, thresholds: thresholds.thresholds };
}

/** Creates a service. @throws ApiError (409 name taken) */
export function createService(name: string): Promise<Service> {
  return call<Service>('POST', `${HASHMAP}/services`, { name } satisfies RequestBody<'/v1/rating/module_config/hashmap/services', 'post'>);
}

/** Deletes a service with its fields and rules. @throws ApiError */
export async function deleteService(service: Service): Promise<void> {
  await call('DELETE', at('services', service.service_id));
}

/** Creates a field on a service. @throws ApiError (409 name taken) */
export function createField(serviceId: string, name: string): Promise<Field> {
  return call<Field>('POST', `${HASHMAP}/fields`, { service_id: serviceId, name } satisfies RequestBody<'/v1/rating/module_config/hashmap/fields', 'post'>);
}

/** Deletes a field with its rules. @throws ApiError */
export async function deleteField(field: Field): Promise<void> {
  await call('DELETE', at('fields', field.field_id));
}

/** Creates a group. @throws ApiError (409 `Group {name} already exists (UUID: {id})`, 400 bad name) */
export function createGroup(name: string): Promise<Group> {
  return call<Group>('POST', `${HASHMAP}/groups`, { name } satisfies RequestBody<'/v1/rating/module_config/hashmap/groups', 'post'>);
}

/**
 * Deletes a group (`DELETE H/groups` with the id in the body, as CloudKitty's client sends it).
 * Not `recursive`: its rules stay and lose their group (`group_id` → null). `recursive`: its
 * mappings are soft-deleted and its thresholds deleted for good.
 *
 * @throws ApiError (404 when already gone)
 */
export async function deleteGroup(group: Group, recursive: boolean): Promise<void> {
  await call('DELETE', `${HASHMAP}/groups`, { group_id: group.group_id, recursive });
}

/**
 * Creates a mapping. What `body` leaves out (an empty input) the server fills with its default or
 * refuses with a fault naming it (the editor shows it at that input).
 *
 * @throws ApiError with the server's fault
 */
export function createMapping(body: Partial<MappingCreation>): Promise<Mapping> {
  return call<Mapping>('POST', `${HASHMAP}/mappings`, body);
}

/** Changes a mapping: a running one accepts only `end`, an ended one nothing. @throws ApiError */
export function changeMapping(mapping: Mapping, change: MappingChange): Promise<Mapping> {
  return call<Mapping>('PUT', at('mappings', mapping.mapping_id), change);
}

/** Deletes a mapping (soft: it stays in its history). @throws ApiError */
export async function deleteMapping(mapping: Mapping): Promise<void> {
  await call('DELETE', at('mappings', mapping.mapping_id));
}

/** Creates a threshold; what `body` leaves out as {@link createMapping}. @throws ApiError with the server's fault */
export function createThreshold(body: Partial<ThresholdCreation>): Promise<Threshold> {
  return call<Threshold>('POST', `${HASHMAP}/thresholds`, body);
}

/** Changes a threshold. @throws ApiError with the server's fault */
export function changeThreshold(threshold: Threshold, change: ThresholdChange): Promise<Threshold> {
  return call<Threshold>('PUT', at('thresholds', threshold.threshold_id), change);
}

/** Deletes a threshold. @throws ApiError */
export async function deleteThreshold(threshold: Threshold): Promise<void> {
  await call('DELETE', at('thresholds', threshold.threshold_id));
}
