/**
 * TypeBox schemas of the hashmap resources (api.md §3-§4): response objects, request bodies and
 * query strings. Bodies refuse unknown attributes but accept the read-only ones the client echoes.
 */
import { Type, type Static } from 'typebox';
import { BooleanText, DateTimeInput, DecimalInput, EchoedValue, NullableDateTime, NullableString, QueryString, IdFilter } from '../common/schemas.js';
import { RULE_FILTERS } from '../common/rule-filters.js';
import { COLUMN_WIDTH, DESCRIPTION_LENGTH } from '../../database/column-widths.js';

/** Rule types, always in this order (fix: CloudKitty's order was unstable). */
export const RULE_TYPES = ['flat', 'rate'] as const;
export type RuleType = (typeof RULE_TYPES)[number];
const RuleTypeInput = Type.String({ enum: [...RULE_TYPES] });
const Name = Type.String({ minLength: 1, maxLength: COLUMN_WIDTH.name });
const Id = Type.String({ description: 'UUID' });
const NullableId = NullableString({ description: 'UUID' });

export const Service = Type.Object({ service_id: Id, name: Type.String() });
export type Service = Static<typeof Service>;
export const ServiceCollection = Type.Object({ services: Type.Array(Service) });
export const ServiceCreateBody = Type.Object({ name: Name, service_id: Type.Optional(EchoedValue) }, { additionalProperties: false });

export const Field = Type.Object({ field_id: Id, name: Type.String(), service_id: Id });
export type Field = Static<typeof Field>;
export const FieldCollection = Type.Object({ fields: Type.Array(Field) });
export const FieldCreateBody = Type.Object({ name: Name, service_id: Type.String(), field_id: Type.Optional(EchoedValue) }, { additionalProperties: false });

export const Group = Type.Object({ group_id: Id, name: Type.String() });
export type Group = Static<typeof Group>;
export const GroupCollection = Type.Object({ groups: Type.Array(Group) });
export const GroupCreateBody = Type.Object({ name: Name, group_id: Type.Optional(EchoedValue) }, { additionalProperties: false });

export const Mapping = Type.Object({
  mapping_id: Id,
  value: NullableString(),
  type: Type.String(),
  cost: NullableString({ description: 'decimal, 28 fraction digits; per unit of quantity per collection period (null only in rows CloudKitty wrote)' }),
  service_id: NullableId,
  field_id: NullableId,
  group_id: NullableId,
  tenant_id: NullableString(),
  name: Type.String(),
  description: NullableString(),
  start: NullableDateTime,
  end: NullableDateTime,
  created_at: NullableDateTime,
  deleted: NullableDateTime,
  created_by: NullableString(),
  updated_by: NullableString(),
  deleted_by: NullableString(),
});
export type Mapping = Static<typeof Mapping>;
export const MappingCollection = Type.Object({ mappings: Type.Array(Mapping) });

const mappingInputProperties = {
  value: Type.Optional(NullableString({ maxLength: COLUMN_WIDTH.mappingValue })),
  type: Type.Optional(RuleTypeInput),
  cost: DecimalInput,
  service_id: Type.Optional(NullableString()),
  field_id: Type.Optional(NullableString()),
  group_id: Type.Optional(NullableString()),
  tenant_id: Type.Optional(NullableString({ maxLength: COLUMN_WIDTH.tenantId })),
  name: Type.Optional(NullableString({ minLength: 1, maxLength: COLUMN_WIDTH.mappingName })),
  description: Type.Optional(NullableString({ maxLength: DESCRIPTION_LENGTH })),
  start: Type.Optional(DateTimeInput),
  end: Type.Optional(DateTimeInput),
  mapping_id: Type.Optional(EchoedValue),
  created_at: Type.Optional(EchoedValue),
  deleted: Type.Optional(EchoedValue),
  created_by: Type.Optional(EchoedValue),
  updated_by: Type.Optional(EchoedValue),
  deleted_by: Type.Optional(EchoedValue),
};
export const MappingCreateBody = Type.Object(mappingInputProperties, { additionalProperties: false });
export type MappingCreateBody = Static<typeof MappingCreateBody>;
export const MappingUpdateBody = Type.Partial(MappingCreateBody, { additionalProperties: false });
export type MappingUpdateBody = Static<typeof MappingUpdateBody>;

export const Threshold = Type.Object({
  threshold_id: Id,
  level: NullableString({ description: 'decimal, 8 fraction digits (null only in rows CloudKitty wrote)' }),
  type: Type.String(),
  cost: NullableString({ description: 'decimal, 28 fraction digits (null only in rows CloudKitty wrote)' }),
  service_id: NullableId,
  field_id: NullableId,
  group_id: NullableId,
  tenant_id: NullableString(),
});
export type Threshold = Static<typeof Threshold>;
export const ThresholdCollection = Type.Object({ thresholds: Type.Array(Threshold) });
export const ThresholdCreateBody = Type.Object(
  {
    level: DecimalInput,
    type: Type.Optional(RuleTypeInput),
    cost: DecimalInput,
    service_id: Type.Optional(NullableString()),
    field_id: Type.Optional(NullableString()),
    group_id: Type.Optional(NullableString()),
    tenant_id: Type.Optional(NullableString({ maxLength: COLUMN_WIDTH.tenantId })),
    threshold_id: Type.Optional(EchoedValue),
  },
  { additionalProperties: false },
);
export type ThresholdCreateBody = Static<typeof ThresholdCreateBody>;
export const ThresholdUpdateBody = Type.Partial(ThresholdCreateBody, { additionalProperties: false });
export type ThresholdUpdateBody = Static<typeof ThresholdUpdateBody>;

/** Filters by parent, group and tenant, shared by the mapping and threshold lists (api.md §4). */
const PARENT_FILTERS = {
  service_id: Type.Optional(IdFilter),
  field_id: Type.Optional(IdFilter),
  group_id: Type.Optional(IdFilter),
  no_group: Type.Optional(BooleanText),
  tenant_id: Type.Optional(Type.String()),
  filter_tenant: Type.Optional(BooleanText),
};

/** Mapping list filters (api.md §4). */
export const MappingListQuery = QueryString({ ...PARENT_FILTERS, ...RULE_FILTERS, all: Type.Optional(BooleanText) });
export type MappingListQuery = Static<typeof MappingListQuery>;

/** Threshold list filters (api.md §4). */
export const ThresholdListQuery = QueryString(PARENT_FILTERS);
export type ThresholdListQuery = Static<typeof ThresholdListQuery>;
