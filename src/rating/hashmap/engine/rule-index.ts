/**
 * The hashmap rule index: every rule loaded once, grouped by service name, field name and value,
 * so that rating a point costs map lookups, never a query. Built by `buildRuleIndex` from the rows
 * the repository loads; read by the engine (`select.ts`).
 */
import type { FieldRules, LoadedMapping, LoadedThreshold, RuleIndex, ServiceRules } from './types.js';

function serviceRules(index: RuleIndex, name: string): ServiceRules {
  let rules = index.get(name);
  if (!rules) {
    rules = { mappings: [], thresholds: [], fields: new Map() };
    index.set(name, rules);
  }
  return rules;
}

function fieldRules(service: ServiceRules, name: string): FieldRules {
  let rules = service.fields.get(name);
  if (!rules) {
    rules = { mappings: new Map(), thresholds: [] };
    service.fields.set(name, rules);
  }
  return rules;
}

/**
 * Builds the index from loaded rows (live mappings only: soft-deleted ones are not loaded).
 * Services and fields without rules still appear, so that their names are known.
 */
export function buildRuleIndex(
  mappings: readonly LoadedMapping[],
  thresholds: readonly LoadedThreshold[],
  fields: readonly { serviceName: string; fieldName: string }[] = [],
): RuleIndex {
  const index: RuleIndex = new Map();
  for (const field of fields) fieldRules(serviceRules(index, field.serviceName), field.fieldName);
  for (const { serviceName, fieldName, ...rule } of mappings) {
    const service = serviceRules(index, serviceName);
    if (fieldName === null) {
      service.mappings.push(rule);
    } else {
      const byValue = fieldRules(service, fieldName).mappings;
      const key = rule.value ?? 'None';
      const list = byValue.get(key);
      if (list) list.push(rule);
      else byValue.set(key, [rule]);
    }
  }
  for (const { serviceName, fieldName, ...rule } of thresholds) {
    const service = serviceRules(index, serviceName);
    if (fieldName === null) service.thresholds.push(rule);
    else fieldRules(service, fieldName).thresholds.push(rule);
  }
  return index;
}
