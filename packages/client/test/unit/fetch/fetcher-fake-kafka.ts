// An in-memory Kafka for the session fetcher: several topics, multi-partition Fetch with KIP-227
// fetch sessions kept per broker as Kafka's FetchSessionCache keeps them (a full request opens a
// session, an incremental one must name it with the expected epoch, epoch -1 closes it; an
// incremental answer lists only partitions with news), leaders a test can move (with KIP-951
// hints), preferred read replicas (KIP-392), OFFSET_OUT_OF_RANGE, a long poll that waits for
// data. Built on fake-kafka.ts's
// connections; `intercept` answers any request differently.
import {
  createFetchResponse,
  createFetchResponseFetchableTopicResponse,
  createFetchResponseLeaderIdAndEpoch,
  createFetchResponseNodeEndpoint,
  createFetchResponsePartitionData,
  createListOffsetsResponse,
  createListOffsetsResponsePartitionResponse,
  createListOffsetsResponseTopicResponse,
  createMetadataResponse,
  createMetadataResponseBroker,
  createMetadataResponsePartition,
  createMetadataResponseTopic,
  ErrorCode,
  encodeRecordBatchSync,
  type FetchRequest,
  type FetchResponse,
  type FetchResponsePartitionData,
  type ListOffsetsRequest,
  type MetadataRequest,
} from '@kafkats/codec';
import { FakeKafka, type FakePartitionState, newEpoch, truncateLog } from './fake-kafka.js';

interface Held {
  topic: string;
  partition: number;
  fetchOffset: bigint;
  currentLeaderEpoch: number;
  maxBytes: number;
}

interface Session {
  epoch: number;
  held: Map<string, Held>;
}

export interface FakeTopic {
  id: string;
  partitions: FakePartitionState[];
  errorCode: number;
}

const ids = ['AAAAAAAAAAAAAAAAAAAAAQ', 'AAAAAAAAAAAAAAAAAAAAAg', 'AAAAAAAAAAAAAAAAAAAAAw'];

export class SessionFakeKafka extends FakeKafka {
  readonly topics = new Map<string, FakeTopic>();
  /** Per broker: session id → session. */
  readonly sessions = new Map<number, Map<number, Session>>();
  #nextSession = 1;
  /** When false, no broker opens sessions (answers full requests with session id 0). */
  acceptSessions = true;
  /**
   * KIP-392: by `topic-partition`, the replica its leader names to a Fetch that carries a rack
   * id (answering with no records), and which then serves that partition's reads.
   */
  readonly readReplicas = new Map<string, number>();
  /** An error code every follower answers a Fetch with (0: none). */
  replicaErrorCode = 0;
  readonly #sleepers = new Set<() => void>();

  /** Topics named `names`, `partitions` each, partition p led by broker (p + i) % 3 + 1. */
  constructor(names: readonly string[], partitions: number) {
    super(3, 0);
    names.forEach((name, i) => {
      const parts: FakePartitionState[] = [];
      for (let p = 0; p < partitions; p++) {
        parts.push({
          leader: ((p + i) % 3) + 1,
          leaderEpoch: 0,
          batches: [],
          logStartOffset: 0n,
          logEndOffset: 0n,
        });
      }
      this.topics.set(name, { id: ids[i] as string, partitions: parts, errorCode: 0 });
    });
  }

  part(topic: string, partition: number): FakePartitionState {
    const state = this.topics.get(topic)?.partitions[partition];
    if (state === undefined) throw new Error(`no fake partition ${topic}-${partition}`);
    return state;
  }

  /** Appends `n` records valued `<topic>-<partition>:<offset>` as one batch. */
  produce(topic: string, partition: number, n: number): void {
    const state = this.part(topic, partition);
    const baseOffset = state.logEndOffset;
    const bytes = encodeRecordBatchSync({
      baseOffset,
      partitionLeaderEpoch: state.leaderEpoch,
      now: 1_700_000_000_000,
      records: Array.from({ length: n }, (_, i) => ({
        key: null,
        value: Buffer.from(`${topic}-${partition}:${baseOffset + BigInt(i)}`),
      })),
    });
    const lastOffset = baseOffset + BigInt(n - 1);
    state.batches.push({ baseOffset, bytes, lastOffset });
    state.logEndOffset = lastOffset + 1n;
    this.wake();
  }

  move(topic: string, partition: number, to: number): void {
    const state = this.part(topic, partition);
    state.leader = to;
    newEpoch(state);
    this.wake();
  }

