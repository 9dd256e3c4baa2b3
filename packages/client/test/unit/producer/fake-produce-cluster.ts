// An in-memory stand-in for the meta Cluster that a Producer talks to: one metadata snapshot,
// InitProducerId from sendAny, and a scripted broker behind sendToNode that keeps per-partition
// logs with Kafka's idempotence checks (per-producer epoch and last sequence, the last five
// batches remembered for duplicates). Faults are injected per Produce request and per partition
// of a request; leaders can move, the log and its producer state moving with them.
import {
  type ApiDescriptor,
  createProduceResponse,
  createProduceResponsePartitionProduceResponse,
  createProduceResponseTopicProduceResponse,
  decodeRecordBatches,
  ErrorCode,
  KafkaError,
  type ProduceRequest,
  type RecordHeader,
} from '@kafkats/codec';
import {
  type BrokerInfo,
  type ClusterSendOptions,
  type LeaderHint,
  MetadataSnapshot,
  type RequestInput,
} from '@kafkats/meta';
import type { ProducerCluster } from '../../../src/index.js';

/** What happens to one Produce request. */
export type Fault =
  | 'ok'
  /** The connection drops before the broker reads the request. */
  | 'lost-before'
  /** The broker appends, then the connection drops before the answer. */
  | 'lost-after'
  /** Every partition of the request answers NOT_LEADER_OR_FOLLOWER. */
  | 'not-leader';

/** What happens to one partition of a Produce request the broker reads and leads. */
export type PartitionFault =
  | 'ok'
  /** NOT_LEADER_OR_FOLLOWER before the append (the broker has not applied its leadership yet). */
  | 'not-leader'
  /** UNKNOWN_TOPIC_OR_PARTITION before the append (a topic the broker does not know yet). */
  | 'unknown-partition'
  /** Appended, then REQUEST_TIMED_OUT (acks=all: the followers did not catch up in time). */
  | 'timed-out-after-append'
  /** Appended, then NOT_ENOUGH_REPLICAS_AFTER_APPEND (the ISR shrank meanwhile). */
  | 'not-enough-replicas-after-append';

interface ProducerEntry {
  epoch: number;
  lastSeq: number;
  /** Last five batches: first/last sequence and base offset. */
  cache: { first: number; last: number; offset: bigint }[];
}

export interface PartitionLog {
  values: string[];
  /** Each record's headers as `[key, value as UTF-8 or null]`, beside `values`. */
  headers: [string, string | null][][];
  producers: Map<bigint, ProducerEntry>;
  /** Answer the next append with this code instead of appending (then cleared). */
  nextError?: number;
  /** The topic's `max.message.bytes`: a larger batch is refused with MESSAGE_TOO_LARGE. */
  maxMessageBytes?: number;
  logStartOffset: bigint;
  /** Batches appended whose success has not reached the producer (`producerId:epoch:first`). */
  unanswered: Set<string>;
}

export interface SeenRequest {
  node: number;
  /** The highest version the producer allowed (undefined: any). */
  versionCap: number | undefined;
  acks: number;
  transactionalId: string | null;
  batches: {
    topic: string;
    partition: number;
    producerEpoch: number;
    baseSequence: number;
    count: number;
    /** The broker's answer (-1: not processed). */
    errorCode?: number;
  }[];
  fault?: Fault;
}

/** `producerId:epoch:baseSequence` of an encoded batch. */
function batchKey(bytes: Buffer): string {
  const b = decodeRecordBatches(bytes).next().value!;
  return `${b.producerId}:${b.producerEpoch}:${b.baseSequence}`;
}

export class FakeProduceCluster implements ProducerCluster {
  readonly logs = new Map<string, PartitionLog>();
  readonly requests: SeenRequest[] = [];
  /** Decides each Produce request's fate (default: all fine). */
  fault: (request: SeenRequest) => Fault = () => 'ok';
  /**
   * Decides the fate of each partition of a request the broker reads (after `fault`, which may
   * move leaders), when the broker leads that partition (default: all fine).
   */
  partitionFault: (request: SeenRequest, batch: SeenRequest['batches'][number]) => PartitionFault =
    () => 'ok';
  /**
   * Kafka 2.5 to 4.4: a partition with no state for the producer takes a batch with any first
   * sequence (ProducerAppendInfo.checkSequence, read in Kafka's source). False: such a batch is answered UNKNOWN_PRODUCER_ID, as before 2.5.
   */
  acceptsAnyFirstSequence = false;
  /** NOT_LEADER_OR_FOLLOWER from a broker that no longer leads names the leader (KIP-951). */
  leaderHints = false;
  /** When set, Produce answers wait for this before they are delivered. */
  gate: Promise<void> | undefined;
  /** Answers are delivered after this many macrotask turns (in order per broker). */
  delayTurns: () => number = () => 0;
  nextProducerId = 4000n;
  /** The cluster offers `sendToNodeCallback` (as meta's does); false: only `sendToNode`. */
  callbacks = true;
  /** Produce requests sent through `sendToNodeCallback`. */
  callbackSends = 0;
  /** What the client sees: the brokers' metadata as of its last refresh, plus leader hints. */
  #snapshot: MetadataSnapshot;
  /** Who leads each partition now (moveLeader). */
  #truth: MetadataSnapshot;
  readonly #tail = new Map<number, Promise<void>>();

