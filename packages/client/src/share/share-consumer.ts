import {
  createShareAcknowledgeRequestAcknowledgementBatch,
  createShareAcknowledgeRequestAcknowledgePartition,
  createShareAcknowledgeRequestAcknowledgeTopic,
  createShareFetchRequestAcknowledgementBatch,
  createShareFetchRequestFetchPartition,
  createShareFetchRequestFetchTopic,
  createShareFetchRequestForgottenTopic,
  decodeRecordBatches,
  ErrorCode,
  KafkaError,
  type KafkaRecord,
  ProtocolError,
  type RecordHeader,
  ShareAcknowledgeApi,
  type ShareAcknowledgeResponse,
  type ShareAcknowledgeResponsePartitionData,
  ShareFetchApi,
  type ShareFetchResponse,
  type ShareFetchResponsePartitionData,
} from '@kafkats/codec';
import { type Cluster, type MetaConnection, retryDelayMs } from '@kafkats/meta';
import { ConsumerClosedError } from '../consumer/consumer-errors.js';
import type { PartitionBatch } from '../fetch/partition-batch.js';
import { deserializeBatch } from '../internal/deserialize.js';
import { requireCluster } from '../internal/require-cluster.js';
import {
  AckSet,
  AckType,
  type AckTypeId,
  AcquiredCursor,
  acquiredRangesInvalid,
} from './internal/acknowledgements.js';
import { ShareMembership, type SharePartition } from './internal/share-membership.js';
import {
  type AcknowledgeType,
  type ResolvedShareConsumerOptions,
  resolveShareConsumerOptions,
  type ShareAcknowledgementResult,
  type ShareConsumerOptions,
  type ShareRecord,
} from './share-consumer-options.js';
import { ShareAcknowledgeError, ShareGroupsUnsupportedError } from './share-errors.js';

// Share session epochs (ShareFetchRequest.json): 0 opens a session, -1 closes it.
const OPEN_EPOCH = 0;
const FINAL_EPOCH = -1;

const ACK_IDS: Readonly<Record<AcknowledgeType, AckTypeId>> = {
  accept: AckType.Accept,
  release: AckType.Release,
  reject: AckType.Reject,
};

// The session the leader no longer has, or a request out of its epoch order: open a new one.
const SESSION_LOST = new Set<number>([
  ErrorCode.SHARE_SESSION_NOT_FOUND,
  ErrorCode.INVALID_SHARE_SESSION_EPOCH,
  ErrorCode.SHARE_SESSION_LIMIT_REACHED,
]);

// A partition that moved or that this broker does not know (yet): ask metadata where it is.
const PARTITION_MOVED = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.UNKNOWN_LEADER_EPOCH,
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.UNKNOWN_TOPIC_ID,
  ErrorCode.LEADER_NOT_AVAILABLE,
]);

const keyOf = (topicId: string, partition: number): string => `${topicId}:${partition}`;

/** The share session with one broker (Kafka's `ShareSessionHandler`). */
interface NodeSession {
  readonly nodeId: number;
  /** The epoch the next request carries: 0 opens a session, then 1, 2, ... */
  epoch: number;
  /** Partitions the session holds, by key. */
  readonly partitions: Map<string, SharePartition>;
  /** The request in flight on this session: one at a time, so epochs stay in order. */
  busy: Promise<void> | undefined;
  connection: MetaConnection | undefined;
  /** No fetch before this time (ms, after an error). */
  retryAt: number;
  failures: number;
}

/** Acknowledgements of one partition not sent yet. */
interface PendingAcks {
  readonly p: SharePartition;
  readonly acks: AckSet;
}

/** How one partition's acknowledgements ended, and whether `commit()` may send them again. */
interface AckOutcome {
  readonly entry: PendingAcks;
  readonly error: Error | null;
  readonly retry: boolean;
}

