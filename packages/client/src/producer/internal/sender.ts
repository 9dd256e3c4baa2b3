import {
  createProduceRequestPartitionProduceData,
  createProduceRequestTopicProduceData,
  ErrorCode,
  InitProducerIdApi,
  KafkaError,
  ProduceApi,
  type ProduceRequest,
  type ProduceRequestTopicProduceData,
  type ProduceResponse,
  ProtocolError,
} from '@kafkats/codec';
import type { ClusterSendOptions, LeaderHint } from '@kafkats/meta';
import { AuthenticationError, errorFields, UnsupportedVersionError } from '@kafkats/wire';
import { type ProduceTraceContext, produceChannel } from '../../client-diagnostics.js';
import { type Gate, gate } from '../../internal/gate.js';
import type { ProducerCluster } from '../producer-cluster.js';
import { DeliveryTimeoutError } from '../producer-errors.js';
import type { ResolvedProducerOptions } from '../producer-options.js';
import type { Accumulator, PartitionQueue } from './accumulator.js';
import type { FailedOutcome, IdempotenceState } from './idempotence.js';
import type { ProducerBatch } from './producer-batch.js';

/**
 * Whether a broker has a ready batch left queued for want of an in-flight slot, and the promise
 * `pace` hands its callers meanwhile. One per broker for the sender's life: flags flip in place,
 * as a Set or Map that gained and lost the broker on every request would allocate a new table
 * each time it emptied.
 */
interface PaceState {
  readonly node: number;
  behind: boolean;
  waiter: Gate | null;
}

/** What the sender asks of the producer around it. */
export interface SenderHooks {
  /** An error after which the producer is unusable (fencing, authorization, unsupported version). */
  onFatal(error: Error): void;
  /** A record of the current transaction failed: the transaction must abort. */
  onAbortable(error: Error): void;
  /** Transactional producers: true when the partition is in the transaction (else starts adding it). */
  partitionReady(topic: string, partition: number): boolean;
  /**
   * Transactional producers: the error to fail every queued batch with now, because the
   * transaction is aborting or must abort (undefined otherwise). Such batches are never drained
   * again, so a batch put back after a retriable failure would wait forever (Kafka's Sender
   * aborts undrained batches on every pass in those states: `abortUndrainedBatches`).
   */
  undrainedError?(): Error | undefined;
}

/** Broker errors on Produce after which the producer cannot go on (Kafka's fatal set). */
const FATAL_PRODUCE_ERRORS: ReadonlySet<number> = new Set([
  ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
  ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
  ErrorCode.PRODUCER_FENCED,
  ErrorCode.UNSUPPORTED_VERSION,
  ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT,
]);

/** One Produce request in flight: what its answer or failure is handled with. */
class ProduceCall {
  readonly node: number;
  readonly batches: ProducerBatch[];
  /** The metadata it was built from (topic ids, the leaders its answer is read against). */
  readonly snapshot: ReturnType<ProducerCluster['snapshot']>;
  /** `performance.now()` when its `kafkats:produce` traces opened, or null. */
  readonly traced: number | null;

  constructor(
    node: number,
    batches: ProducerBatch[],
    snapshot: ReturnType<ProducerCluster['snapshot']>,
    traced: number | null,
  ) {
    this.node = node;
    this.batches = batches;
    this.snapshot = snapshot;
    this.traced = traced;
  }
}

/** A Produce request of one batch per partition, topics in the order of their first batch. */
function produceRequest(
  batches: readonly ProducerBatch[],
  version: number,
  snapshot: ReturnType<ProducerCluster['snapshot']>,
  options: ResolvedProducerOptions,
): ProduceRequest {
  let topicData: ProduceRequestTopicProduceData[] | undefined;
  // Batches of one topic mostly come together: the last topic is looked at before the map.
  // Lists start as literals of their first entry (a push onto [] makes room for 16).
  let byName: Map<string, ProduceRequestTopicProduceData> | undefined;
  for (let i = 0; i < batches.length; i++) {
    const b = batches[i] as ProducerBatch;
    const partition = createProduceRequestPartitionProduceData({
      index: b.partition,
      records: b.encoded,
    });
    const last = topicData?.[topicData.length - 1];
    let t = last !== undefined && last.name === b.topic ? last : undefined;
    if (t === undefined && topicData !== undefined) {
      if (byName === undefined) {
        byName = new Map();
        for (const x of topicData) if (!byName.has(x.name)) byName.set(x.name, x);
      }
      t = byName.get(b.topic);
    }
    if (t !== undefined) {
      t.partitionData.push(partition);
      continue;
    }
    // Names up to v12, topic ids from v13: the codec drops whichever the version lacks.
    t = createProduceRequestTopicProduceData({ name: b.topic, partitionData: [partition] });
    if (version >= 13) t.topicId = snapshot.topic(b.topic)?.topicId ?? t.topicId;
    if (topicData === undefined) topicData = [t];
    else topicData.push(t);
    byName?.set(b.topic, t);
  }
  return ProduceApi.createRequest({
    transactionalId: options.transactionalId ?? null,
    acks: options.acks,
    timeoutMs: options.requestTimeoutMs,
    topicData: topicData ?? [],
  });
}

