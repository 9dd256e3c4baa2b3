import type { Cluster } from '@kafkats/meta';
import type { TopicPartition } from '../../topic-partition.js';
import type { PartitionAssignor } from '../partition-assignor.js';

/**
 * The seams inside the group consumer. Three pieces meet here, each behind one interface:
 *
 * - a {@link GroupMembership} keeps this member in its group and says which partitions it owns:
 *   KIP-848's `ConsumerGroupHeartbeat` protocol (Kafka's `ConsumerMembershipManager`) or the
 *   classic JoinGroup/SyncGroup/Heartbeat protocol (Kafka's `ConsumerCoordinator`);
 * - a `Fetcher` (the fetch engine's front, `fetcher-contract.ts`) reads the owned partitions,
 *   one fetch session per broker (KIP-227);
 * - the `Consumer` ties them together: committed offsets on assignment, commits on revocation,
 *   the application's iteration.
 */

/**
 * What a membership tells the consumer. Calls are made one at a time, in order, and each
 * returned promise is awaited before the membership goes on (before it acknowledges a
 * revocation to the coordinator, for instance). A callback that throws does not stop the
 * membership; the error reaches the application through {@link MembershipListener.onFatal}
 * only when the membership cannot go on.
 */
export interface MembershipListener {
  /** Newly owned partitions (only the added ones, never the whole assignment again). */
  onAssigned(partitions: readonly TopicPartition[]): Promise<void>;
  /**
   * Partitions this member gives up while still a member: the consumer stops fetching them and
   * commits what the application finished, then the membership tells the coordinator.
   */
  onRevoked(partitions: readonly TopicPartition[]): Promise<void>;
  /**
   * Partitions lost without the chance to commit (fenced, session expired, unknown member):
   * the consumer drops them and must not commit their offsets.
   */
  onLost(partitions: readonly TopicPartition[]): Promise<void>;
  /** The membership stopped for good (authorization, an unsupported assignor, ...). */
  onFatal(error: Error): void;
}

/** The member's identity, as OffsetCommit and TxnOffsetCommit want it for fencing. */
export interface MemberIdentity {
  readonly memberId: string;
  /** Classic: the generation id. KIP-848: the member epoch. -1 when not a member. */
  readonly generationId: number;
  readonly groupInstanceId: string | null;
}

/** Everything a membership needs; defaults already applied by the consumer. */
export interface MembershipConfig {
  readonly cluster: Cluster;
  readonly groupId: string;
  /** Static membership (KIP-345); null for a dynamic member. */
  readonly groupInstanceId: string | null;
  readonly rackId: string | null;
  /** Topics subscribed to (exact names). */
  readonly topics: readonly string[];
  /**
   * KIP-848: a regex (RE2/J) the coordinator matches topic names against (SubscribedTopicRegex),
   * null for none. The classic protocol never sees it: the consumer matches names itself.
   */
  readonly topicPattern?: string | null;
  /** Classic: `session.timeout.ms` (45000). KIP-848: the broker decides. */
  readonly sessionTimeoutMs: number;
  /** Classic: `max.poll.interval.ms` as JoinGroup's rebalance timeout (300000). */
  readonly rebalanceTimeoutMs: number;
  /** Classic: `heartbeat.interval.ms` (3000). KIP-848: the broker's interval is used. */
  readonly heartbeatIntervalMs: number;
  /** KIP-848: `group.remote.assignor` ('uniform' | 'range'), null lets the broker choose. */
  readonly serverAssignor: string | null;
  /** Classic: assignors offered in preference order (default cooperative-sticky, range). */
  readonly assignors: readonly ('cooperative-sticky' | 'range' | PartitionAssignor)[];
  readonly retryBackoffMs: number;
  readonly retryBackoffMaxMs: number;
  readonly listener: MembershipListener;
  readonly random: () => number;
}

/** One member's participation in a consumer group. */
export interface GroupMembership {
  /** `'consumer'` (KIP-848), `'classic'`, or `'none'` for a manual assignment. */
  readonly protocol: 'consumer' | 'classic' | 'none';
  /** Current identity; generationId -1 while not a member. */
  readonly identity: MemberIdentity;
  /** Partitions owned now. */
  readonly assignment: readonly TopicPartition[];
  /**
   * Joins, then keeps the membership alive in the background (heartbeats, rebalances,
   * rejoining after fencing) until {@link leave} or {@link abandon}. Resolves once the first
   * assignment was delivered to the listener (possibly empty).
   */
  start(signal?: AbortSignal): Promise<void>;
  /** Changes the subscription (KIP-848: and the regex); the next heartbeat or rejoin carries it. */
  subscribe(topics: readonly string[], pattern?: string | null): void;
  /**
   * Revokes everything (listener.onRevoked awaited), then leaves the group: LeaveGroup, or a
   * heartbeat with epoch -1 (-2 for a static member, which keeps its place until the session
   * times out). Idempotent.
   */
  leave(): Promise<void>;
  /** Stops heartbeating without a word to the coordinator (a crash, as tests need it). */
  abandon(): void;
}