  constructor(
    topics: Record<string, number>,
    leaders: (partition: number) => number = (p) => (p % 3) + 1,
    /** Topics the metadata answers with an error code (UNKNOWN_TOPIC_OR_PARTITION, ...). */
    erroredTopics: Record<string, number> = {},
  ) {
    const errored = Object.entries(erroredTopics).map(([name, errorCode]) => ({
      name,
      topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
      isInternal: false,
      errorCode,
      partitions: [],
    }));
    this.#snapshot = new MetadataSnapshot({
      brokers: [1, 2, 3].map((nodeId) => ({
        nodeId,
        host: '127.0.0.1',
        port: 9000 + nodeId,
        rack: null,
      })),
      topics: Object.entries(topics)
        .map(([name, count], i) => ({
          name,
          topicId: `AAAAAAAAAAAAAAAAAAAAA${i}`,
          isInternal: false,
          errorCode: 0,
          partitions: Array.from({ length: count }, (_, partition) => ({
            partition,
            leader: leaders(partition),
            leaderEpoch: 0,
            replicas: [1, 2, 3],
            isr: [1, 2, 3],
            offlineReplicas: [],
            errorCode: 0,
          })),
        }))
        .concat(errored),
      clusterId: 'fake',
      fetchedAtMs: Date.now(),
    });
    this.#truth = this.#snapshot;
  }

  /**
   * Moves a partition's leadership to `node` with a new leader epoch; the log and its producer
   * state go with it (a clean election). The client learns of it from a refresh or a hint.
   */
  moveLeader(topic: string, partition: number, node: number): void {
    const p = this.#truth.partition(topic, partition);
    if (p === undefined || p.leader === node) return;
    this.#truth = this.#truth.withLeaderHints(
      [{ topic, partition, leaderId: node, leaderEpoch: p.leaderEpoch + 1 }],
      [],
    );
  }

  /**
   * The partition's broker forgets every producer's state while keeping the log (the producer
   * id expired, or the log was cut where its batches were): the next batch starts afresh. A
   * batch written but not yet acknowledged could then be written twice: callers forget only a
   * partition whose `unanswered` is empty.
   */
  forgetProducers(topic: string, partition: number): void {
    this.log(topic, partition).producers.clear();
  }

  /** The broker that leads a partition now. */
  leaderOf(topic: string, partition: number): number | undefined {
    return this.#truth.partition(topic, partition)?.leader;
  }

  log(topic: string, partition: number): PartitionLog {
    const k = `${topic}-${partition}`;
    let l = this.logs.get(k);
    if (l === undefined) {
      l = {
        values: [],
        headers: [],
        producers: new Map(),
        logStartOffset: 0n,
        unanswered: new Set(),
      };
      this.logs.set(k, l);
    }
    return l;
  }

  snapshot(): MetadataSnapshot {
    return this.#snapshot;
  }

  /** Leader hints (KIP-951) as the real cluster applies them; counted. */
  hintsApplied = 0;

  applyLeaderHints(hints: readonly LeaderHint[], endpoints: readonly BrokerInfo[] = []): number {
    const next = this.#snapshot.withLeaderHints(hints, endpoints);
    if (next === this.#snapshot) return 0;
    this.#snapshot = next;
    this.hintsApplied += hints.length;
    return hints.length;
  }

  refreshTopics(): Promise<MetadataSnapshot> {
    if (this.#truth !== this.#snapshot) this.#snapshot = this.#truth;
    return Promise.resolve(this.#snapshot);
  }

  /**
   * The finalized `transaction.version` the fake's brokers state (KIP-890: 2 runs the second
   * generation of transactions, which also needs `negotiated` versions of Produce 12, EndTxn 5
   * and TxnOffsetCommit 5). Undefined: not finalized.
   */
  transactionVersion: number | undefined;
  /** Negotiated versions by API key; 11 for any other. */
  readonly negotiated = new Map<number, number>();

  negotiatedFor(apiKey?: number): Promise<number | undefined> {
    return Promise.resolve(this.negotiated.get(apiKey ?? -1) ?? 11);
  }

  finalizedFeature(name: string): Promise<number | undefined> {
    return Promise.resolve(name === 'transaction.version' ? this.transactionVersion : undefined);
  }

  /** InitProducerId requests seen. */
  initProducerIdCalls = 0;
  /** When set, every InitProducerId fails with this (e.g. CLUSTER_AUTHORIZATION_FAILED). */
  initProducerIdError: Error | undefined;

  sendAny<Req, Res>(api: ApiDescriptor<Req, Res>): Promise<Res> {
    if (api.apiKey !== 22) return Promise.reject(new Error(`fake: sendAny ${api.name}`));
    this.initProducerIdCalls++;
    if (this.initProducerIdError !== undefined) return Promise.reject(this.initProducerIdError);
    const producerId = this.nextProducerId++;
    return Promise.resolve(
      api.createResponse({ producerId, producerEpoch: 0 } as unknown as Partial<Res>),
    );
  }

  sendToCoordinator<_Req, Res>(): Promise<Res> {
    return Promise.reject(new Error('fake: no coordinator'));
  }

  /** No coordinator is cached here: nothing to forget. */
  invalidateCoordinator(): void {}

  /**
   * `Cluster.sendToNodeCallback` over the same broker as `sendToNode` (answers on a microtask);
   * absent while `callbacks` is false, as on a cluster that lacks it.
   */
  get sendToNodeCallback(): ProducerCluster['sendToNodeCallback'] {
    if (!this.callbacks) return undefined;
    return (node, api, build, options, onResponse, onError, context) => {
      this.callbackSends++;
      this.sendToNode(node, api, (v: number) => build(v, context), options).then(
        (response) => onResponse(response, context),
        (error: unknown) => onError(error, context),
      );
    };
  }

  sendToNode<Req, Res>(
    node: number,
    api: ApiDescriptor<Req, Res>,
    input: RequestInput<Req>,
    options?: ClusterSendOptions,
  ): Promise<Res> {
    if (api.apiKey !== 0) return Promise.reject(new Error(`fake: sendToNode ${api.name}`));
    if (options?.maxAttempts !== 1)
      return Promise.reject(new Error('fake: Produce must be sent once'));
    const request = (
      typeof input === 'function' ? (input as (v: number) => Req)(11) : input
    ) as ProduceRequest;
    const seen: SeenRequest = {
      node,
      versionCap: options.version,
      acks: request.acks,
      transactionalId: request.transactionalId,
      batches: [],
    };
    const decoded: { topic: string; partition: number; bytes: Buffer }[] = [];
    for (const t of request.topicData) {
      for (const p of t.partitionData) {
        const batch = decodeRecordBatches(p.records!).next().value!;
        seen.batches.push({
          topic: t.name,
          partition: p.index,
          producerEpoch: batch.producerEpoch,
          baseSequence: batch.baseSequence,
          count: batch.recordCount,
        });
        decoded.push({ topic: t.name, partition: p.index, bytes: p.records! });
      }
    }
    this.requests.push(seen);
    const fault = this.fault(seen);
    seen.fault = fault;
    const response = createProduceResponse();
    /** Appended batches this response acknowledges, once it reaches the producer. */
    const acknowledged: { log: PartitionLog; batch: string }[] = [];
    if (fault !== 'lost-before') {
      for (const d of decoded) {
        let topic = response.responses.find((r) => r.name === d.topic);
        if (topic === undefined) {
          topic = createProduceResponseTopicProduceResponse({ name: d.topic });
          response.responses.push(topic);
        }
        const b = seen.batches.find((x) => x.topic === d.topic && x.partition === d.partition)!;
        const answer = this.#answer(node, fault, seen, b, d.bytes);
        b.errorCode = answer.errorCode;
        if (answer.errorCode === ErrorCode.NONE)
          acknowledged.push({ log: this.log(d.topic, d.partition), batch: batchKey(d.bytes) });
        topic.partitionResponses.push(
          createProduceResponsePartitionProduceResponse({ index: d.partition, ...answer }),
        );
      }
    }
    // Answers of one broker come back in request order, as on one Kafka connection.
    const previous = this.#tail.get(node) ?? Promise.resolve();
    const turns = this.delayTurns();
    const gate = this.gate;
    const done = previous.then(async () => {
      if (gate !== undefined) await gate;
      for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
    });
    this.#tail.set(node, done);
    return done.then(() => {
      if (fault === 'lost-before' || fault === 'lost-after')
        throw new KafkaError('ERR_KAFKA_CONNECTION_LOST', `fake broker ${node}: connection lost`, {
          retriable: true,
        });
      for (const a of acknowledged) a.log.unanswered.delete(a.batch);
      return response as unknown as Res;
    });
  }

  /** One partition's answer from `node`: the request's fault, the leadership, then the partition's. */
  #answer(
    node: number,
    fault: Fault,
    seen: SeenRequest,
    b: SeenRequest['batches'][number],
    bytes: Buffer,
  ): ReturnType<FakeProduceCluster['append']> & {
    currentLeader?: { leaderId: number; leaderEpoch: number };
  } {
    const refused = (errorCode: number) => ({ errorCode, baseOffset: -1n, logStartOffset: -1n });
    if (fault === 'not-leader') return refused(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    const leader = this.#truth.partition(b.topic, b.partition);
    if (leader?.leader !== undefined && leader.leader !== node) {
      const answer = refused(ErrorCode.NOT_LEADER_OR_FOLLOWER);
      if (!this.leaderHints) return answer;
      const currentLeader = { leaderId: leader.leader, leaderEpoch: leader.leaderEpoch };
      return { ...answer, currentLeader };
    }
    const partitionFault = this.partitionFault(seen, b);
    if (partitionFault === 'not-leader') return refused(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    if (partitionFault === 'unknown-partition')
      return refused(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const answer = this.append(b.topic, b.partition, bytes);
    if (answer.errorCode !== ErrorCode.NONE || partitionFault === 'ok') return answer;
    return {
      ...answer,
      errorCode:
        partitionFault === 'timed-out-after-append'
          ? ErrorCode.REQUEST_TIMED_OUT
          : ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
      baseOffset: -1n,
    };
  }

  /** Kafka's append-time checks for an idempotent batch, reduced to what the producer meets. */
  append(
    topic: string,
    partition: number,
    bytes: Buffer,
  ): {
    errorCode: number;
    baseOffset: bigint;
    logStartOffset: bigint;
  } {
    const log = this.log(topic, partition);
    const fail = (errorCode: number) => ({
      errorCode,
      baseOffset: -1n,
      logStartOffset: log.logStartOffset,
    });
    if (log.nextError !== undefined) {
      const code = log.nextError;
      delete log.nextError;
      return fail(code);
    }
    // Kafka checks a batch's size before its producer state (LogValidator).
    if (log.maxMessageBytes !== undefined && bytes.length > log.maxMessageBytes)
      return fail(ErrorCode.MESSAGE_TOO_LARGE);
    const batch = decodeRecordBatches(bytes).next().value!;
    const records = [...batch.records()];
    const values = records.map((r) => r.value?.toString() ?? '');
    const first = batch.baseSequence;
    const last = first + batch.recordCount - 1;
    if (batch.producerId >= 0n) {
      const entry = log.producers.get(batch.producerId);
      if (entry !== undefined && batch.producerEpoch < entry.epoch)
        return fail(ErrorCode.INVALID_PRODUCER_EPOCH);
      if (entry !== undefined && batch.producerEpoch === entry.epoch) {
        const dup = entry.cache.find((c) => c.first === first && c.last === last);
        if (dup !== undefined)
          return { errorCode: 0, baseOffset: dup.offset, logStartOffset: log.logStartOffset };
        if (first !== entry.lastSeq + 1) return fail(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
      } else if (first !== 0) {
        if (entry !== undefined) return fail(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
        if (!this.acceptsAnyFirstSequence) return fail(ErrorCode.UNKNOWN_PRODUCER_ID);
      }
      const next: ProducerEntry =
        entry !== undefined && entry.epoch === batch.producerEpoch
          ? entry
          : { epoch: batch.producerEpoch, lastSeq: -1, cache: [] };
      next.lastSeq = last;
      next.cache.push({ first, last, offset: BigInt(log.values.length) });
      if (next.cache.length > 5) next.cache.shift();
      log.producers.set(batch.producerId, next);
    }
    const baseOffset = BigInt(log.values.length);
    log.unanswered.add(batchKey(bytes));
    log.values.push(...values);
    for (const r of records)
      log.headers.push(
        r.headers.map((h: RecordHeader): [string, string | null] => [
          h.key,
          h.value?.toString() ?? null,
        ]),
      );
    return { errorCode: 0, baseOffset, logStartOffset: log.logStartOffset };
  }
}
