import type { TestProject } from 'vitest/node';
import { startCluster } from '../cluster.js';
import type { KafkaCluster } from '../types.js';
import { SHARED_CLUSTER_KEY } from './shared-cluster.js';

let cluster: KafkaCluster | undefined;

/**
 * vitest globalSetup for integration runs: starts ONE 3-node cluster with every listener
 * (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL; no ACLs) and provides its description to the
 * test files (`sharedCluster()`). A cluster that cannot start throws here, so the run fails
 * loudly instead of skipping.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  cluster = await startCluster({
    nodes: 3,
    listeners: ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'],
  });
  process.stdout.write(
    `kafkats: shared 3-node Kafka cluster ready in ${((Date.now() - started) / 1000).toFixed(1)} s at ${cluster.bootstrap}\n`,
  );
  project.provide(SHARED_CLUSTER_KEY, cluster.describe());
  return async () => {
    await cluster?.stop();
    cluster = undefined;
  };
}
