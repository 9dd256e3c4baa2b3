import {
  ErrorCode,
  KafkaError,
  ProtocolError,
  ShareGroupHeartbeatApi,
  type ShareGroupHeartbeatResponse,
} from '@kafkats/codec';
import { type Cluster, retryDelayMs } from '@kafkats/meta';
import { ConnectionError, type Logger, UnsupportedVersionError } from '@kafkats/wire';
import { HeartbeatPause } from '../../internal/heartbeat-pause.js';
import { randomMemberId } from '../../internal/member-id.js';
import type { TopicPartition } from '../../topic-partition.js';
import { ShareGroupError, ShareGroupsUnsupportedError } from '../share-errors.js';

const JOIN_EPOCH = 0;
const LEAVE_EPOCH = -1;

// Answers after which the member cannot go on (Kafka's ShareHeartbeatRequestManager treats
// them as fatal, as its consumer-group twin does).
const FATAL = new Set<number>([
  ErrorCode.GROUP_MAX_SIZE_REACHED,
  ErrorCode.GROUP_AUTHORIZATION_FAILED,
  ErrorCode.INVALID_REQUEST,
  ErrorCode.INVALID_GROUP_ID,
  ErrorCode.GROUP_ID_NOT_FOUND,
  ErrorCode.UNSUPPORTED_VERSION,
]);

const COORDINATOR_MOVED = new Set<number>([
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
]);

/** A partition the coordinator assigned to this member, with its topic id. */
export interface SharePartition extends TopicPartition {
  readonly topicId: string;
}

export interface ShareMembershipConfig {
  readonly cluster: Cluster;
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly rackId: string | null;
  readonly retryBackoffMs: number;
  readonly retryBackoffMaxMs: number;
  readonly logger: Logger;
  /** The assignment changed (partitions resolved to names). */
  readonly onAssignment: (partitions: readonly SharePartition[]) => void;
  /** The member cannot go on. */
  readonly onFatal: (error: Error) => void;
  /**
   * The coordinator refused a heartbeat for a reason the application must see and that may
   * pass (TOPIC_AUTHORIZATION_FAILED: until ACLs are granted); the member goes on.
   */
  readonly onError: (error: Error) => void;
}

/**
 * KIP-932 share-group membership, after Kafka's `ShareMembershipManager` and
 * `ShareHeartbeatRequestManager`: the member makes up its id, joins with epoch 0 and its
 * subscription, then heartbeats at the coordinator's interval; each answer may carry the
 * member's whole assignment (by topic id), which replaces the last one at once (a share
 * partition is read by many members, so nothing is revoked first). FENCED_MEMBER_EPOCH and
 * UNKNOWN_MEMBER_ID rejoin with epoch 0 and the same id; -1 leaves.
 */
export class ShareMembership {
  readonly #config: ShareMembershipConfig;
  readonly memberId = randomMemberId();
  #epoch = JOIN_EPOCH;
  #intervalMs = 5000;
  #assignment: SharePartition[] = [];
  // The latest assignment by topic id; ids metadata does not know yet are resolved later.
  #target: Map<string, number[]> | undefined;
  #sentSubscription = false;
  #state: 'new' | 'running' | 'done' = 'new';
  readonly #stop = new AbortController();
  readonly #pauser = new HeartbeatPause(this.#stop.signal);
  #loop: Promise<void> | undefined;
  #joined: { resolve: () => void; reject: (e: Error) => void } | undefined;

  constructor(config: ShareMembershipConfig) {
    this.#config = config;
  }

  get epoch(): number {
    return this.#epoch;
  }

  get assignment(): readonly SharePartition[] {
    return this.#assignment;
  }

