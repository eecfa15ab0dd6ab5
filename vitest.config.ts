import { defineConfig } from 'vitest/config';

/**
 * One vitest project per database. `TARIFF_TEST_DATABASES` (default: all three) names them; the
 * HTTP suites run on each, the rest (unit, real CLI, process-level SQLite tests) on SQLite only.
 */
const databases = (process.env.TARIFF_TEST_DATABASES ?? 'sqlite,postgres,mysql')
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Files run in parallel processes; each uses its own database.
    pool: 'forks',
    projects: databases.map((database) => ({
      extends: true,
      test: {
        name: database,
        env: { TARIFF_TEST_DATABASE: database },
        include:
          database === 'sqlite'
            ? ['test/**/*.test.ts']
            : [
                'test/http/**/*.test.ts',
                'test/databases/**/*.test.ts',
                'test/adoption/**/*.test.ts',
                'test/fuzz/**/*.test.ts',
                'test/cloudkitty-master/**/*.test.ts',
                'test/price-list/**/*.test.ts',
              ],
        // SQLite has no server to lose; the other databases have no file to kill a writer over.
        // Adopting CloudKitty databases, and sharing one with its processor, is for its production databases only.
        exclude: database === 'sqlite' ? ['test/databases/faults.test.ts', 'test/adoption/**', 'test/cloudkitty-master/**'] : ['test/http/persistence.test.ts'],
        // Tests that start server processes need dist/ (built when stale; see build.ts); the
        // Keystone files share one Keystone per run (test/keystone/global-setup.ts).
        globalSetup: ['test/helpers/build.ts', 'test/keystone/global-setup.ts'],
      },
    })),
  },
});
