/** TypeBox schemas of `GET /v2/rating/changes` (api.md §9). */
import { Type, type Static } from 'typebox';
import { NullableString, QueryString } from '../common/schemas.js';

/** Attributes in API form, or null. */
const NullableAttributes = Type.Unsafe<Record<string, unknown> | null>({ type: ['object', 'null'], additionalProperties: true });

/** One configuration change. */
export const Change = Type.Object({
  change_id: Type.Integer({ description: 'grows with every change, in commit order' }),
  at: Type.String({ description: 'when it committed, UTC, e.g. 2026-12-01T10:00:00+00:00' }),
  user_id: Type.String({ description: 'the acting user, as created_by records it' }),
  project_id: NullableString({ description: 'the Keystone project; null in noauth mode' }),
  request_id: Type.String({ description: 'the OpenStack request id (X-Openstack-Request-Id)' }),
  route: Type.String({ description: 'method and route template, e.g. PUT /v1/rating/module_config/hashmap/mappings/:mapping_id' }),
  kind: Type.String({ description: 'service, field, group, mapping, threshold, script, module, price_list' }),
  object_id: Type.String({ description: "the object's id (a module's name, a price list's revision)" }),
  action: Type.String({
    enum: ['create', 'update', 'delete', 'replace', 'end'],
    description: "replace and end: a price-list apply's rule changes (a new version takes over; the rule ends at effective_at)",
  }),
  before: NullableAttributes,
  after: NullableAttributes,
  revision: Type.Union([Type.Integer(), Type.Null()], {
    description: 'the configuration revision a price-list apply made, on its entry and each of its rule changes; null for other writes',
  }),
  name: NullableString({
    description: "a price-list rule change's place in the document, e.g. services[compute].fields[flavor].mappings[value=m1.large]; null for other writes",
  }),
});
export type Change = Static<typeof Change>;

/** A page of changes, newest first, and how many match in all. */
export const ChangeCollection = Type.Object({
  total: Type.Integer({ description: 'changes matching the filters, on every page' }),
  changes: Type.Array(Change),
});

/** The query: filters and the page (checked in routes.ts, so that each fault names its parameter). */
export const ChangeListQuery = QueryString({
  since: Type.Optional(Type.String({ description: 'ISO 8601: changes at or after this time' })),
  kind: Type.Optional(Type.String({ description: 'changes of this kind only' })),
  object_id: Type.Optional(Type.String({ description: "changes of this object only: its id (a module's name, a price list's revision)" })),
  revision: Type.Optional(Type.String({ description: 'the changes of the price-list apply that made this revision: its entry and its rule changes' })),
  offset: Type.Optional(Type.String({ description: 'changes skipped, newest first (default 0)' })),
  limit: Type.Optional(Type.String({ description: 'changes answered (default 100, at most TARIFF_CHANGES_MAX_LIMIT)' })),
});
