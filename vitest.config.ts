import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup-priority.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // e2e tests spawn real processes (hostplane, knotd); two cores cannot run many at once.
    poolOptions: { forks: { maxForks: 2 } },
    pool: 'forks',
    // CI also keeps a machine-readable report, from which .ci/run prints its one-line summary.
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: process.env.HOSTPLANE_TEST_STORE === 'postgres' ? '.tmp/vitest-report-pg.json' : '.tmp/vitest-report.json' }]]
      : ['default'],
  },
});
