import { defineConfig } from 'vitest/config';
import { reporters } from './vitest.shared.js';

/**
 * Conformance: our codec and our tiered-storage metadata serde, partitioner and state against
 * Apache Kafka's own classes, run by `npm run conformance` (scripts/conformance.mjs prints the
 * one-line summary). Each test file starts its own oracle JVM from the pinned jars; no broker
 * is needed.
 */
export default defineConfig({
  test: {
    include: [
      'packages/codec/test/conformance/**/*.test.ts',
      'packages/remote-log-metadata/test/conformance/**/*.test.ts',
      'packages/sasl-aws-msk-iam/test/conformance/**/*.test.ts',
    ],
    passWithNoTests: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: reporters('conformance'),
  },
});