/**
 * The answer for `batch` in a Produce response: by topic name up to v12, by topic id from v13
 * (the id the request carried, from the same snapshot).
 */
function partitionResponse(
  response: ProduceResponse,
  batch: ProducerBatch,
  snapshot: ReturnType<ProducerCluster['snapshot']>,
): ProduceResponse['responses'][number]['partitionResponses'][number] | undefined {
  let topicId: string | undefined;
  const topics = response.responses;
  for (let i = 0; i < topics.length; i++) {
    const t = topics[i] as (typeof topics)[number];
    if (t.name !== '') {
      if (t.name !== batch.topic) continue;
    } else {
      topicId ??= snapshot.topic(batch.topic)?.topicId;
      if (topicId === undefined || t.topicId !== topicId) continue;
    }
    const partitions = t.partitionResponses;
    for (let k = 0; k < partitions.length; k++) {
      const p = partitions[k] as (typeof partitions)[number];
      if (p.index === batch.partition) return p;
    }
  }
  return undefined;
}

/** True for errors that end the producer rather than one batch. */
export function isFatalError(error: unknown): boolean {
  if (error instanceof ProtocolError) return FATAL_PRODUCE_ERRORS.has(error.errorCode);
  return error instanceof UnsupportedVersionError || error instanceof AuthenticationError;
}

/**
 * Drains ready batches and sends them, as Kafka's Sender does: per leader broker, one Produce
 * request with at most one batch per partition, at most `maxInFlight` requests per broker,
 * each sent once (`maxAttempts: 1`) so that retries and sequence numbers stay here. A request
 * that fails as a whole leaves the outcome unknown: its batches go again with the same
 * sequences and the broker drops what it already has.
 */
export class Sender {
  readonly #cluster: ProducerCluster;
  readonly #options: ResolvedProducerOptions;
  readonly #accumulator: Accumulator;
  readonly #idempotence: IdempotenceState | null;
  readonly #hooks: SenderHooks;
  readonly #inFlightPerNode = new Map<number, number>();
  /**
   * Per broker, when it last had a batch ready and when it last could take one (Kafka's
   * RecordAccumulator.NodeLatencyStats): ready minus drain is how long data has waited for it.
   */
  readonly #nodeLatency = new Map<number, { readyMs: number; drainMs: number }>();
  readonly #staleTopics = new Set<string>();
  #refreshing = false;
  #lastRefreshMs = 0;
  #scheduled = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAtMs = Number.POSITIVE_INFINITY;
  #initializing = false;
  #initFailures = 0;
  #stopped = false;
  /** The fatal error that halted the sender, if one did. */
  #halted: Error | undefined;
  /** The options of Produce sends, for the current `produceVersionCap`. */
  #sendOptions: ClusterSendOptions | undefined;
  /** Pins Produce to at most this version (transactions of the first generation: v11). */
  produceVersionCap: number | undefined;
  /** Per broker seen: left behind (set by `drainPartition`, cleared by a pass) and waiters. */
  readonly #pacing = new Map<number, PaceState>();
  /** The same states, for indexed loops. */
  readonly #paceStates: PaceState[] = [];
  /** How many brokers are behind now. */
  #behindCount = 0;
  /** Counters behind `Producer.metrics()`. */
  readonly counters = {
    batchesSent: 0,
    batchesAcked: 0,
    recordsAcked: 0,
    recordsFailed: 0,
    bytesSent: 0,
    retries: 0,
    batchesSplit: 0,
  };

  constructor(
    cluster: ProducerCluster,
    options: ResolvedProducerOptions,
    accumulator: Accumulator,
    idempotence: IdempotenceState | null,
    hooks: SenderHooks,
  ) {
    this.#cluster = cluster;
    this.#options = options;
    this.#accumulator = accumulator;
    this.#idempotence = idempotence;
    this.#hooks = hooks;
    // A part of a split batch that cannot be closed was never written: a gap in its sequences.
    accumulator.onSequencedFailure = (batch, error) => {
      idempotence?.onFailed(batch, 'not-written');
      if (options.transactionalId !== undefined) hooks.onAbortable(error);
    };
  }

  /**
   * How long batches ready for `node` have waited for it to take them (at `maxInFlight`), ms;
   * 0 for a broker that took the last one it was offered (Kafka's readyTimeMs - drainTimeMs).
   */
  nodeWaitingMs(node: number): number {
    const stats = this.#nodeLatency.get(node);
    return stats === undefined ? 0 : stats.readyMs - stats.drainMs;
  }

