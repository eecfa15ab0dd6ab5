/**
 * Which rules apply at a rating time for a tenant (rating.md §4): mappings active at T (not
 * deleted, start ≤ T, end null or > T), thresholds always; global rules and the tenant's, a
 * tenant rule replacing the global one with the same key in the same group (the value for field
 * mappings, the level for thresholds, the whole group for service mappings). Costs and levels are
 * parsed to decimals here, once per selection, not once per point.
 */
import { Exact } from '../../common/exact.js';
import {
  DEFAULT_GROUP,
  type MappingRule,
  type RuleIndex,
  type SelectedFieldRules,
  type SelectedMapping,
  type SelectedRules,
  type SelectedThreshold,
  type ThresholdRule,
} from './types.js';

/** Ungrouped rules belong to CloudKitty's `_DEFAULT_` group, for overrides as for pricing. */
const groupName = (group: string | null) => group ?? DEFAULT_GROUP;

function withoutOverridden<R extends { tenantId: string | null; group: string | null }>(rules: readonly R[], key: (rule: R) => string): R[] {
  const tenantKeys = new Set<string>();
  for (const rule of rules) if (rule.tenantId !== null) tenantKeys.add(`${groupName(rule.group)}\u0000${key(rule)}`);
  if (tenantKeys.size === 0) return [...rules];
  return rules.filter((rule) => rule.tenantId !== null || !tenantKeys.has(`${groupName(rule.group)}\u0000${key(rule)}`));
}

function selectMappings(rules: readonly MappingRule[], at: number, tenantId: string | null): SelectedMapping[] {
  const active = rules.filter((rule) => (rule.tenantId === null || rule.tenantId === tenantId) && rule.start <= at && (rule.end === null || rule.end > at));
  return withoutOverridden(active, () => '').map((rule) => ({ rule, cost: Exact.from(rule.cost) }));
}

function selectThresholds(rules: readonly ThresholdRule[], tenantId: string | null): SelectedThreshold[] {
  const visible = rules.filter((rule) => rule.tenantId === null || rule.tenantId === tenantId);
  return withoutOverridden(visible, (rule) => Exact.from(rule.level).toString()).map((rule) => ({
    rule,
    cost: Exact.from(rule.cost),
    level: Exact.from(rule.level),
  }));
}

/** A selection, and the times it holds for: [from, until), no mapping starting or ending in between. */
interface RememberedSelection {
  from: number;
  until: number;
  rules: SelectedRules;
}

/** Selections already made, by index (a new index after every configuration change) and tenant. */
const remembered = new WeakMap<RuleIndex, Map<string | null, RememberedSelection>>();
/** How many tenants' selections an index keeps before starting afresh. */
const REMEMBERED_TENANTS = 256;
/** The tenants that own rules of an index (a tenant mapping or threshold, deleted or not). */
const ruleOwners = new WeakMap<RuleIndex, ReadonlySet<string>>();

/** The tenants with rules of their own in `index`, found once per index. */
function tenantsWithRules(index: RuleIndex): ReadonlySet<string> {
  let owners = ruleOwners.get(index);
  if (owners !== undefined) return owners;
  const found = new Set<string>();
  const add = (rules: readonly { tenantId: string | null }[]) => {
    for (const rule of rules) if (rule.tenantId !== null) found.add(rule.tenantId);
  };
  for (const service of index.values()) {
    add(service.mappings);
    add(service.thresholds);
    for (const field of service.fields.values()) {
      add(field.thresholds);
      for (const rules of field.mappings.values()) add(rules);
    }
  }
  owners = found;
  ruleOwners.set(index, owners);
  return owners;
}

/**
 * The rules that apply at `at` (epoch milliseconds) for `tenantId` (null: global rules only, as
 * CloudKitty's v1 quote does).
 *
 * The result is shared by the calls with the same index and tenant at any time in the same
 * validity interval (the engine keeps its plan of the rules in it, built on the first point
 * priced): callers must not modify it. A tenant without rules of its own gets the global
 * selection (the one for null, which is the same rules): however many such tenants a cloud has,
 * the selection is made once, and only tenants with rules of their own count towards the 256
 * remembered.
 */
export function selectRules(index: RuleIndex, at: number, tenantId: string | null): SelectedRules {
  const selectionTenant = tenantId !== null && tenantsWithRules(index).has(tenantId) ? tenantId : null;
  let byTenant = remembered.get(index);
  const known = byTenant?.get(selectionTenant);
  if (known !== undefined && known.from <= at && at < known.until) return known.rules;
  const rules = freshSelection(index, at, selectionTenant);
  if (byTenant === undefined) {
    byTenant = new Map();
    remembered.set(index, byTenant);
  } else if (byTenant.size >= REMEMBERED_TENANTS && !byTenant.has(selectionTenant)) {
    byTenant.clear();
  }
  byTenant.set(selectionTenant, { ...validity(index, at), rules });
  return rules;
}

/**
 * The interval around `at` in which no mapping starts or ends: every `start ≤ at` and `end > at`
 * of the selection, so the selection itself, is the same for any time in it.
 */
function validity(index: RuleIndex, at: number): { from: number; until: number } {
  let from = Number.NEGATIVE_INFINITY;
  let until = Number.POSITIVE_INFINITY;
  const bound = (time: number | null) => {
    if (time === null) return;
    if (time <= at) from = Math.max(from, time);
    else until = Math.min(until, time);
  };
  for (const service of index.values()) {
    const lists = [service.mappings, ...[...service.fields.values()].flatMap((field) => [...field.mappings.values()])];
    for (const list of lists) {
      for (const rule of list) {
        bound(rule.start);
        bound(rule.end);
      }
    }
  }
  return { from, until };
}

function freshSelection(index: RuleIndex, at: number, tenantId: string | null): SelectedRules {
  const selected: SelectedRules = new Map();
  for (const [serviceName, service] of index) {
    const fields: SelectedFieldRules[] = [];
    for (const [fieldName, field] of service.fields) {
      const mappings = new Map<string, SelectedMapping[]>();
      for (const [value, rules] of field.mappings) {
        const chosen = selectMappings(rules, at, tenantId);
        if (chosen.length > 0) mappings.set(value, chosen);
      }
      const thresholds = selectThresholds(field.thresholds, tenantId);
      if (mappings.size > 0 || thresholds.length > 0) fields.push({ name: fieldName, mappings, thresholds });
    }
    // Service mappings: a tenant's rules replace the global ones of their group as a whole.
    const serviceMappings = selectMappings(service.mappings, at, tenantId);
    selected.set(serviceName, { mappings: serviceMappings, thresholds: selectThresholds(service.thresholds, tenantId), fields, plan: undefined });
  }
  return selected;
}
