import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { reporters } from './vitest.shared.js';

/**
 * The real-broker smoke run alone (one file, also part of the integration suite on Node), for
 * Bun and Deno: `node scripts/with-runtime.mjs <bun|deno> --smoke` runs vitest on the runtime
 * with this config. The testkit's global setup starts the same 3-node cluster as the
 * integration run (every listener) and fails the run when it cannot; with KAFKATS_RUNTIME set,
 * the runtime guard fails the file when its worker is not that runtime. Report:
 * `smoke[-<KAFKATS_REPORT_TAG>].json` in KAFKATS_REPORT_DIR.
 */
export default defineConfig({
  test: {
    include: ['packages/cli/test/integration/runtime-smoke.test.ts'],
    globalSetup: ['packages/testkit/src/vitest/global-setup.ts'],
    setupFiles: process.env.KAFKATS_RUNTIME
      ? [fileURLToPath(new URL('./scripts/runtime-guard.mjs', import.meta.url))]
      : [],
    passWithNoTests: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // The steps build on each other (topic, records, commits): a retry of one alone means
    // nothing, and a failure on a runtime must show.
    retry: 0,
    reporters: reporters('smoke'),
  },
});
