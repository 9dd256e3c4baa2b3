import { defineConfig } from 'vitest/config';

/**
 * Conformance with Apache Kafka's own tiered-storage metadata code (RemoteLogMetadataSerde,
 * RemoteLogMetadataTopicPartitioner, RemotePartitionMetadataStore from the pinned jars, run by
 * the testkit's RlmmOracle). Needs a JVM, no broker.
 */
export default defineConfig({
  test: {
    include: ['test/conformance/**/*.test.ts'],
    passWithNoTests: false,
    testTimeout: 180_000,
    pool: 'forks',
  },
});