/** A record handed out by the last poll, waiting for its acknowledgement. */
class DeliveredRecord<K, V> implements ShareRecord<K, V> {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly timestamp: bigint;
  readonly deliveryCount: number;
  /** @internal */
  readonly sharePartition: SharePartition;
  // Which consumer handed it out, in which of its polls, and how it was acknowledged.
  readonly #owner: object;
  #poll = 0;
  #ack: AckTypeId | undefined;
  readonly #record: {
    readonly key: unknown;
    readonly value: unknown;
    readonly headers: readonly RecordHeader[];
  };

  constructor(
    owner: object,
    p: SharePartition,
    record: {
      readonly offset: bigint;
      readonly timestamp: bigint;
      readonly key: unknown;
      readonly value: unknown;
      readonly headers: readonly RecordHeader[];
    },
    deliveryCount: number,
  ) {
    this.topic = p.topic;
    this.partition = p.partition;
    this.sharePartition = p;
    this.offset = record.offset;
    this.timestamp = record.timestamp;
    this.deliveryCount = deliveryCount;
    this.#owner = owner;
    this.#record = record;
  }

  /** `r` as one of `owner`'s records handed out by its poll number `poll`, or undefined. */
  static of<K2, V2>(r: unknown, owner: object, poll: number): DeliveredRecord<K2, V2> | undefined {
    if (typeof r !== 'object' || r === null || !(#owner in r)) return undefined;
    return r.#owner === owner && r.#poll === poll
      ? (r as unknown as DeliveredRecord<K2, V2>)
      : undefined;
  }

  static handOut(r: DeliveredRecord<unknown, unknown>, poll: number): void {
    r.#poll = poll;
    r.#ack = undefined;
  }

  static ackOf(r: DeliveredRecord<unknown, unknown>): AckTypeId | undefined {
    return r.#ack;
  }

  static acknowledge(r: DeliveredRecord<unknown, unknown>, type: AckTypeId): void {
    r.#ack = type;
  }

  get key(): K | null {
    return this.#record.key as K | null;
  }

  get value(): V | null {
    return this.#record.value as V | null;
  }

  get headers(): readonly RecordHeader[] {
    return this.#record.headers;
  }
}

/**
 * A member of a share group (KIP-932, Kafka's `KafkaShareConsumer`): Kafka as a queue. Every
 * member may read every partition of the subscribed topics; each record is acquired by one
 * member at a time, for the broker's lock duration (`group.share.record.lock.duration.ms`),
 * and is acknowledged by it: accepted, released (delivered again, with a higher delivery
 * count) or rejected.
 *
 * - Membership by ShareGroupHeartbeat to the group coordinator.
 * - Records by ShareFetch from each partition leader, in one share session per broker; the
 *   acknowledgements of delivered records ride on the next ShareFetch to their leader, or go
 *   alone (ShareAcknowledge) on `commit()` and `close()`.
 * - `close()` sends what is acknowledged and closes every share session, which hands every
 *   record still acquired and unacknowledged back to the group at once.
 *
 * ```ts
 * const consumer = new ShareConsumer(cluster, { groupId: 'jobs', topics: ['jobs'] });
 * await consumer.start();
 * for await (const records of consumer) {
 *   for (const record of records) await handle(record); // accepted by the next poll
 * }
 * ```
 *
 * Needs brokers that offer share groups (Kafka 4.1+ with `share.version` finalized):
 * `start()` throws `ShareGroupsUnsupportedError` before anything is sent otherwise. A share
 * group starts reading at its `share.auto.offset.reset` group config, `latest` by default.
 */
export class ShareConsumer<K = Buffer, V = Buffer> {
  readonly #cluster: Cluster;
  readonly #options: ResolvedShareConsumerOptions<K, V>;
  readonly #membership: ShareMembership;
  readonly #sessions = new Map<number, NodeSession>();
  readonly #pending = new Map<string, PendingAcks>();
  /** Records of the last poll, and that poll's number (records of earlier polls are done). */
  #delivered: readonly DeliveredRecord<K, V>[] = [];
  #poll = 0;
  /** Records fetched, not handed out yet. */
  readonly #ready: DeliveredRecord<K, V>[][] = [];
  #state: 'new' | 'running' | 'closing' | 'closed' = 'new';
  #fatal: Error | undefined;
  /** An error the next poll throws: a partition the member may not read, unreadable bytes. */
  #pollError: Error | undefined;
  #lockTimeoutMs = -1;
  /** Polls waiting for records, an assignment or an error. */
  readonly #waiters = new Set<() => void>();
  #closing: Promise<void> | undefined;

  constructor(cluster: Cluster, options: ShareConsumerOptions<K, V>) {
    requireCluster('ShareConsumer', cluster);
    this.#cluster = cluster;
    this.#options = resolveShareConsumerOptions(options);
    const o = this.#options;
    this.#membership = new ShareMembership({
      cluster,
      groupId: o.groupId,
      topics: o.topics,
      rackId: o.rackId,
      retryBackoffMs: o.retryBackoffMs,
      retryBackoffMaxMs: o.retryBackoffMaxMs,
      logger: o.logger,
      onAssignment: () => this.#signal(),
      onFatal: (error) => {
        this.#fatal = error;
        this.#signal();
      },
      onError: (error) => this.#raise(error),
    });
  }

  /** The member id this consumer made up (KIP-932: the member names itself). */
  get memberId(): string {
    return this.#membership.memberId;
  }

  /**
   * How long the brokers lock a record acquired for this member (the group's
   * `share.record.lock.duration.ms`, as the last ShareFetch answer said); -1 before one came.
   * A record not acknowledged within it goes back to the group.
   */
  get acquisitionLockTimeoutMs(): number {
    return this.#lockTimeoutMs;
  }

  /** The partitions the coordinator last assigned to this member. */
  assignment(): readonly { topic: string; partition: number }[] {
    return this.#membership.assignment.map(({ topic, partition }) => ({ topic, partition }));
  }

  /**
   * Joins the share group; resolves once the coordinator accepted the member.
   *
   * @throws ShareGroupsUnsupportedError before anything of the group is sent, when the brokers
   *   do not offer share groups (Kafka 3.9, 4.0)
   */
  async start(): Promise<void> {
    if (this.#state !== 'new') throw new KafkaError('ERR_KAFKA_CONSUMER_STATE', 'already started');
    for (const api of [ShareFetchApi, ShareAcknowledgeApi])
      if ((await this.#cluster.negotiatedFor(api.apiKey)) === undefined)
        throw new ShareGroupsUnsupportedError(api.name);
    this.#state = 'running';
    try {
      await this.#membership.start();
    } catch (error) {
      this.#state = 'closed';
      throw error;
    }
  }

  /**
   * Acknowledges one record of the last poll, or several at once: `'accept'` (the default),
   * `'release'` or `'reject'`. Sent with the next ShareFetch to its leader, or by `commit()` /
   * `close()`. In implicit mode this overrides the accept the next poll would make (Kafka's
   * implicit mode refuses `acknowledge`; here it lets a record be released or rejected).
   *
   * @throws ShareAcknowledgeError when the record was not delivered by the last poll, or was
   *   acknowledged already
   */
  acknowledge(
    record: ShareRecord<K, V> | readonly ShareRecord<K, V>[],
    type: AcknowledgeType = 'accept',
  ): void {
    const id = ACK_IDS[type];
    if (id === undefined)
      throw new ShareAcknowledgeError(`unknown acknowledge type ${JSON.stringify(type)}`);
    if (Array.isArray(record)) {
      // A batch at once: checked whole before any is recorded.
      for (const r of record) this.#checkAcknowledgeable(r);
      for (const r of record) this.#acknowledgeOne(r, id);
      return;
    }
    this.#checkAcknowledgeable(record as ShareRecord<K, V>);
    this.#acknowledgeOne(record as ShareRecord<K, V>, id);
  }

  #acknowledgeOne(record: ShareRecord<K, V>, id: AckTypeId): void {
    DeliveredRecord.acknowledge(record as DeliveredRecord<K, V>, id);
  }

  #checkAcknowledgeable(record: ShareRecord<K, V>): void {
    const delivered = DeliveredRecord.of<K, V>(record, this, this.#poll);
    if (delivered === undefined)
      throw new ShareAcknowledgeError(
        `${record.topic}-${record.partition} offset ${record.offset} was not delivered by the last poll`,
      );
    if (DeliveredRecord.ackOf(delivered) !== undefined)
      throw new ShareAcknowledgeError(
        `${record.topic}-${record.partition} offset ${record.offset} is acknowledged already`,
      );
  }

  /**
   * The next records acquired for this member, from one or more partitions; empty when none
   * came within `timeoutMs` (default 1000). In implicit mode, first accepts every record of
   * the last poll the application did not acknowledge.
   *
   * @throws ShareAcknowledgeError in explicit mode, when records of the last poll are not
   *   acknowledged yet
   * @throws ConsumerClosedError once closed, or after a fatal error (`cause`)
   */
  async poll(timeoutMs = 1000): Promise<readonly ShareRecord<K, V>[]> {
    this.#checkOpen();
    this.#settleDelivered();
    const deadline = Date.now() + timeoutMs;
    this.#throwRaised();
    for (;;) {
      this.#checkOpen();
      this.#throwRaised();
      const ready = this.#ready.shift();
      if (ready !== undefined) {
        this.#deliver(ready);
        return ready;
      }
      const now = Date.now();
      if (now >= deadline) return [];
      const wakeAt = Math.min(deadline, this.#fetchAll(now));
      await this.#waitForChange(wakeAt - now);
    }
  }

  /** Polls until closed: each step the records of one poll (never empty). */
  async *[Symbol.asyncIterator](): AsyncGenerator<readonly ShareRecord<K, V>[], void, undefined> {
    while (this.#state === 'running') {
      let records: readonly ShareRecord<K, V>[];
      try {
        records = await this.poll(this.#options.fetchMaxWaitMs + 1000);
      } catch (error) {
        if (this.#state !== 'running' && this.#fatal === undefined) return;
        throw error;
      }
      if (records.length > 0) yield records;
    }
  }

  /**
   * Sends every acknowledgement made so far (in implicit mode, the last poll's records not
   * acknowledged are accepted first) to the partitions' leaders, and resolves with what each
   * leader said (Kafka's `commitSync`).
   */
  async commit(): Promise<readonly ShareAcknowledgementResult[]> {
    this.#checkOpen();
    this.#settleDelivered();
    return this.#commitAll();
  }

  /**
   * Leaves the share group: sends every acknowledgement made (the last poll's records that were
   * not acknowledged are not accepted, in either mode, as Kafka's `close` does), closes each
   * share session (the brokers hand every record still acquired by this member back to the
   * group) and leaves (member epoch -1). Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    if (this.#state === 'new' || this.#state === 'closed') {
      this.#state = 'closed';
      return;
    }
    const failed = this.#fatal !== undefined;
    this.#state = 'closing';
    this.#signal();
    if (!failed) {
      // What the application acknowledged is sent; the rest of the last poll is not accepted,
      // in either mode (Kafka's ShareConsumerImpl.close): the session close releases it, with
      // every fetched record never handed out.
      this.#keepAcknowledged();
      this.#ready.length = 0;
      await this.#acknowledgeAll(true).then(
        (outcomes) => this.#reportOutcomes(outcomes),
        () => undefined,
      );
      await this.#membership.leave();
    } else this.#membership.abandon();
    for (const s of this.#sessions.values()) await s.connection?.close().catch(() => undefined);
    this.#state = 'closed';
  }

  // -- delivery and acknowledgement ------------------------------------------------------

  #throwRaised(): void {
    const error = this.#pollError;
    this.#pollError = undefined;
    if (error !== undefined) throw error;
  }

  #checkOpen(): void {
    if (this.#fatal !== undefined)
      throw new ConsumerClosedError('the share consumer stopped', this.#fatal);
    if (this.#state === 'new')
      throw new KafkaError('ERR_KAFKA_CONSUMER_STATE', 'call start() before poll()');
    if (this.#state !== 'running') throw new ConsumerClosedError('the share consumer is closed');
  }

  /**
   * Moves the last poll's acknowledgements to the pending ones: in implicit mode every record
   * not acknowledged is accepted; in explicit mode every record must be acknowledged.
   */
  #settleDelivered(): void {
    const delivered = this.#delivered;
    if (this.#options.acknowledgementMode === 'explicit') {
      for (const r of delivered)
        if (DeliveredRecord.ackOf(r) === undefined)
          throw new ShareAcknowledgeError(
            `explicit acknowledgement mode: ${r.topic}-${r.partition} offset ${r.offset} of the last poll is not acknowledged`,
          );
    }
    let p: SharePartition | undefined;
    let acks: AckSet | undefined;
    for (const r of delivered) {
      if (r.sharePartition !== p) {
        p = r.sharePartition;
        acks = this.#acksOf(p);
      }
      acks!.add(r.offset, DeliveredRecord.ackOf(r) ?? AckType.Accept);
    }
    this.#delivered = [];
    this.#poll++;
  }

  /** On close: what was acknowledged is sent; the rest is released by the session close. */
  #keepAcknowledged(): void {
    for (const r of this.#delivered) {
      const type = DeliveredRecord.ackOf(r);
      if (type !== undefined) this.#queueAck(r.sharePartition, r.offset, type);
    }
    this.#delivered = [];
    this.#poll++;
  }

  #queueAck(p: SharePartition, offset: bigint, type: AckTypeId): void {
    this.#acksOf(p).add(offset, type);
  }

  /** The pending acknowledgements of `p`, made when there are none. */
  #acksOf(p: SharePartition): AckSet {
    const key = keyOf(p.topicId, p.partition);
    let entry = this.#pending.get(key);
    if (entry === undefined) {
      entry = { p, acks: new AckSet() };
      this.#pending.set(key, entry);
    }
    return entry.acks;
  }

  #deliver(records: readonly DeliveredRecord<K, V>[]): void {
    this.#poll++;
    for (const r of records)
      DeliveredRecord.handOut(r as DeliveredRecord<unknown, unknown>, this.#poll);
    this.#delivered = records;
  }

  #hasAcksFor(nodeId: number, snapshot: ReturnType<Cluster['snapshot']>): boolean {
    for (const { p } of this.#pending.values())
      if (snapshot.leaderFor(p.topic, p.partition) === nodeId) return true;
    return false;
  }

  /** Takes the pending acknowledgements of the partitions `nodeId` leads. */
  #takeAcks(nodeId: number): PendingAcks[] {
    const taken: PendingAcks[] = [];
    const snapshot = this.#cluster.snapshot();
    for (const [key, entry] of this.#pending) {
      if (snapshot.leaderFor(entry.p.topic, entry.p.partition) !== nodeId) continue;
      taken.push(entry);
      this.#pending.delete(key);
    }
    return taken;
  }

  #reportOutcomes(outcomes: readonly AckOutcome[]): ShareAcknowledgementResult[] {
    return outcomes.flatMap(({ entry, error }) => this.#report([entry], () => error));
  }

  #report(
    taken: readonly PendingAcks[],
    errorFor: (p: SharePartition) => Error | null,
  ): ShareAcknowledgementResult[] {
    const results: ShareAcknowledgementResult[] = [];
    for (const { p, acks } of taken) {
      const offsets = acks.acknowledged();
      const result = { topic: p.topic, partition: p.partition, offsets, error: errorFor(p) };
      results.push(result);
      if (result.error !== null)
        this.#options.logger.warn(
          {
            groupId: this.#options.groupId,
            topic: p.topic,
            partition: p.partition,
            error: result.error.message,
          },
          'share acknowledgements not applied',
        );
      if (offsets.length === 0) continue;
      try {
        this.#options.onAcknowledgementCommit?.(result);
      } catch (error) {
        this.#options.logger.warn({ error: String(error) }, 'onAcknowledgementCommit threw');
      }
    }
    return results;
  }

  /**
   * Sends every pending acknowledgement with ShareAcknowledge, one request per leader (after
   * the request in flight on its session); `final` also closes each session (epoch -1).
   * Acknowledgements of partitions without a known leader fail.
   */
  async #acknowledgeAll(final: boolean): Promise<AckOutcome[]> {
    const nodes = new Set<number>(final ? this.#sessions.keys() : []);
    const snapshot = this.#cluster.snapshot();
    for (const { p } of this.#pending.values()) {
      const leader = snapshot.leaderFor(p.topic, p.partition);
      if (leader !== undefined) nodes.add(leader);
    }
    const outcomes = await Promise.all(
      [...nodes].map(async (nodeId) => {
        const s = this.#session(nodeId);
        while (s.busy !== undefined) await s.busy;
        const taken = this.#takeAcks(nodeId);
        if (taken.length === 0 && (!final || s.epoch === OPEN_EPOCH)) return [];
        let done!: () => void;
        s.busy = new Promise<void>((resolve) => {
          done = resolve;
        });
        try {
          return await this.#sendAcknowledge(s, taken, final);
        } finally {
          s.busy = undefined;
          done();
        }
      }),
    );
    const orphans: AckOutcome[] = [...this.#pending.values()].map((entry) => ({
      entry,
      error: new KafkaError(
        'ERR_KAFKA_SHARE_NO_LEADER',
        `no leader known for ${entry.p.topic}-${entry.p.partition}`,
        { retriable: true },
      ),
      retry: false,
    }));
    this.#pending.clear();
    return [...outcomes.flat(), ...orphans];
  }

  /**
   * `commit()`'s sending: retriable partition errors are sent again after the backoff until
   * `defaultApiTimeoutMs` ran out, as Kafka's commitSync does; the rest is reported.
   */
  async #commitAll(): Promise<ShareAcknowledgementResult[]> {
    const deadline = Date.now() + this.#options.defaultApiTimeoutMs;
    const results: ShareAcknowledgementResult[] = [];
    for (let attempt = 1; ; attempt++) {
      const outcomes = await this.#acknowledgeAll(false);
      const again = outcomes.filter((o) => o.retry && Date.now() < deadline);
      results.push(...this.#reportOutcomes(outcomes.filter((o) => !again.includes(o))));
      if (again.length === 0) return results;
      for (const { entry } of again)
        for (const [offset, type] of entry.acks.entries()) this.#queueAck(entry.p, offset, type);
      const wait = retryDelayMs(
        {
          backoffMs: this.#options.retryBackoffMs,
          maxBackoffMs: this.#options.retryBackoffMaxMs,
          jitter: 0.2,
        },
        attempt + 1,
      );
      await new Promise((r) => setTimeout(r, Math.min(wait, Math.max(0, deadline - Date.now()))));
    }
  }

  async #sendAcknowledge(
    s: NodeSession,
    taken: PendingAcks[],
    final: boolean,
  ): Promise<AckOutcome[]> {
    const all = (error: Error, retry = false): AckOutcome[] =>
      taken.map((entry) => ({ entry, error, retry }));
    if (s.epoch === OPEN_EPOCH)
      // No session on this broker: acknowledgements need one (Kafka refuses them in a request
      // that opens a session, and ShareAcknowledge cannot open one); the records go back to
      // the group at their lock timeout.
      return all(sessionLost(`no share session with broker ${s.nodeId}`));
    let response: ShareAcknowledgeResponse;
    try {
      const connection = await this.#connection(s);
      // The session's connection had dropped, and the session with it: nothing to send to.
      if (s.epoch === OPEN_EPOCH)
        return all(
          sessionLost(`the share session with broker ${s.nodeId} ended with its connection`),
        );
      response = await this.#cluster.sendOn(
        connection,
        ShareAcknowledgeApi,
        ShareAcknowledgeApi.createRequest({
          groupId: this.#options.groupId,
          memberId: this.#membership.memberId,
          shareSessionEpoch: final ? FINAL_EPOCH : s.epoch,
          topics: byTopic(taken, (entry) =>
            createShareAcknowledgeRequestAcknowledgePartition({
              partitionIndex: entry.p.partition,
              acknowledgementBatches: entry.acks
                .batches()
                .map((b) => createShareAcknowledgeRequestAcknowledgementBatch(b)),
            }),
          ).map((t) => createShareAcknowledgeRequestAcknowledgeTopic(t)),
        }),
        { checkTopLevelError: false },
      );
    } catch (error) {
      // The connection, and the session with it, is gone: not retried (Kafka's
      // ShareConsumeRequestManager fails them; the broker released the records).
      s.epoch = OPEN_EPOCH;
      s.partitions.clear();
      return all(asError(error));
    }
    if (response.errorCode !== ErrorCode.NONE) {
      const error = ProtocolError.fromCode(
        response.errorCode,
        `ShareAcknowledge to broker ${s.nodeId}${response.errorMessage ? `: ${response.errorMessage}` : ''}`,
      );
      if (SESSION_LOST.has(response.errorCode)) {
        s.epoch = OPEN_EPOCH;
        s.partitions.clear();
        return all(error);
      }
      if (!final) s.epoch = nextEpoch(s.epoch);
      return all(error, error.retriable && !final);
    }
    s.epoch = final ? OPEN_EPOCH : nextEpoch(s.epoch);
    if (final) s.partitions.clear();
    const codes = new Map<string, ShareAcknowledgeResponsePartitionData>();
    for (const t of response.responses)
      for (const pd of t.partitions) codes.set(keyOf(t.topicId, pd.partitionIndex), pd);
    return taken.map((entry) => {
      const pd = codes.get(keyOf(entry.p.topicId, entry.p.partition));
      if (pd === undefined)
        return {
          entry,
          error: new KafkaError(
            'ERR_KAFKA_SHARE_RESPONSE_INVALID',
            `ShareAcknowledge answer from broker ${s.nodeId} leaves out ${entry.p.topic}-${entry.p.partition}`,
          ),
          retry: false,
        };
      const error = partitionError(pd.errorCode, entry.p, 'ShareAcknowledge', pd.errorMessage);
      // A partition that moved or is unknown is not asked again (its records' locks are on
      // the old leader); other retriable errors are (Kafka's handlePartitionError).
      const retry = error?.retriable === true && !final && !PARTITION_MOVED.has(pd.errorCode);
      return { entry, error, retry };
    });
  }

  // -- fetching --------------------------------------------------------------------------

  #session(nodeId: number): NodeSession {
    let s = this.#sessions.get(nodeId);
    if (s === undefined) {
      s = {
        nodeId,
        epoch: OPEN_EPOCH,
        partitions: new Map(),
        busy: undefined,
        connection: undefined,
        retryAt: 0,
        failures: 0,
      };
      this.#sessions.set(nodeId, s);
    }
    return s;
  }

  async #connection(s: NodeSession): Promise<MetaConnection> {
    if (s.connection !== undefined && !s.connection.closed) return s.connection;
    // A new connection is a new share session for the broker: open it again.
    s.connection = undefined;
    s.epoch = OPEN_EPOCH;
    s.partitions.clear();
    s.connection = await this.#cluster.openConnection(s.nodeId);
    return s.connection;
  }

  /**
   * Starts a ShareFetch on every broker that leads an assigned partition and has no request
   * in flight (Kafka's consumer fetches again only once what it buffered was handed out).
   * Returns when the next retry is due (ms epoch), or Infinity.
   */
  #fetchAll(now: number): number {
    const snapshot = this.#cluster.snapshot();
    const byNode = new Map<number, SharePartition[]>();
    let unknownLeader = false;
    for (const p of this.#membership.assignment) {
      const leader = snapshot.leaderFor(p.topic, p.partition);
      if (leader === undefined || leader < 0) {
        unknownLeader = true;
        continue;
      }
      const list = byNode.get(leader);
      if (list === undefined) byNode.set(leader, [p]);
      else list.push(p);
    }
    if (unknownLeader)
      void this.#cluster.refreshTopics(this.#options.topics).then(
        () => this.#signal(),
        () => undefined,
      );
    // Brokers with a session whose partitions all moved away: forget them there.
    for (const s of this.#sessions.values())
      if (!byNode.has(s.nodeId) && s.partitions.size > 0) byNode.set(s.nodeId, []);
    let next = unknownLeader ? now + this.#options.retryBackoffMs : Number.POSITIVE_INFINITY;
    for (const [nodeId, wanted] of byNode) {
      const s = this.#session(nodeId);
      if (s.busy !== undefined) continue;
      if (s.retryAt > now) {
        next = Math.min(next, s.retryAt);
        continue;
      }
      if (wanted.length === 0) {
        // Nothing to read there any more: the acknowledgements of what was read go alone, and
        // the session is left as it is (it acquires nothing unless a ShareFetch asks).
        if (s.epoch !== OPEN_EPOCH && this.#hasAcksFor(nodeId, snapshot))
          s.busy = this.#sendAcknowledge(s, this.#takeAcks(nodeId), false).then(
            (outcomes) => void this.#reportOutcomes(outcomes),
            () => undefined,
          );
        else continue;
      } else
        s.busy = this.#fetch(s, wanted).catch((error: unknown) => {
          // A bug of ours, not the broker's: say so at the next poll rather than lose it.
          this.#raise(asError(error));
          this.#failed(s, error);
        });
      s.busy = s.busy.finally(() => {
        s.busy = undefined;
        this.#signal();
      });
    }
    return next;
  }

  async #fetch(s: NodeSession, wanted: readonly SharePartition[]): Promise<void> {
    const o = this.#options;
    let connection: MetaConnection;
    try {
      connection = await this.#connection(s);
    } catch (error) {
      this.#failed(s, error);
      return;
    }
    const opening = s.epoch === OPEN_EPOCH;
    // Acknowledgements ride on the fetch of an open session only (a request that opens one
    // may not carry them).
    const taken = opening ? [] : this.#takeAcks(s.nodeId);
    const acksFor = new Map(taken.map((t) => [keyOf(t.p.topicId, t.p.partition), t]));
    const wantedKeys = new Map(wanted.map((p) => [keyOf(p.topicId, p.partition), p]));
    const send = new Map<string, SharePartition>();
    for (const [key, p] of wantedKeys) if (opening || !s.partitions.has(key)) send.set(key, p);
    for (const [key, t] of acksFor) send.set(key, t.p);
    // Partitions the session holds that are no longer read, and partitions listed only for
    // their acknowledgements (listing one adds it to the session; forgetting it in the same
    // request takes it out again, as Kafka's ShareSessionHandler does).
    const forgotten = opening
      ? []
      : [
          ...[...s.partitions].filter(([key]) => !wantedKeys.has(key)).map(([, p]) => p),
          ...taken
            .filter((t) => {
              const key = keyOf(t.p.topicId, t.p.partition);
              return !wantedKeys.has(key) && !s.partitions.has(key);
            })
            .map((t) => t.p),
        ];
    const topics = byTopic([...send.values()], (p) =>
      createShareFetchRequestFetchPartition({
        partitionIndex: p.partition,
        acknowledgementBatches: (
          acksFor.get(keyOf(p.topicId, p.partition))?.acks.batches() ?? []
        ).map((b) => createShareFetchRequestAcknowledgementBatch(b)),
      }),
    ).map((t) => createShareFetchRequestFetchTopic(t));
    let response: ShareFetchResponse;
    try {
      response = await this.#cluster.sendOn(
        connection,
        ShareFetchApi,
        ShareFetchApi.createRequest({
          groupId: o.groupId,
          memberId: this.#membership.memberId,
          shareSessionEpoch: s.epoch,
          maxWaitMs: o.fetchMaxWaitMs,
          minBytes: o.fetchMinBytes,
          maxBytes: o.fetchMaxBytes,
          maxRecords: o.maxPollRecords,
          batchSize: o.maxPollRecords,
          topics,
          forgottenTopicsData: byTopic(forgotten, (p) => p.partition).map((t) =>
            createShareFetchRequestForgottenTopic(t),
          ),
        }),
        { checkTopLevelError: false, timeoutMs: this.#cluster.requestTimeoutMs + o.fetchMaxWaitMs },
      );
    } catch (error) {
      s.connection?.close().catch(() => undefined);
      s.connection = undefined;
      s.epoch = OPEN_EPOCH;
      s.partitions.clear();
      this.#report(taken, () => asError(error));
      this.#failed(s, error);
      return;
    }
    if (response.errorCode !== ErrorCode.NONE) {
      const error = ProtocolError.fromCode(
        response.errorCode,
        `ShareFetch to broker ${s.nodeId}${response.errorMessage ? `: ${response.errorMessage}` : ''}`,
      );
      this.#report(taken, () => error);
      if (SESSION_LOST.has(response.errorCode)) {
        // Open a new session at once (Kafka's ShareSessionHandler resets to epoch 0).
        s.epoch = OPEN_EPOCH;
        s.partitions.clear();
        return;
      }
      // Any other refusal moves the session on, as Kafka's ShareSessionHandler does; one that
      // will not pass by waiting (GROUP_AUTHORIZATION_FAILED, ...) is also the next poll's.
      s.epoch = nextEpoch(s.epoch);
      if (!error.retriable) this.#raise(error);
      this.#failed(s, error);
      return;
    }
    s.failures = 0;
    if (response.acquisitionLockTimeoutMs > 0)
      this.#lockTimeoutMs = response.acquisitionLockTimeoutMs;
    o.logger.debug(
      {
        groupId: o.groupId,
        nodeId: s.nodeId,
        epoch: s.epoch,
        sent: send.size,
        forgotten: forgotten.length,
        acknowledged: taken.length,
        partitions: response.responses
          .flatMap((t) =>
            t.partitions.map(
              (pd) =>
                `${pd.partitionIndex}:e${pd.errorCode}/a${pd.acknowledgeErrorCode}:${pd.records?.length ?? 0}B:${pd.acquiredRecords.map((r) => `${r.firstOffset}-${r.lastOffset}x${r.deliveryCount}`).join('+')}`,
            ),
          )
          .join(' '),
      },
      'share fetch answered',
    );
    s.epoch = nextEpoch(s.epoch);
    for (const [key, p] of send) if (wantedKeys.has(key)) s.partitions.set(key, p);
    for (const p of forgotten) s.partitions.delete(keyOf(p.topicId, p.partition));
    const answers = new Map<string, ShareFetchResponsePartitionData>();
    for (const t of response.responses)
      for (const pd of t.partitions) answers.set(keyOf(t.topicId, pd.partitionIndex), pd);
    this.#report(taken, (p) => {
      const pd = answers.get(keyOf(p.topicId, p.partition));
      return pd === undefined
        ? null
        : partitionError(
            pd.acknowledgeErrorCode,
            p,
            'ShareFetch acknowledgement',
            pd.acknowledgeErrorMessage,
          );
    });
    const records: DeliveredRecord<K, V>[] = [];
    const hints: { topic: string; partition: number; leaderId: number; leaderEpoch: number }[] = [];
    let moved = false;
    for (const [key, pd] of answers) {
      const p = wantedKeys.get(key) ?? s.partitions.get(key) ?? acksFor.get(key)?.p;
      if (p === undefined) continue;
      if (pd.errorCode !== ErrorCode.NONE) {
        s.partitions.delete(key);
        if (PARTITION_MOVED.has(pd.errorCode)) {
          moved = true;
          if (pd.currentLeader.leaderId >= 0)
            hints.push({
              topic: p.topic,
              partition: p.partition,
              leaderId: pd.currentLeader.leaderId,
              leaderEpoch: pd.currentLeader.leaderEpoch,
            });
        } else {
          const error = ProtocolError.fromCode(
            pd.errorCode,
            `ShareFetch of ${p.topic}-${p.partition}${pd.errorMessage ? `: ${pd.errorMessage}` : ''}`,
          );
          this.#options.logger.warn(
            { groupId: o.groupId, topic: p.topic, partition: p.partition, error: error.message },
            'share fetch partition error',
          );
          // Java raises what the application must act on (TOPIC_AUTHORIZATION_FAILED, a
          // corrupt message, ...) from poll; a broker hiccup is only logged.
          if (pd.errorCode !== ErrorCode.UNKNOWN_SERVER_ERROR) this.#raise(error);
        }
        continue;
      }
      if (pd.acquiredRecords.length === 0) continue;
      records.push(...(await this.#records(p, pd)));
    }
    if (hints.length > 0)
      this.#cluster.applyLeaderHints(
        hints,
        response.nodeEndpoints.map((e) => ({
          nodeId: e.nodeId,
          host: e.host,
          port: e.port,
          rack: e.rack,
        })),
      );
    else if (moved) await this.#cluster.refreshTopics(o.topics).catch(() => undefined);
    if (records.length > 0) {
      if (this.#state === 'running') this.#ready.push(records);
      else for (const r of records) this.#queueAck(r.sharePartition, r.offset, AckType.Release);
    }
  }

  /**
   * The records of one partition answer that this member acquired, with their delivery
   * counts; every acquired offset without a data record (a control record, a compacted gap)
   * is acknowledged as a gap, as Kafka's `ShareCompletedFetch` does. Bytes that cannot be read
   * (a CRC mismatch, a malformed batch) reject every acquired offset not handed out, as Java
   * rejects a corrupt batch's records, and the error is raised by the next `poll()`.
   */
  async #records(
    p: SharePartition,
    pd: ShareFetchResponsePartitionData,
  ): Promise<DeliveredRecord<K, V>[]> {
    const invalid = acquiredRangesInvalid(pd.acquiredRecords);
    if (invalid !== undefined) {
      this.#raise(
        new KafkaError(
          'ERR_KAFKA_SHARE_RESPONSE_INVALID',
          `ShareFetch answer for ${p.topic}-${p.partition}: ${invalid}`,
        ),
      );
      return [];
    }
    const cursor = new AcquiredCursor(pd.acquiredRecords);
    const raw: KafkaRecord[] = [];
    const counts: number[] = [];
    let unreadable: AckTypeId = AckType.Gap;
    try {
      if (pd.records !== null && pd.records.length > 0) {
        for (const batch of decodeRecordBatches(pd.records, { verifyCrc: true })) {
          if (batch.isControl) continue;
          for (const record of batch.records()) {
            const count = cursor.countAt(record.offset);
            if (count === 0) continue;
            raw.push(record);
            counts.push(count);
          }
        }
      }
    } catch (error) {
      unreadable = AckType.Reject;
      this.#raise(asError(error));
    }
    // Acquired offsets without a record handed out: `raw` is ascending, as the ranges are.
    let j = 0;
    let gaps: AckSet | undefined;
    for (const range of pd.acquiredRecords)
      for (let offset = range.firstOffset; offset <= range.lastOffset; offset++) {
        while (j < raw.length && raw[j]!.offset < offset) j++;
        if (j < raw.length && raw[j]!.offset === offset) continue;
        gaps ??= this.#acksOf(p);
        gaps.add(offset, unreadable);
      }
    const batch = await deserializeBatch<K, V>(
      { topic: p.topic, partition: p.partition, records: raw } as unknown as PartitionBatch,
      this.#options.deserializers,
    );
    return batch.records.map((r, i) => new DeliveredRecord<K, V>(this, p, r, counts[i]!));
  }

  /** An error the next `poll()` throws (once); the consumer goes on. */
  #raise(error: Error): void {
    this.#pollError ??= error;
    this.#signal();
  }

  #failed(s: NodeSession, error: unknown): void {
    s.failures++;
    s.retryAt =
      Date.now() +
      retryDelayMs(
        {
          backoffMs: this.#options.retryBackoffMs,
          maxBackoffMs: this.#options.retryBackoffMaxMs,
          jitter: 0.2,
        },
        s.failures + 1,
      );
    this.#options.logger.warn(
      { groupId: this.#options.groupId, nodeId: s.nodeId, error: asError(error).message },
      'share fetch failed',
    );
  }

  #signal(): void {
    for (const wake of this.#waiters) wake();
    this.#waiters.clear();
  }

  async #waitForChange(ms: number): Promise<void> {
    if (ms <= 0) return;
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.#waiters.add(wake);
    });
  }
}

/** Kafka's `ShareRequestMetadata.nextEpoch`: 0 -> 1, ..., and past int32 back to 1. */
function nextEpoch(epoch: number): number {
  return epoch >= 0x7fffffff ? 1 : epoch + 1;
}

function byTopic<T, P>(
  items: readonly T[],
  partition: (item: T) => P,
): { topicId: string; partitions: P[] }[] {
  const out = new Map<string, P[]>();
  for (const item of items) {
    const p = (item as { p?: SharePartition }).p ?? (item as unknown as SharePartition);
    const list = out.get(p.topicId);
    if (list === undefined) out.set(p.topicId, [partition(item)]);
    else list.push(partition(item));
  }
  return [...out].map(([topicId, partitions]) => ({ topicId, partitions }));
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function sessionLost(why: string): Error {
  return new KafkaError('ERR_KAFKA_SHARE_SESSION', why, { retriable: true });
}

function partitionError(
  code: number | undefined,
  p: SharePartition,
  what: string,
  message?: string | null,
): ProtocolError | null {
  if (code === undefined || code === ErrorCode.NONE) return null;
  return ProtocolError.fromCode(
    code,
    `${what} of ${p.topic}-${p.partition}${message ? `: ${message}` : ''}`,
  );
}
