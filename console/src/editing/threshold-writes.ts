/** The threshold writes the editor makes through the v1 API (docs/api.md §4): create, change, delete. */
import * as hashmap from '../api/hashmap.js';
import type { Threshold, ThresholdCreation } from '../api/hashmap.js';
import type { RuleParent } from './edit-request.js';
import { changedAttributes, ruleType, decimalInput, textOrNull } from './rule-values.js';

/** A threshold's attributes as the editor's inputs hold them (texts; empty = unset). */
export interface ThresholdInputs extends Record<string, string> {
  /** The quantity from which the threshold applies (a decimal ≥ 0). */
  level: string;
  /** A decimal: per unit of quantity per collection period (flat), or a multiplier (rate). */
  cost: string;
  type: string;
  group_id: string;
  tenant_id: string;
}

/** The inputs of `threshold`, or of a new flat threshold without a group when undefined. */
export function thresholdInputs(threshold?: Threshold): ThresholdInputs {
  return {
    level: decimalInput(threshold?.level ?? null),
    cost: decimalInput(threshold?.cost ?? null),
    type: threshold?.type ?? 'flat',
    group_id: threshold?.group_id ?? '',
    tenant_id: threshold?.tenant_id ?? '',
  };
}

/** How each input becomes the API's value. */
const TO_API = {
  level: (level: string) => level.trim(),
  cost: (cost: string) => cost.trim(),
  type: (type: string) => type,
  group_id: textOrNull,
  tenant_id: textOrNull,
} as const;

/** Creates a threshold on `parent`: `POST H/thresholds`. @throws ApiError with the server's fault. */
export async function createThreshold(parent: RuleParent, inputs: ThresholdInputs): Promise<Threshold> {
  const body: Partial<ThresholdCreation> = { ...parent, type: ruleType(inputs.type) };
  for (const attribute of ['level', 'cost', 'group_id', 'tenant_id'] as const) {
    if (inputs[attribute].trim() !== '') body[attribute] = inputs[attribute].trim();
  }
  return hashmap.createThreshold(body);
}

/**
 * Changes a threshold (`PUT H/thresholds/{id}`), sending only the attributes whose input changed.
 *
 * @returns false when nothing changed (no call made).
 * @throws ApiError with the server's fault.
 */
export async function changeThreshold(threshold: Threshold, inputs: ThresholdInputs): Promise<boolean> {
  const changes = changedAttributes(thresholdInputs(threshold), inputs, TO_API);
  if (Object.keys(changes).length === 0) return false;
  await hashmap.changeThreshold(threshold, changes);
  return true;
}

/** Deletes a threshold. @throws ApiError with the server's fault. */
export async function deleteThreshold(threshold: Threshold): Promise<void> {
  await hashmap.deleteThreshold(threshold);
}
