import { defineConfig } from 'vitest/config';
import { reporters } from './vitest.shared.js';

/**
 * Conformance (issue 5): our codec against Apache Kafka's own serializers, run by
 * `npm run conformance` (scripts/conformance.mjs prints the one-line summary). Each test file
 * starts its own oracle JVM from the pinned jars; no broker is needed.
 */
export default defineConfig({
  test: {
    include: ['packages/codec/test/conformance/**/*.test.ts'],
    passWithNoTests: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: reporters('conformance'),
  },
});
