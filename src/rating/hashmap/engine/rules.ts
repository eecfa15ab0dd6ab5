/**
 * The hashmap rule index: every rule loaded once, grouped by service name, field name and value,
 * so that rating a point costs map lookups, never a query. Built by `buildRuleIndex` from the rows
 * the repository loads; read by the engine.
 */

/** A mapping as the engine sees it. Costs are decimal text, per unit of quantity per period. */
export interface MappingRule {
  mappingId: string;
  type: 'flat' | 'rate';
  cost: string;
  /** Group name, or null for the rules without a group (the `_DEFAULT_` group). */
  group: string | null;
  tenantId: string | null;
  /** Field value (text) of a field mapping; null for a service mapping. */
  value: string | null;
  /** Validity in epoch milliseconds; `end` null = forever. */
  start: number;
  end: number | null;
}

/** A threshold as the engine sees it; `level` is decimal text. */
export interface ThresholdRule {
  thresholdId: string;
  type: 'flat' | 'rate';
  cost: string;
  level: string;
  group: string | null;
  tenantId: string | null;
}

/** The rules of one field of a service. */
export interface FieldRules {
  /** Field mappings by value (CloudKitty compares the text form of the desc value). */
  mappings: Map<string, MappingRule[]>;
  thresholds: ThresholdRule[];
}

/** The rules of one service. */
export interface ServiceRules {
  mappings: MappingRule[];
  thresholds: ThresholdRule[];
  fields: Map<string, FieldRules>;
}

/** Every hashmap rule, by service name. */
export type RuleIndex = Map<string, ServiceRules>;

/** One loaded rule row with the names of what it hangs on. */
export interface LoadedMapping extends MappingRule {
  serviceName: string;
  /** Field name for a field mapping, null for a service mapping. */
  fieldName: string | null;
}

/** One loaded threshold row with the names of what it hangs on. */
export interface LoadedThreshold extends ThresholdRule {
  serviceName: string;
  fieldName: string | null;
}

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
