import {
  createHeartbeatRequest,
  createJoinGroupRequest,
  createLeaveGroupRequest,
  createSyncGroupRequest,
  ErrorCode,
  HeartbeatApi,
  JoinGroupApi,
  type JoinGroupResponse,
  KafkaError,
  LeaveGroupApi,
  ProtocolError,
  SyncGroupApi,
} from '@kafkats/codec';
import { type Cluster, type MetaConnection, retryDelayMs } from '@kafkats/meta';
import { ConnectionError } from '@kafkats/wire';
import type { TopicPartition } from '../../topic-partition.js';
import { ClassicMembershipError } from '../consumer-errors.js';
import type { PartitionAssignor as AnyPartitionAssignor } from '../partition-assignor.js';
import {
  compareTopicPartition,
  type MemberSubscription,
  type PartitionAssignor,
  partitionKey,
} from './assignors/assignor.js';
import { cooperativeStickyAssignor } from './assignors/cooperative-sticky.js';
import { rangeAssignor } from './assignors/range.js';
import {
  CONSUMER_PROTOCOL_TYPE,
  decodeAssignment,
  decodeSubscription,
  encodeAssignment,
  encodeSubscription,
} from './consumer-protocol.js';
import type { GroupMembership, MemberIdentity, MembershipConfig } from './contracts.js';
import { Wakeup } from './wakeup.js';

/** Kafka's `AbstractCoordinator.MemberState`. */
type MemberState = 'unjoined' | 'preparing' | 'completing' | 'stable';

/** Kafka's `AbstractCoordinator.Generation`. */
interface Generation {
  readonly generationId: number;
  readonly memberId: string;
  readonly protocolName: string | null;
}

const NO_GENERATION: Generation = Object.freeze({
  generationId: -1,
  memberId: '',
  protocolName: null,
});

/** Extra time a JoinGroup may take beyond the rebalance timeout (Kafka's JOIN_GROUP_TIMEOUT_LAPSE). */
const JOIN_GROUP_TIMEOUT_LAPSE_MS = 5000;

/** The assignors by protocol name. */
const ASSIGNORS: ReadonlyMap<string, PartitionAssignor> = new Map([
  [rangeAssignor.name, rangeAssignor],
  [cooperativeStickyAssignor.name, cooperativeStickyAssignor],
]);

/** JoinGroup / SyncGroup answers after which Kafka's coordinator rejoins at once, without backoff. */
const REJOIN_AT_ONCE: ReadonlySet<number> = new Set([
  ErrorCode.UNKNOWN_MEMBER_ID,
  ErrorCode.ILLEGAL_GENERATION,
  ErrorCode.REBALANCE_IN_PROGRESS,
  ErrorCode.MEMBER_ID_REQUIRED,
]);

/** Group answers that end the membership (Kafka throws them from `poll` as fatal). */
const FATAL: ReadonlySet<number> = new Set([
  ErrorCode.FENCED_INSTANCE_ID,
  ErrorCode.GROUP_AUTHORIZATION_FAILED,
  ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
  ErrorCode.INVALID_SESSION_TIMEOUT,
  ErrorCode.INVALID_GROUP_ID,
  ErrorCode.GROUP_MAX_SIZE_REACHED,
  ErrorCode.UNSUPPORTED_VERSION,
]);

const COORDINATOR_MOVED: ReadonlySet<number> = new Set([
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
]);

/** What one JoinGroup + SyncGroup round ended with. */
type RoundOutcome =
  | { readonly kind: 'assigned'; readonly generation: Generation; readonly assignment: Buffer }
  | { readonly kind: 'failed'; readonly errorCode: number };

function retriableError(error: unknown): boolean {
  return error instanceof KafkaError && error.retriable;
}

