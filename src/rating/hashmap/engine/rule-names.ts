/**
 * What a simulation of a draft price list asks of the hashmap's rule index (issue 27): the times
 * its prices can change at, and the names people know its rules by.
 */
import type { ExplainEntry } from '../../contract/dataframe.js';
import type { RuleIndex } from './types.js';

/**
 * Every time (epoch milliseconds) at which a mapping starts or ends. Thresholds are not
 * versioned: they hold at every time.
 */
export function hashmapRuleChangeTimes(index: RuleIndex): Set<number> {
  const times = new Set<number>();
  const add = (rules: readonly { start: number; end: number | null }[]) => {
    for (const rule of rules) {
      times.add(rule.start);
      if (rule.end !== null) times.add(rule.end);
    }
  };
  for (const service of index.values()) {
    add(service.mappings);
    for (const field of service.fields.values()) for (const rules of field.mappings.values()) add(rules);
  }
  return times;
}

/** Names by rule id, built once per rule index. */
const namesByIndex = new WeakMap<RuleIndex, Map<string, string>>();

/**
 * The place of every rule of the index, by its id: `service` for a service mapping,
 * `service/field/value` for a field mapping, `service ≥ level` and `service/field ≥ level` for
 * thresholds (the document's words, docs/price-list.md §1); a tenant's rule ends with
 * `(tenant …)`.
 */
function ruleNames(index: RuleIndex): Map<string, string> {
  let names = namesByIndex.get(index);
  if (names) return names;
  names = new Map();
  const tenant = (tenantId: string | null) => (tenantId === null ? '' : ` (tenant ${tenantId})`);
  for (const [serviceName, service] of index) {
    for (const rule of service.mappings) names.set(rule.mappingId, serviceName + tenant(rule.tenantId));
    for (const rule of service.thresholds) names.set(rule.thresholdId, `${serviceName} ≥ ${rule.level}${tenant(rule.tenantId)}`);
    for (const [fieldName, field] of service.fields) {
      for (const [value, rules] of field.mappings) {
        for (const rule of rules) names.set(rule.mappingId, `${serviceName}/${fieldName}/${value}${tenant(rule.tenantId)}`);
      }
      for (const rule of field.thresholds) names.set(rule.thresholdId, `${serviceName}/${fieldName} ≥ ${rule.level}${tenant(rule.tenantId)}`);
    }
  }
  namesByIndex.set(index, names);
  return names;
}

/** The name of the rule a hashmap `explain` entry (`Contribution`) names; undefined for another module's entry. */
export function hashmapRuleName(index: RuleIndex, entry: ExplainEntry): string | undefined {
  const ruleId = (entry as { rule_id?: unknown }).rule_id;
  return typeof ruleId === 'string' ? ruleNames(index).get(ruleId) : undefined;
}
