/** The hashmap's part of the price list (`PriceListSection`): `groups` and `services`. */
import type { PriceListSection } from '../../contract/price-list-section.js';
import { hashmapTables } from '../tables.js';
import { exportHashmapMembers } from './export.js';
import { HashmapPlanner } from './plan.js';
import { readHashmapMembers } from './read.js';
import type { HashmapSection } from './rules.js';
import { loadMappings, loadParents, loadThresholds } from './stored.js';
import { hashmapPriceListMembers } from './schema.js';
import { writeHashmapPlan } from './write.js';

/** Groups, services, fields, mappings and thresholds as one document section. */
export const hashmapPriceList: PriceListSection<HashmapSection> = {
  members: hashmapPriceListMembers,
  exportSection: (db, at, times) => exportHashmapMembers(hashmapTables(db), at, times),
  readSection: (members, reader) => readHashmapMembers(members, reader),
  async planSection(transaction, section, context) {
    const db = hashmapTables(transaction);
    const parents = await loadParents(db);
    const mappings = await loadMappings(db, context.effectiveAt, context.times);
    const thresholds = await loadThresholds(db);
    const { changes, objectIds, unversioned, writes } = await new HashmapPlanner(context.effectiveAt, context.problem).plan(
      section,
      parents,
      mappings,
      thresholds,
    );
    return {
      changes,
      objectIds,
      unversioned,
      write: (writeTransaction, audit) => writeHashmapPlan(hashmapTables(writeTransaction), writes, context.effectiveAt, audit, context.times),
    };
  },
};