  /** An unclean election of `topic`-`partition`: see {@link FakeKafka.truncate}. */
  truncateTopic(topic: string, partition: number, to: bigint, leader: number): void {
    truncateLog(this.part(topic, partition), to, leader);
    this.wake();
  }

  override stateOf(topic: string, partition: number): FakePartitionState | undefined {
    return this.topics.get(topic)?.partitions[partition];
  }

  override wake(): void {
    super.wake();
    for (const s of [...this.#sleepers]) s();
  }

  /** Fetch requests sent to `node`, in order. */
  fetchesTo(node: number): FetchRequest[] {
    return this.sent
      .filter((s) => s.apiKey === 1 && s.node === node)
      .map((s) => s.request as FetchRequest);
  }

  override metadata(request: MetadataRequest) {
    const wanted =
      request.topics === null ? [...this.topics.keys()] : request.topics.map((t) => t.name ?? '');
    return createMetadataResponse({
      brokers: [...this.brokers.entries()].map(([nodeId, b]) =>
        createMetadataResponseBroker({ nodeId, host: b.host, port: b.port }),
      ),
      clusterId: 'fake',
      controllerId: 1,
      topics: wanted.map((name) => {
        const t = this.topics.get(name);
        if (t === undefined) {
          return createMetadataResponseTopic({
            name,
            errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
          });
        }
        return createMetadataResponseTopic({
          errorCode: t.errorCode,
          name,
          topicId: t.id,
          partitions: t.partitions.map((p, i) =>
            createMetadataResponsePartition({
              partitionIndex: i,
              leaderId: p.leader,
              leaderEpoch: p.leaderEpoch,
              replicaNodes: [...this.brokers.keys()],
              isrNodes: [...this.brokers.keys()],
            }),
          ),
        });
      }),
    });
  }

  override listOffsets(request: ListOffsetsRequest) {
    return createListOffsetsResponse({
      topics: request.topics.map((t) =>
        createListOffsetsResponseTopicResponse({
          name: t.name,
          partitions: t.partitions.map((p) => {
            const state = this.part(t.name, p.partitionIndex);
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

  override async fetch(
    node: number,
    request: FetchRequest,
    version: number,
    signal: AbortSignal | undefined,
  ): Promise<FetchResponse> {
    const byId = version >= 13;
    const nameOf = (t: { topic: string; topicId: string }) =>
      byId ? [...this.topics.entries()].find(([, v]) => v.id === t.topicId)?.[0] : t.topic;
    const asked = new Map<string, Held>();
    for (const t of request.topics) {
      const topic = nameOf(t);
      if (topic === undefined) throw new Error(`fake kafka: unknown topic ${t.topicId}`);
      for (const p of t.partitions) {
        asked.set(`${topic}-${p.partition}`, {
          topic,
          partition: p.partition,
          fetchOffset: p.fetchOffset,
          currentLeaderEpoch: p.currentLeaderEpoch,
          maxBytes: p.partitionMaxBytes,
        });
      }
    }
    let mine = this.sessions.get(node);
    if (mine === undefined) this.sessions.set(node, (mine = new Map()));
    let held: Map<string, Held>;
    let sessionId = 0;
    let full = true;
    if (request.sessionEpoch === 0 || request.sessionEpoch === -1) {
      mine.delete(request.sessionId);
      held = asked;
      if (request.sessionEpoch === 0 && this.acceptSessions) {
        sessionId = this.#nextSession++;
        mine.set(sessionId, { epoch: 1, held });
      }
    } else {
      const session = mine.get(request.sessionId);
      const fail = (errorCode: number) => createFetchResponse({ errorCode, sessionId: 0 });
      if (session === undefined) return fail(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
      if (session.epoch !== request.sessionEpoch)
        return fail(ErrorCode.INVALID_FETCH_SESSION_EPOCH);
      for (const [k, v] of asked) session.held.set(k, v);
      for (const t of request.forgottenTopicsData) {
        const topic = nameOf(t);
        for (const p of t.partitions) session.held.delete(`${topic}-${p}`);
      }
      session.epoch = session.epoch === 0x7fffffff ? 1 : session.epoch + 1;
      held = session.held;
      sessionId = request.sessionId;
      full = false;
    }
    let answers = this.#answer(node, held, full, request.rackId);
    const news = () =>
      answers.some(
        (a) =>
          a.data.errorCode !== 0 ||
          (a.data.records?.length ?? 0) > 0 ||
          a.data.preferredReadReplica >= 0,
      );
    if (!news() && request.maxWaitMs > 0) {
      await this.#sleep(request.maxWaitMs, signal);
      if (signal?.aborted) throw new Error('fake kafka: the fetch was abandoned');
      answers = this.#answer(node, held, full, request.rackId);
    }
    this.fetchAnswers++;
    if (answers.some((a) => (a.data.records?.length ?? 0) > 0)) this.dataAnswers++;
    const byTopic = new Map<string, FetchResponsePartitionData[]>();
    for (const a of answers) {
      const list = byTopic.get(a.topic) ?? [];
      list.push(a.data);
      byTopic.set(a.topic, list);
    }
    return createFetchResponse({
      sessionId,
      responses: [...byTopic].map(([topic, partitions]) =>
        createFetchResponseFetchableTopicResponse({
          topic: byId ? '' : topic,
          topicId: byId ? (this.topics.get(topic)?.id as string) : 'AAAAAAAAAAAAAAAAAAAAAA',
          partitions,
        }),
      ),
      nodeEndpoints: this.leaderHints
        ? [...this.brokers.entries()].map(([nodeId, b]) =>
            createFetchResponseNodeEndpoint({ nodeId, host: b.host, port: b.port }),
          )
        : [],
    });
  }

  /** Every held partition's answer (full), or only those with records or an error (incremental). */
  #answer(node: number, held: Map<string, Held>, full: boolean, rackId: string) {
    const out: { topic: string; data: FetchResponsePartitionData }[] = [];
    for (const h of held.values()) {
      const data = this.#partitionAnswer(node, h, rackId);
      // Kafka's FetchSession answers a partition in an incremental response for records, an
      // error or a preferred read replica.
      if (
        full ||
        data.errorCode !== 0 ||
        (data.records?.length ?? 0) > 0 ||
        data.preferredReadReplica >= 0
      )
        out.push({ topic: h.topic, data });
    }
    return out;
  }

  #partitionAnswer(node: number, asked: Held, rackId: string): FetchResponsePartitionData {
    const topic = this.topics.get(asked.topic);
    const state = this.part(asked.topic, asked.partition);
    const data = (init: Parameters<typeof createFetchResponsePartitionData>[0]) =>
      createFetchResponsePartitionData({ partitionIndex: asked.partition, ...init });
    const hint = () =>
      this.leaderHints
        ? {
            currentLeader: createFetchResponseLeaderIdAndEpoch({
              leaderId: state.leader,
              leaderEpoch: state.leaderEpoch,
            }),
          }
        : {};
    if (topic !== undefined && topic.errorCode !== 0) return data({ errorCode: topic.errorCode });
    const readReplica = this.readReplicas.get(`${asked.topic}-${asked.partition}`);
    const replicaReads = readReplica !== undefined && readReplica === node && state.leader !== node;
    if (state.leader !== node && this.replicaErrorCode !== 0)
      return data({ errorCode: this.replicaErrorCode, highWatermark: -1n });
    if (state.leader !== node && !replicaReads)
      return data({ errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, ...hint() });
    if (state.leader === node && readReplica !== undefined && rackId !== '')
      return data({
        highWatermark: state.logEndOffset,
        lastStableOffset: state.logEndOffset,
        logStartOffset: state.logStartOffset,
        preferredReadReplica: readReplica,
        records: null,
      });
    if (asked.currentLeaderEpoch >= 0 && asked.currentLeaderEpoch < state.leaderEpoch) {
      return data({ errorCode: ErrorCode.FENCED_LEADER_EPOCH, ...hint() });
    }
    if (asked.currentLeaderEpoch > state.leaderEpoch)
      return data({ errorCode: ErrorCode.UNKNOWN_LEADER_EPOCH });
    const offset = asked.fetchOffset;
    if (offset < state.logStartOffset || offset > state.logEndOffset) {
      return data({ errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, highWatermark: -1n });
    }
    const chosen: Buffer[] = [];
    let size = 0;
    for (const b of state.batches) {
      if (b.lastOffset < offset) continue;
      if (chosen.length > 0 && size + b.bytes.length > asked.maxBytes) break;
      chosen.push(b.bytes);
      size += b.bytes.length;
    }
    return data({
      highWatermark: state.logEndOffset,
      lastStableOffset: state.logEndOffset,
      logStartOffset: state.logStartOffset,
      records: chosen.length === 0 ? null : Buffer.concat(chosen),
    });
  }

  #sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#sleepers.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#sleepers.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
