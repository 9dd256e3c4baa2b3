// An in-memory Kafka behind @kafkats/meta's ConnectionFactory: brokers, one log per partition
// made of real encoded record batches, a leader and epoch per partition that a test can move,
// a metadata view that may lag behind the truth, and hooks to answer any request differently.
// Fetch follows the broker's rules the reader depends on: leader and epoch checks (KIP-320),
// OFFSET_OUT_OF_RANGE, the high-water mark, and a long poll that waits for data or maxWaitMs.
import {
  createFetchResponse,
  createFetchResponseFetchableTopicResponse,
  createFetchResponseLeaderIdAndEpoch,
  createFetchResponsePartitionData,
  createListOffsetsResponse,
  createListOffsetsResponsePartitionResponse,
  createListOffsetsResponseTopicResponse,
  createMetadataResponse,
  createMetadataResponseBroker,
  createMetadataResponsePartition,
  createMetadataResponseTopic,
  createOffsetForLeaderEpochResponse,
  createOffsetForLeaderEpochResponseEpochEndOffset,
  ErrorCode,
  encodeRecordBatchSync,
  type FetchRequest,
  type FetchResponse,
  type ListOffsetsRequest,
  type MetadataRequest,
  type OffsetForLeaderEpochRequest,
  type RecordInput,
} from '@kafkats/codec';
import {
  Cluster,
  type ConnectionFactory,
  type ConnectTarget,
  type MetaConnection,
} from '@kafkats/meta';
import { AbortedError, ConnectionError } from '@kafkats/wire';

export const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';

/**
 * Connects a Cluster to a fake with fast retries and no background refresh; the cluster is
 * added to `opened`, for the test's afterEach to close.
 */
export async function connectFake(kafka: FakeKafka, opened: Cluster[]): Promise<Cluster> {
  const cluster = await Cluster.connect(kafka.bootstrap(), {
    connectionFactory: kafka.factory,
    refreshIntervalMs: 0,
    retry: { backoffMs: 1, maxBackoffMs: 2 },
  });
  opened.push(cluster);
  return cluster;
}

export interface FakePartitionState {
  leader: number;
  leaderEpoch: number;
  /** Encoded batches with the offset each starts at. */
  batches: { baseOffset: bigint; bytes: Buffer; lastOffset: bigint }[];
  logStartOffset: bigint;
  /** Next offset to assign (the log end offset; the high-water mark here). */
  logEndOffset: bigint;
  /**
   * Where each leader epoch after the first starts in the log (the leader epoch cache that
   * OffsetsForLeaderEpoch reads); `moveLeader` adds one.
   */
  epochStarts?: { epoch: number; start: bigint }[];
}

type Handler = (
  node: number,
  apiKey: number,
  request: unknown,
  version: number,
) => unknown | Promise<unknown>;

export interface SentRequest {
  node: number;
  apiKey: number;
  request: unknown;
  version: number;
  dedicated: boolean;
}

export class FakeKafka {
  readonly brokers = new Map<number, { host: string; port: number; up: boolean }>();
  topicName = 'events';
  topicId = TOPIC_ID;
  /** Error code the topic's metadata carries (TOPIC_AUTHORIZATION_FAILED, ...). */
  topicErrorCode = 0;
  readonly partitions: FakePartitionState[] = [];
  /** When set, Metadata answers from this view instead of the truth (a lagging broker). */
  metadataView: { leader: number; leaderEpoch: number }[] | undefined;
  versions = new Map<number, number>([
    [1, 17],
    [2, 9],
    [3, 12],
    [23, 4],
  ]);
  /** Runs before the default handling; return undefined to fall through. */
  intercept: Handler | undefined;
  /** Leader hints (KIP-951) in NOT_LEADER_OR_FOLLOWER / FENCED_LEADER_EPOCH answers. */
  leaderHints = false;
  readonly sent: SentRequest[] = [];
  readonly connections: FakeConnection[] = [];
  /** Fetches answered. */
  fetchAnswers = 0;
  /** Fetches answered with at least one batch. */
  dataAnswers = 0;
  readonly #waiters = new Set<() => void>();

