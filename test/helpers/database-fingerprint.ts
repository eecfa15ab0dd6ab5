/**
 * A fingerprint of everything Tariff stores, read straight from the database (any dialect) with
 * the project's own connection code: per table, the row count and a hash of every row. Comparing
 * two fingerprints tells whether anything was written in between, and where.
 */
import { createHash } from 'node:crypto';
import { openDatabase, type Database } from '../../src/database/connection.js';
import type { TariffTables } from '../../src/database/tables.js';
import type { HashmapTables } from '../../src/rating/hashmap/tables.js';
import type { PyscriptsTables } from '../../src/rating/pyscripts/tables.js';

/** Tariff's tables and the built-in rating modules'. */
type StoredTables = TariffTables & HashmapTables & PyscriptsTables;

/** The tables a fingerprint covers: the rating tables, module states and the configuration version. */
export const FINGERPRINT_TABLES = [
  'hashmap_services',
  'hashmap_fields',
  'hashmap_groups',
  'hashmap_mappings',
  'hashmap_thresholds',
  'pyscripts_scripts',
  'modules_state',
  'tariff_config_version',
] as const satisfies readonly (keyof StoredTables)[];

/** Per table: how many rows, and a hash of all of them in key order. */
export type Fingerprint = Record<(typeof FINGERPRINT_TABLES)[number], { rows: number; hash: string }>;

/** Reads fingerprints of one database; {@link DatabaseFingerprinter.close} when done. */
export interface DatabaseFingerprinter {
  take(): Promise<Fingerprint>;
  close(): Promise<void>;
}

/** Opens a reader of fingerprints on the database at `url` (`sqlite:`, `postgres://`, `mysql://`). */
export function openFingerprinter(url: string): DatabaseFingerprinter {
  const database: Database = openDatabase(url, { poolSize: 1, timeoutMs: 30_000 });
  const db = database.db.withTables<HashmapTables & PyscriptsTables>();
  return {
    async take() {
      const fingerprint = {} as Fingerprint;
      for (const table of FINGERPRINT_TABLES) {
        const order = table === 'modules_state' || table === 'tariff_config_version' ? 'name' : 'id';
        const rows = await db.selectFrom(table).selectAll().orderBy(order).execute();
        const hash = createHash('sha256');
        for (const row of rows) hash.update(JSON.stringify(row, (_, value) => (typeof value === 'bigint' ? String(value) : value)));
        fingerprint[table] = { rows: rows.length, hash: hash.digest('hex').slice(0, 16) };
      }
      return fingerprint;
    },
    close: () => database.close(),
  };
}

/** The tables that differ between two fingerprints, e.g. `hashmap_mappings 3 → 4 rows`; empty when equal. */
export function fingerprintChanges(before: Fingerprint, after: Fingerprint): string[] {
  return FINGERPRINT_TABLES.filter((table) => before[table].hash !== after[table].hash).map((table) =>
    before[table].rows === after[table].rows ? `${table}: a row changed` : `${table}: ${before[table].rows} → ${after[table].rows} rows`,
  );
}
