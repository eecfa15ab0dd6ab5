/** Small SQL helpers shared by the hashmap repositories. */
import { sql, type ExpressionBuilder, type RawBuilder, type ReferenceExpression } from 'kysely';
import type { ParentFilters } from '../validation.js';

/** `column = value`, or `column IS NULL` when value is null: CloudKitty's "null equals null" keys. */
export function nullSafeEquals<DB, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, column: ReferenceExpression<DB, TB>, value: string | number | null) {
  return value === null ? eb(column, 'is', null) : eb(column, '=', value as never);
}

/**
 * SQL conditions (to AND together) for the parent, group and tenant filters, on a rule table
 * aliased `alias` joined to `hashmap_services s`, `hashmap_fields f` and `hashmap_groups g`.
 */
export function parentFilterConditions(alias: string, filters: ParentFilters): RawBuilder<boolean>[] {
  const conditions: RawBuilder<boolean>[] = [];
  if (filters.serviceId !== undefined) conditions.push(sql<boolean>`s.service_id = ${filters.serviceId.toLowerCase()}`);
  if (filters.fieldId !== undefined) conditions.push(sql<boolean>`f.field_id = ${filters.fieldId.toLowerCase()}`);
  if (filters.groupId !== undefined) conditions.push(sql<boolean>`g.group_id = ${filters.groupId.toLowerCase()}`);
  if (filters.noGroup) conditions.push(sql<boolean>`${sql.ref(`${alias}.group_id`)} is null`);
  if (filters.tenantId === null) conditions.push(sql<boolean>`${sql.ref(`${alias}.tenant_id`)} is null`);
  else if (filters.tenantId !== undefined) conditions.push(sql<boolean>`${sql.ref(`${alias}.tenant_id`)} = ${filters.tenantId}`);
  return conditions;
}
