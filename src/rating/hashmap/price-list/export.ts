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

/**
 * A mapping's document form: `start` only for a rule that starts after `at` (one in force then is
 * "in force"). Members set one by one, not spread from conditional literals: an export builds
 * tens of thousands of these.
 */
function mappingEntry(rule: StoredMapping, at: Date): Record<string, unknown> {
  const entry: Record<string, unknown> = {};
  if (rule.value !== null) entry.value = rule.value;
  if (rule.type !== 'flat') entry.type = rule.type;
  entry.cost = shortDecimal(rule.cost);
  if (rule.tenantId !== null) entry.tenant_id = rule.tenantId;
  if (rule.group !== null) entry.group = rule.group;
  entry.name = rule.name;
  if (rule.description !== null) entry.description = rule.description;
  if (rule.start.getTime() > at.getTime()) entry.start = formatApiDateTime(rule.start);
  if (rule.end !== null) entry.end = formatApiDateTime(rule.end);
  return entry;
}

function thresholdEntry(rule: StoredThreshold): Record<string, unknown> {
  const entry: Record<string, unknown> = { level: shortDecimal(rule.level) };
  if (rule.type !== 'flat') entry.type = rule.type;
  entry.cost = shortDecimal(rule.cost);
  if (rule.tenantId !== null) entry.tenant_id = rule.tenantId;
  if (rule.group !== null) entry.group = rule.group;
  return entry;
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
