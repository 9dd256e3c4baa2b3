import { TestkitError, TestkitErrorCode } from './errors.js';
import { startJvmCluster } from './internal/jvm-cluster.js';
import type { KafkaCluster, StartClusterOptions } from './types.js';

/** The backend chosen by `options.backend`, else $KAFKATS_BACKEND, else `jvm`. */
export function selectedBackend(options: StartClusterOptions = {}): 'jvm' | 'testcontainers' {
  const chosen = options.backend ?? process.env.KAFKATS_BACKEND ?? 'jvm';
  if (chosen !== 'jvm' && chosen !== 'testcontainers') {
    throw new TestkitError(
      TestkitErrorCode.BackendUnavailable,
      `unknown KAFKATS_BACKEND ${chosen} (jvm or testcontainers)`,
    );
  }
  return chosen;
}

/**
 * Starts a real Apache Kafka KRaft cluster (the pinned release, or `kafkaVersion`) on loopback and resolves once
 * every node is registered and answering. Nodes are combined broker+controller, ids 1..n,
 * on free ports; storage is formatted in a fresh directory. The JVMs die with this process
 * (exit hooks, and a watchdog that notices even a SIGKILL within a second) unless `detached`.
 *
 * Backends: `jvm` (default) runs the jars from Maven Central; `testcontainers`
 * (KAFKATS_BACKEND=testcontainers) runs the `apache/kafka` image and needs a Docker engine.
 * @throws TestkitError ERR_KAFKA_TESTKIT_CLUSTER_START_FAILED, with every node's log tail,
 *   when the cluster is not ready within `startTimeoutMs`;
 *   ERR_KAFKA_TESTKIT_BACKEND_UNAVAILABLE when the chosen backend cannot run here.
 */
export async function startCluster(options: StartClusterOptions = {}): Promise<KafkaCluster> {
  if (selectedBackend(options) === 'testcontainers') {
    // Loaded only when chosen: the JVM backend must not pay for testcontainers (dockerode,
    // undici, ssh2) or fail because of it.
    let backend: typeof import('./internal/container-cluster.js');
    try {
      backend = await import('./internal/container-cluster.js');
    } catch (error) {
      throw new TestkitError(
        TestkitErrorCode.BackendUnavailable,
        `the testcontainers backend cannot load on Node ${process.versions.node}`,
        { cause: error },
      );
    }
    return backend.startContainerCluster(options);
  }
  return startJvmCluster(options);
}