  constructor(brokers = 3, partitions = 1) {
    for (let id = 1; id <= brokers; id++)
      this.brokers.set(id, { host: '127.0.0.1', port: 9000 + id, up: true });
    for (let p = 0; p < partitions; p++) {
      this.partitions.push({
        leader: (p % brokers) + 1,
        leaderEpoch: 0,
        batches: [],
        logStartOffset: 0n,
        logEndOffset: 0n,
      });
    }
  }

  bootstrap(): string {
    return [...this.brokers.values()].map((b) => `${b.host}:${b.port}`).join(',');
  }

  partition(p = 0): FakePartitionState {
    const state = this.partitions[p];
    if (state === undefined) throw new Error(`no fake partition ${p}`);
    return state;
  }

  /** Appends one batch and wakes long polls. Returns its base offset. */
  append(
    p: number,
    records: readonly RecordInput[],
    extra: { producerId?: bigint; transactional?: boolean; control?: boolean } = {},
  ): bigint {
    const state = this.partition(p);
    const baseOffset = state.logEndOffset;
    const bytes = encodeRecordBatchSync({
      baseOffset,
      partitionLeaderEpoch: state.leaderEpoch,
      ...(extra.producerId === undefined
        ? {}
        : { producerId: extra.producerId, producerEpoch: 0, baseSequence: 0 }),
      ...(extra.transactional === undefined ? {} : { transactional: extra.transactional }),
      ...(extra.control === undefined ? {} : { control: extra.control }),
      now: 1_700_000_000_000,
      records,
    });
    const lastOffset = baseOffset + BigInt(records.length - 1);
    state.batches.push({ baseOffset, bytes, lastOffset });
    state.logEndOffset = lastOffset + 1n;
    this.wake();
    return baseOffset;
  }

  /** Appends `n` records with values `v<offset>`, one batch. */
  appendValues(p: number, n: number): void {
    const start = this.partition(p).logEndOffset;
    const records = Array.from({ length: n }, (_, i) => ({
      key: null,
      value: Buffer.from(`v${start + BigInt(i)}`),
    }));
    this.append(p, records);
  }

  /** Moves leadership (bumps the epoch) and wakes long polls. */
  moveLeader(p: number, to: number): void {
    const state = this.partition(p);
    state.leader = to;
    newEpoch(state);
    this.wake();
  }

  /**
   * An unclean election: the log loses everything from `to` on and a new leader `leader` takes
   * over at a new epoch, as a lagging replica elected leader would.
   */
  truncate(p: number, to: bigint, leader: number): void {
    truncateLog(this.partition(p), to, leader);
    this.wake();
  }

  /** The partition `topic`-`partition`, or undefined for one this fake does not have. */
  stateOf(topic: string, partition: number): FakePartitionState | undefined {
    return topic === this.topicName ? this.partitions[partition] : undefined;
  }

  /**
   * OffsetsForLeaderEpoch as a leader answers it: the end of the asked epoch in its log (the
   * start of the next epoch, or the log end for the current one), fenced by the leader epoch
   * like a Fetch.
   */
  offsetsForLeaderEpoch(node: number, request: OffsetForLeaderEpochRequest) {
    return createOffsetForLeaderEpochResponse({
      topics: request.topics.map((t) => ({
        topic: t.topic,
        partitions: t.partitions.map((p) => {
          const state = this.stateOf(t.topic, p.partition);
          const answer = (errorCode: number, leaderEpoch = -1, endOffset = -1n) =>
            createOffsetForLeaderEpochResponseEpochEndOffset({
              partition: p.partition,
              errorCode,
              leaderEpoch,
              endOffset,
            });
          if (state === undefined) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
          if (state.leader !== node) return answer(ErrorCode.NOT_LEADER_OR_FOLLOWER);
          if (p.currentLeaderEpoch >= 0 && p.currentLeaderEpoch < state.leaderEpoch)
            return answer(ErrorCode.FENCED_LEADER_EPOCH);
          if (p.currentLeaderEpoch > state.leaderEpoch)
            return answer(ErrorCode.UNKNOWN_LEADER_EPOCH);
          if (p.leaderEpoch > state.leaderEpoch) return answer(0);
          const next = (state.epochStarts ?? []).find((e) => e.epoch > p.leaderEpoch);
          return answer(0, p.leaderEpoch, next === undefined ? state.logEndOffset : next.start);
        }),
      })),
    });
  }

