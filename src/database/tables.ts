/**
 * Kysely row types of Tariff's own tables: the configuration version, CloudKitty's module
 * states and the audit trail (`change-journal.ts`). Each rating module keeps its tables' types
 * in its folder (`rating/<module>/tables.ts`) and sees them through `Kysely#withTables`. Decimals
 * and datetimes are text on every dialect (see connection.ts).
 */
import type { ColumnType, Generated } from 'kysely';

/** Naive `YYYY-MM-DD HH:MM:SS`: wall time in CloudKitty's zone (database/stored-datetimes.ts). */
export type DateTimeText = string;
/** Fixed-scale decimal text. */
export type DecimalText = string;

/** Tariff's own: the configuration version, bumped by every configuration write. */
export interface TariffConfigVersionTable {
  name: string;
  /** bigint: drivers return it as a string or a number. */
  version: ColumnType<string | number, number, string | number>;
}

/** CloudKitty's rating module states. */
export interface ModulesStateTable {
  name: string;
  /** Enabled; drivers return a boolean (PostgreSQL) or 0/1 (SQLite, MySQL). */
  state: ColumnType<boolean | number, boolean, boolean>;
  priority: number | null;
}

/** Tariff's own: the audit trail of configuration writes (`change-journal.ts`); `before` and `after` are JSON text. */
export interface ChangesTable {
  /** Generated; grows in commit order (inserted under the configuration lock). */
  change_id: Generated<number>;
  /** When the write committed, naive UTC `YYYY-MM-DD HH:MM:SS`. */
  at: DateTimeText;
  user_id: string;
  project_id: string | null;
  request_id: string;
  route: string;
  kind: string;
  object_id: string;
  action: string;
  before: string | null;
  after: string | null;
  /** The revision a price-list apply made, on its entry and its rule changes; null for other writes (and rows before 0008). */
  revision: ColumnType<string | number | null, number | null | undefined, number | null>;
  /** A price-list rule change's place in the document (its diff path); null for other writes. */
  name: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Tariff's own tables (the rating modules' are theirs). */
export interface TariffTables {
  modules_state: ModulesStateTable;
  tariff_config_version: TariffConfigVersionTable;
  tariff_changes: ChangesTable;
}
