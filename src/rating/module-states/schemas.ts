/** TypeBox schemas of the module API (rating.md §2): v1 objects carry `hot-config`, v2 `hot_config`. */
import { Type, type Static } from 'typebox';
import { EchoedValue, QueryString } from '../common/schemas.js';

/** A module's priority: an SQL `integer` (fix, issue 11: 1e308 reached the database and answered 500). */
export const Priority = Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'higher rates first' });

/** A module as v1 shows it (CloudKitty's WSME `CloudkittyModule`: `hot-config` with a dash). */
export const ModuleV1 = Type.Object({
  module_id: Type.String(),
  description: Type.String(),
  enabled: Type.Boolean(),
  'hot-config': Type.Boolean(),
  priority: Type.Integer(),
});
/** {@link ModuleV1} as a value. */
export type ModuleV1 = Static<typeof ModuleV1>;
/** `GET /v1/rating/modules`. */
export const ModuleV1Collection = Type.Object({ modules: Type.Array(ModuleV1) });

/** v1 PUT: the client echoes the whole module; only `enabled` and `priority` are applied. */
export const ModuleV1UpdateBody = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    priority: Type.Optional(Priority),
    module_id: Type.Optional(EchoedValue),
    description: Type.Optional(EchoedValue),
    'hot-config': Type.Optional(EchoedValue),
  },
  { additionalProperties: false },
);

/** A module as v2 shows it (`hot_config` with an underscore). */
export const ModuleV2 = Type.Object({
  module_id: Type.String(),
  description: Type.String(),
  enabled: Type.Boolean(),
  hot_config: Type.Boolean(),
  priority: Type.Integer(),
});
/** {@link ModuleV2} as a value. */
export type ModuleV2 = Static<typeof ModuleV2>;
/** `GET /v2/rating/modules`. */
export const ModuleV2Collection = Type.Object({ modules: Type.Array(ModuleV2) });

/** v2 PUT: a partial body. */
export const ModuleV2UpdateBody = Type.Object({ enabled: Type.Optional(Type.Boolean()), priority: Type.Optional(Priority) }, { additionalProperties: false });

/** The client sends a redundant `?module_id=` on v1 GET. */
export const ModuleIdQuery = QueryString({ module_id: Type.Optional(Type.String()) });
