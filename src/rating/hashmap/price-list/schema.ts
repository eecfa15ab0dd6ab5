/**
 * The hashmap members of a price-list document (docs/price-list.md §1): `groups` by name and
 * `services` by name with their mappings, thresholds and fields. Costs and levels are numbers or
 * decimal strings, read exactly from their source text (`read.ts`).
 */
import { Type } from 'typebox';
import { NamedMap, NullableString } from '../../common/schemas.js';
import { COLUMN_WIDTH, DESCRIPTION_LENGTH } from '../../../database/column-widths.js';
import { RULE_TYPES } from '../schemas.js';

const Decimal = Type.Unsafe<number | string>({
  type: ['number', 'string'],
  description: 'exact decimal: a number read from its source text, or a decimal string',
});
const DateTime = NullableString({ description: 'ISO 8601 datetime; without offset it is UTC' });
const RuleType = Type.Unsafe<string>({ type: 'string', enum: [...RULE_TYPES], description: 'flat (default) or rate' });
const Tenant = NullableString({ maxLength: COLUMN_WIDTH.tenantId, description: 'project (tenant) id; absent or null: every project' });
const GroupName = NullableString({ minLength: 1, maxLength: COLUMN_WIDTH.name, description: 'a group listed in `groups`' });

/** A mapping: identified by its parent, value, tenant and group. */
export const DocumentMappingSchema = Type.Object(
  {
    value: Type.Optional(
      Type.Unsafe<string | number | null>({
        type: ['string', 'number', 'null'],
        maxLength: COLUMN_WIDTH.mappingValue,
        description: 'field mappings only (a number: its source text, as long)',
      }),
    ),
    type: Type.Optional(RuleType),
    cost: Decimal,
    tenant_id: Type.Optional(Tenant),
    group: Type.Optional(GroupName),
    name: Type.Optional(
      NullableString({ minLength: 1, maxLength: COLUMN_WIDTH.mappingName, description: 'shared by the versions of a rule; generated when absent' }),
    ),
    description: Type.Optional(NullableString({ maxLength: DESCRIPTION_LENGTH })),
    start: Type.Optional(DateTime),
    end: Type.Optional(DateTime),
  },
  { additionalProperties: false },
);

/** A threshold: identified by its parent, level, tenant and group. Not versioned. */
export const DocumentThresholdSchema = Type.Object(
  { level: Decimal, type: Type.Optional(RuleType), cost: Decimal, tenant_id: Type.Optional(Tenant), group: Type.Optional(GroupName) },
  { additionalProperties: false },
);

const Rules = {
  mappings: Type.Optional(Type.Array(DocumentMappingSchema)),
  thresholds: Type.Optional(Type.Array(DocumentThresholdSchema)),
};

const Name = Type.String({ minLength: 1, maxLength: COLUMN_WIDTH.name });

/** The hashmap's members: `groups` and `services`. */
export const hashmapPriceListMembers = {
  groups: Type.Array(Name, { description: 'Group names; created when missing, never deleted.' }),
  services: NamedMap(
    { minLength: 1, maxLength: COLUMN_WIDTH.name },
    Type.Object(
      {
        ...Rules,
        fields: Type.Optional(NamedMap({ minLength: 1, maxLength: COLUMN_WIDTH.name }, Type.Object(Rules, { additionalProperties: false }), 'Fields by name.')),
      },
      { additionalProperties: false },
    ),
    'Services by name; services and fields are created when missing, never deleted.',
  ),
};
