import {
  ConsumerGroupHeartbeatApi,
  type ConsumerGroupHeartbeatRequest,
  type ConsumerGroupHeartbeatResponse,
  ErrorCode,
  KafkaError,
  ProtocolError,
} from '@kafkats/codec';
import { retryDelayMs, sleep } from '@kafkats/meta';
import { ConnectionError, UnsupportedVersionError } from '@kafkats/wire';
import { HeartbeatPause } from '../../internal/heartbeat-pause.js';
import { randomMemberId } from '../../internal/member-id.js';
import type { TopicPartition } from '../../topic-partition.js';
import { GroupMembershipError, GroupProtocolUnsupportedError } from '../consumer-errors.js';
import type { GroupMembership, MemberIdentity, MembershipConfig } from './contracts.js';

// Member epochs with a meaning of their own (ConsumerGroupHeartbeatRequest.json).
const JOIN_EPOCH = 0;
const LEAVE_EPOCH = -1;
const STATIC_LEAVE_EPOCH = -2; // a static member keeps its place until the session times out

// Answers after which the member cannot go on (Kafka's ConsumerHeartbeatRequestManager treats
// them as fatal); FENCED_INSTANCE_ID: another process took over the static member's id.
const FATAL = new Set<number>([
  ErrorCode.UNRELEASED_INSTANCE_ID,
  ErrorCode.GROUP_MAX_SIZE_REACHED,
  ErrorCode.GROUP_AUTHORIZATION_FAILED,
  ErrorCode.UNSUPPORTED_ASSIGNOR,
  ErrorCode.INVALID_REQUEST,
  ErrorCode.FENCED_INSTANCE_ID,
  ErrorCode.TOPIC_AUTHORIZATION_FAILED,
  ErrorCode.INVALID_GROUP_ID,
]);

const COORDINATOR_MOVED = new Set<number>([
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
]);

interface OwnedPartition extends TopicPartition {
  readonly topicId: string;
}

const keyOf = (topicId: string, partition: number) => `${topicId}:${partition}`;

/** What the last successful heartbeat carried, to send only what changed (Java's `HeartbeatState`). */
interface SentFields {
  readonly rebalanceTimeoutMs: number;
  readonly topics: string;
  readonly pattern: string | null;
  readonly rackId: string | null;
  readonly serverAssignor: string | null;
}

/**
 * KIP-848 membership (`group.protocol=consumer`), after Kafka's `ConsumerMembershipManager` and
 * `ConsumerHeartbeatRequestManager`: ConsumerGroupHeartbeat at the broker's interval; the
 * broker computes the assignment and sends the member's target (by topic id); the member
 * revokes what it must give up, assigns what it got, then acknowledges by reporting what it
 * owns. Member epoch 0 joins, -1 leaves (-2 for a static member); FENCED_MEMBER_EPOCH and
 * UNKNOWN_MEMBER_ID lose everything and rejoin with epoch 0 and the same member id.
 */
export class ConsumerProtocolMembership implements GroupMembership {
  readonly protocol = 'consumer' as const;
  readonly #config: MembershipConfig;
  #topics: readonly string[];
  #memberId = '';
  #epoch = -1;
  #joined = false; // the broker gave this member an epoch (> 0) since the last (re)join
  #intervalMs: number;
  #sent: SentFields | undefined;
  // Acknowledgements: each reconciliation asks for one (the owned partitions go with the next
  // heartbeat); an answer settles the ones its request carried, not a later one.
  #ackWanted = 1;
  #ackDone = 0;
  #targetFresh = false;
  readonly #owned = new Map<string, OwnedPartition>();
  // The latest target assignment from the broker, by topic id; reconciled one at a time.
  #target: ReadonlyMap<string, readonly number[]> | undefined;
  #targetDirty = false;
  #reconciling: Promise<void> | undefined;
  // Bumped on fencing and leaving: a reconciliation started before stops applying itself.
  #generation = 0;
  #state: 'new' | 'running' | 'leaving' | 'done' = 'new';
  readonly #stop = new AbortController();
  readonly #pauser = new HeartbeatPause(this.#stop.signal);
  #loop: Promise<void> | undefined;
  #leaving: Promise<void> | undefined;
  #firstAssignment: { resolve: () => void; reject: (e: Error) => void } | undefined;
  // KIP-848 broker-side regex subscription (RE2/J), null for none.
  #pattern: string | null;

