import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { LongestFirstSequencer } from './test/helpers/longest-first.js';

/**
 * The suite in tiers (docs/development.md "Tests"), one vitest project each:
 * - `unit`: functions and modules in-process; no build, no server, no database server.
 * - `http`: the HTTP suites in-process (Fastify's inject) on the embedded database, files in
 *   parallel. `npm run test:quick` runs these two, without a build.
 * - `postgres`, `mysql`: what differs on those databases (SQL, locks, concurrency, layouts,
 *   outages, stored limits, text comparison, decimals, time zones), not every validation case a
 *   third time: {@link ON_EVERY_DATABASE}.
 * - `system`: real processes, the real CLI, browsers, Keystone, CloudKitty, tempest, Horizon, on
 *   SQLite; they share the heavy fixtures (one build, one Keystone per run).
 * - `timing`: what measures time or memory (sandbox limits, load, input scaling), one file at a
 *   time after everything else, so that no other test steals its CPU.
 * `TARIFF_TEST_DATABASES` (default `sqlite,postgres,mysql`) drops the projects of the databases
 * it does not name; `sqlite` also names unit, http, system and timing.
 */
const databases = new Set(
  (process.env.TARIFF_TEST_DATABASES ?? 'sqlite,postgres,mysql')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean),
);

/** The folders of system tests: everything but test/unit and the HTTP tier's folders. */
const SYSTEM_FOLDERS = [
  'cli',
  'client',
  'config-file',
  'console',
  'databases',
  'forward',
  'fuzz',
  'horizon',
  'keystone',
  'operations',
  'release',
  'sandbox',
  'server',
  'simulation',
  'tempest',
];

/** In-process tests that still start something of their own: they run as system tests. */
const STARTS_PROCESSES = [
  'test/http/persistence.test.ts',
  'test/price-list/atomicity.test.ts',
  'test/price-list/cloudkitty-cli.test.ts',
  'test/price-list/concurrency.test.ts',
  'test/price-list/keystone-policy.test.ts',
  'test/policy/keystone-policy.test.ts',
  'test/policy/oslo-policy.test.ts',
  'test/policy/sample.test.ts',
];

/**
 * Tests that measure time or memory: alone, after the rest. The sandbox's limits, load, queue
 * waits, recovery and worker demand (RSS) are; its other files (scripts, escapes, explain,
 * compile limits, output ranges, wiring, linger, the compiled worker) run with the system tier.
 */
const MEASURES_TIME = [
  ...['api', 'demand', 'limits', 'load', 'queue', 'recovery'].map((name) => `test/sandbox/${name}.test.ts`),
  'test/server/load.test.ts',
  'test/price-list/input-scaling.test.ts',
  'test/price-list/bulk-memory.test.ts',
];

/**
 * What runs on PostgreSQL and MariaDB besides SQLite: the database tests, CloudKitty adoption,
 * and the HTTP and price-list suites whose answers come from the database (constraints, stored
 * widths and decimals, datetimes, versioned intervals, text comparison, transactions, audit rows,
 * the fuzzer's hostile text). Input validation, wire conventions and answer shapes are decided
 * before any SQL and run on SQLite only.
 */
const ON_EVERY_DATABASE = [
  'test/databases/**/*.test.ts',
  'test/adoption/**/*.test.ts',
  'test/cloudkitty-master/**/*.test.ts',
  'test/fuzz/**/*.test.ts',
  ...[
    'acting-user',
    'audit-changes',
    'cloudkitty-datetimes',
    'hostile-input',
    'mappings',
    'modules',
    'quote-numbers',
    'quote',
    'scripts',
    'services-fields-groups',
    'shared-names',
    'stored-limits',
    'text-comparison',
    'thresholds',
    'time-zone',
    'versioning',
  ].map((name) => `test/http/${name}.test.ts`),
  ...['atomicity', 'audit', 'concurrency', 'price-change', 'round-trip', 'scheduled', 'simulation'].map((name) => `test/price-list/${name}.test.ts`),
];

/** SQLite has no server to lose; adopting CloudKitty databases is for its production databases only. */
const NOT_ON_SQLITE = ['test/databases/faults.test.ts', 'test/adoption/**', 'test/cloudkitty-master/**'];

/** Tests that start server processes need dist/ (built when stale, see build.ts); the Keystone files share one Keystone per run. */
const PROCESS_SETUP = ['test/helpers/build.ts', 'test/keystone/global-setup.ts'];

function project(name: string, database: string, test: TestProjectInlineConfiguration['test']): TestProjectInlineConfiguration {
  return { extends: true, test: { name, env: { TARIFF_TEST_DATABASE: database }, ...test } };
}

const projects: TestProjectInlineConfiguration[] = [];
if (databases.has('sqlite')) {
  projects.push(
    // In-process tiers share their workers' module graph between files (isolate: false): the
    // TypeScript of src/ is transformed and imported once per worker, not once per file.
    project('unit', 'sqlite', { include: ['test/unit/**/*.test.ts'], isolate: false }),
    project('http', 'sqlite', {
      include: ['test/http/**/*.test.ts', 'test/price-list/**/*.test.ts', 'test/policy/**/*.test.ts'],
      exclude: [...STARTS_PROCESSES, ...MEASURES_TIME],
      isolate: false,
    }),
    project('system', 'sqlite', {
      include: [`test/{${SYSTEM_FOLDERS.join(',')}}/**/*.test.ts`, ...STARTS_PROCESSES],
      exclude: [...MEASURES_TIME, ...NOT_ON_SQLITE],
      globalSetup: PROCESS_SETUP,
    }),
    project('timing', 'sqlite', { include: MEASURES_TIME, globalSetup: PROCESS_SETUP, maxWorkers: 1, isolate: false, sequence: { groupOrder: 1 } }),
  );
}
for (const database of ['postgres', 'mysql']) {
  if (databases.has(database))
    projects.push(
      project(database, database, {
        include: ON_EVERY_DATABASE,
        exclude: ['test/http/persistence.test.ts'],
        globalSetup: PROCESS_SETUP,
        // As in the http tier: src/ imported once per worker, not per file (measured on both
        // projects: imports 89 s → 20 s, wall 350 s → 320 s; every file passes either way).
        isolate: false,
      }),
    );
}

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Files run in parallel processes, each on databases of its own; more workers than the two
    // cores, as most test time waits for servers, databases and browsers.
    pool: 'forks',
    maxWorkers: Number(process.env.TARIFF_TEST_WORKERS ?? 3),
    // The longest files first (test/durations.json), so that none starts late and ends the run alone.
    sequence: { sequencer: LongestFirstSequencer },
    projects,
  },
});
