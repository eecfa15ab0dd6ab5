/**
 * The mapping writes the editor makes through the v1 API (docs/api.md §4, §6): create, change a
 * scheduled mapping, end a running one, a new version of a running one, delete (soft).
 */
import * as hashmap from '../api/hashmap.js';
import type { Mapping, MappingCreation } from '../api/hashmap.js';
import type { RuleParent } from './edit-request.js';
import { changedAttributes, ruleType, dateTimeFromInput, dateTimeInput, decimalInput, textOrNull } from './rule-values.js';

/** A mapping's attributes as the editor's inputs hold them (texts; empty = unset). */
export interface MappingInputs extends Record<string, string> {
  value: string;
  /** A decimal: per unit of quantity per collection period (flat), or a multiplier (rate). */
  cost: string;
  type: string;
  group_id: string;
  tenant_id: string;
  name: string;
  description: string;
  /** UTC `datetime-local` values. */
  start: string;
  end: string;
}

/** The inputs of `mapping`, or of a new mapping (flat, no group, starting now) when undefined. */
export function mappingInputs(mapping?: Mapping): MappingInputs {
  return {
    value: mapping?.value ?? '',
    cost: decimalInput(mapping?.cost ?? null),
    type: mapping?.type ?? 'flat',
    group_id: mapping?.group_id ?? '',
    tenant_id: mapping?.tenant_id ?? '',
    name: mapping?.name ?? '',
    description: mapping?.description ?? '',
    start: dateTimeInput(mapping?.start ?? null),
    end: dateTimeInput(mapping?.end ?? null),
  };
}

/** How each changeable attribute's input becomes the API's value. */
const TO_API = {
  value: textOrNull,
  cost: (cost: string) => cost.trim(),
  type: (type: string) => type,
  group_id: textOrNull,
  tenant_id: textOrNull,
  description: textOrNull,
  start: dateTimeFromInput,
  end: dateTimeFromInput,
} as const;

/**
 * Creates a mapping on `parent`: `POST H/mappings`. Empty inputs are left out (the server's
 * defaults: a random name, start now, no end).
 *
 * @throws ApiError with the server's fault.
 */
export async function createMapping(parent: RuleParent, inputs: MappingInputs): Promise<Mapping> {
  const body: Partial<MappingCreation> = { ...parent, type: ruleType(inputs.type) };
  if ('field_id' in parent) body.value = textOrNull(inputs.value);
  for (const attribute of ['cost', 'group_id', 'tenant_id', 'name', 'description'] as const) {
    if (inputs[attribute].trim() !== '') body[attribute] = inputs[attribute].trim();
  }
  for (const attribute of ['start', 'end'] as const) {
    if (inputs[attribute] !== '') body[attribute] = dateTimeFromInput(inputs[attribute]);
  }
  return hashmap.createMapping(body);
}

/**
 * Changes a mapping (`PUT H/mappings/{id}`), sending only the attributes whose input changed; a
 * running mapping accepts only `end`, an ended one nothing (the server says so).
 *
 * @returns false when nothing changed (no call made).
 * @throws ApiError with the server's fault.
 */
export async function changeMapping(mapping: Mapping, inputs: MappingInputs): Promise<boolean> {
  const changes = changedAttributes(mappingInputs(mapping), inputs, TO_API);
  if (Object.keys(changes).length === 0) return false;
  await hashmap.changeMapping(mapping, changes);
  return true;
}

/**
 * A new version of a running mapping with another cost from `start` (ISO) on, as CloudKitty's
 * rule versioning wants it: the running one ends at `start` (`PUT end`), then a copy with the
 * same name, value, type, group, tenant and description starts there (`POST`) and keeps the old
 * end. When the copy is refused, the old mapping gets its end back before the fault is thrown.
 *
 * @throws ApiError with the server's fault (of the `PUT`, or of the `POST` after the end was put back).
 */
export async function createMappingVersion(mapping: Mapping, cost: string, start: string): Promise<Mapping> {
  await hashmap.changeMapping(mapping, { end: start });
  const parent = mapping.field_id === null ? { service_id: mapping.service_id } : { field_id: mapping.field_id, value: mapping.value };
  try {
    return await hashmap.createMapping({
      ...parent,
      cost: cost.trim(),
      type: ruleType(mapping.type),
      group_id: mapping.group_id,
      tenant_id: mapping.tenant_id,
      name: mapping.name,
      description: mapping.description,
      start,
      end: mapping.end,
    });
  } catch (error) {
    await hashmap.changeMapping(mapping, { end: mapping.end }).catch(() => undefined);
    throw error;
  }
}

/** Deletes a mapping (soft: it stays in its history). @throws ApiError with the server's fault. */
export async function deleteMapping(mapping: Mapping): Promise<void> {
  await hashmap.deleteMapping(mapping);
}
