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
    // One retry: these tests drive three JVMs on a two-core machine, freeze and kill brokers,
    // and race elections; a race in a test (not the client) can lose once. A test that passes
    // only on its retry is listed by `npm test` ("passed on a retry") with its first failure,
    // so a flaky test stays visible; one that fails twice fails the run.
    retry: 1,
    reporters: reporters('integration'),
  },
});