  /** Records that `node` had a batch ready at `now`, and whether it could take it. */
  #nodeReady(node: number, now: number, drained: boolean): void {
    let stats = this.#nodeLatency.get(node);
    if (stats === undefined) {
      stats = { readyMs: now, drainMs: now };
      this.#nodeLatency.set(node, stats);
    }
    stats.readyMs = now;
    if (drained) stats.drainMs = now;
  }

  /** Runs a drain pass soon (once per tick however often it is asked). */
  wakeup(): void {
    if (this.#scheduled || this.#stopped) return;
    this.#scheduled = true;
    setImmediate(this.#onWakeup);
  }

  /** The drain pass `wakeup` schedules: one function for the sender's life. */
  readonly #onWakeup = (): void => {
    this.#scheduled = false;
    this.#run();
  };

  /** Makes sure a drain pass runs no later than `atMs` (linger and backoff deadlines). */
  scheduleAt(atMs: number): void {
    if (this.#stopped || atMs >= this.#timerAtMs) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerAtMs = atMs;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#timerAtMs = Number.POSITIVE_INFINITY;
        this.#run();
      },
      Math.max(0, atMs - Date.now()),
    );
  }

  /**
   * Sends the head batch of one partition now, if it is ready and may go (its leader known,
   * below `maxInFlight`, numbered when idempotent): the call that filled a batch hands it to
   * the broker at once, rather than at the next drain pass (a macrotask away, which a loop
   * that awaits only settled promises never yields to). Anything else is left to that pass.
   * A ready batch left queued makes `pace` hold the callers writing to its broker until a
   * drain pass catches up.
   */
  drainPartition(q: PartitionQueue): void {
    if (this.#stopped) return;
    this.#drainHead(q);
    // A ready batch still queued (the one just filled, behind the head that went, or the head
    // itself behind maxInFlight): callers of `pace` for its broker wait for a drain pass.
    const next = q.batches[0];
    if (next !== undefined && next.encoded !== null && !next.inFlight) {
      const leader = this.#cluster.snapshot().leaderFor(q.topic, q.partition);
      if (leader === undefined) return;
      this.#markBehind(leader);
      this.wakeup();
    }
  }

  /** Sends the head batch of `q` if it is ready and may go (see `drainPartition`). */
  #drainHead(q: PartitionQueue): void {
    const head = q.batches[0];
    const idem = this.#idempotence;
    if (
      head === undefined ||
      head.encoded === null ||
      head.inFlight ||
      (idem !== null && !idem.hasProducerId())
    ) {
      this.wakeup();
      return;
    }
    const now = Date.now();
    if (head.retryAtMs > now) return;
    const leader = this.#cluster.snapshot().leaderFor(q.topic, q.partition);
    if (leader === undefined) {
      this.wakeup();
      return;
    }
    const full = (this.#inFlightPerNode.get(leader) ?? 0) >= this.#options.maxInFlight;
    this.#nodeReady(leader, now, !full);
    if (
      full ||
      (idem !== null && !idem.canDrain(head)) ||
      !this.#hooks.partitionReady(q.topic, q.partition)
    ) {
      this.wakeup();
      return;
    }
    q.batches.shift();
    if (idem !== null && head.baseSequence < 0) idem.assignSequence(head);
    head.inFlight = true;
    head.attempts++;
    head.markSent();
    this.#send(leader, [head]);
  }

  /**
   * What a caller whose last record went into `q` waits for: undefined to go on at once, or,
   * while `q`'s broker has a full batch left queued, a promise (one per broker, shared) that
   * settles when a drain pass leaves that broker no ready batch waiting for an in-flight slot
   * (or the sender stops, or has no producer id to drain with). A pass follows every completed
   * request, and a request in flight always completes: answered, failed or timed out. Callers
   * writing to other brokers are not held.
   */
  pace(q: PartitionQueue | undefined): Promise<void> | undefined {
    if (this.#behindCount === 0 || q === undefined) return undefined;
    const leader = this.#cluster.snapshot().leaderFor(q.topic, q.partition);
    const state = leader === undefined ? undefined : this.#pacing.get(leader);
    if (state === undefined || !state.behind) return undefined;
    state.waiter ??= gate();
    return state.waiter.promise;
  }

  /** `node` has a ready batch left queued: `pace` holds its callers. */
  #markBehind(node: number): void {
    let state = this.#pacing.get(node);
    if (state === undefined) {
      state = { node, behind: false, waiter: null };
      this.#pacing.set(node, state);
      this.#paceStates.push(state);
    }
    if (state.behind) return;
    state.behind = true;
    this.#behindCount++;
  }

  /** `node` has no batch left behind (or the sender cannot drain): its `pace` callers go on. */
  #release(state: PaceState): void {
    if (!state.behind) return;
    state.behind = false;
    this.#behindCount--;
    const waiter = state.waiter;
    if (waiter === null) return;
    state.waiter = null;
    waiter.resolve();
  }

  /** Every `pace` caller goes on: the sender stopped or has no producer id to drain with. */
  #releaseAll(): void {
    // `pace` makes a promise only for a broker that is behind, and `#release` clears both.
    const states = this.#paceStates;
    for (let i = 0; i < states.length && this.#behindCount > 0; i++)
      this.#release(states[i] as PaceState);
  }

  /**
   * After a fatal error: nothing is sent or asked for again (no InitProducerId, no Produce),
   * as Kafka's Sender does once the TransactionManager has a fatal error; responses still in
   * flight are handled, and one that would be retried fails with `error` instead.
   */
  halt(error: Error): void {
    this.#halted = error;
    this.stop();
  }

  /** Stops timers; responses still in flight are still handled. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#releaseAll();
  }

  /** Produce requests in flight (all brokers). */
  get inFlightRequests(): number {
    let n = 0;
    for (const v of this.#inFlightPerNode.values()) n += v;
    return n;
  }

  #run(): void {
    if (this.#stopped) return;
    const now = Date.now();
    const idem = this.#idempotence;
    const transactional = this.#options.transactionalId !== undefined;
    if (transactional) {
      const abortWith = this.#hooks.undrainedError?.();
      if (abortWith !== undefined) this.failQueued(abortWith);
    }
    let next = this.#accumulator.closeDue(now);
    const expired = this.#accumulator.expired(now, this.#options.deliveryTimeoutMs);
    for (let i = 0; i < expired.length; i++) {
      const batch = expired[i] as ProducerBatch;
      // Only a batch that was sent has a sequence; it expires between attempts, so the broker
      // may have written an earlier one (Kafka's Sender marks such a batch unresolved).
      this.#fail(batch, this.#timeoutError(batch), 'unknown');
    }
    if (idem !== null && !transactional) {
      // After the expiries, so a partition they left unresolved with nothing in flight is
      // settled in this pass: nothing else would wake the sender for it.
      idem.resolveSequences();
      if (idem.bumpEpochIfRequired() === 'new-id') this.#failStaleProducerBatches();
      if (!idem.hasProducerId()) this.#initProducerId();
    }
    if (idem === null || idem.hasProducerId()) next = Math.min(next, this.#drain(now));
    // No producer id: nothing drains until InitProducerId answers; callers wait on
    // bufferMemory (and maxBlockMs) then, not here.
    else this.#releaseAll();
    // What is still queued after the drain must fail at its deadline even if no answer, retry
    // or metadata change wakes the sender before then (Kafka's Sender polls no longer than
    // RecordAccumulator.nextExpiryTimeMs).
    next = Math.min(next, this.#accumulator.nextExpiryMs(this.#options.deliveryTimeoutMs));
    if (next !== Number.POSITIVE_INFINITY) this.scheduleAt(next);
    if (this.#staleTopics.size > 0) this.#refreshMetadata();
  }

  /** Drains and sends; returns the earliest backoff deadline among waiting batches. */
  #drain(now: number): number {
    const snapshot = this.#cluster.snapshot();
    const idem = this.#idempotence;
    const queues = this.#accumulator.queues();
    let next = Number.POSITIVE_INFINITY;
    // A broker with one ready batch also takes the open batches of its other partitions, as
    // Kafka's Sender drains every partition of a ready node: fewer, fuller requests. (Indexed
    // loops, collections made only when used: a pass runs for about every other batch.)
    // The ready brokers: the first in a number, a set only once there is a second.
    let firstReady: number | undefined;
    let moreReady: Set<number> | undefined;
    for (let i = 0; i < queues.length; i++) {
      const q = queues[i] as PartitionQueue;
      const head = q.batches[0];
      if (head === undefined || head.encoded === null || head.retryAtMs > now) continue;
      const leader = snapshot.leaderFor(q.topic, q.partition);
      if (leader === undefined || leader === firstReady || moreReady?.has(leader) === true)
        continue;
      if (firstReady === undefined) firstReady = leader;
      else (moreReady ??= new Set()).add(leader);
      this.#nodeReady(
        leader,
        now,
        (this.#inFlightPerNode.get(leader) ?? 0) < this.#options.maxInFlight,
      );
    }
    for (let round = 0; ; round++) {
      // Brokers that left a ready batch for want of an in-flight slot: `pace` keeps holding
      // their callers (the first in a number, a set only for a second).
      let leftFirst: number | undefined;
      let leftMore: Set<number> | undefined;
      // Requests by leader, in the order they were started.
      let requests: { node: number; batches: ProducerBatch[]; bytes: number }[] | undefined;
      let byNode:
        | Map<number, { node: number; batches: ProducerBatch[]; bytes: number }>
        | undefined;
      for (let i = 0; i < queues.length; i++) {
        const q = queues[i] as PartitionQueue;
        const head = q.batches[0];
        if (head === undefined) continue;
        // Only in the first round: an open batch that is a head in a later round is the one
        // behind a batch just sent, whose readiness made its broker ready (Kafka's Sender
        // takes one batch per partition per drain, and checks readiness again before the next).
        if (round === 0 && !head.closed && head.recordCount > 0 && firstReady !== undefined) {
          const leader = snapshot.leaderFor(q.topic, q.partition);
          if (leader === firstReady || (leader !== undefined && moreReady?.has(leader) === true))
            this.#accumulator.close(head);
        }
        if (!head.closed || head.encoded === null) continue;
        if (head.retryAtMs > now) {
          if (head.retryAtMs < next) next = head.retryAtMs;
          continue;
        }
        const leader = snapshot.leaderFor(q.topic, q.partition);
        if (leader === undefined) {
          this.#staleTopics.add(q.topic);
          continue;
        }
        let request: { node: number; batches: ProducerBatch[]; bytes: number } | undefined;
        if (byNode !== undefined) request = byNode.get(leader);
        else if (requests !== undefined) {
          // Few leaders: a scan; a map once there are more.
          for (let k = 0; k < requests.length && request === undefined; k++)
            if (requests[k]?.node === leader) request = requests[k];
        }
        if (
          request === undefined &&
          (this.#inFlightPerNode.get(leader) ?? 0) >= this.#options.maxInFlight
        ) {
          if (leftFirst === undefined) leftFirst = leader;
          else if (leader !== leftFirst) (leftMore ??= new Set()).add(leader);
          continue;
        }
        const size = head.encoded.length;
        if (request !== undefined && request.bytes + size > this.#options.maxRequestSize) continue;
        if (idem !== null && !idem.canDrain(head)) continue;
        if (!this.#hooks.partitionReady(q.topic, q.partition)) continue;
        q.batches.shift();
        if (idem !== null && head.baseSequence < 0) idem.assignSequence(head);
        head.inFlight = true;
        head.attempts++;
        head.markSent();
        if (request !== undefined) {
          request.batches.push(head);
          request.bytes += size;
          continue;
        }
        // A broker's request is made with its first batch, as a literal (a push onto [] makes
        // room for 16).
        request = { node: leader, batches: [head], bytes: size };
        if (requests === undefined) requests = [request];
        else requests.push(request);
        if (byNode !== undefined) byNode.set(leader, request);
        else if (requests.length > 8) byNode = new Map(requests.map((r) => [r.node, r]));
      }
      let sent = 0;
      if (requests !== undefined) {
        for (let i = 0; i < requests.length; i++) {
          const request = requests[i] as (typeof requests)[number];
          this.#send(request.node, request.batches);
          sent++;
        }
      }
      if (sent === 0) {
        const states = this.#paceStates;
        for (let i = 0; i < states.length && this.#behindCount > 0; i++) {
          const state = states[i] as PaceState;
          if (state.node !== leftFirst && leftMore?.has(state.node) !== true) this.#release(state);
        }
        return next;
      }
    }
  }

  #send(node: number, batches: ProducerBatch[]): void {
    this.#inFlightPerNode.set(node, (this.#inFlightPerNode.get(node) ?? 0) + 1);
    const counters = this.counters;
    counters.batchesSent += batches.length;
    for (let i = 0; i < batches.length; i++) counters.bytesSent += batches[i]?.encoded?.length ?? 0;
    const traced = produceChannel.hasSubscribers ? this.#traceStart(node, batches) : null;
    const call = new ProduceCall(node, batches, this.#cluster.snapshot(), traced);
    const cluster = this.#cluster;
    if (cluster.sendToNodeCallback !== undefined) {
      // One object per request; the handlers and the builder are the sender's own.
      cluster.sendToNodeCallback(
        node,
        ProduceApi,
        this.#buildProduce,
        this.#produceSendOptions(),
        this.#produceAnswered,
        this.#produceFailed,
        call,
      );
      return;
    }
    cluster
      .sendToNode(node, ProduceApi, (v) => this.#buildProduce(v, call), this.#produceSendOptions())
      .then(
        (response) => this.#produceAnswered(response, call),
        (error: unknown) => this.#produceFailed(error, call),
      );
  }

  /** The Produce request of one send, at the version the connection chose. */
  readonly #buildProduce = (version: number, call: ProduceCall): ProduceRequest =>
    produceRequest(call.batches, version, call.snapshot, this.#options);

  /** A Produce request was answered; what ends it runs either way. */
  readonly #produceAnswered = (response: ProduceResponse, call: ProduceCall): void => {
    try {
      this.#onResponse(call.node, call.batches, response, call.snapshot);
    } finally {
      this.#requestDone(call.node, call.batches, call.traced);
    }
  };

  /** A Produce request failed (not sent, lost, timed out); what ends it runs either way. */
  readonly #produceFailed = (error: unknown, call: ProduceCall): void => {
    try {
      this.#onRequestError(call.node, call.batches, error);
    } finally {
      this.#requestDone(call.node, call.batches, call.traced);
    }
  };

  /** The options of every Produce send (one object while the version cap stays). */
  #produceSendOptions(): ClusterSendOptions {
    const cap = this.produceVersionCap;
    let o = this.#sendOptions;
    if (o === undefined || o.version !== cap) {
      o = { maxAttempts: 1, timeoutMs: this.#options.requestTimeoutMs };
      if (cap !== undefined) o = { ...o, version: cap };
      this.#sendOptions = o;
    }
    return o;
  }

  /** A Produce request was answered or failed and its outcome handled. */
  #requestDone(node: number, batches: readonly ProducerBatch[], traced: number | null): void {
    this.#inFlightPerNode.set(node, (this.#inFlightPerNode.get(node) ?? 1) - 1);
    if (traced !== null) this.#traceEnd(batches, traced);
    this.wakeup();
  }

  /** Opens a `kafkats:produce` trace per batch (only while someone subscribes). */
  #traceStart(node: number, batches: readonly ProducerBatch[]): number {
    const transactionalId = this.#options.transactionalId ?? null;
    for (const b of batches) {
      const context: ProduceTraceContext = {
        topic: b.topic,
        partition: b.partition,
        nodeId: node,
        records: b.recordCount,
        bytes: b.encoded?.length ?? 0,
        attempt: b.attempts,
        producerId: b.producerId,
        producerEpoch: b.producerEpoch,
        baseSequence: b.baseSequence,
        transactionalId,
        baseOffset: -1n,
        errorCode: -1,
        outcome: 'pending',
        durationMs: 0,
      };
      b.trace = context;
      produceChannel.start.publish(context);
      produceChannel.end.publish(context);
    }
    return performance.now();
  }

  /** Closes the traces of a request whose answer (or failure) has been handled. */
  #traceEnd(batches: readonly ProducerBatch[], startedMs: number): void {
    const durationMs = performance.now() - startedMs;
    for (const b of batches) {
      const context = b.trace;
      if (context === null) continue;
      b.trace = null;
      context.durationMs = durationMs;
      if (context.outcome === 'pending') context.outcome = b.done ? 'ok' : 'retry';
      if (context.error !== undefined) produceChannel.error.publish(context);
      produceChannel.asyncStart.publish(context);
      produceChannel.asyncEnd.publish(context);
    }
  }

  #onResponse(
    node: number,
    batches: ProducerBatch[],
    response: ProduceResponse,
    snapshot: ReturnType<ProducerCluster['snapshot']>,
  ): void {
    if (this.#options.acks === 0) {
      for (const b of batches) this.#succeed(b, -1n, -1n, -1n);
      return;
    }
    let hints: LeaderHint[] | undefined;
    for (let i = 0; i < batches.length; i++) {
      const b = batches[i] as ProducerBatch;
      const p = partitionResponse(response, b, snapshot);
      if (p === undefined) {
        this.#retryOrFail(
          b,
          new KafkaError(
            'ERR_KAFKA_PRODUCER_RESPONSE_INCOMPLETE',
            `Produce to broker ${node}: no answer for ${b.label}`,
            { retriable: true },
          ),
          -1,
          -1n,
        );
        continue;
      }
      if (p.errorCode === ErrorCode.NONE) {
        this.#succeed(b, p.baseOffset, p.logAppendTimeMs, p.logStartOffset);
        continue;
      }
      if (p.errorCode === ErrorCode.DUPLICATE_SEQUENCE_NUMBER) {
        // Written before, beyond the broker's memory of its offset (Kafka completes it the same way).
        this.#succeed(b, -1n, -1n, p.logStartOffset);
        continue;
      }
      const detail = p.errorMessage === null ? '' : ` (${p.errorMessage})`;
      const error = ProtocolError.fromCode(
        p.errorCode,
        `Produce to ${b.label} on broker ${node}${detail}`,
      );
      if (
        (p.errorCode === ErrorCode.MESSAGE_TOO_LARGE ||
          p.errorCode === ErrorCode.RECORD_LIST_TOO_LARGE) &&
        this.#split(b, error)
      ) {
        continue;
      }
      if (p.currentLeader.leaderId >= 0 && p.currentLeader.leaderEpoch >= 0) {
        // KIP-951: the answer names the new leader; install it instead of refetching metadata.
        hints ??= [];
        hints.push({
          topic: b.topic,
          partition: b.partition,
          leaderId: p.currentLeader.leaderId,
          leaderEpoch: p.currentLeader.leaderEpoch,
        });
      } else if (error.needsMetadataRefresh) {
        this.#staleTopics.add(b.topic);
      }
      this.#retryOrFail(b, error, p.errorCode, p.logStartOffset);
    }
    if (hints !== undefined) {
      this.#cluster.applyLeaderHints(
        hints,
        response.nodeEndpoints.map((e) => ({
          nodeId: e.nodeId,
          host: e.host,
          port: e.port,
          rack: e.rack,
        })),
      );
      // A hint that could not be used (older epoch, unknown address) still needs a refresh.
      const now = this.#cluster.snapshot();
      for (const h of hints) {
        const known = now.partition(h.topic, h.partition);
        if (known?.leader !== h.leaderId || known.leaderEpoch < h.leaderEpoch)
          this.#staleTopics.add(h.topic);
      }
    }
  }

  /**
   * Splits a batch the broker refused as too large (MESSAGE_TOO_LARGE: over the topic's
   * `max.message.bytes`; RECORD_LIST_TOO_LARGE: over its `segment.bytes`) and queues the parts
   * in its place, as Kafka's Sender does for MESSAGE_TOO_LARGE: nothing of it was written, so
   * the parts take its sequences and go before the partition's later batches, which the broker
   * refuses as out of order meanwhile and which go again after them. The split does not count
   * as an attempt. A batch of one record cannot be split: it fails with the broker's error.
   *
   * @returns false when the batch is not split (the caller fails or retries it)
   */
  #split(batch: ProducerBatch, error: ProtocolError): boolean {
    if (batch.recordCount < 2 || batch.done || batch.encoded === null) return false;
    // Halted: nothing is sent again (the caller fails the batch).
    if (this.#halted !== undefined) return false;
    let split: { parts: ProducerBatch[]; starts: number[] };
    try {
      split = this.#accumulator.split(batch);
    } catch {
      return false;
    }
    const { parts, starts } = split;
    const idem = this.#idempotence;
    if (idem !== null && !idem.split(batch, parts)) {
      for (const part of parts) this.#accumulator.finished(part);
      return false;
    }
    batch.inFlight = false;
    batch.lastError = error;
    if (batch.trace !== null) {
      batch.trace.errorCode = error.errorCode;
      batch.trace.error = error;
      batch.trace.outcome = 'retry';
    }
    this.counters.batchesSplit++;
    this.#options.logger.warn(
      {
        topic: batch.topic,
        partition: batch.partition,
        records: batch.recordCount,
        bytes: batch.encoded.length,
        parts: parts.length,
        ...errorFields(error),
      },
      'the broker refused a produce batch as too large: sending it again split',
    );
    batch.handOver(parts, starts);
    this.#accumulator.finished(batch);
    // Front of the queue, in order: the last part first, each put before the others.
    for (let k = parts.length - 1; k >= 0; k--)
      this.#accumulator.reenqueue(parts[k] as ProducerBatch);
    for (const part of parts) this.#accumulator.close(part);
    return true;
  }

  #onRequestError(node: number, batches: ProducerBatch[], thrown: unknown): void {
    const error =
      thrown instanceof Error ? thrown : new Error(`Produce to broker ${node}: ${String(thrown)}`);
    for (const b of batches) {
      // Outcome unknown: the leader may have moved or died; look again before resending.
      this.#staleTopics.add(b.topic);
      this.#retryOrFail(b, error, -1, -1n);
    }
  }

  #retryOrFail(
    batch: ProducerBatch,
    error: Error,
    errorCode: number,
    logStartOffset: bigint,
  ): void {
    batch.inFlight = false;
    batch.lastError = error;
    const trace = batch.trace;
    if (trace !== null) {
      trace.errorCode = errorCode;
      trace.error = error;
    }
    if (batch.done) return;
    if (isFatalError(error)) {
      if (trace !== null) trace.outcome = 'error';
      this.#options.logger.error(
        { topic: batch.topic, partition: batch.partition, ...errorFields(error) },
        'producer failed: it cannot continue',
      );
      this.#fail(batch, error, errorCode < 0 ? 'unknown' : 'not-written');
      this.#hooks.onFatal(error);
      return;
    }
    const retriable = error instanceof KafkaError && error.retriable;
    const idem = this.#idempotence;
    const canRetry =
      idem !== null && errorCode >= 0
        ? idem.canRetry(batch, errorCode, retriable, logStartOffset)
        : retriable;
    const now = Date.now();
    if (canRetry && this.#halted !== undefined) {
      this.#fail(batch, this.#halted, 'unknown');
      return;
    }
    if (canRetry && now - batch.createdMs < this.#options.deliveryTimeoutMs) {
      const backoffMs = this.#backoffMs(batch.attempts);
      batch.retryAtMs = now + backoffMs;
      this.counters.retries++;
      if (trace !== null) trace.outcome = 'retry';
      this.#options.logger.debug(
        {
          topic: batch.topic,
          partition: batch.partition,
          attempt: batch.attempts,
          backoffMs,
          ...errorFields(error),
        },
        'retrying a produce batch',
      );
      this.#accumulator.reenqueue(batch);
      return;
    }
    if (trace !== null) trace.outcome = 'error';
    // Out of time, or no answer for the batch: the broker may hold it. Otherwise the broker
    // answered with an error that is not retried, so these bytes are not in the log.
    const outcome: FailedOutcome = canRetry || errorCode < 0 ? 'unknown' : 'not-written';
    this.#fail(batch, canRetry ? this.#timeoutError(batch) : error, outcome);
  }

  /** Exponential backoff with ±20% jitter (Kafka's retry.backoff.ms / retry.backoff.max.ms). */
  #backoffMs(attempts: number): number {
    const { retryBackoffMs, retryBackoffMaxMs, random } = this.#options;
    const base = Math.min(retryBackoffMaxMs, retryBackoffMs * 2 ** Math.max(0, attempts - 1));
    return Math.max(0, Math.round(base * (0.8 + 0.4 * random())));
  }

  #timeoutError(batch: ProducerBatch): DeliveryTimeoutError {
    const cause = batch.lastError;
    return new DeliveryTimeoutError(
      `${batch.recordCount} record(s) for ${batch.label} not delivered within deliveryTimeoutMs (${this.#options.deliveryTimeoutMs} ms)${cause === undefined ? '' : `; last error: ${cause.message}`}`,
      cause,
    );
  }

  #succeed(
    batch: ProducerBatch,
    baseOffset: bigint,
    logAppendTimeMs: bigint,
    logStartOffset: bigint,
  ): void {
    batch.inFlight = false;
    this.counters.batchesAcked++;
    this.counters.recordsAcked += batch.recordCount;
    const trace = batch.trace;
    if (trace !== null) {
      trace.baseOffset = baseOffset;
      trace.errorCode = 0;
      trace.outcome = 'ok';
    }
    this.#idempotence?.onSuccess(batch, baseOffset);
    this.#accumulator.finished(batch);
    batch.complete(baseOffset, logAppendTimeMs, logStartOffset);
    // Answered on its only attempt: no socket holds its bytes any more.
    if (batch.attempts === 1) this.#accumulator.recycle(batch);
  }

  /** Fails a batch that is not queued (in flight, just answered, or expired). */
  #fail(batch: ProducerBatch, error: Error, outcome: FailedOutcome): void {
    batch.inFlight = false;
    if (!batch.done) this.counters.recordsFailed += batch.recordCount;
    this.#idempotence?.onFailed(batch, outcome);
    this.#accumulator.finished(batch);
    batch.fail(error);
    if (this.#options.transactionalId !== undefined) this.#hooks.onAbortable(error);
  }

  /** Fails every queued batch with `error` (fatal state, abort, forced close). */
  failQueued(error: Error): void {
    // Never sent again: whatever an earlier send did stays unknown.
    for (const b of this.#accumulator.takeAll()) this.#fail(b, error, 'unknown');
  }

  /** After a producer id reset, batches stamped with the old id cannot be retried: fail them. */
  #failStaleProducerBatches(): void {
    for (const q of this.#accumulator.queues()) {
      for (let i = 0; i < q.batches.length; ) {
        const b = q.batches[i]!;
        if (b.baseSequence >= 0) {
          q.batches.splice(i, 1);
          this.#fail(b, this.#timeoutError(b), 'unknown');
        } else i++;
      }
    }
  }

  /** The idempotent (non-transactional) producer's id: InitProducerId to any broker. */
  #initProducerId(): void {
    if (this.#initializing) return;
    this.#initializing = true;
    this.#cluster
      .sendAny(InitProducerIdApi, (_v) =>
        InitProducerIdApi.createRequest({
          transactionalId: null,
          transactionTimeoutMs: 0x7fffffff,
        }),
      )
      .then(
        (response) => {
          this.#initializing = false;
          this.#initFailures = 0;
          this.#idempotence?.setProducerIdAndEpoch(response.producerId, response.producerEpoch);
          // The producer id is known: what waited for it goes now, not a macrotask later.
          this.#run();
        },
        (error: unknown) => {
          this.#initializing = false;
          if (isFatalError(error) || !(error instanceof KafkaError && error.retriable)) {
            // Fatal: the producer halts (Producer#onFatal), and nothing asks again.
            this.#hooks.onFatal(error instanceof Error ? error : new Error(String(error)));
            return;
          }
          this.#initFailures++;
          this.scheduleAt(Date.now() + this.#backoffMs(this.#initFailures));
        },
      );
  }

  /** One targeted metadata refresh at a time, at most once per `retryBackoffMs`. */
  #refreshMetadata(): void {
    if (this.#refreshing) return;
    const now = Date.now();
    const wait = this.#lastRefreshMs + this.#options.retryBackoffMs - now;
    if (wait > 0) {
      this.scheduleAt(now + wait);
      return;
    }
    const topics = [...this.#staleTopics];
    this.#staleTopics.clear();
    this.#refreshing = true;
    this.#lastRefreshMs = now;
    this.#cluster
      .refreshTopics(topics)
      .catch(() => {
        // Still stale: the next failed send asks again.
        for (const t of topics) this.#staleTopics.add(t);
      })
      .finally(() => {
        this.#refreshing = false;
        this.wakeup();
      });
  }
}
