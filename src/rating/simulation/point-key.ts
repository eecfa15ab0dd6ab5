/**
 * What tells two stored points apart for the simulation's table of distinct points (engine.ts):
 * the text of a `groupby` or `metadata`, the tenant a point is priced for.
 */
import { JsonNumberText } from '../../kernel/json-number.js';
import type { StoredPoint } from './stored-dataframe.js';

/** The tenant of a point: its `groupby.project_id` (CloudKitty's default `scope_key`). */
export function projectOf(point: StoredPoint): string | null {
  const project = point.groupby.project_id;
  return typeof project === 'string' ? project : project instanceof JsonNumberText ? project.text : null;
}

/** `JSON.rawJSON` (Node ≥ 21; not yet in TypeScript's library): a number's text written as is by `JSON.stringify`. */
const rawJson = (text: string): unknown => (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(text);

/** A nested value's JSON, numbers as their source text. */
function nestedKey(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const original = this[key];
  return original instanceof JsonNumberText ? rawJson(original.text) : value;
}

/**
 * One text per distinct `groupby` or `metadata`, telling apart every two that a module could price
 * differently. Members that are all strings, plain numbers, booleans or null: the object's JSON
 * (V8's fast path; JSON escapes every string, so no text a tenant chose makes two alike). With a
 * number kept as its source text (`2.0` ≠ `2`) or a nested value: each member's name and value
 * with their lengths in front, after a `#` no JSON text starts with.
 */
export function descKey(desc: Record<string, unknown>): string {
  for (const name in desc) {
    const value = desc[name];
    if (typeof value === 'object' && value !== null) return sourceTextKey(desc);
  }
  return JSON.stringify(desc);
}

/** {@link descKey} of an object with numbers as their source text or nested values. */
function sourceTextKey(desc: Record<string, unknown>): string {
  let key = '#';
  for (const name in desc) {
    const value = desc[name];
    const text = value instanceof JsonNumberText ? `n${value.text}` : `j${JSON.stringify(value, nestedKey) ?? ''}`;
    key += `${name.length}:${name}${text.length}:${text}`;
  }
  return key;
}

/**
 * Whether two stored points have the same unit, groupby and metadata (the same resource), and so
 * are priced alike for the same quantity: members compared by value in any order (no module reads
 * their order), numbers by their source text, a nested value other than the very same object
 * counted as different. Allocates nothing: what the simulation compares a point with before it
 * builds a key.
 */
export function sameResource(point: StoredPoint, other: StoredPoint): boolean {
  return point.unit === other.unit && sameMembers(point.groupby, other.groupby) && sameMembers(point.metadata, other.metadata);
}

function sameMembers(desc: Record<string, unknown>, other: Record<string, unknown>): boolean {
  let members = 0;
  for (const name in desc) {
    const value = desc[name];
    const otherValue = other[name];
    if (value !== otherValue && !(value instanceof JsonNumberText && otherValue instanceof JsonNumberText && value.text === otherValue.text)) return false;
    members += 1;
  }
  for (const _name in other) members -= 1;
  return members === 0;
}
