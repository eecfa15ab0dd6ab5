/**
 * TypeBox building blocks shared by the modules' request and response schemas. Nullable values
 * use JSON-schema type arrays (not `anyOf`), which fast-json-stringify serialises quickly.
 */
import { Type, type Static, type TSchema, type TUnsafe } from 'typebox';

/**
 * An id query filter (`service_id=…`): compared with the stored ids, so text that is not a UUID
 * matches nothing. CloudKitty compat: WSME never checks a query argument's UUID type, and Horizon's
 * "Create new Field" asks `GET H/fields/?service_id=instance` (a 400 broke its form).
 */
export const IdFilter = Type.String({ description: 'UUID; other text matches nothing' });

/** `string | null` as `{"type": ["string", "null"]}`. */
export function NullableString(options: { maxLength?: number; minLength?: number; description?: string } = {}): TUnsafe<string | null> {
  return Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });
}

/** A datetime in a response: UTC text with offset, or null. */
export const NullableDateTime = NullableString({ description: 'UTC datetime, e.g. 2026-12-01T10:00:00+00:00' });

/** A decimal on input: a JSON number or numeric string, checked by `parseDecimal`. */
export const DecimalInput = Type.Unsafe<number | string>({ type: ['number', 'string'], description: 'decimal number or numeric string' });

/** A datetime on input: ISO 8601 text, or null where the attribute may be cleared. */
export const DateTimeInput = NullableString({ description: 'ISO 8601 datetime; without offset it is UTC' });

/** Any echoed read-only value: compared with the stored one on update, otherwise ignored. */
export const EchoedValue = Type.Unsafe<unknown>({ description: 'read-only; ignored when unchanged' });

/** Query-string booleans as CloudKitty's client sends them (`True`). */
export const BooleanText = Type.String({ enum: ['true', 'True', '1', 'false', 'False', '0'] });

/** Parses a query-string boolean already checked against {@link BooleanText}. */
export function queryBoolean(text: string | undefined): boolean | undefined {
  if (text === undefined) return undefined;
  return text === 'true' || text === 'True' || text === '1';
}

/** A query-string object schema that refuses unknown parameters (CloudKitty compat). */
export function QueryString<T extends Record<string, TSchema>>(properties: T) {
  return Type.Object(properties, { additionalProperties: false });
}

/**
 * An object used as a map: entries by name (`{"compute": {...}}`), the names checked by
 * `names` (`propertyNames`), every value by `value`.
 */
export function NamedMap<T extends TSchema>(names: { minLength?: number; maxLength?: number; pattern?: string }, value: T, description: string) {
  return Type.Unsafe<Record<string, Static<T>>>({ type: 'object', propertyNames: { type: 'string', ...names }, additionalProperties: value, description });
}
