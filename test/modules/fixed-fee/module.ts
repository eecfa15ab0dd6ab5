/**
 * A small rating module that exists only in the tests, to show the `RatingModule` contract is a
 * seam: a fixed fee per point of a service, configured under `module_config/fixed_fee`, stored
 * in its own table, priced in its turn. Nothing outside this folder knows it but the list a test
 * registers it in.
 */
import type { ExplainEntry } from '../../../src/rating/contract/dataframe.js';
import type { RatingModule } from '../../../src/rating/contract/rating-module.js';
import type { Exact } from '../../../src/rating/common/exact.js';
import { FIXED_FEE_MIGRATIONS } from './migrations.js';
import { FeeRepository } from './repository.js';
import { fixedFeeRoutes } from './routes.js';

/** The module's `explain` entry: the fee added (decimal text). */
interface FeeContribution extends ExplainEntry {
  module: 'fixed_fee';
  fee: string;
}

/** Adds the service's fee to each of its points (per collection period), whatever the quantity. */
export const fixedFeeModule: RatingModule<Map<string, Exact>> = {
  name: 'fixed_fee',
  description: 'Fixed fee per point (test module).',
  hotConfig: true,
  migrations: FIXED_FEE_MIGRATIONS,
  routes: fixedFeeRoutes,
  changeKinds: ['fee'],
  loadRules: (database, snapshot) => new FeeRepository(database).loadFees(snapshot),
  price(fees, dataframe) {
    for (const [service, points] of dataframe.services) {
      const fee = fees.get(service);
      if (fee === undefined) continue;
      for (const point of points) {
        point.price = point.price.plus(fee);
        const entry: FeeContribution = { module: 'fixed_fee', fee: fee.toString() };
        point.explain?.push(entry);
      }
    }
  },
};
