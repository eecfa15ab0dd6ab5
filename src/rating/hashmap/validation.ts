/**
 * Hashmap validation rules (api.md §3-§6), pure: parsing of create bodies in CloudKitty's order of
 * checks, the parent rules, the update plans and the conflict tests. No I/O.
 */
import { randomFillSync } from 'node:crypto';
import { BadRequestError, ConflictError } from '../../kernel/errors.js';
import { COST_COLUMN, LEVEL_COLUMN, parseDecimal } from '../common/decimal.js';
import { formatApiDateTime, parseDateTime } from '../common/datetime.js';
import {
  checkNewValidity,
  checkValidityUpdate,
  intervalsOverlap,
  validityOf,
  type RunningRuleUpdates,
  type UpdateOutcome,
  type Validity,
} from '../common/versioning.js';
import { diffUpdate, lowercaseUuid, VERSIONED_RULE_ATTRIBUTES, type AttributeRule } from '../common/update.js';
import { queryBoolean } from '../common/schemas.js';
import { ruleFiltersFrom, type RuleFilterQuery, type RuleFilters } from '../common/rule-filters.js';
import { mappingExists, mappingNameUsed, thresholdExists, type ParentRef } from './errors.js';
import type { Mapping, MappingCreateBody, MappingUpdateBody, RuleType, Threshold, ThresholdCreateBody, ThresholdUpdateBody } from './schemas.js';

/** Parents named by a rule body: exactly one of them must be set. */
export interface RuleParents {
  service_id?: string | null;
  field_id?: string | null;
}

/**
 * The parent of a rule body.
 *
 * @throws BadRequestError `You can only specify one parent.` / `You must specify one parent.`
 */
export function parentOf(parents: RuleParents): ParentRef {
  if (parents.service_id != null && parents.field_id != null) throw new BadRequestError('You can only specify one parent.');
  if (parents.service_id != null) return { kind: 'service', id: parents.service_id.toLowerCase() };
  if (parents.field_id != null) return { kind: 'field', id: parents.field_id.toLowerCase() };
  throw new BadRequestError('You must specify one parent.');
}

/**
 * CloudKitty's value rules: a service mapping has no value, a field mapping must have one.
 *
 * @throws BadRequestError `You can't specify a value and a service_id.` /
 *   `You must specify a value for a field mapping.`
 */
export function checkMappingValue(parent: ParentRef, value: string | null): void {
  if (parent.kind === 'service' && value !== null) throw new BadRequestError("You can't specify a value and a service_id.");
  if (parent.kind === 'field' && value === null) throw new BadRequestError('You must specify a value for a field mapping.');
}

/** A mapping to create, validated; references are still UUIDs. */
export interface MappingDraft extends Validity {
  parent: ParentRef;
  value: string | null;
  type: RuleType;
  /** Fixed-scale decimal text, per unit of quantity per collection period. */
  cost: string;
  groupId: string | null;
  tenantId: string | null;
  name: string;
  description: string | null;
}

/** Random bytes for {@link generatedRuleName}, drawn 4 KiB at a time. */
const NAME_BYTES = Buffer.alloc(4096);
let nameOffset = NAME_BYTES.length;

/**
 * A default mapping name: 32 random hex digits. fix, issue 24: one `randomBytes(16)` per name
 * took 2.4 s of a 280,000-rule apply's event loop; the bytes now come from a pool filled 4 KiB at
 * a time (the same randomness).
 */
export function generatedRuleName(): string {
  if (nameOffset + 16 > NAME_BYTES.length) {
    randomFillSync(NAME_BYTES);
    nameOffset = 0;
  }
  nameOffset += 16;
  return NAME_BYTES.toString('hex', nameOffset - 16, nameOffset);
}

/**
 * Validates a mapping create body in CloudKitty's order: types (cost), dates (start in the past
 * unless `force`, end before start), then parents and value.
 *
 * @param now - the request time, whole seconds; the default `start`.
 * @throws BadRequestError with CloudKitty's messages.
 */
export function parseMappingCreate(body: MappingCreateBody, now: Date, force: boolean): MappingDraft {
  const cost = parseDecimal(body.cost, COST_COLUMN, 'cost');
  const start = body.start != null ? parseDateTime(body.start, 'start', 'start') : now;
  const end = body.end != null ? parseDateTime(body.end, 'end', 'end') : null;
  checkNewValidity({ start, end }, now, { startGiven: body.start != null, force });
  const parent = parentOf(body);
  const value = body.value ?? null;
  checkMappingValue(parent, value);
  return {
    parent,
    value,
    type: (body.type ?? 'flat') as RuleType,
    cost,
    groupId: body.group_id?.toLowerCase() ?? null,
    tenantId: body.tenant_id ?? null,
    name: body.name ?? generatedRuleName(),
    description: body.description ?? null,
    start,
    end,
  };
}

/** What identifies a mapping's rate: parent, value, tenant and group (null equals null). */
export interface MappingKey {
  parent: ParentRef;
  value: string | null;
  tenantId: string | null;
  groupId: string | null;
}