  /** Drops every connection to a broker, as a lost socket. */
  drop(node: number): void {
    for (const c of this.connections) if (c.node === node) c.lose();
  }

  wake(): void {
    for (const w of [...this.#waiters]) w();
  }

  factory: ConnectionFactory = async (target: ConnectTarget) => {
    const entry = [...this.brokers.entries()].find(
      ([, b]) => b.host === target.host && b.port === target.port,
    );
    if (entry === undefined || !entry[1].up) {
      throw new ConnectionError('ERR_KAFKA_CONNECTION_FAILED', target.label, 'refused');
    }
    const connection = new FakeConnection(this, entry[0], target.label.includes('dedicated'));
    this.connections.push(connection);
    return connection;
  };

  /** Open dedicated connections. */
  dedicated(): FakeConnection[] {
    return this.connections.filter((c) => c.dedicated && !c.closed);
  }

  fetches(): SentRequest[] {
    return this.sent.filter((s) => s.apiKey === 1);
  }

  metadataRequests(): number {
    return this.sent.filter((s) => s.apiKey === 3).length;
  }

  async answer(
    node: number,
    apiKey: number,
    request: unknown,
    version: number,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    const custom = await this.intercept?.(node, apiKey, request, version);
    if (custom !== undefined) {
      if (custom instanceof Error) throw custom;
      return custom;
    }
    if (apiKey === 3) return this.metadata(request as MetadataRequest);
    if (apiKey === 2) return this.listOffsets(request as ListOffsetsRequest);
    if (apiKey === 1) return this.fetch(node, request as FetchRequest, version, signal);
    if (apiKey === 23)
      return this.offsetsForLeaderEpoch(node, request as OffsetForLeaderEpochRequest);
    throw new Error(`fake kafka: api ${apiKey} not handled`);
  }

  metadata(request: MetadataRequest) {
    const view = this.metadataView ?? this.partitions;
    const named = request.topics === null || request.topics.some((t) => t.name === this.topicName);
    return createMetadataResponse({
      brokers: [...this.brokers.entries()].map(([nodeId, b]) =>
        createMetadataResponseBroker({ nodeId, host: b.host, port: b.port }),
      ),
      clusterId: 'fake',
      controllerId: 1,
      topics: named
        ? [
            createMetadataResponseTopic({
              errorCode: this.topicErrorCode,
              name: this.topicName,
              topicId: this.topicId,
              partitions:
                this.topicErrorCode !== 0
                  ? []
                  : view.map((p, i) =>
                      createMetadataResponsePartition({
                        partitionIndex: i,
                        leaderId: p.leader,
                        leaderEpoch: p.leaderEpoch,
                        replicaNodes: [...this.brokers.keys()],
                        isrNodes: [...this.brokers.keys()],
                      }),
                    ),
            }),
          ]
        : [],
    });
  }

  listOffsets(request: ListOffsetsRequest) {
    return createListOffsetsResponse({
      topics: request.topics.map((t) =>
        createListOffsetsResponseTopicResponse({
          name: t.name,
          partitions: t.partitions.map((p) => {
            const state = this.partition(p.partitionIndex);
            return createListOffsetsResponsePartitionResponse({
              partitionIndex: p.partitionIndex,
              offset: p.timestamp === -2n ? state.logStartOffset : state.logEndOffset,
              timestamp: -1n,
            });
          }),
        }),
      ),
    });
  }

  async fetch(
    node: number,
    request: FetchRequest,
    version: number,
    signal: AbortSignal | undefined,
  ): Promise<FetchResponse> {
    // Every partition asked for is answered, as a broker answers a Fetch that holds many: its
    // error, or its records. When none has records the answer waits (maxWaitMs) for news, and
    // each partition is then checked again, as Kafka's DelayedFetch does when it completes: a
    // leader that moved, or an epoch that went up, meanwhile ends it with the error.
    let answers = this.#answerEach(node, request, version);
    const waiting = answers.every(
      (a) => a.partition.records === undefined && a.partition.errorCode === 0,
    );
    if (waiting && request.maxWaitMs > 0) {
      await this.#longPoll(request.maxWaitMs, signal);
      if (signal?.aborted) throw new Error('fake kafka: the fetch was abandoned');
      answers = this.#answerEach(node, request, version);
    }
    const topics = new Map<string, ReturnType<typeof createFetchResponseFetchableTopicResponse>>();
    for (const a of answers) {
      let t = topics.get(a.key);
      if (t === undefined) {
        t = createFetchResponseFetchableTopicResponse({
          topic: version >= 13 ? '' : a.topic,
          topicId: version >= 13 ? a.topicId : 'AAAAAAAAAAAAAAAAAAAAAA',
          partitions: [],
        });
        topics.set(a.key, t);
      }
      t.partitions.push(createFetchResponsePartitionData(a.partition));
      this.fetchAnswers++;
      if ((a.partition.records?.length ?? 0) > 0) this.dataAnswers++;
    }
    return createFetchResponse({ responses: [...topics.values()] });
  }

  /** Each asked partition's answer now: an error code (with a KIP-951 hint), or its records. */
  #answerEach(node: number, request: FetchRequest, version: number) {
    const out: {
      key: string;
      topic: string;
      topicId: string;
      partition: Parameters<typeof createFetchResponsePartitionData>[0] & {
        errorCode: number;
        records?: Buffer;
      };
    }[] = [];
    for (const topic of request.topics) {
      for (const asked of topic.partitions) {
        const key = version >= 13 ? topic.topicId : topic.topic;
        const answer = (init: { errorCode: number } & Record<string, unknown>) =>
          out.push({
            key,
            topic: topic.topic,
            topicId: topic.topicId,
            partition: { partitionIndex: asked.partition, ...init },
          });
        if (version >= 13 && topic.topicId !== this.topicId) {
          answer({ errorCode: ErrorCode.UNKNOWN_TOPIC_ID });
          continue;
        }
        const state = this.partition(asked.partition);
        const hint = this.leaderHints
          ? {
              currentLeader: createFetchResponseLeaderIdAndEpoch({
                leaderId: state.leader,
                leaderEpoch: state.leaderEpoch,
              }),
            }
          : {};
        if (state.leader !== node) {
          answer({ errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, ...hint });
          continue;
        }
        if (asked.currentLeaderEpoch >= 0 && asked.currentLeaderEpoch < state.leaderEpoch) {
          answer({ errorCode: ErrorCode.FENCED_LEADER_EPOCH, ...hint });
          continue;
        }
        if (asked.currentLeaderEpoch > state.leaderEpoch) {
          answer({ errorCode: ErrorCode.UNKNOWN_LEADER_EPOCH });
          continue;
        }
        const offset = asked.fetchOffset;
        if (offset < state.logStartOffset || offset > state.logEndOffset) {
          answer({ errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, highWatermark: -1n });
          continue;
        }
        // From the batch holding the offset on, whole batches up to partitionMaxBytes (at least one).
        const chosen: Buffer[] = [];
        let size = 0;
        for (const b of state.batches) {
          if (b.lastOffset < offset) continue;
          if (chosen.length > 0 && size + b.bytes.length > asked.partitionMaxBytes) break;
          chosen.push(b.bytes);
          size += b.bytes.length;
        }
        answer({
          errorCode: 0,
          highWatermark: state.logEndOffset,
          lastStableOffset: state.logEndOffset,
          logStartOffset: state.logStartOffset,
          ...(chosen.length > 0 ? { records: Buffer.concat(chosen) } : {}),
        });
      }
    }
    return out;
  }

  /** Waits for maxWaitMs, or until the log or its leader changes, or the request is abandoned. */
  #longPoll(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

export class FakeConnection implements MetaConnection {
  closed = false;
  pending = 0;
  lastActivityMs = Date.now();
  readonly kafka: FakeKafka;
  readonly node: number;
  readonly dedicated: boolean;
  readonly #listeners = new Set<(e: Error | undefined) => void>();
  readonly #inflight = new Set<(e: Error) => void>();

  constructor(kafka: FakeKafka, node: number, dedicated: boolean) {
    this.kafka = kafka;
    this.node = node;
    this.dedicated = dedicated;
  }

  negotiatedVersion(apiKey: number): number | undefined {
    return this.kafka.versions.get(apiKey);
  }

  send<Req, Res>(
    api: { apiKey: number; name: string },
    request: Req,
    options: { version: number; signal?: AbortSignal },
  ): Promise<Res> {
    if (this.closed) {
      return Promise.reject(
        new ConnectionError('ERR_KAFKA_CONNECTION_LOST', `broker ${this.node}`, 'closed'),
      );
    }
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(new AbortedError(api.name, signal.reason));
    this.kafka.sent.push({
      node: this.node,
      apiKey: api.apiKey,
      request,
      version: options.version,
      dedicated: this.dedicated,
    });
    this.pending++;
    return new Promise<Res>((resolve, reject) => {
      // The fake broker's own wait ends with the connection or the caller's abort.
      const local = new AbortController();
      const fail = (e: Error) => {
        cleanup();
        local.abort();
        reject(e);
      };
      const onAbort = () => fail(new AbortedError(api.name, signal?.reason));
      const cleanup = () => {
        this.pending--;
        this.#inflight.delete(fail);
        signal?.removeEventListener('abort', onAbort);
      };
      this.#inflight.add(fail);
      signal?.addEventListener('abort', onAbort, { once: true });
      Promise.resolve()
        .then(() =>
          this.kafka.answer(this.node, api.apiKey, request, options.version, local.signal),
        )
        .then(
          (response) => {
            if (!this.#inflight.has(fail)) return;
            cleanup();
            resolve(response as Res);
          },
          (error: unknown) => {
            if (!this.#inflight.has(fail)) return;
            fail(error instanceof Error ? error : new Error(String(error)));
          },
        );
    });
  }

  onClose(listener: (error: Error | undefined) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The socket is lost: every request in flight fails with a retriable ConnectionError. */
  lose(): void {
    if (this.closed) return;
    this.closed = true;
    const error = new ConnectionError('ERR_KAFKA_CONNECTION_LOST', `broker ${this.node}`, 'lost');
    for (const f of [...this.#inflight]) f(error);
    for (const l of this.#listeners) l(error);
  }

  async close(): Promise<void> {
    this.lose();
  }
}

/** A new leader epoch, starting at the log end. */
export function newEpoch(state: FakePartitionState): void {
  state.leaderEpoch++;
  state.epochStarts ??= [];
  state.epochStarts.push({ epoch: state.leaderEpoch, start: state.logEndOffset });
}

/** Drops the log from `to` on (whole batches) and elects `leader` at a new epoch. */
export function truncateLog(state: FakePartitionState, to: bigint, leader: number): void {
  state.batches = state.batches.filter((b) => b.lastOffset < to);
  state.logEndOffset = to;
  state.epochStarts = (state.epochStarts ?? []).filter((e) => e.start < to);
  state.leader = leader;
  newEpoch(state);
}
