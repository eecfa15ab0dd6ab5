/** TypeBox schemas of the quote API (rating.md §1, §3). Points may carry extra keys; they pass through. */
import { Type, type Static } from 'typebox';
import { DecimalInput } from '../common/schemas.js';

const Scalars = Type.Record(Type.String(), Type.Unknown());

/** One point of a dataframe (rating.md §1). */
export const Point = Type.Object({
  vol: Type.Object({ unit: Type.Optional(Type.String()), qty: DecimalInput }),
  rating: Type.Optional(Type.Object({ price: Type.Optional(DecimalInput) })),
  groupby: Type.Optional(Scalars),
  metadata: Type.Optional(Scalars),
});
/** {@link Point} as a value. */
export type Point = Static<typeof Point>;

/** Usage by service name. */
export const Usage = Type.Record(Type.String(), Type.Array(Point));
/** {@link Usage} as a value. */
export type Usage = Static<typeof Usage>;

/** The rating period: ISO 8601 begin and end. */
export const Period = Type.Object({ begin: Type.String(), end: Type.String() });

/** `POST /v1/rating/quote` (CloudKitty's). */
export const QuoteV1Body = Type.Object(
  {
    resources: Type.Array(
      Type.Object({ service: Type.String({ minLength: 1 }), volume: DecimalInput, desc: Type.Optional(Scalars) }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);
/** {@link QuoteV1Body} as a value. */
export type QuoteV1Body = Static<typeof QuoteV1Body>;

/** `POST /v2/rating/quote` (beyond CloudKitty): whole dataframes, tenant, rating time, explain. */
export const QuoteV2Body = Type.Object(
  {
    usage: Usage,
    period: Type.Optional(Period),
    tenant_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    at: Type.Optional(Type.String()),
    explain: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
/** {@link QuoteV2Body} as a value. */
export type QuoteV2Body = Static<typeof QuoteV2Body>;