  constructor(config: MembershipConfig) {
    this.#config = config;
    this.#topics = [...config.topics];
    this.#pattern = config.topicPattern ?? null;
    this.#intervalMs = config.heartbeatIntervalMs;
  }

  get identity(): MemberIdentity {
    return {
      memberId: this.#memberId,
      generationId: this.#joined ? this.#epoch : -1,
      groupInstanceId: this.#config.groupInstanceId,
    };
  }

  get assignment(): readonly TopicPartition[] {
    return [...this.#owned.values()].map(({ topic, partition }) => ({ topic, partition }));
  }

  async start(signal?: AbortSignal): Promise<void> {
    if (this.#state !== 'new') throw new KafkaError('ERR_KAFKA_CONSUMER_STATE', 'already started');
    const version = await this.#config.cluster.negotiatedFor(ConsumerGroupHeartbeatApi.apiKey);
    if (version === undefined)
      throw new GroupProtocolUnsupportedError(
        'the brokers do not support ConsumerGroupHeartbeat (KIP-848)',
      );
    if (this.#pattern !== null && version < 1)
      throw new GroupProtocolUnsupportedError(
        'regex subscriptions need ConsumerGroupHeartbeat v1 (SubscribedTopicRegex, Kafka 4.0)',
      );
    this.#state = 'running';
    const first = new Promise<void>((resolve, reject) => {
      this.#firstAssignment = { resolve, reject };
    });
    const onAbort = () => this.abandon();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.#loop = this.#heartbeatLoop();
    try {
      await first;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  subscribe(topics: readonly string[], pattern: string | null = null): void {
    this.#topics = [...topics];
    this.#pattern = pattern;
    this.#wakeUp();
  }

  leave(): Promise<void> {
    this.#leaving ??= this.#leave();
    return this.#leaving;
  }

  abandon(): void {
    if (this.#state === 'done') return;
    this.#state = 'done';
    this.#generation++;
    this.#stop.abort();
    this.#firstAssignment?.reject(
      new KafkaError('ERR_KAFKA_CONSUMER_ABANDONED', 'membership abandoned'),
    );
  }

  async #leave(): Promise<void> {
    if (this.#state === 'new' || this.#state === 'done') {
      this.#state = 'done';
      return;
    }
    this.#state = 'leaving';
    // Let a running reconciliation finish (listener calls are made one at a time), then give
    // everything up while heartbeats go on, so the commit in onRevoked keeps its epoch.
    await this.#reconciling;
    this.#generation++;
    const owned = [...this.#owned.values()];
    if (owned.length > 0) {
      await this.#call('onRevoked', owned);
      this.#owned.clear();
    }
    this.#stop.abort();
    await this.#loop;
    this.#state = 'done';
    // Left before the first assignment arrived: start() returns, there is nothing to wait for.
    this.#firstAssignment?.resolve();
    this.#firstAssignment = undefined;
    if (!this.#joined && this.#memberId === '') return;
    const epoch = this.#config.groupInstanceId === null ? LEAVE_EPOCH : STATIC_LEAVE_EPOCH;
    try {
      await this.#config.cluster.sendToCoordinator(
        'group',
        this.#config.groupId,
        ConsumerGroupHeartbeatApi,
        ConsumerGroupHeartbeatApi.createRequest({
          groupId: this.#config.groupId,
          memberId: this.#memberId,
          memberEpoch: epoch,
          instanceId: this.#config.groupInstanceId,
        }),
        { maxAttempts: 2, checkTopLevelError: false, operationTimeoutMs: 5000 },
      );
    } catch {
      // Best effort, as Java's leave on close: the session timeout removes the member anyway.
    }
    this.#joined = false;
    this.#epoch = -1;
  }

  #wakeUp(): void {
    this.#pauser.wake();
  }

  async #heartbeatLoop(): Promise<void> {
    let failures = 0;
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      const request = this.#request();
      let response: ConsumerGroupHeartbeatResponse;
      try {
        response = await this.#config.cluster.sendToCoordinator(
          'group',
          this.#config.groupId,
          ConsumerGroupHeartbeatApi,
          (version) => this.#forVersion(request, version),
          { maxAttempts: 1, checkTopLevelError: false, signal },
        );
      } catch (error) {
        if (signal.aborted) return;
        this.#sent = undefined; // send everything again, as Java resets its HeartbeatState
        if (error instanceof UnsupportedVersionError) {
          this.#fatal(
            new GroupProtocolUnsupportedError('ConsumerGroupHeartbeat is not supported', error),
          );
          return;
        }
        // A lost or refused connection is retried like any retriable error (the coordinator's
        // broker may be down: look it up again); anything else that is final stops the member.
        if (
          !(error instanceof ConnectionError) &&
          !(error instanceof KafkaError && error.retriable)
        ) {
          this.#fatal(
            new GroupMembershipError(this.#config.groupId, -1, 'heartbeat failed', error),
          );
          return;
        }
        this.#config.cluster.invalidateCoordinator('group', this.#config.groupId);
        failures++;
        await this.#pause(this.#backoff(failures));
        continue;
      }
      const code = response.errorCode;
      if (code === ErrorCode.NONE) {
        failures = 0;
        this.#onSuccess(request, response);
        await this.#pause(this.#nextDelay());
        continue;
      }
      this.#sent = undefined;
      if (COORDINATOR_MOVED.has(code) || code === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) {
        if (COORDINATOR_MOVED.has(code))
          this.#config.cluster.invalidateCoordinator('group', this.#config.groupId);
        failures++;
        await this.#pause(this.#backoff(failures));
        continue;
      }
      if (code === ErrorCode.FENCED_MEMBER_EPOCH || code === ErrorCode.UNKNOWN_MEMBER_ID) {
        await this.#fenced();
        continue;
      }
      const error = ProtocolError.fromCode(
        code,
        `ConsumerGroupHeartbeat for group ${JSON.stringify(this.#config.groupId)}${response.errorMessage ? `: ${response.errorMessage}` : ''}`,
      );
      if (code === ErrorCode.UNSUPPORTED_VERSION) {
        this.#fatal(new GroupProtocolUnsupportedError(error.message, error));
        return;
      }
      if (FATAL.has(code) || !error.retriable) {
        this.#fatal(new GroupMembershipError(this.#config.groupId, code, error.message, error));
        return;
      }
      failures++;
      await this.#pause(this.#backoff(failures));
    }
  }

