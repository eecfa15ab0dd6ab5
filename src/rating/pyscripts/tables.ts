/**
 * Kysely row type of the pyscripts table, in CloudKitty's layout (api.md §7). The database handle
 * knows only Tariff's own tables; the repository sees this one through {@link scriptTables}.
 */
import type { ColumnType, Generated, Kysely } from 'kysely';
import type { TariffTables } from '../../database/tables.js';
import type { VersionedRuleColumns } from '../common/rule-storage.js';

/** `pyscripts_scripts`: versioned rules, soft-deleted. */
export interface PyscriptsScriptsTable extends VersionedRuleColumns {
  id: Generated<number>;
  script_id: string;
  /** The Python source, zlib-compressed (CloudKitty compat). */
  data: ColumnType<Buffer, Buffer, Buffer>;
  /** Lowercase hex SHA-512 of the UTF-8 source. */
  checksum: string;
}

/** The pyscripts module's tables (a type alias: `Kysely#withTables` wants an index signature). */
export type PyscriptsTables = {
  pyscripts_scripts: PyscriptsScriptsTable;
};

/** A Kysely handle (the database's or one transaction's) that knows the pyscripts table. */
export type PyscriptsDb = Kysely<TariffTables & PyscriptsTables>;

/** `db` (the database or a transaction) typed with the pyscripts table: the same connection, no copy. */
export function scriptTables(db: Kysely<TariffTables>): PyscriptsDb {
  return db.withTables<PyscriptsTables>();
}
