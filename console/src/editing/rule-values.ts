/**
 * How the editor writes the API's values into its inputs and reads them back: every input holds
 * text, an empty one meaning "unset" (null, or the server's default on a create).
 */
import type { Catalog } from '../catalog.js';
import { plainDecimal } from '../decimal-text.js';
import { fromUtcDateTimeLocal, toUtcDateTimeLocal } from '../components/utc-datetime-input.js';

/** A decimal from the API (`"1.5000000000000000000000000000"`) as an input's text (`1.5`); empty for null. */
export function decimalInput(value: string | null): string {
  if (value === null) return '';
  return plainDecimal(value);
}

/** An API datetime (ISO with offset) as a UTC `datetime-local` value; empty for null. */
export function dateTimeInput(value: string | null): string {
  return value === null ? '' : toUtcDateTimeLocal(new Date(value));
}

/**
 * A UTC `datetime-local` value as the ISO text the API takes (`2026-12-01T10:00:00Z`); null when
 * empty. An unreadable value is sent as typed, so that the server's fault names it.
 */
export function dateTimeFromInput(value: string): string | null {
  return value === '' ? null : (fromUtcDateTimeLocal(value) ?? value);
}

/** An optional text input's value for the API: null when empty (blank). */
export function textOrNull(value: string): string | null {
  return value.trim() === '' ? null : value.trim();
}

/** The two rule types, as the type select offers them. */
export const TYPE_OPTIONS = [
  { value: 'flat', label: 'flat — a cost' },
  { value: 'rate', label: 'rate — a multiplier of the price' },
] as const;

/** A rule type the API takes. */
export type RuleType = (typeof TYPE_OPTIONS)[number]['value'];

/**
 * A type select's or a stored rule's type as the API takes it: the select offers only these, and a
 * row CloudKitty wrote with another is sent as it is, for the server to refuse with its fault.
 */
export function ruleType(value: string): RuleType {
  return value as RuleType;
}

/** The group select's options: none (CloudKitty's default group), then the groups by name. */
export function groupOptions(catalog: Catalog): { value: string; label: string }[] {
  const groups = [...catalog.groups].sort((left, right) => left.name.localeCompare(right.name));
  return [{ value: '', label: '— none (default group)' }, ...groups.map((group) => ({ value: group.group_id, label: group.name }))];
}

/**
 * The body of a write: `attribute → API value` for the attributes of `toApi` whose edited input
 * means another API value than the stored one (`2026-12-01T10:00` and `…T10:00:00` are the same).
 */
export function changedAttributes<Values extends Record<string, string>>(
  stored: Values,
  edited: Values,
  toApi: { [Attribute in keyof Values]?: (value: string) => string | null },
): Record<string, string | null> {
  const changes: Record<string, string | null> = {};
  for (const [attribute, convert] of Object.entries(toApi) as [keyof Values & string, (value: string) => string | null][]) {
    const value = convert(edited[attribute]);
    if (value !== convert(stored[attribute])) changes[attribute] = value;
  }
  return changes;
}

/** Where a rule hangs, by names: `compute` (a service) or `compute / flavor` (a field). */
export function placeName(catalog: Catalog, parent: { service_id: string } | { field_id: string }): string {
  if ('service_id' in parent) return catalog.serviceById.get(parent.service_id)?.name ?? 'an unknown service';
  const field = catalog.fieldById.get(parent.field_id);
  if (field === undefined) return 'an unknown field';
  return `${catalog.serviceById.get(field.service_id)?.name ?? 'an unknown service'} / ${field.name}`;
}