  /**
   * Joins: resolves once the coordinator accepted the member (its first assignment may still
   * be empty: a share group assigns on its own schedule).
   *
   * @throws ShareGroupsUnsupportedError before anything is sent when the brokers do not offer
   *   ShareGroupHeartbeat
   */
  async start(): Promise<void> {
    const version = await this.#config.cluster.negotiatedFor(ShareGroupHeartbeatApi.apiKey);
    if (version === undefined) throw new ShareGroupsUnsupportedError('ShareGroupHeartbeat');
    this.#state = 'running';
    const joined = new Promise<void>((resolve, reject) => {
      this.#joined = { resolve, reject };
    });
    this.#loop = this.#heartbeatLoop();
    await joined;
  }

  /** Leaves the group (epoch -1), best effort, after the heartbeats stop. */
  async leave(): Promise<void> {
    if (this.#state !== 'running') {
      this.#state = 'done';
      return;
    }
    this.#state = 'done';
    this.#stop.abort();
    await this.#loop;
    try {
      await this.#config.cluster.sendToCoordinator(
        'group',
        this.#config.groupId,
        ShareGroupHeartbeatApi,
        ShareGroupHeartbeatApi.createRequest({
          groupId: this.#config.groupId,
          memberId: this.memberId,
          memberEpoch: LEAVE_EPOCH,
        }),
        { maxAttempts: 2, checkTopLevelError: false, operationTimeoutMs: 5000 },
      );
    } catch {
      // As Java's close: the session timeout removes the member anyway.
    }
  }

  /** Stops without leaving (the consumer failed). */
  abandon(): void {
    this.#state = 'done';
    this.#stop.abort();
  }

  async #heartbeatLoop(): Promise<void> {
    let failures = 0;
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      const joining = this.#epoch === JOIN_EPOCH;
      const withSubscription = joining || !this.#sentSubscription;
      let response: ShareGroupHeartbeatResponse;
      try {
        response = await this.#config.cluster.sendToCoordinator(
          'group',
          this.#config.groupId,
          ShareGroupHeartbeatApi,
          ShareGroupHeartbeatApi.createRequest({
            groupId: this.#config.groupId,
            memberId: this.memberId,
            memberEpoch: this.#epoch,
            // Sent when joining or after a failure; null means "unchanged" to the coordinator.
            rackId: withSubscription ? this.#config.rackId : null,
            subscribedTopicNames: withSubscription ? [...this.#config.topics] : null,
          }),
          { maxAttempts: 1, checkTopLevelError: false, signal },
        );
      } catch (error) {
        if (signal.aborted) return;
        this.#sentSubscription = false;
        if (error instanceof UnsupportedVersionError) {
          this.#fatal(new ShareGroupsUnsupportedError('ShareGroupHeartbeat', error.message));
          return;
        }
        if (
          !(error instanceof ConnectionError) &&
          !(error instanceof KafkaError && error.retriable)
        ) {
          this.#fatal(new ShareGroupError(this.#config.groupId, -1, 'heartbeat failed', error));
          return;
        }
        this.#config.cluster.invalidateCoordinator('group', this.#config.groupId);
        await this.#pause(this.#backoff(++failures));
        continue;
      }
      const code = response.errorCode;
      if (code === ErrorCode.NONE) {
        failures = 0;
        this.#sentSubscription = true;
        this.#epoch = response.memberEpoch;
        if (response.heartbeatIntervalMs > 0) this.#intervalMs = response.heartbeatIntervalMs;
        if (response.assignment !== null) {
          const target = new Map<string, number[]>();
          for (const t of response.assignment.topicPartitions)
            target.set(t.topicId, [...(target.get(t.topicId) ?? []), ...t.partitions]);
          this.#target = target;
        }
        await this.#resolveTarget();
        this.#joined?.resolve();
        this.#joined = undefined;
        await this.#pause(this.#target === undefined ? this.#intervalMs : this.#nextDelay());
        continue;
      }
      this.#sentSubscription = false;
      if (COORDINATOR_MOVED.has(code) || code === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) {
        if (COORDINATOR_MOVED.has(code))
          this.#config.cluster.invalidateCoordinator('group', this.#config.groupId);
        await this.#pause(this.#backoff(++failures));
        continue;
      }
      if (code === ErrorCode.FENCED_MEMBER_EPOCH || code === ErrorCode.UNKNOWN_MEMBER_ID) {
        // Rejoin at once with the same member id; the records it acquired stay locked to it.
        this.#config.logger.info(
          { groupId: this.#config.groupId, memberId: this.memberId, errorCode: code },
          'share group member fenced, rejoining',
        );
        this.#epoch = JOIN_EPOCH;
        this.#target = undefined;
        this.#setAssignment([]);
        continue;
      }
      const error = ProtocolError.fromCode(
        code,
        `ShareGroupHeartbeat for group ${JSON.stringify(this.#config.groupId)}${response.errorMessage ? `: ${response.errorMessage}` : ''}`,
      );
      if (code === ErrorCode.UNSUPPORTED_VERSION) {
        this.#fatal(new ShareGroupsUnsupportedError('ShareGroupHeartbeat', error.message));
        return;
      }
      if (code === ErrorCode.TOPIC_AUTHORIZATION_FAILED) {
        // Kafka's share consumer throws it from poll and keeps its membership going.
        this.#config.onError(error);
        await this.#pause(this.#backoff(++failures));
        continue;
      }
      if (FATAL.has(code) || !error.retriable) {
        this.#fatal(new ShareGroupError(this.#config.groupId, code, error.message, error));
        return;
      }
      await this.#pause(this.#backoff(++failures));
    }
  }

  // While some assigned topic ids are unknown to metadata, heartbeat at the backoff so the
  // refresh is retried soon; else at the coordinator's interval.
  #nextDelay(): number {
    return this.#unresolved ? this.#config.retryBackoffMs : this.#intervalMs;
  }

  #unresolved = false;

  /**
   * The assignment by name (Kafka's `AbstractMembershipManager` resolves topic ids through
   * metadata, refreshing it for ids it does not know yet).
   */
  async #resolveTarget(): Promise<void> {
    const target = this.#target;
    if (target === undefined) return;
    let names = this.#names();
    if ([...target.keys()].some((id) => !names.has(id))) {
      await this.#config.cluster.refreshTopics(this.#config.topics).catch(() => undefined);
      names = this.#names();
    }
    const partitions: SharePartition[] = [];
    this.#unresolved = false;
    for (const [topicId, list] of target) {
      const topic = names.get(topicId);
      if (topic === undefined) {
        this.#unresolved = true;
        continue;
      }
      for (const partition of list) partitions.push({ topic, partition, topicId });
    }
    partitions.sort((a, b) =>
      a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1,
    );
    this.#setAssignment(partitions);
  }

  #names(): Map<string, string> {
    const names = new Map<string, string>();
    for (const t of this.#config.cluster.snapshot().topics) names.set(t.topicId, t.name);
    return names;
  }

  #setAssignment(partitions: SharePartition[]): void {
    const before = this.#assignment;
    const same =
      before.length === partitions.length &&
      before.every(
        (p, i) => p.topicId === partitions[i]!.topicId && p.partition === partitions[i]!.partition,
      );
    if (same) return;
    this.#assignment = partitions;
    this.#config.logger.info(
      {
        groupId: this.#config.groupId,
        memberId: this.memberId,
        epoch: this.#epoch,
        partitions: partitions.map((p) => `${p.topic}-${p.partition}`).join(','),
      },
      'share group assignment',
    );
    this.#config.onAssignment(partitions);
  }

  #backoff(failures: number): number {
    return retryDelayMs(
      {
        backoffMs: this.#config.retryBackoffMs,
        maxBackoffMs: this.#config.retryBackoffMaxMs,
        jitter: 0.2,
      },
      failures + 1,
    );
  }

  #pause(ms: number): Promise<void> {
    return this.#pauser.pause(ms);
  }

  #fatal(error: Error): void {
    this.#state = 'done';
    this.#stop.abort();
    this.#joined?.reject(error);
    this.#joined = undefined;
    this.#config.onFatal(error);
  }
}
