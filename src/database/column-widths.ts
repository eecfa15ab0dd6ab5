/**
 * The widths of the rating tables' text columns, in characters (code points, as PostgreSQL and
 * MySQL's utf8mb4 count them), in one place: the migrations create the columns with them and every
 * value is checked against them before it is stored (the API's schemas, the price list's schema,
 * and the values Tariff turns into text, such as a price list's numeric mapping `value`).
 *
 * CloudKitty compat: CloudKitty's layout (its models' `String(n)`); a database adopted from
 * CloudKitty has these widths, so they never change. SQLite enforces no width: the checks make
 * the three databases refuse the same values (fix, issue 24: a 300-digit value was a 500 on
 * PostgreSQL and MySQL and stored on SQLite).
 */

/** Text column widths by what the column holds. */
export const COLUMN_WIDTH = {
  /** `service_id`, `field_id`, `group_id`, `mapping_id`, `threshold_id`, `script_id`: UUID text. */
  publicId: 36,
  /** Service, field, group and script `name`. */
  name: 255,
  /** A mapping's `value`. */
  mappingValue: 255,
  /** A mapping's or threshold's `tenant_id`. */
  tenantId: 255,
  /** A mapping's `name` (32 hexadecimal digits when generated). */
  mappingName: 32,
  /** `created_by`, `updated_by`, `deleted_by`: a Keystone user id (http/request.ts checks the acting user). */
  audit: 32,
  /** A script's `checksum`: hexadecimal SHA-512. */
  checksum: 128,
} as const;

/** A `varchar` column type of one of {@link COLUMN_WIDTH}'s widths, for a migration's `addColumn`. */
export function varchar(width: number): `varchar(${number})` {
  return `varchar(${width})`;
}

/**
 * The longest `description` (a `text` column, which has no width): Tariff's limit of the API
 * (api.md §3), the same in the price list.
 */
export const DESCRIPTION_LENGTH = 256;

/** The length of `text` in code points (a character above U+FFFF is one, as the databases count it). */
export function codePointLength(text: string): number {
  let length = text.length;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length -= 1;
        index += 1;
      }
    }
  }
  return length;
}

/**
 * Ajv's message for a string over `maxLength`, which a price-list problem shows: a value Tariff
 * turns into text is refused in the same words as one given as text.
 */
export function tooLongMessage(width: number): string {
  return `must NOT have more than ${width} characters`;
}
