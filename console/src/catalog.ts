/**
 * The hashmap configuration as the console shows it: every service, field, group, mapping and
 * threshold from the v1 API (docs/api.md §4), with lookups from ids to names so that no page
 * shows a UUID.
 */
import {
  listFields,
  listGroups,
  listMappings,
  listServices,
  listThresholds,
  type Field,
  type Group,
  type Mapping,
  type Service,
  type Threshold,
} from './api/hashmap.js';

export type { Field, Group, Mapping, Service, Threshold } from './api/hashmap.js';

/** Everything the hashmap module holds, and names for ids. */
export interface Catalog {
  services: Service[];
  fields: Field[];
  groups: Group[];
  /** Non-deleted mappings (and deleted ones too when loaded with `deleted: true`). */
  mappings: Mapping[];
  thresholds: Threshold[];
  serviceById: Map<string, Service>;
  fieldById: Map<string, Field>;
  groupById: Map<string, Group>;
}

/** The service a mapping or threshold belongs to, through its field when it has one. */
export function serviceOf(catalog: Catalog, rule: { service_id: string | null; field_id: string | null }): Service | undefined {
  const serviceId = rule.service_id ?? (rule.field_id === null ? undefined : catalog.fieldById.get(rule.field_id)?.service_id);
  return serviceId === undefined ? undefined : catalog.serviceById.get(serviceId);
}

/** A group's name, or `—` for none (CloudKitty's `_DEFAULT_` group). */
export function groupName(catalog: Catalog, groupId: string | null): string {
  return groupId === null ? '—' : (catalog.groupById.get(groupId)?.name ?? groupId);
}

/**
 * Loads the whole hashmap configuration: the lists in parallel, then each service's fields (the
 * API lists fields per service only). `deleted: true` includes soft-deleted mappings (history).
 *
 * @throws ApiError when a call is refused.
 */
export async function loadCatalog(options: { deleted?: boolean } = {}): Promise<Catalog> {
  const servicesLoaded = listServices();
  // Each service's fields are asked for as soon as the services are known, not after the (much
  // longer) list of mappings has been read.
  const fieldsLoaded = servicesLoaded.then(async (services) => (await Promise.all(services.map(listFields))).flat());
  const [services, fields, groups, mappings, thresholds] = await Promise.all([
    servicesLoaded,
    fieldsLoaded,
    listGroups(),
    listMappings(options.deleted),
    listThresholds(),
  ]);
  return {
    services,
    fields,
    groups,
    mappings,
    thresholds,
    serviceById: new Map(services.map((service) => [service.service_id, service])),
    fieldById: new Map(fields.map((field) => [field.field_id, field])),
    groupById: new Map(groups.map((group) => [group.group_id, group])),
  };
}

/** A name the API made up when none was given at creation (32 random hex digits, docs/api.md §4). */
const GENERATED_NAME = /^[0-9a-f]{32}$/;

/**
 * Whether a rule's name was made up by the API (the CloudKitty client creates mappings without
 * one): such a name says nothing of the rule, so pages show where it applies instead.
 */
export function hasGeneratedName(rule: { name: string }): boolean {
  return GENERATED_NAME.test(rule.name);
}

/**
 * How pages name a mapping in a sentence or a label: its name, or where its generated name says
 * nothing (issue 26) its service, field and value (`compute / flavor = m1.large`, the service
 * alone for a service mapping) and its tenant.
 */
export function mappingName(catalog: Catalog, mapping: Mapping): string {
  const field = mapping.field_id === null ? undefined : catalog.fieldById.get(mapping.field_id);
  return mappingNameAt(mapping, serviceOf(catalog, mapping)?.name ?? '?', field?.name);
}

/** {@link mappingName} for a mapping of the service and field named (`fieldName` undefined for a service mapping). */
export function mappingNameAt(mapping: Mapping, serviceName: string, fieldName: string | undefined): string {
  if (!hasGeneratedName(mapping)) return mapping.name;
  const place = fieldName === undefined ? serviceName : `${serviceName} / ${fieldName} = ${mapping.value ?? ''}`;
  return mapping.tenant_id === null ? place : `${place} (tenant ${mapping.tenant_id})`;
}