/** A live (non-deleted) mapping that may clash with a new or changed one. */
export interface LiveMapping extends MappingKey, Validity {
  mappingId: string;
  name: string;
}

/** What the database found that a mapping may clash with (live mappings only). */
export interface MappingClashes {
  /** Live mappings with the same name. */
  sameName: readonly (Validity & { mappingId: string })[];
  /** Live mappings with the same parent, value, tenant and group (null equals null). */
  sameKey: readonly (Validity & { mappingId: string })[];
}

/**
 * The conflict a mapping would cause: the same name, or the same key, with an intersecting
 * validity interval (half-open, see `intervalsOverlap`). A name is shared by a rule's versions:
 * a mapping may take the name of one whose interval it does not intersect (fix: CloudKitty refused
 * a new version with the name of the ended one). The mapping itself is never a clash.
 *
 * @returns the 409 to raise, or null.
 */
export function findMappingConflict(candidate: LiveMapping, clashes: MappingClashes): ConflictError | null {
  const namesake = clashes.sameName.find((other) => other.mappingId !== candidate.mappingId && intervalsOverlap(candidate, other));
  if (namesake !== undefined) return mappingNameUsed(candidate.name, namesake.mappingId);
  const overlapping = clashes.sameKey.find((other) => other.mappingId !== candidate.mappingId && intervalsOverlap(candidate, other));
  return overlapping ? mappingExists(candidate.value, candidate.parent, candidate.tenantId) : null;
}

const MAPPING_ATTRIBUTES: Record<string, AttributeRule> = {
  ...VERSIONED_RULE_ATTRIBUTES,
  mapping_id: { mutable: false, normalize: lowercaseUuid },
  service_id: { mutable: false, normalize: lowercaseUuid },
  field_id: { mutable: false, normalize: lowercaseUuid },
  value: { mutable: true },
  type: { mutable: true },
  cost: { mutable: true, normalize: (value) => parseDecimal(value, COST_COLUMN, 'cost') },
  group_id: { mutable: true, normalize: lowercaseUuid },
  tenant_id: { mutable: true },
};

/** What a mapping update changes, in API form. */
export interface MappingUpdatePlan {
  changes: Partial<Pick<Mapping, 'value' | 'type' | 'cost' | 'group_id' | 'tenant_id' | 'description' | 'start' | 'end'>>;
  /** The mapping as it will be, for the conflict test. */
  result: Mapping;
  /** Whether the key or the interval changes, so conflicts (key and name) must be looked for again. */
  needsConflictCheck: boolean;
  /** `new-version`: the stored terms are kept as an ended version until now, the new ones start now (versioning.ts). */
  outcome: UpdateOutcome;
}

/**
 * Plans a mapping update (api.md §6): absent attributes keep their values; echoed read-only and
 * immutable ones must be unchanged; a running rule may change `end` (not before now) and, per
 * `runningRuleUpdates`, its other terms from now on (a new version: `start` becomes now); an over
 * rule nothing; a rule not started yet anything, with the create checks applied again.
 *
 * @throws BadRequestError with CloudKitty's messages.
 */
export function planMappingUpdate(stored: Mapping, body: MappingUpdateBody, now: Date, runningRuleUpdates: RunningRuleUpdates = 'refuse'): MappingUpdatePlan {
  const { changes, changed } = diffUpdate(stored, body, MAPPING_ATTRIBUTES);
  const outcome = checkValidityUpdate(validityOf(stored), validityOf({ ...stored, ...changes }), changed, now, runningRuleUpdates);
  if (outcome === 'new-version') {
    changes.start = formatApiDateTime(now);
    changed.push('start');
  }
  const result = { ...stored, ...changes };
  if ('value' in changes) {
    checkMappingValue(stored.service_id !== null ? { kind: 'service', id: stored.service_id } : { kind: 'field', id: stored.field_id ?? '' }, result.value);
  }
  const keyOrInterval = ['value', 'group_id', 'tenant_id', 'start', 'end'];
  return {
    changes: changes,
    result,
    needsConflictCheck: changed.some((attribute) => keyOrInterval.includes(attribute)),
    outcome,
  };
}

/** A threshold to create, validated; references are still UUIDs. */
export interface ThresholdDraft {
  parent: ParentRef;
  /** Fixed-scale decimal text (8 fraction digits), a quantity or field value. */
  level: string;
  type: RuleType;
  /** Fixed-scale decimal text (28 fraction digits). */
  cost: string;
  groupId: string | null;
  tenantId: string | null;
}

/**
 * Validates a threshold create body: types (level, cost), then the parents.
 *
 * @throws BadRequestError with CloudKitty's messages.
 */
export function parseThresholdCreate(body: ThresholdCreateBody): ThresholdDraft {
  const level = parseDecimal(body.level, LEVEL_COLUMN, 'level');
  const cost = parseDecimal(body.cost, COST_COLUMN, 'cost');
  return {
    parent: parentOf(body),
    level,
    type: (body.type ?? 'flat') as RuleType,
    cost,
    groupId: body.group_id?.toLowerCase() ?? null,
    tenantId: body.tenant_id ?? null,
  };
}