/**
 * The classic consumer group protocol (JoinGroup / SyncGroup / Heartbeat / LeaveGroup), as
 * Kafka's `ConsumerCoordinator` on `AbstractCoordinator` runs it:
 *
 * - **Coordinator.** Found through the cluster (`coordinator('group', groupId)`); the membership
 *   then talks to it on a connection of its own (`openConnection`), as Java's consumer does, so a
 *   JoinGroup that the broker holds for up to the rebalance timeout does not hold up other
 *   requests, nor other members sharing the cluster. NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE,
 *   a lost connection or a session without a heartbeat answer forget it and look again; the
 *   connection is closed then, and a JoinGroup, SyncGroup or heartbeat in flight on it is retried.
 * - **Joining.** JoinGroup with protocol type `consumer`, one protocol per configured assignor in
 *   preference order, each with a ConsumerProtocolSubscription v3 (sorted topics, owned
 *   partitions, generation, rack; `cooperative-sticky` also writes its generation in `userData`
 *   for old members). MEMBER_ID_REQUIRED (KIP-394) rejoins with the member id it gives; a static
 *   member (KIP-345) sends its `groupInstanceId`. The leader runs the chosen protocol's assignor
 *   on the subscriptions and the partition counts from the cluster's metadata (refreshed for the
 *   group's topics first) and sends every assignment in SyncGroup; the others get theirs there.
 * - **Eager or cooperative (KIP-429).** Like Java, the rebalance protocol is COOPERATIVE only when
 *   every configured assignor supports it, i.e. only `['cooperative-sticky']`; any list with
 *   `range` (Java's default `[range, cooperative-sticky]` in Kafka 4.4, and
 *   `[cooperative-sticky, range]` too) is EAGER. Eager revokes everything (`onRevoked` awaited)
 *   before JoinGroup. Cooperative keeps owned partitions, revokes
 *   only what the new assignment leaves out, and then rejoins once more so that those partitions
 *   can be handed on (Kafka's second rebalance). Which assignor a group uses is the
 *   coordinator's choice: the protocol every member offers that most members prefer, so a group
 *   moves from `range` to `cooperative-sticky` by a rolling bounce that offers both, then one that
 *   drops `range`.
 * - **Heartbeats** every `heartbeatIntervalMs` from a loop of their own, while the member is
 *   completing a rebalance or stable (none during JoinGroup, as Java). REBALANCE_IN_PROGRESS
 *   rejoins; ILLEGAL_GENERATION and UNKNOWN_MEMBER_ID reset the generation (the member id too for
 *   the latter) and rejoin, the owned partitions reported lost (`onLost`) before the JoinGroup, in
 *   both protocols, as Java's `onJoinPrepare` does; FENCED_INSTANCE_ID and
 *   GROUP_AUTHORIZATION_FAILED are fatal (`onFatal`).
 * - **Rejoin triggers.** `subscribe()` with other topics; on the leader, a change in the partition
 *   count of a topic any member subscribes to (seen in the cluster's metadata snapshot, which the
 *   cluster refreshes in the background; Java's leader checks its metadata the same way).
 * - **Leaving.** `leave()` revokes what is owned (lost instead when the generation was reset or a
 *   rebalance is under way), then sends LeaveGroup (v3+: the member identity with a reason) for a
 *   dynamic member; a static member sends none and keeps its place until the session times out,
 *   as Java's default.
 *
 * Not done: the rack-aware variants of the assignors (KIP-881), `max.poll.interval.ms` as a poll
 * deadline (the consumer owns polling), regex subscriptions.
 */
export class ClassicMembership implements GroupMembership {
  readonly protocol = 'classic' as const;
  readonly #config: MembershipConfig;
  readonly #cluster: Cluster;
  readonly #assignors: readonly AnyPartitionAssignor[];
  readonly #cooperative: boolean;
  readonly #abort = new AbortController();
  readonly #mainWake = new Wakeup();
  readonly #heartbeatWake = new Wakeup();
  /** Cuts backoffs short, only when the membership stops (a rejoin request must not). */
  readonly #stopWake = new Wakeup();

  #topics: readonly string[];
  #joinedTopics: readonly string[] | null = null;
  #owned: TopicPartition[] = [];
  #generation: Generation = NO_GENERATION;
  #state: MemberState = 'unjoined';
  #rejoinNeeded = true;
  #rejoinReason = '';
  #needsJoinPrepare = true;
  #isLeader = false;
  /** The leader's partition counts of the group's topics when it assigned (null elsewhere). */
  #assignmentSnapshot: Map<string, number> | null = null;
  /** The generation `cooperative-sticky` writes in its userData (its `onAssignment`). */
  #assignorGeneration = -1;

  #connection: MetaConnection | undefined;
  #connecting: Promise<MetaConnection> | undefined;
  /** Coordinator connections this member closed itself, in {@link #markCoordinatorUnknown}. */
  readonly #dropped = new WeakSet<MetaConnection>();

  #started = false;
  #stopped = false;
  #firstDelivered = false;
  #startWaiter: { resolve: () => void; reject: (e: Error) => void } | undefined;
  #loops: Promise<unknown> = Promise.resolve();
  #leaving: Promise<void> | undefined;

