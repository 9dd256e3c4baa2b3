import type { KafkaError, ProtocolError } from '@kafkats/codec';
import type { TopicPartition } from '../topic-partition.js';
import type { AdminCallOptions } from './admin-options.js';

/** Options of {@link Admin.describeCluster}. */
export interface DescribeClusterOptions extends AdminCallOptions {
  /** Also list fenced brokers (DescribeCluster v2+). Default false. */
  readonly includeFencedBrokers?: boolean;
}

/** A broker as {@link Admin.describeCluster} lists it. */
export interface BrokerDescription {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  readonly rack: string | null;
  /** True for a fenced broker (only listed with `includeFencedBrokers`). */
  readonly isFenced: boolean;
}

/** {@link Admin.describeCluster}' answer. */
export interface ClusterDescription {
  readonly clusterId: string;
  /**
   * The controller id the broker reports; in KRaft a broker picked by the broker that
   * answered (requests to it are forwarded to the active controller). Absent when none.
   */
  readonly controllerId?: number;
  /** Sorted by node id. */
  readonly brokers: readonly BrokerDescription[];
}

/** Kafka's `ElectionType`: PREFERRED (the first replica) or UNCLEAN (any live replica, data loss possible). */
export type ElectionType = 'PREFERRED' | 'UNCLEAN';

/** Options of {@link Admin.electLeaders}. */
export interface ElectLeadersOptions extends AdminCallOptions {
  /** Default PREFERRED. */
  readonly type?: ElectionType;
}

/** One partition's election outcome. */
export interface ElectedPartition extends TopicPartition {
  /**
   * ELECTION_NOT_NEEDED when the partition already has that leader, PREFERRED_LEADER_NOT_AVAILABLE,
   * ELIGIBLE_LEADERS_NOT_AVAILABLE, UNKNOWN_TOPIC_OR_PARTITION, ...
   */
  readonly error?: ProtocolError;
}

/** {@link Admin.electLeaders}' answer: every partition the controller reported on. */
export interface ElectLeadersResult {
  readonly partitions: readonly ElectedPartition[];
}

/** Options of {@link Admin.describeLogDirs}. */
export interface DescribeLogDirsOptions extends AdminCallOptions {
  /** The brokers to ask; default every broker in the cluster's metadata. */
  readonly brokerIds?: readonly number[];
  /** Only these partitions; default every partition on the broker. */
  readonly partitions?: readonly TopicPartition[];
}

/** One partition replica in a log directory. */
export interface LogDirReplica extends TopicPartition {
  /** Bytes on disk. */
  readonly size: bigint;
  /** How far behind the log end offset (of the current replica, for a future one), in offsets. */
  readonly offsetLag: bigint;
  /** True for the future replica of an intra-broker move (AlterReplicaLogDirs). */
  readonly isFuture: boolean;
}

/** One log directory of one broker. */
export interface LogDirDescription {
  readonly path: string;
  /** KAFKA_STORAGE_ERROR for an offline directory. */
  readonly error?: ProtocolError;
  /** The volume's size and free space, bytes (DescribeLogDirs v4+); absent when unknown. */
  readonly totalBytes?: bigint;
  readonly usableBytes?: bigint;
  /** True when no new replicas are placed there (DescribeLogDirs v5+, KIP-1066). */
  readonly isCordoned: boolean;
  readonly replicas: readonly LogDirReplica[];
}

/** One broker's log directories. */
export interface BrokerLogDirs {
  readonly brokerId: number;
  /** Empty when `error` is set. */
  readonly logDirs: readonly LogDirDescription[];
  /** The broker's refusal (CLUSTER_AUTHORIZATION_FAILED) or why it could not be asked. */
  readonly error?: KafkaError;
}

/** {@link Admin.describeLogDirs}' answer: one entry per broker asked, in request order. */
export interface DescribeLogDirsResult {
  readonly brokers: readonly BrokerLogDirs[];
}
