/** Small SQL helpers shared by the hashmap repositories. */
import type { ExpressionBuilder, ReferenceExpression } from 'kysely';

/** `column = value`, or `column IS NULL` when value is null: CloudKitty's "null equals null" keys. */
export function nullSafeEquals<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  column: ReferenceExpression<DB, TB>,
  value: string | number | null,
) {
  return value === null ? eb(column, 'is', null) : eb(column, '=', value as never);
}

