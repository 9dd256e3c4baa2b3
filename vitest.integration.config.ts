import { defineConfig } from 'vitest/config';
import { reporters } from './vitest.shared.js';

/**
 * Integration tests against real Apache Kafka. One shared 3-node KRaft cluster is started for
 * the whole run by the testkit's global setup (tests may also start a private one). When the
 * cluster cannot start, the setup throws and the run fails: nothing is skipped.
 */
export default defineConfig({
  test: {
    include: ['packages/*/test/integration/**/*.test.ts'],
    globalSetup: ['packages/testkit/src/vitest/global-setup.ts'],
    passWithNoTests: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Two cores and three JVMs: test files run one after another so timings stay sane.
    fileParallelism: false,
    reporters: reporters('integration'),
  },
});