  // The next heartbeat waits the broker's interval, or goes at once when an acknowledgement
  // or a changed subscription is waiting (Java sends those without waiting for the interval).
  #nextDelay(): number {
    if (this.#ackWanted !== this.#ackDone || this.#fieldsChanged()) return 0;
    return this.#intervalMs;
  }

  #backoff(failures: number): number {
    return retryDelayMs(
      {
        backoffMs: this.#config.retryBackoffMs,
        maxBackoffMs: this.#config.retryBackoffMaxMs,
        jitter: 0.2,
      },
      failures + 1,
      this.#config.random,
    );
  }

  #pause(ms: number): Promise<void> {
    return this.#pauser.pause(ms);
  }

  #fields(): SentFields {
    return {
      rebalanceTimeoutMs: this.#config.rebalanceTimeoutMs,
      topics: JSON.stringify([...this.#topics].sort()),
      pattern: this.#pattern,
      rackId: this.#config.rackId,
      serverAssignor: this.#config.serverAssignor,
    };
  }

  #fieldsChanged(): boolean {
    const sent = this.#sent;
    if (sent === undefined) return true;
    const now = this.#fields();
    return (
      sent.rebalanceTimeoutMs !== now.rebalanceTimeoutMs ||
      sent.topics !== now.topics ||
      sent.pattern !== now.pattern ||
      sent.rackId !== now.rackId ||
      sent.serverAssignor !== now.serverAssignor
    );
  }

  /**
   * The next heartbeat: everything when joining or after a failure, afterwards only the fields
   * that changed since the last answered one (null means "unchanged" to the coordinator), and
   * the owned partitions when an acknowledgement is due.
   */
  #request(): { data: ConsumerGroupHeartbeatRequest; fields: SentFields; ack: number } {
    const joining = !this.#joined;
    const all = joining || this.#sent === undefined;
    const fields = this.#fields();
    const sent = this.#sent;
    const ack = all || this.#ackWanted !== this.#ackDone ? this.#ackWanted : 0;
    const data = ConsumerGroupHeartbeatApi.createRequest({
      groupId: this.#config.groupId,
      memberId: this.#memberId,
      memberEpoch: joining ? JOIN_EPOCH : this.#epoch,
      instanceId: this.#config.groupInstanceId,
      rackId: all || sent?.rackId !== fields.rackId ? fields.rackId : null,
      rebalanceTimeoutMs:
        all || sent?.rebalanceTimeoutMs !== fields.rebalanceTimeoutMs
          ? fields.rebalanceTimeoutMs
          : -1,
      subscribedTopicNames: all || sent?.topics !== fields.topics ? [...this.#topics] : null,
      // As Java's HeartbeatState: the regex when joining or changed, '' to drop one.
      subscribedTopicRegex:
        (all && fields.pattern !== null) || (sent !== undefined && sent.pattern !== fields.pattern)
          ? (fields.pattern ?? '')
          : null,
      serverAssignor:
        all || sent?.serverAssignor !== fields.serverAssignor ? fields.serverAssignor : null,
      topicPartitions: ack !== 0 ? this.#ownedByTopicId() : null,
    });
    return { data, fields, ack };
  }

  // KIP-1082: from v1 the client makes up its member id before joining; v0 gets it from the
  // broker's first answer.
  #forVersion(
    request: { data: ConsumerGroupHeartbeatRequest },
    version: number,
  ): ConsumerGroupHeartbeatRequest {
    if (version >= 1 && this.#memberId === '') this.#memberId = randomMemberId();
    return { ...request.data, memberId: this.#memberId };
  }

  #ownedByTopicId(): { topicId: string; partitions: number[] }[] {
    const byId = new Map<string, number[]>();
    for (const p of this.#owned.values()) {
      const list = byId.get(p.topicId);
      if (list === undefined) byId.set(p.topicId, [p.partition]);
      else list.push(p.partition);
    }
    return [...byId].map(([topicId, partitions]) => ({
      topicId,
      partitions: partitions.sort((a, b) => a - b),
    }));
  }

  #onSuccess(
    request: { fields: SentFields; ack: number },
    response: ConsumerGroupHeartbeatResponse,
  ): void {
    if (this.#state === 'done') return;
    if (response.memberId !== null && response.memberId !== '') this.#memberId = response.memberId;
    this.#epoch = response.memberEpoch;
    this.#joined = true;
    if (response.heartbeatIntervalMs > 0) this.#intervalMs = response.heartbeatIntervalMs;
    this.#sent = request.fields;
    if (request.ack > this.#ackDone) this.#ackDone = request.ack;
    if (response.assignment !== null && this.#state === 'running') {
      const target = new Map<string, number[]>();
      for (const t of response.assignment.topicPartitions) {
        const list = target.get(t.topicId) ?? [];
        list.push(...t.partitions);
        target.set(t.topicId, list);
      }
      this.#target = target;
      this.#targetDirty = true;
      this.#targetFresh = true;
      this.#reconcileSoon();
    }
  }

  #reconcileSoon(): void {
    if (this.#reconciling !== undefined || !this.#targetDirty || this.#state !== 'running') return;
    this.#reconciling = this.#reconcile().finally(() => {
      this.#reconciling = undefined;
      this.#reconcileSoon();
    });
  }

  /**
   * One reconciliation (Kafka's `AbstractMembershipManager.maybeReconcile`): resolve the
   * target's topic ids through metadata (unknown ids wait for a refresh), revoke what is owned
   * but not targeted (the listener commits), assign what is targeted but not owned, then
   * acknowledge with the next heartbeat.
   */
  async #reconcile(): Promise<void> {
    const generation = this.#generation;
    this.#targetDirty = false;
    const fresh = this.#targetFresh;
    this.#targetFresh = false;
    const target = this.#target ?? new Map<string, readonly number[]>();
    const { resolved, unresolved } = this.#resolve(target);
    const revoked = [...this.#owned.entries()].filter(([key]) => !resolved.has(key));
    const added = [...resolved.entries()].filter(([key]) => !this.#owned.has(key));
    if (revoked.length > 0) {
      await this.#call(
        'onRevoked',
        revoked.map(([, p]) => p),
      );
      if (generation !== this.#generation) return;
      for (const [key] of revoked) this.#owned.delete(key);
    }
    if (added.length > 0) {
      await this.#call(
        'onAssigned',
        added.map(([, p]) => p),
      );
      if (generation !== this.#generation) return;
      for (const [key, p] of added) this.#owned.set(key, p);
    }
    if (fresh || revoked.length > 0 || added.length > 0) {
      this.#ackWanted++;
      this.#wakeUp();
    }
    this.#firstAssignment?.resolve();
    this.#firstAssignment = undefined;
    if (unresolved.length > 0) {
      // Metadata does not know some assigned topic ids yet: refresh the subscribed topics and
      // reconcile again (Java requests a metadata update and retries on the next poll).
      await sleep(this.#config.retryBackoffMs, this.#stop.signal).catch(() => undefined);
      // With a regex the broker names topics the member never listed: refresh them all.
      await (this.#pattern !== null
        ? this.#config.cluster.refresh()
        : this.#config.cluster.refreshTopics(this.#topics)
      ).catch(() => undefined);
      if (generation === this.#generation) this.#targetDirty = true;
    }
  }

  #resolve(target: ReadonlyMap<string, readonly number[]>): {
    resolved: Map<string, OwnedPartition>;
    unresolved: string[];
  } {
    const names = new Map<string, string>();
    for (const t of this.#config.cluster.snapshot().topics) names.set(t.topicId, t.name);
    const resolved = new Map<string, OwnedPartition>();
    const unresolved: string[] = [];
    for (const [topicId, partitions] of target) {
      const topic = names.get(topicId);
      if (topic === undefined) {
        unresolved.push(topicId);
        continue;
      }
      for (const partition of partitions)
        resolved.set(keyOf(topicId, partition), { topic, partition, topicId });
    }
    return { resolved, unresolved };
  }

  /** FENCED_MEMBER_EPOCH / UNKNOWN_MEMBER_ID: everything owned is lost; rejoin with epoch 0. */
  async #fenced(): Promise<void> {
    this.#generation++;
    await this.#reconciling;
    this.#joined = false;
    this.#epoch = -1;
    this.#target = undefined;
    this.#targetDirty = false;
    this.#sent = undefined;
    this.#ackWanted++;
    const lost = [...this.#owned.values()];
    this.#owned.clear();
    if (lost.length > 0) await this.#call('onLost', lost);
  }

  async #call(
    which: 'onAssigned' | 'onRevoked' | 'onLost',
    partitions: readonly OwnedPartition[],
  ): Promise<void> {
    const plain = partitions.map(({ topic, partition }) => ({ topic, partition }));
    try {
      await this.#config.listener[which](plain);
    } catch {
      // The contract: a throwing callback does not stop the membership (the consumer reports
      // its own failures to the application).
    }
  }

  #fatal(error: Error): void {
    this.#state = 'done';
    this.#generation++;
    this.#stop.abort();
    this.#firstAssignment?.reject(error);
    this.#firstAssignment = undefined;
    this.#config.listener.onFatal(error);
  }
}
