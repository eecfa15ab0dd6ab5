/** SQL for fixed fees; writes are configuration writes (they bump the configuration version). */
import { randomUUID } from 'node:crypto';
import type { Database } from '../../../src/database/connection.js';
import { inWriteTransaction, type Transaction } from '../../../src/database/transaction.js';
import type { ChangeJournal } from '../../../src/database/change-journal.js';
import { ConflictError, NotFoundError } from '../../../src/kernel/errors.js';
import { Exact } from '../../../src/rating/common/exact.js';
import { feeTables } from './tables.js';

/** A fee as the API shows it. */
export interface Fee {
  fee_id: string;
  service: string;
  /** Decimal text: added to each point of the service, per collection period. */
  fee: string;
}

/** Fixed fees. */
export class FeeRepository {
  constructor(private readonly database: Database) {}

  /** Every fee, in creation order; read through `db` (the database's pool by default, or a transaction). */
  list(db: Transaction = this.database.db): Promise<Fee[]> {
    return feeTables(db).selectFrom('fixed_fee_fees').select(['fee_id', 'service', 'fee']).orderBy('id').execute();
  }

  /** Creates a fee, recorded in the audit trail's `journal` (kind `fee`). @throws ConflictError when the service has a fee. */
  create(service: string, fee: string, journal: ChangeJournal): Promise<Fee> {
    return inWriteTransaction(this.database, journal, async (transaction, serialize) => {
      await serialize();
      const db = feeTables(transaction);
      const existing = await db.selectFrom('fixed_fee_fees').select('fee_id').where('service', '=', service).executeTakeFirst();
      if (existing) throw new ConflictError(`Service ${service} already has a fee (UUID: ${existing.fee_id})`);
      const row = { fee_id: randomUUID(), service, fee };
      await db.insertInto('fixed_fee_fees').values(row).execute();
      journal.record({ kind: 'fee', objectId: row.fee_id, action: 'create', before: null, after: row });
      return row;
    });
  }

  /** Deletes a fee, recorded in `journal`. @throws NotFoundError when unknown (nothing written). */
  async delete(feeId: string, journal: ChangeJournal): Promise<void> {
    await inWriteTransaction(this.database, journal, async (transaction) => {
      const result = await feeTables(transaction).deleteFrom('fixed_fee_fees').where('fee_id', '=', feeId).executeTakeFirst();
      if (result.numDeletedRows === 0n) throw new NotFoundError(`No such fee: ${feeId}`);
      journal.record({ kind: 'fee', objectId: feeId, action: 'delete', before: null, after: null });
    });
  }

  /** Every fee by service name, for the rating snapshot, read in its transaction (`RatingModule.loadRules`). */
  async loadFees(snapshot: Transaction): Promise<Map<string, Exact>> {
    return new Map((await this.list(snapshot)).map((row) => [row.service, Exact.from(row.fee)]));
  }
}
