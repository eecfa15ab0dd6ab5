/** The fixed-fee module's table: one fee per service name. Kysely sees it through `withTables`. */
import type { Generated, Kysely } from 'kysely';
import type { TariffTables } from '../../../src/database/tables.js';

/** `fixed_fee_fees`: a fee (decimal text, per point per collection period) for a service. (A type, not an interface: `withTables` wants an index signature.) */
export type FixedFeeTables = {
  fixed_fee_fees: {
    id: Generated<number>;
    fee_id: string;
    service: string;
    fee: string;
  };
};

/** A Kysely handle (the database's or a transaction's) that knows the module's table. */
export function feeTables(db: Kysely<TariffTables>): Kysely<TariffTables & FixedFeeTables> {
  return db.withTables<FixedFeeTables>();
}
