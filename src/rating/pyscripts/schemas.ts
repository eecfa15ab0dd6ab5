/** TypeBox schemas of pyscripts scripts (api.md §3, §5). */
import { Type, type Static } from 'typebox';
import { BooleanText, DateTimeInput, EchoedValue, NullableDateTime, NullableString, QueryString } from '../common/schemas.js';
import { RULE_FILTERS } from '../common/rule-filters.js';
import { COLUMN_WIDTH, DESCRIPTION_LENGTH } from '../../database/column-widths.js';

export const Script = Type.Object({
  script_id: Type.String({ description: 'UUID' }),
  name: Type.String(),
  /** Left out of list items with `no_data=true` (CloudKitty compat). */
  data: Type.Optional(Type.String({ description: 'Python source' })),
  checksum: Type.String({ description: 'lowercase hex SHA-512 of the UTF-8 data' }),
  description: NullableString(),
  start: NullableDateTime,
  end: NullableDateTime,
  created_at: NullableDateTime,
  deleted: NullableDateTime,
  created_by: NullableString(),
  updated_by: NullableString(),
  deleted_by: NullableString(),
});
export type Script = Static<typeof Script>;
export const ScriptCollection = Type.Object({ scripts: Type.Array(Script) });

export const ScriptCreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: COLUMN_WIDTH.name }),
    data: Type.Optional(Type.String()),
    description: Type.Optional(NullableString({ maxLength: DESCRIPTION_LENGTH })),
    start: Type.Optional(DateTimeInput),
    end: Type.Optional(DateTimeInput),
    script_id: Type.Optional(EchoedValue),
    checksum: Type.Optional(EchoedValue),
    created_at: Type.Optional(EchoedValue),
    deleted: Type.Optional(EchoedValue),
    created_by: Type.Optional(EchoedValue),
    updated_by: Type.Optional(EchoedValue),
    deleted_by: Type.Optional(EchoedValue),
  },
  { additionalProperties: false },
);
export type ScriptCreateBody = Static<typeof ScriptCreateBody>;
export const ScriptUpdateBody = Type.Partial(ScriptCreateBody, { additionalProperties: false });
export type ScriptUpdateBody = Static<typeof ScriptUpdateBody>;

/** Script list filters (api.md §5). */
export const ScriptListQuery = QueryString({ no_data: Type.Optional(BooleanText), ...RULE_FILTERS });
export type ScriptListQuery = Static<typeof ScriptListQuery>;
