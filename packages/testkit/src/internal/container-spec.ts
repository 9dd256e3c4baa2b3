// What the testcontainers backend asks Docker for, as plain data: one `apache/kafka` container
// per node. Kept apart from container-cluster.ts (which imports testcontainers) so it can be
// checked without Docker and without loading testcontainers at all.
import { TestkitError, TestkitErrorCode } from '../errors.js';
import type { StartClusterOptions } from '../types.js';
import { defaultBrokerSettings, kafkaEnvName } from './broker-config.js';

/** The image every node runs; the tag is the Kafka release. */
export const KAFKA_IMAGE = 'apache/kafka';

/** The port each container's KRaft controller listens on, inside the Docker network. */
export const CONTROLLER_PORT = 9093;
/** The port brokers replicate on, inside the Docker network. */
export const INTERNAL_PORT = 19092;

/** One node's container. */
export interface ContainerNodeSpec {
  nodeId: number;
  /** `apache/kafka:<release>`. */
  image: string;
  /** Its name on the cluster's Docker network (`kafka-<id>`), used by the quorum and replication. */
  alias: string;
  /** The PLAINTEXT port, the same inside the container and on the host. */
  port: number;
  /** The image's configuration: every broker property as `KAFKA_<NAME>`, plus `CLUSTER_ID`. */
  env: Record<string, string>;
  /** The log line after which the node counts as started. */
  readyLog: RegExp;
  startupTimeoutMs: number;
}

/**
 * The containers a cluster of `ports.length` nodes needs. The host port of each node equals its
 * container port, so what a broker advertises (`127.0.0.1:<port>`) works from the host; the
 * nodes reach each other by alias on their own network.
 * @throws TestkitError ERR_KAFKA_TESTKIT_UNSUPPORTED for TLS/SASL listeners or ACLs, which this
 *   backend does not offer.
 */
export function containerNodeSpecs(
  options: StartClusterOptions,
  input: { clusterId: string; kafkaVersion: string; ports: readonly number[] },
): ContainerNodeSpec[] {
  const others = (options.listeners ?? []).filter((l) => l !== 'PLAINTEXT');
  if (others.length > 0 || options.acls === true) {
    throw new TestkitError(
      TestkitErrorCode.Unsupported,
      `the testcontainers backend offers PLAINTEXT without ACLs only (asked for ${[
        ...others,
        ...(options.acls === true ? ['acls'] : []),
      ].join(', ')}); use the jvm backend`,
    );
  }
  const count = input.ports.length;
  const voters = input.ports.map((_, i) => `${i + 1}@kafka-${i + 1}:${CONTROLLER_PORT}`).join(',');
  return input.ports.map((port, i) => {
    const nodeId = i + 1;
    const alias = `kafka-${nodeId}`;
    const props: Record<string, string | number | boolean> = {
      'node.id': nodeId,
      'process.roles': 'broker,controller',
      'controller.quorum.voters': voters,
      listeners: `PLAINTEXT://0.0.0.0:${port},INTERNAL://0.0.0.0:${INTERNAL_PORT},CONTROLLER://0.0.0.0:${CONTROLLER_PORT}`,
      'advertised.listeners': `PLAINTEXT://127.0.0.1:${port},INTERNAL://${alias}:${INTERNAL_PORT}`,
      'listener.security.protocol.map':
        'PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT',
      'controller.listener.names': 'CONTROLLER',
      'inter.broker.listener.name': 'INTERNAL',
      ...defaultBrokerSettings(count),
      ...(options.brokerConfig ?? {}),
      ...(options.nodeConfig?.[nodeId] ?? {}),
    };
    const env: Record<string, string> = { CLUSTER_ID: input.clusterId };
    for (const [key, value] of Object.entries(props)) env[kafkaEnvName(key)] = String(value);
    return {
      nodeId,
      image: `${KAFKA_IMAGE}:${input.kafkaVersion}`,
      alias,
      port,
      env,
      readyLog: /Kafka Server started/,
      startupTimeoutMs: options.startTimeoutMs ?? 120_000,
    };
  });
}