  /**
   * @throws ClassicMembershipError `ERR_KAFKA_GROUP_ASSIGNOR_INVALID` for an empty assignor list
   *   or an unknown assignor name
   */
  constructor(config: MembershipConfig) {
    this.#config = config;
    this.#cluster = config.cluster;
    this.#topics = [...new Set(config.topics)];
    if (config.assignors.length === 0)
      throw new ClassicMembershipError(
        'ERR_KAFKA_GROUP_ASSIGNOR_INVALID',
        config.groupId,
        'the classic protocol needs at least one assignor',
      );
    this.#assignors = config.assignors.map((name) => {
      if (typeof name === 'object' && name !== null) return name;
      const assignor = ASSIGNORS.get(name);
      if (assignor === undefined)
        throw new ClassicMembershipError(
          'ERR_KAFKA_GROUP_ASSIGNOR_INVALID',
          config.groupId,
          `unknown assignor ${JSON.stringify(name)} (range or cooperative-sticky)`,
        );
      return assignor;
    });
    this.#cooperative = this.#assignors.every((a) => a.cooperative);
  }

  /** KIP-429 rebalance protocol in force: cooperative only when every assignor supports it. */
  get rebalanceProtocol(): 'eager' | 'cooperative' {
    return this.#cooperative ? 'cooperative' : 'eager';
  }

  get identity(): MemberIdentity {
    return {
      memberId: this.#generation.memberId,
      generationId: this.#generation.generationId,
      groupInstanceId: this.#config.groupInstanceId,
    };
  }

  get assignment(): readonly TopicPartition[] {
    return this.#owned;
  }

  /** The assignor (JoinGroup protocol) the coordinator chose for the current generation. */
  get protocolName(): string | null {
    return this.#generation.protocolName;
  }

  /** Whether this member computed the group's current assignment. */
  get isLeader(): boolean {
    return this.#isLeader;
  }

  /**
   * @throws ClassicMembershipError `ERR_KAFKA_GROUP_MEMBERSHIP_STARTED` when called twice;
   *   rejects with the fatal error when the membership stops before a first assignment
   */
  start(signal?: AbortSignal): Promise<void> {
    if (this.#started)
      return Promise.reject(
        new ClassicMembershipError(
          'ERR_KAFKA_GROUP_MEMBERSHIP_STARTED',
          this.#config.groupId,
          'start() was already called',
        ),
      );
    this.#started = true;
    const first = new Promise<void>((resolve, reject) => {
      this.#startWaiter = { resolve, reject };
    });
    if (signal !== undefined) {
      const onAbort = () => {
        this.#rejectStart(
          new ClassicMembershipError(
            'ERR_KAFKA_GROUP_MEMBERSHIP_STOPPED',
            this.#config.groupId,
            'start() was aborted before the first assignment',
          ),
        );
        void this.leave();
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      first.finally(() => signal.removeEventListener('abort', onAbort)).catch(() => {});
    }
    this.#loops = Promise.allSettled([this.#mainLoop(), this.#heartbeatLoop()]);
    return first;
  }

  subscribe(topics: readonly string[]): void {
    this.#topics = [...new Set(topics)];
    this.#mainWake.notify();
  }

  /**
   * Waits for a rebalance step under way (a listener call included) to end first, so it must not
   * be awaited from inside a listener callback.
   */
  leave(): Promise<void> {
    this.#leaving ??= this.#leave();
    return this.#leaving;
  }

  abandon(): void {
    if (this.#leaving !== undefined) return;
    this.#leaving = Promise.resolve();
    this.#stop();
    this.#rejectStart(this.#stoppedError());
  }

  // -- the main loop: joins and rejoins ---------------------------------------------------

  async #mainLoop(): Promise<void> {
    while (!this.#stopped) {
      try {
        if (this.#rejoinNeededOrPending()) await this.#joinGroupIfNeeded();
        else await this.#mainWake.wait(this.#config.heartbeatIntervalMs);
      } catch (error) {
        if (this.#stopped) return;
        this.#fail(error);
        return;
      }
    }
  }

  /** Kafka's `ConsumerCoordinator.rejoinNeededOrPending`. */
  #rejoinNeededOrPending(): boolean {
    if (this.#assignmentSnapshot !== null && this.#metadataChanged()) {
      this.#requestRejoin('cached metadata has changed');
      return true;
    }
    if (this.#joinedTopics !== null && !sameTopics(this.#joinedTopics, this.#topics)) {
      this.#requestRejoin('subscription has changed');
      return true;
    }
    return this.#rejoinNeeded;
  }

  #requestRejoin(reason: string): void {
    if (!this.#rejoinNeeded) this.#rejoinReason = reason;
    this.#rejoinNeeded = true;
    this.#mainWake.notify();
  }

  /** Kafka's `AbstractCoordinator.joinGroupIfNeeded`. */
  async #joinGroupIfNeeded(): Promise<void> {
    let failures = 0;
    while (!this.#stopped && this.#rejoinNeededOrPending()) {
      const connection = await this.#ensureCoordinator();
      if (this.#needsJoinPrepare) {
        this.#needsJoinPrepare = false;
        await this.#onJoinPrepare(this.#generation);
      }
      let outcome: RoundOutcome;
      try {
        outcome = await this.#joinAndSync(connection);
      } catch (error) {
        if (this.#stopped) return;
        if (!this.#retriable(error, connection)) throw error;
        // A lost connection or a timeout: the coordinator may have moved (Kafka marks it
        // unknown on a disconnect). A connection we dropped was marked unknown then.
        if (!this.#dropped.has(connection)) this.#markCoordinatorUnknown();
        this.#requestRejoin('rebalance failed');
        await this.#backoff(++failures);
        continue;
      }
      if (outcome.kind === 'assigned') {
        if (this.#generation !== outcome.generation || this.#state !== 'stable') {
          // A heartbeat answer reset the generation between SyncGroup and here.
          this.#resetState(true);
          continue;
        }
        await this.#onJoinComplete(outcome.generation, outcome.assignment);
        this.#needsJoinPrepare = true;
        failures = 0;
        continue;
      }
      const code = outcome.errorCode;
      if (code !== ErrorCode.MEMBER_ID_REQUIRED) this.#requestRejoin('rebalance failed');
      if (REJOIN_AT_ONCE.has(code)) continue;
      await this.#backoff(++failures);
    }
  }

  /** JoinGroup, then SyncGroup (the leader's carrying every assignment). */
  async #joinAndSync(connection: MetaConnection): Promise<RoundOutcome> {
    const { groupId, groupInstanceId } = this.#config;
    this.#state = 'preparing';
    const sent = this.#generation;
    const topics = [...this.#topics];
    this.#joinedTopics = topics;
    const owned = [...this.#owned].sort(compareTopicPartition);
    const protocols = this.#assignors.map((assignor) => ({
      name: assignor.name,
      metadata: encodeSubscription({
        topics,
        userData: assignor.subscriptionUserData(this.#assignorGeneration),
        ownedPartitions: owned,
        generationId: sent.generationId,
        rackId: this.#config.rackId,
      }),
    }));
    const request = createJoinGroupRequest({
      groupId,
      sessionTimeoutMs: this.#config.sessionTimeoutMs,
      rebalanceTimeoutMs: this.#config.rebalanceTimeoutMs,
      memberId: sent.memberId,
      groupInstanceId,
      protocolType: CONSUMER_PROTOCOL_TYPE,
      protocols,
      reason: this.#rejoinReason === '' ? null : this.#rejoinReason.slice(0, 255),
    });
    // The coordinator holds JoinGroup until every member joined, up to the rebalance timeout.
    const timeoutMs = Math.max(
      this.#cluster.requestTimeoutMs,
      this.#config.rebalanceTimeoutMs + JOIN_GROUP_TIMEOUT_LAPSE_MS,
    );
    const join = await this.#cluster.sendOn(connection, JoinGroupApi, request, {
      checkTopLevelError: false,
      timeoutMs,
      signal: this.#abort.signal,
    });
    const code = join.errorCode;
    if (code !== ErrorCode.NONE) return this.#joinFailed(code, sent, join);
    if (join.protocolType !== null && join.protocolType !== CONSUMER_PROTOCOL_TYPE)
      throw this.#mismatch(`JoinGroup answered protocol type ${join.protocolType}`);
    if (this.#state !== 'preparing' || this.#stopped)
      return { kind: 'failed', errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
    const generation: Generation = {
      generationId: join.generationId,
      memberId: join.memberId,
      protocolName: join.protocolName,
    };
    this.#generation = generation;
    this.#state = 'completing';
    this.#heartbeatWake.notify();

    let assignments: { memberId: string; assignment: Buffer }[] = [];
    if (join.leader === join.memberId) assignments = await this.#onLeaderElected(join);

    const sync = await this.#cluster.sendOn(
      connection,
      SyncGroupApi,
      createSyncGroupRequest({
        groupId,
        generationId: generation.generationId,
        memberId: generation.memberId,
        groupInstanceId,
        protocolType: CONSUMER_PROTOCOL_TYPE,
        protocolName: generation.protocolName,
        assignments,
      }),
      { checkTopLevelError: false, signal: this.#abort.signal },
    );
    const syncCode = sync.errorCode;
    if (syncCode === ErrorCode.NONE) {
      if (sync.protocolType !== null && sync.protocolType !== CONSUMER_PROTOCOL_TYPE)
        throw this.#mismatch(`SyncGroup answered protocol type ${sync.protocolType}`);
      if (this.#generation !== generation || this.#state !== 'completing')
        return { kind: 'failed', errorCode: ErrorCode.ILLEGAL_GENERATION };
      if (sync.protocolName !== null && sync.protocolName !== generation.protocolName)
        throw this.#mismatch(
          `SyncGroup answered protocol ${sync.protocolName}, JoinGroup ${generation.protocolName}`,
        );
      this.#state = 'stable';
      this.#rejoinNeeded = false;
      this.#rejoinReason = '';
      return { kind: 'assigned', generation, assignment: Buffer.from(sync.assignment) };
    }
    if (syncCode === ErrorCode.UNKNOWN_MEMBER_ID || syncCode === ErrorCode.ILLEGAL_GENERATION) {
      // ILLEGAL_GENERATION keeps the member id: it may still be valid.
      if (this.#generation === generation)
        this.#resetState(syncCode === ErrorCode.UNKNOWN_MEMBER_ID);
    } else if (COORDINATOR_MOVED.has(syncCode)) this.#markCoordinatorUnknown();
    else if (syncCode !== ErrorCode.REBALANCE_IN_PROGRESS)
      this.#throwUnlessRetriable(syncCode, 'SyncGroup');
    return { kind: 'failed', errorCode: syncCode };
  }

  /** Kafka's `JoinGroupResponseHandler` for an error answer. */
  #joinFailed(code: number, sent: Generation, join: JoinGroupResponse): RoundOutcome {
    if (code === ErrorCode.UNKNOWN_MEMBER_ID) {
      if (this.#generation === sent) this.#resetState(true);
    } else if (COORDINATOR_MOVED.has(code)) this.#markCoordinatorUnknown();
    else if (code === ErrorCode.MEMBER_ID_REQUIRED) {
      // KIP-394: the coordinator gave us a member id; join again with it.
      this.#generation = { generationId: -1, memberId: join.memberId, protocolName: null };
      this.#rejoinNeeded = true;
    } else if (
      code !== ErrorCode.REBALANCE_IN_PROGRESS &&
      code !== ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
    )
      this.#throwUnlessRetriable(code, 'JoinGroup');
    return { kind: 'failed', errorCode: code };
  }

  #throwUnlessRetriable(code: number, api: string): void {
    const error = new ProtocolError(code, `${api} for group ${this.#config.groupId}`);
    if (FATAL.has(code) || !error.retriable) throw error;
  }

  #mismatch(detail: string): ClassicMembershipError {
    return new ClassicMembershipError(
      'ERR_KAFKA_GROUP_PROTOCOL_MISMATCH',
      this.#config.groupId,
      detail,
    );
  }

  /** Kafka's `ConsumerCoordinator.onLeaderElected`: run the chosen assignor. */
  async #onLeaderElected(
    join: JoinGroupResponse,
  ): Promise<{ memberId: string; assignment: Buffer }[]> {
    const assignor = this.#assignors.find((a) => a.name === join.protocolName);
    if (assignor === undefined)
      throw this.#mismatch(
        `the coordinator chose protocol ${join.protocolName}, which this member did not offer`,
      );
    const subscriptions = new Map<string, MemberSubscription>();
    const allTopics = new Set<string>();
    for (const member of join.members) {
      const s = decodeSubscription(member.memberId, member.groupInstanceId, member.metadata);
      subscriptions.set(member.memberId, s);
      for (const t of s.topics) allTopics.add(t);
    }
    this.#isLeader = true;
    // Java's leader waits for fresh metadata of every topic the group subscribes to.
    await this.#cluster.refreshTopics([...allTopics]).catch(() => undefined);
    const counts = this.#partitionCounts(allTopics);
    this.#assignmentSnapshot = counts;
    // A returning static leader (KIP-345) keeps the assignment the coordinator holds.
    if (join.skipAssignment) return [];
    const partitionsPerTopic = new Map([...counts].filter(([, n]) => n > 0));
    const result = await assignor.assign(partitionsPerTopic, subscriptions);
    return [...result].map(([memberId, partitions]) => ({
      memberId,
      assignment: encodeAssignment(partitions),
    }));
  }

  /** Partition counts of `topics` in the current snapshot; 0 for a topic it does not know. */
  #partitionCounts(topics: Iterable<string>): Map<string, number> {
    const snapshot = this.#cluster.snapshot();
    const counts = new Map<string, number>();
    for (const t of topics) {
      const info = snapshot.topic(t);
      counts.set(
        t,
        info === undefined || info.errorCode !== ErrorCode.NONE ? 0 : info.partitions.length,
      );
    }
    return counts;
  }

  #metadataChanged(): boolean {
    const recorded = this.#assignmentSnapshot;
    // An empty snapshot (just invalidated) says nothing about the topics.
    if (recorded === null || this.#cluster.snapshot().brokers.length === 0) return false;
    const now = this.#partitionCounts(recorded.keys());
    for (const [topic, count] of recorded) if (now.get(topic) !== count) return true;
    return false;
  }

  /** Kafka's `ConsumerCoordinator.onJoinPrepare`: what goes before a JoinGroup. */
  async #onJoinPrepare(generation: Generation): Promise<void> {
    if (generation.generationId === -1 || generation.memberId === '') {
      // The generation was reset (fenced, unknown member): what we owned may be someone
      // else's by now, so it is lost, not revoked.
      const lost = this.#owned;
      this.#owned = [];
      if (lost.length > 0) await this.#call(() => this.#config.listener.onLost(lost));
    } else if (!this.#cooperative) {
      const revoked = this.#owned;
      if (revoked.length > 0) await this.#call(() => this.#config.listener.onRevoked(revoked));
      this.#owned = [];
    } else {
      const subscribed = new Set(this.#topics);
      const revoked = this.#owned.filter((tp) => !subscribed.has(tp.topic));
      if (revoked.length > 0) {
        await this.#call(() => this.#config.listener.onRevoked(revoked));
        this.#owned = this.#owned.filter((tp) => subscribed.has(tp.topic));
      }
    }
    this.#isLeader = false;
    this.#assignmentSnapshot = null;
  }

  /** Kafka's `ConsumerCoordinator.onJoinComplete`: take the new assignment. */
  async #onJoinComplete(generation: Generation, bytes: Buffer): Promise<void> {
    if (!this.#isLeader) this.#assignmentSnapshot = null;
    const assigned = decodeAssignment(bytes).sort(compareTopicPartition);
    this.#assignorGeneration = generation.generationId;
    const subscribed = new Set(this.#topics);
    if (!assigned.every((tp) => subscribed.has(tp.topic))) {
      this.#requestRejoin('received assignment does not match the current subscription');
      return;
    }
    const ownedKeys = new Set(this.#owned.map(partitionKey));
    const assignedKeys = new Set(assigned.map(partitionKey));
    const added = assigned.filter((tp) => !ownedKeys.has(partitionKey(tp)));
    if (this.#cooperative) {
      const revoked = this.#owned.filter((tp) => !assignedKeys.has(partitionKey(tp)));
      if (revoked.length > 0) {
        await this.#call(() => this.#config.listener.onRevoked(revoked));
        // KIP-429's second rebalance: the revoked partitions go to their new owner then.
        this.#requestRejoin('need to revoke partitions and re-join');
      }
    }
    this.#owned = assigned;
    await this.#call(() => this.#config.listener.onAssigned(added));
    if (!this.#firstDelivered) {
      this.#firstDelivered = true;
      this.#startWaiter?.resolve();
      this.#startWaiter = undefined;
    }
  }

  // -- heartbeats ---------------------------------------------------------------------

  /** Kafka's `HeartbeatThread` with its `Heartbeat` timers. */
  async #heartbeatLoop(): Promise<void> {
    const { heartbeatIntervalMs, sessionTimeoutMs } = this.#config;
    let lastSentMs = 0;
    let lastAnsweredMs = Date.now();
    let failures = 0;
    while (!this.#stopped) {
      if (this.#state !== 'completing' && this.#state !== 'stable') {
        await this.#heartbeatWake.wait(heartbeatIntervalMs);
        // Enabled again: the session and interval timers start over (Kafka's `resetTimeouts`).
        lastAnsweredMs = Date.now();
        lastSentMs = lastAnsweredMs;
        continue;
      }
      const now = Date.now();
      if (now - lastAnsweredMs > sessionTimeoutMs) {
        // No answer for a whole session: make sure the coordinator is still the one.
        this.#markCoordinatorUnknown();
        lastAnsweredMs = now;
      }
      const due =
        failures > 0
          ? lastSentMs + this.#backoffMs(failures + 1)
          : lastSentMs + heartbeatIntervalMs;
      if (now < due) {
        await this.#heartbeatWake.wait(due - now);
        continue;
      }
      lastSentMs = now;
      const sent = this.#generation;
      let connection: MetaConnection | undefined;
      try {
        connection = await this.#ensureCoordinator();
        const answer = await this.#cluster.sendOn(
          connection,
          HeartbeatApi,
          createHeartbeatRequest({
            groupId: this.#config.groupId,
            generationId: sent.generationId,
            memberId: sent.memberId,
            groupInstanceId: this.#config.groupInstanceId,
          }),
          { checkTopLevelError: false, signal: this.#abort.signal },
        );
        if (this.#stopped) return;
        failures = this.#onHeartbeatAnswer(answer.errorCode, sent) ? 0 : failures + 1;
        if (failures === 0) lastAnsweredMs = Date.now();
      } catch (error) {
        if (this.#stopped) return;
        if (!this.#retriable(error, connection)) {
          this.#fail(error);
          return;
        }
        if (connection === undefined || !this.#dropped.has(connection))
          this.#markCoordinatorUnknown();
        failures++;
      }
    }
  }

  /** Kafka's `HeartbeatResponseHandler`; true when the answer counts as received. */
  #onHeartbeatAnswer(code: number, sent: Generation): boolean {
    switch (code) {
      case ErrorCode.NONE:
        return true;
      case ErrorCode.REBALANCE_IN_PROGRESS:
        // Heartbeats go on during a rebalance; only a stable member needs to rejoin.
        if (this.#state === 'stable') this.#requestRejoin('group is already rebalancing');
        return true;
      case ErrorCode.ILLEGAL_GENERATION:
      case ErrorCode.UNKNOWN_MEMBER_ID:
      case ErrorCode.FENCED_INSTANCE_ID:
        // An answer about an older generation says nothing about the current one.
        if (this.#generation !== sent) return true;
        if (code === ErrorCode.FENCED_INSTANCE_ID) {
          // Another instance with our group.instance.id took our place (KIP-345).
          this.#fail(new ProtocolError(code, `Heartbeat for group ${this.#config.groupId}`));
          return false;
        }
        this.#resetState(code === ErrorCode.UNKNOWN_MEMBER_ID);
        this.#mainWake.notify();
        return true;
      case ErrorCode.GROUP_AUTHORIZATION_FAILED:
        this.#fail(new ProtocolError(code, `Heartbeat for group ${this.#config.groupId}`));
        return false;
      default:
        if (COORDINATOR_MOVED.has(code)) this.#markCoordinatorUnknown();
        return false;
    }
  }

  // -- coordinator, state, stopping ---------------------------------------------------------

  /** The coordinator connection, found and opened when there is none; retried with backoff. */
  async #ensureCoordinator(): Promise<MetaConnection> {
    let failures = 0;
    for (;;) {
      if (this.#stopped) throw this.#stoppedError();
      const current = this.#connection;
      if (current !== undefined && !current.closed) return current;
      this.#connecting ??= (async () => {
        const nodeId = await this.#cluster.coordinator('group', this.#config.groupId);
        return this.#cluster.openConnection(nodeId);
      })().finally(() => {
        this.#connecting = undefined;
      });
      try {
        const connection = await this.#connecting;
        if (this.#stopped) {
          void connection.close().catch(() => undefined);
          throw this.#stoppedError();
        }
        if (this.#connection === undefined || this.#connection.closed)
          this.#connection = connection;
        else if (this.#connection !== connection) void connection.close().catch(() => undefined);
        return this.#connection;
      } catch (error) {
        if (this.#stopped || !retriableError(error)) throw error;
        this.#cluster.invalidateCoordinator('group', this.#config.groupId);
        await this.#backoff(++failures);
      }
    }
  }

  #markCoordinatorUnknown(): void {
    this.#cluster.invalidateCoordinator('group', this.#config.groupId);
    const connection = this.#connection;
    this.#connection = undefined;
    if (connection === undefined) return;
    this.#dropped.add(connection);
    void connection.close().catch(() => undefined);
  }

  /**
   * Whether a request that failed on the coordinator connection `connection` is tried again.
   * Kafka's `AbstractCoordinator.markCoordinatorUnknown` disconnects too, and what was in flight
   * there (a JoinGroup, a SyncGroup, a heartbeat) fails with a retriable DisconnectException.
   * Our close fails it with ERR_KAFKA_CONNECTION_CLOSED, final for whoever else closed it.
   */
  #retriable(error: unknown, connection: MetaConnection | undefined): boolean {
    if (retriableError(error)) return true;
    return (
      error instanceof ConnectionError && connection !== undefined && this.#dropped.has(connection)
    );
  }

  /** Kafka's `resetStateAndRejoin`. */
  #resetState(resetMemberId: boolean): void {
    this.#state = 'unjoined';
    this.#generation = resetMemberId
      ? NO_GENERATION
      : { generationId: -1, memberId: this.#generation.memberId, protocolName: null };
    this.#needsJoinPrepare = true;
    this.#requestRejoin('generation reset');
  }

  #backoffMs(attempt: number): number {
    return retryDelayMs(
      {
        backoffMs: this.#config.retryBackoffMs,
        maxBackoffMs: this.#config.retryBackoffMaxMs,
        jitter: 0.2,
      },
      attempt,
      this.#config.random,
    );
  }

  async #backoff(failures: number): Promise<void> {
    await this.#stopWake.wait(Math.max(this.#config.retryBackoffMs, this.#backoffMs(failures + 1)));
  }

  /** Runs a listener callback; an error there does not stop the membership. */
  async #call(callback: () => Promise<void>): Promise<void> {
    try {
      await callback();
    } catch {
      // The consumer's listener reports its own errors; the membership goes on, as Kafka's
      // coordinator does after a rebalance callback throws.
    }
  }

  #stoppedError(): ClassicMembershipError {
    return new ClassicMembershipError(
      'ERR_KAFKA_GROUP_MEMBERSHIP_STOPPED',
      this.#config.groupId,
      'the membership was left or abandoned',
    );
  }

  #rejectStart(error: Error): void {
    const waiter = this.#startWaiter;
    this.#startWaiter = undefined;
    waiter?.reject(error);
  }

  #stop(): void {
    this.#stopped = true;
    this.#abort.abort();
    this.#mainWake.notify();
    this.#heartbeatWake.notify();
    this.#stopWake.notify();
    const connection = this.#connection;
    this.#connection = undefined;
    if (connection !== undefined) void connection.close().catch(() => undefined);
  }

  /** The membership cannot go on: stop, keep what is owned for `leave()` to report lost. */
  #fail(error: unknown): void {
    if (this.#stopped) return;
    const err = error instanceof Error ? error : new Error(String(error));
    this.#stop();
    this.#state = 'unjoined';
    this.#generation = NO_GENERATION;
    this.#rejectStart(err);
    this.#config.listener.onFatal(err);
  }

  /** Kafka's `onLeavePrepare` + `maybeLeaveGroup`. */
  async #leave(): Promise<void> {
    const wasMember = this.#state !== 'unjoined' && this.#generation.memberId !== '';
    const rebalancing = this.#state === 'preparing' || this.#state === 'completing';
    this.#stop();
    await this.#loops;
    this.#rejectStart(this.#stoppedError());
    const generation = this.#generation;
    const dropped = this.#owned;
    this.#owned = [];
    if (dropped.length > 0) {
      const lost = generation.generationId === -1 || generation.memberId === '' || rebalancing;
      await this.#call(() =>
        lost ? this.#config.listener.onLost(dropped) : this.#config.listener.onRevoked(dropped),
      );
    }
    // Static members (KIP-345) never send LeaveGroup: the session timeout decides.
    if (wasMember && this.#config.groupInstanceId === null) {
      const memberId = generation.memberId;
      await this.#cluster
        .sendToCoordinator(
          'group',
          this.#config.groupId,
          LeaveGroupApi,
          (version) =>
            createLeaveGroupRequest(
              version >= 3
                ? {
                    groupId: this.#config.groupId,
                    members: [
                      { memberId, groupInstanceId: null, reason: 'the consumer is being closed' },
                    ],
                  }
                : { groupId: this.#config.groupId, memberId },
            ),
          { maxAttempts: 2, checkTopLevelError: false },
        )
        .catch(() => undefined);
    }
    this.#state = 'unjoined';
    this.#generation = NO_GENERATION;
  }
}

function sameTopics(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((t) => set.has(t));
}
