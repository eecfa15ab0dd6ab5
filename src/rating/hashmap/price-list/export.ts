/**
 * The hashmap members of an export at a time (docs/price-list.md §1-2): every group, service and
 * field, every mapping in force then or scheduled after, every threshold; in a deterministic
 * order, defaults left out, decimals as short strings.
 */
import type { StoredDateTimes } from '../../../database/stored-datetimes.js';
import { formatApiDateTime } from '../../common/datetime.js';
import { ExactDecimal } from '../../common/decimal.js';
import { compareCodePoints } from '../../common/text.js';
import type { HashmapDb } from '../tables.js';
import { fieldKey, loadMappings, loadParents, loadThresholds } from './stored.js';
import { shortDecimal, type StoredMapping, type StoredThreshold } from './rules.js';

/** null before any text, then by code point. */
function compareNullable(left: string | null, right: string | null): number {
  if (left === right) return 0;
  if (left === null) return -1;
  if (right === null) return 1;
  return compareCodePoints(left, right);
}

function compareMappings(left: StoredMapping, right: StoredMapping): number {
  return (
    compareNullable(left.value, right.value) ||
    compareNullable(left.tenantId, right.tenantId) ||
    compareNullable(left.group, right.group) ||
    left.start.getTime() - right.start.getTime()
  );
}

function compareThresholds(left: StoredThreshold, right: StoredThreshold): number {
  return (
    new ExactDecimal(left.level).comparedTo(new ExactDecimal(right.level)) ||
    compareNullable(left.tenantId, right.tenantId) ||
    compareNullable(left.group, right.group)
  );
}

/** A mapping's document form: `start` only for a rule that starts after `at` (one in force then is "in force"). */
function mappingEntry(rule: StoredMapping, at: Date): Record<string, unknown> {
  return {
    ...(rule.value !== null ? { value: rule.value } : {}),
    ...(rule.type !== 'flat' ? { type: rule.type } : {}),
    cost: shortDecimal(rule.cost),
    ...(rule.tenantId !== null ? { tenant_id: rule.tenantId } : {}),
    ...(rule.group !== null ? { group: rule.group } : {}),
    name: rule.name,
    ...(rule.description !== null ? { description: rule.description } : {}),
    ...(rule.start.getTime() > at.getTime() ? { start: formatApiDateTime(rule.start) } : {}),
    ...(rule.end !== null ? { end: formatApiDateTime(rule.end) } : {}),
  };
}

function thresholdEntry(rule: StoredThreshold): Record<string, unknown> {
  return {
    level: shortDecimal(rule.level),
    ...(rule.type !== 'flat' ? { type: rule.type } : {}),
    cost: shortDecimal(rule.cost),
    ...(rule.tenantId !== null ? { tenant_id: rule.tenantId } : {}),
    ...(rule.group !== null ? { group: rule.group } : {}),
  };
}

interface RulesEntry {
  mappings: StoredMapping[];
  thresholds: StoredThreshold[];
}

function rulesMembers(rules: RulesEntry | undefined, at: Date): Record<string, unknown> {
  const mappings = (rules?.mappings ?? []).sort(compareMappings).map((rule) => mappingEntry(rule, at));
  const thresholds = (rules?.thresholds ?? []).sort(compareThresholds).map(thresholdEntry);
  return { ...(mappings.length > 0 ? { mappings } : {}), ...(thresholds.length > 0 ? { thresholds } : {}) };
}

/** `groups` and `services` at `at`. */
export async function exportHashmapMembers(db: HashmapDb, at: Date, times: StoredDateTimes): Promise<Record<string, unknown>> {
  const parents = await loadParents(db);
  const mappings = await loadMappings(db, at, times);
  const thresholds = await loadThresholds(db);
  const byParent = new Map<string, RulesEntry>();
  const entryOf = (service: string, field: string | null): RulesEntry => {
    const key = field === null ? service : fieldKey(service, field);
    let entry = byParent.get(key);
    if (!entry) byParent.set(key, (entry = { mappings: [], thresholds: [] }));
    return entry;
  };
  for (const rule of mappings) entryOf(rule.parent.service, rule.parent.field).mappings.push(rule);
  for (const rule of thresholds) entryOf(rule.parent.service, rule.parent.field).thresholds.push(rule);
  const fieldsOf = new Map<string, string[]>();
  for (const key of parents.fields.keys()) {
    const [service, field] = key.split('\u0000');
    fieldsOf.set(service, [...(fieldsOf.get(service) ?? []), field]);
  }
  // Object.fromEntries keeps a name such as `__proto__` an own member.
  const services = Object.fromEntries(
    [...parents.services.keys()].sort(compareCodePoints).map((service) => {
      const fields = Object.fromEntries(
        (fieldsOf.get(service) ?? []).sort(compareCodePoints).map((field) => [field, rulesMembers(byParent.get(fieldKey(service, field)), at)]),
      );
      return [service, { ...rulesMembers(byParent.get(service), at), ...(Object.keys(fields).length > 0 ? { fields } : {}) }];
    }),
  );
  return { groups: [...parents.groups.keys()].sort(compareCodePoints), services };
}
