import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Files run in parallel processes; each uses its own database.
    pool: 'forks',
    globalSetup: ['test/helpers/build.ts'],
  },
});