const THRESHOLD_ATTRIBUTES: Record<string, AttributeRule> = {
  threshold_id: { mutable: false, normalize: lowercaseUuid },
  service_id: { mutable: false, normalize: lowercaseUuid },
  field_id: { mutable: false, normalize: lowercaseUuid },
  level: { mutable: true, normalize: (value) => parseDecimal(value, LEVEL_COLUMN, 'level') },
  cost: { mutable: true, normalize: (value) => parseDecimal(value, COST_COLUMN, 'cost') },
  type: { mutable: true },
  group_id: { mutable: true, normalize: lowercaseUuid },
  tenant_id: { mutable: true },
};

/**
 * Plans a threshold update: `level`, `cost`, `type`, `group_id` (null detaches) and `tenant_id`
 * may change; absent attributes keep their values.
 *
 * @throws BadRequestError for invalid values or a changed immutable attribute.
 */
export function planThresholdUpdate(stored: Threshold, body: ThresholdUpdateBody): { changes: Partial<Threshold>; result: Threshold } {
  const { changes } = diffUpdate(stored, body, THRESHOLD_ATTRIBUTES);
  if (changes.level === null || changes.cost === null || changes.type === null) {
    const attribute = ['level', 'cost', 'type'].find((name) => changes[name] === null) ?? 'level';
    throw new BadRequestError(`Invalid input for field/attribute ${attribute}. Value: 'None'. Mandatory field missing.`);
  }
  return { changes: changes, result: { ...stored, ...changes } };
}

/** A threshold that may clash: same parent, level, tenant and group (null equals null). */
export interface ThresholdKey {
  thresholdId: string;
  parent: ParentRef;
  /** Null only in a row CloudKitty wrote (its column is nullable); such a level equals no other. */
  level: string | null;
  tenantId: string | null;
  groupId: string | null;
}

/**
 * The 409 for a threshold whose level already exists for its parent and tenant, or null.
 * CloudKitty compat: with a tenant, the level is unique per parent and tenant whatever the group
 * (CloudKitty's constraints `uniq_service_threshold` / `uniq_field_threshold`, which Tariff's
 * tables have too). fix: with no tenant (where those constraints let duplicates through, null
 * being distinct) the level is unique per parent and group.
 */
export function findThresholdConflict(candidate: ThresholdKey, others: readonly ThresholdKey[]): ConflictError | null {
  const level = candidate.level;
  if (level === null) return null;
  const clash = others.find(
    (other) =>
      other.thresholdId !== candidate.thresholdId &&
      other.parent.kind === candidate.parent.kind &&
      other.parent.id === candidate.parent.id &&
      other.level === level &&
      other.tenantId === candidate.tenantId &&
      (candidate.tenantId !== null || other.groupId === candidate.groupId),
  );
  return clash ? thresholdExists(level, candidate.parent, candidate.tenantId) : null;
}

/** Parent, group and tenant filters as received (strings), shared by mapping and threshold lists. */
export interface ParentFilterQuery {
  service_id?: string;
  field_id?: string;
  group_id?: string;
  no_group?: string;
  tenant_id?: string;
  filter_tenant?: string;
}

/** Parsed parent, group and tenant filters. */
export interface ParentFilters {
  serviceId?: string;
  fieldId?: string;
  groupId?: string;
  noGroup?: boolean;
  /** When set, only rules of this tenant; `null` = only rules without a tenant. */
  tenantId?: string | null;
}

/**
 * Parses the parent, group and tenant filters (api.md §4). `tenant_id` counts only with
 * `filter_tenant=true` (CloudKitty compat).
 *
 * @throws BadRequestError for `service_id` with `field_id` (fix: CloudKitty silently ignored
 *   `field_id`).
 */
export function parentFiltersFrom(query: ParentFilterQuery): ParentFilters {
  if (query.service_id !== undefined && query.field_id !== undefined) {
    throw new BadRequestError('You can only specify one parent: filter by service_id or by field_id, not both.');
  }
  return {
    serviceId: query.service_id,
    fieldId: query.field_id,
    groupId: query.group_id,
    noGroup: queryBoolean(query.no_group),
    tenantId: queryBoolean(query.filter_tenant) ? (query.tenant_id ?? null) : undefined,
  };
}

/** Filters of a mapping list, already parsed (api.md §4). */
export interface MappingFilters extends RuleFilters, ParentFilters {}

/**
 * Turns mapping list query parameters into filters (api.md §4).
 *
 * @throws BadRequestError as {@link parentFiltersFrom}, for `all=false` without a parent filter
 *   (fix: CloudKitty 500), or for an invalid datetime.
 */
export function mappingFiltersFrom(query: ParentFilterQuery & RuleFilterQuery & { all?: string }, now: Date): MappingFilters {
  const parents = parentFiltersFrom(query);
  if (queryBoolean(query.all) === false && query.service_id === undefined && query.field_id === undefined && query.group_id === undefined) {
    throw new BadRequestError('You must specify either service_uuid, field_uuid or group_uuid.');
  }
  return { ...ruleFiltersFrom(query, now), ...parents };
}
