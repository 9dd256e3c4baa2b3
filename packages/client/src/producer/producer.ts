import {
  ErrorCode,
  KafkaError,
  ProtocolError,
  type RecordHeader,
  type RecordInput,
} from '@kafkats/codec';
import { retryDelayMs } from '@kafkats/meta';
import { clusterLogger, type ProducerMetricsSnapshot } from '../client-diagnostics.js';
import { Accumulator } from './internal/accumulator.js';
import { IdempotenceState } from './internal/idempotence.js';
import type { ProducerBatch } from './internal/producer-batch.js';
import { Sender } from './internal/sender.js';
import { TransactionManager } from './internal/transaction-manager.js';
import { partitionForKey, StickyPartitioner } from './partitioner.js';
import type { ProducerCluster } from './producer-cluster.js';
import {
  ProducerBlockedError,
  ProducerClosedError,
  ProducerFatalError,
  ProducerFencedError,
  RecordTooLargeError,
  TransactionStateError,
} from './producer-errors.js';
import {
  type Delivery,
  type HeaderValue,
  type ProducerOptions,
  type ProducerRecord,
  type ProducerRecordHeaders,
  type RecordMetadata,
  type ResolvedProducerOptions,
  resolveProducerOptions,
  type TransactionGroup,
  type TransactionOffset,
} from './producer-options.js';

/** A record turned into bytes, waiting for room or metadata. */
interface Prepared {
  readonly topic: string;
  readonly partition: number | undefined;
  readonly input: RecordInput;
  readonly timestamp: number;
  /** Bytes the record adds to a batch (estimate, uncompressed). */
  readonly bytes: number;
  readonly resolve: (m: RecordMetadata) => void;
  readonly reject: (e: Error) => void;
  /** Settles when the record is in the buffer (or refused). */
  readonly accepted: { resolve: () => void; reject: (e: Error) => void };
  /** Fulfils once `accepted` has settled either way. */
  readonly settled: Promise<void>;
  readonly deadline: number;
}

const toBytes = (v: Buffer | string | null | undefined): Buffer | null =>
  v === null || v === undefined ? null : typeof v === 'string' ? Buffer.from(v, 'utf8') : v;

/** A record's headers as the batch writer takes them: a list, values as bytes. */
function headerList(headers: ProducerRecordHeaders | undefined): RecordHeader[] {
  if (headers === undefined) return [];
  if (Array.isArray(headers))
    return headers.map((h: { key: string; value: HeaderValue }) => ({
      key: h.key,
      value: toBytes(h.value),
    }));
  const list: RecordHeader[] = [];
  for (const key in headers)
    list.push({ key, value: toBytes((headers as Record<string, HeaderValue>)[key]) });
  return list;
}

/** Bytes of a zig-zag varint holding `n` (record lengths and counts in a v2 batch). */
function varintBytes(n: number): number {
  let z = n >= 0 ? n * 2 : -n * 2 - 1;
  let bytes = 1;
  while (z >= 0x80) {
    z = Math.floor(z / 128);
    bytes++;
  }
  return bytes;
}

/**
 * A record's framing in a v2 batch (DefaultRecord): length, attributes (1), timestamp delta
 * and offset delta (3 each: deltas within ~17 minutes and ~1 million records), key and value
 * lengths and the header count. A close estimate, as Kafka's `hasRoomFor` computes the size
 * exactly: over-counting made batches ~10% smaller than Java's for 100-byte records.
 */
function recordOverhead(keyLength: number, valueLength: number, headerCount: number): number {
  const body = 7 + varintBytes(keyLength) + varintBytes(valueLength) + varintBytes(headerCount);
  const payload = Math.max(keyLength, 0) + Math.max(valueLength, 0);
  return body + varintBytes(body + payload);
}
/** The v2 batch header. */
const BATCH_OVERHEAD = 61;

/**
 * A Kafka producer: idempotent by default, batching per partition (`lingerMs`, `batchSize`),
 * at most `maxInFlight` batches per partition with order kept across retries, compression,
 * memory bounded by `bufferMemory`, optional transactions. Built on a `@kafkats/meta` Cluster
 * that it does not own.
 *
 * ```ts
 * const producer = new Producer(cluster, { compression: 'zstd' });
 * const { offset } = await producer.send({ topic: 'orders', key: 'order-1', value: '{...}' });
 * await producer.close();
 * ```
 */
export class Producer {
  readonly #cluster: ProducerCluster;
  readonly #options: ResolvedProducerOptions;
  readonly #accumulator: Accumulator;
  readonly #idempotence: IdempotenceState | null;
  readonly #sender: Sender;
  readonly #txn: TransactionManager | null;
  readonly #sticky: StickyPartitioner;
  readonly #waiting: Prepared[] = [];
  #memoryUsed = 0;
  #waitTimer: ReturnType<typeof setTimeout> | undefined;
  #metadataRefresh: Promise<unknown> | undefined;
  // The last refresh for a waiting record: its topic, the topic's error code in the answer, or
  // the refresh's own failure. A full background refresh drops topics that do not exist from
  // the snapshot, so the error after maxBlockMs reads why the record waited here too.
  #lastRefresh:
    | { readonly topic: string; readonly errorCode: number; readonly error: unknown }
    | undefined;
  // Refreshes since a waiting record last got in (their backoff grows with the count).
  #refreshRounds = 0;
  #fatal: Error | undefined;
  #closing: Promise<void> | undefined;
  #closed = false;

  /**
   * @throws ProducerConfigError `ERR_KAFKA_PRODUCER_CONFIG_INVALID` for conflicting options
   */
  constructor(cluster: ProducerCluster, options: ProducerOptions = {}) {
    this.#cluster = cluster;
    const o = resolveProducerOptions(options, clusterLogger(cluster));
    this.#options = o;
    const transactional = o.transactionalId !== undefined;
    this.#idempotence = o.idempotent ? new IdempotenceState(transactional, o.maxInFlight) : null;
    this.#sticky = new StickyPartitioner(o.batchSize, o.random);
    this.#accumulator = new Accumulator(
      o.batchSize,
      o.lingerMs,
      {
        compression: o.compression,
        compressionLevel: o.compressionLevel,
        transactional,
      },
      () => this.#sender.wakeup(),
      (bytes) => this.#release(bytes),
    );
    this.#sender = new Sender(cluster, o, this.#accumulator, this.#idempotence, {
      onFatal: (error) => this.#onFatal(error),
      onAbortable: (error) => this.#txn?.onAbortable(error),
      partitionReady: (topic, partition) => this.#txn?.partitionReady(topic, partition) ?? true,
      undrainedError: () => this.#txn?.undrainedError(),
    });
    this.#txn =
      o.transactionalId === undefined || this.#idempotence === null
        ? null
        : new TransactionManager(cluster, o, o.transactionalId, this.#idempotence, {
            appended: () => this.#waitingSettled(),
            flush: () => this.#flushBatches(),
            failQueued: (error) => this.#sender.failQueued(error),
            wakeup: () => this.#sender.wakeup(),
            onFatal: (error) => this.#onFatal(error),
          });
  }

  /**
   * Sends one record and resolves when the broker acknowledged it. Waits (up to `maxBlockMs`)
   * for buffer room and for the topic's metadata; records of one producer are appended in
   * the order `send` was called. To send many records without waiting for each
   * acknowledgement, call `send` without awaiting (or use {@link enqueue} for flow control).
   *
   * @throws (rejects) ProducerClosedError, ProducerFatalError / ProducerFencedError,
   *   TransactionStateError or TransactionAbortableError (transactional, outside or after a
   *   failed step of a transaction), RecordTooLargeError, ProducerBlockedError
   *   (`ERR_KAFKA_PRODUCER_BUFFER_EXHAUSTED`, `ERR_KAFKA_PRODUCER_METADATA_TIMEOUT`),
   *   DeliveryTimeoutError, or the broker's ProtocolError for the record's partition
   */
  send(record: ProducerRecord): Promise<RecordMetadata> {
    let accept: Promise<void>;
    const result = new Promise<RecordMetadata>((resolve, reject) => {
      accept = this.#submit(record, resolve, reject);
    });
    accept!.catch(() => {});
    // In a transaction every failure of a record is also the transaction's (it becomes
    // abortable, and commitTransaction() rejects), as a Java send's failed Future is: a send
    // nobody awaits is then safe, and its rejection is not reported as unhandled.
    if (this.#txn !== null) result.catch(() => {});
    return result;
  }

  /**
   * Takes a record into the buffer and resolves once it is there (waiting, like `send`, up to
   * `maxBlockMs` for room or metadata); the returned `result` settles on delivery. Awaiting
   * `enqueue` in a loop keeps memory bounded by `bufferMemory` while batches stay full.
   *
   * @throws (rejects) as `send`, for the errors that refuse the record before it is buffered
   */
  async enqueue(record: ProducerRecord): Promise<Delivery> {
    let accept: Promise<void>;
    const result = new Promise<RecordMetadata>((resolve, reject) => {
      accept = this.#submit(record, resolve, reject);
    });
    result.catch(() => {});
    await accept!;
    return { result };
  }

  /**
   * Sends everything buffered now without waiting for `lingerMs`, and resolves when every record
   * sent before the call has been acknowledged or has failed (failures reject their own
   * `send`, not `flush`).
   */
  async flush(): Promise<void> {
    await this.#waitingSettled();
    await this.#flushBatches();
  }

  /**
   * Counters since the producer was made (batches, records, bytes, retries) and what it holds
   * now (requests in flight, buffered bytes). A copy: later activity does not change it.
   */
  metrics(): ProducerMetricsSnapshot {
    return {
      ...this.#sender.counters,
      inFlightRequests: this.#sender.inFlightRequests,
      bufferedBytes: this.#memoryUsed,
    };
  }

  /**
   * Stops taking records, sends what is buffered and waits for it, at most `timeoutMs`
   * (default: no limit beyond each record's `deliveryTimeoutMs`). What is left then fails with
   * ProducerClosedError. A transaction still open is aborted (also one whose abort failed; not
   * one whose EndTxn(commit) was sent). The cluster stays open.
   */
  close(options: { readonly timeoutMs?: number } = {}): Promise<void> {
    this.#closing ??= this.#close(options.timeoutMs ?? Number.POSITIVE_INFINITY);
    return this.#closing;
  }

  // -- transactions ----------------------------------------------------------------------

  /**
   * Registers the `transactionalId` with its coordinator (InitProducerId): fences any older
   * producer with the same id and completes or aborts its open transaction. Once per producer.
   *
   * @throws TransactionStateError without `transactionalId` or when called twice;
   *   ProducerFencedError / ProducerFatalError; the coordinator's error after `maxBlockMs`
   */
  async initTransactions(): Promise<void> {
    await this.#transactions().initTransactions();
    this.#sender.produceVersionCap = this.#transactions().produceVersion;
  }

  /**
   * Starts a transaction (local: the coordinator learns of it with its first partition).
   * @throws TransactionStateError unless initialized and not already in a transaction
   */
  beginTransaction(): void {
    this.#transactions().beginTransaction();
  }

  /**
   * Adds consumed offsets of a consumer group to the transaction (AddOffsetsToTxn, then
   * TxnOffsetCommit to the group coordinator): they commit or abort with the records.
   *
   * @param group the group id, or its metadata (generation and member id, for fencing zombies)
   * @throws TransactionStateError outside a transaction; TransactionAbortableError when the
   *   coordinator refused; ProducerFencedError
   */
  async sendOffsetsToTransaction(
    offsets: readonly TransactionOffset[],
    group: string | TransactionGroup,
  ): Promise<void> {
    await this.#transactions().sendOffsetsToTransaction(
      offsets,
      typeof group === 'string' ? { groupId: group } : group,
    );
  }

  /**
   * Flushes, then commits the transaction (EndTxn). When a record of the transaction failed,
   * or the coordinator refused the commit, rejects with TransactionAbortableError: call
   * {@link abortTransaction}. When EndTxn(commit) fails retriably (an error with `retriable`
   * true: no answer within `maxBlockMs`, a coordinator that cannot be reached), the commit may
   * or may not have happened: the transaction stays committing and only commitTransaction() may
   * follow, which sends EndTxn(commit) again (the coordinator answers a repeated commit like the
   * first), as Java's producer lets a timed-out commit be retried. A call while a commit runs
   * joins it.
   *
   * @throws TransactionStateError, TransactionAbortableError, ProducerFencedError /
   *   ProducerFatalError (fatal), or the retriable error after which the commit may be repeated
   */
  async commitTransaction(): Promise<void> {
    await this.#transactions().commitTransaction();
  }

  /**
   * Aborts the transaction: records not yet sent fail with TransactionAbortableError, the rest
   * are awaited, then EndTxn(abort), and InitProducerId bumps the epoch when a record failed
   * after being sent (KIP-360). Readers with `read_committed` never see its records. When a
   * step fails without making the producer fatal (a timeout, a coordinator that cannot be
   * reached), the transaction stays aborting: call abortTransaction() again, which does what is
   * left (EndTxn(abort) unless it already succeeded, then the epoch bump), as Java's producer
   * allows; beginTransaction() is refused until an abort succeeds. Allowed in a transaction,
   * after a failed abort, and during commitTransaction() until its EndTxn(commit) is sent (the
   * commit then rejects with TransactionAbortableError). A call while an abort runs joins it.
   *
   * @throws TransactionStateError outside a transaction or once a commit's EndTxn(commit) was
   *   sent; ProducerFencedError / ProducerFatalError (fatal); otherwise the failed step's error,
   *   after which the abort may be repeated
   */
  async abortTransaction(): Promise<void> {
    await this.#transactions().abortTransaction();
  }

  #transactions(): TransactionManager {
    if (this.#txn === null) throw new TransactionStateError('the producer has no transactionalId');
    if (this.#closed) throw new ProducerClosedError('the producer is closed');
    return this.#txn;
  }

  // -- appending -------------------------------------------------------------------------

  #submit(
    record: ProducerRecord,
    resolve: (m: RecordMetadata) => void,
    reject: (e: Error) => void,
  ): Promise<void> {
    const refused = this.#refusal();
    if (refused !== undefined) {
      reject(refused);
      return Promise.reject(refused);
    }
    if (
      record.partition !== undefined &&
      (!Number.isInteger(record.partition) || record.partition < 0)
    ) {
      const error = new KafkaError(
        'ERR_KAFKA_PRODUCER_PARTITION_INVALID',
        `partition ${record.partition} of topic ${record.topic} is not a partition number`,
      );
      this.#txn?.onAbortable(error);
      reject(error);
      return Promise.reject(error);
    }
    const key = toBytes(record.key);
    const value = toBytes(record.value);
    const headers = headerList(record.headers);
    const timestamp = record.timestamp === undefined ? Date.now() : Number(record.timestamp);
    let bytes =
      recordOverhead(key?.length ?? -1, value?.length ?? -1, headers.length) +
      (key?.length ?? 0) +
      (value?.length ?? 0);
    for (const h of headers) bytes += 10 + Buffer.byteLength(h.key) + (h.value?.length ?? 0);
    if (
      bytes + BATCH_OVERHEAD > this.#options.maxRequestSize ||
      bytes > this.#options.bufferMemory
    ) {
      const error = new RecordTooLargeError(
        `a record of about ${bytes} bytes for topic ${record.topic} exceeds maxRequestSize (${this.#options.maxRequestSize}) or bufferMemory (${this.#options.bufferMemory})`,
      );
      this.#txn?.onAbortable(error);
      reject(error);
      return Promise.reject(error);
    }
    let accepted: Prepared['accepted'] | undefined;
    const acceptance = new Promise<void>((acceptResolve, acceptReject) => {
      accepted = { resolve: acceptResolve, reject: acceptReject };
    });
    const prepared: Prepared = {
      topic: record.topic,
      partition: record.partition,
      input: { key, value, headers, timestamp },
      timestamp,
      bytes,
      resolve,
      reject,
      accepted: accepted!,
      settled: acceptance.then(
        () => {},
        () => {},
      ),
      deadline: Date.now() + this.#options.maxBlockMs,
    };
    if (this.#waiting.length === 0 && this.#tryAppend(prepared)) {
      prepared.accepted.resolve();
      return acceptance;
    }
    this.#waiting.push(prepared);
    this.#processWaiting();
    return acceptance;
  }

  #refusal(): Error | undefined {
    if (this.#fatal !== undefined) return this.#fatal;
    if (this.#closed) return new ProducerClosedError('the producer is closed');
    return this.#txn?.sendError();
  }

  /**
   * Appends when the topic's metadata is known and the buffer has room; false otherwise. A
   * topic the metadata answered with an error (UNKNOWN_TOPIC_OR_PARTITION) counts as unknown:
   * another process may be creating it, so it is asked for again until `maxBlockMs`.
   */
  #tryAppend(p: Prepared): boolean {
    const topic = this.#cluster.snapshot().topic(p.topic);
    const count = topic?.errorCode === 0 ? topic.partitions.length : 0;
    if (topic === undefined || count === 0 || (p.partition !== undefined && p.partition >= count)) {
      this.#refreshFor(p.topic);
      return false;
    }
    const memory = p.bytes;
    if (this.#memoryUsed + memory > this.#options.bufferMemory) return false;
    let partition = p.partition;
    if (partition === undefined) {
      const key = p.input.key ?? null;
      if (key !== null) partition = partitionForKey(key, count);
      else {
        const available: number[] = [];
        for (const info of topic.partitions)
          if (info.leader !== undefined) available.push(info.partition);
        partition = this.#sticky.partition(p.topic, available, count);
      }
    }
    const now = Date.now();
    const batch = this.#accumulator.batchFor(p.topic, partition, p.bytes, now);
    const fresh = batch.recordCount === 0;
    batch.append(p.input, p.bytes, memory, {
      resolve: p.resolve,
      reject: p.reject,
      timestamp: p.timestamp,
    });
    this.#memoryUsed += memory;
    if (p.partition === undefined && (p.input.key ?? null) === null)
      this.#sticky.onAppend(p.topic, partition, p.bytes);
    this.#accumulator.afterAppend(batch);
    if (fresh) this.#sender.scheduleAt(now + this.#options.lingerMs);
    return true;
  }

  /**
   * Refreshes the metadata of a waiting record's topic, one refresh at a time, then looks at
   * the waiting records again. Refreshes that do not make the topic usable back off
   * exponentially (`retryBackoffMs` to `retryBackoffMaxMs`), as Kafka's metadata updates do
   * (KIP-580), so a topic that does not exist is not asked for ten times a second.
   */
  #refreshFor(topic: string): void {
    if (this.#metadataRefresh !== undefined) return;
    const o = this.#options;
    const backoffMs = retryDelayMs(
      { backoffMs: o.retryBackoffMs, maxBackoffMs: o.retryBackoffMaxMs, jitter: 0.2 },
      ++this.#refreshRounds + 1,
      o.random,
    );
    this.#metadataRefresh = this.#cluster
      .refreshTopics([topic])
      .then(
        (snapshot) => {
          const errorCode = snapshot.topic(topic)?.errorCode ?? 0;
          this.#lastRefresh = { topic, errorCode, error: undefined };
        },
        (error: unknown) => {
          this.#lastRefresh = { topic, errorCode: 0, error };
        },
      )
      .then(() => new Promise((r) => setTimeout(r, backoffMs)))
      .finally(() => {
        this.#metadataRefresh = undefined;
        this.#processWaiting();
      });
  }

  #release(bytes: number): void {
    this.#memoryUsed -= bytes;
    if (this.#waiting.length > 0) this.#processWaiting();
  }

  /** Appends waiting records in order; the head blocks the rest (order of `send` calls). */
  #processWaiting(): void {
    const now = Date.now();
    while (this.#waiting.length > 0) {
      const head = this.#waiting[0]!;
      const refused = this.#refusal();
      if (refused === undefined && this.#tryAppend(head)) {
        this.#waiting.shift();
        this.#refreshRounds = 0;
        head.accepted.resolve();
        continue;
      }
      const refusedTopic = refused === undefined ? this.#topicRefusal(head) : undefined;
      if (refused === undefined && refusedTopic === undefined && head.deadline > now) break;
      this.#waiting.shift();
      const error = refused ?? refusedTopic ?? this.#blockedError(head);
      // A record refused on its way in fails the transaction it was sent in, as Kafka's
      // KafkaProducer.doSend hands such an ApiException to the TransactionManager.
      if (refused === undefined) this.#txn?.onAbortable(error);
      head.reject(error);
      head.accepted.reject(error);
    }
    if (this.#waitTimer !== undefined) clearTimeout(this.#waitTimer);
    this.#waitTimer = undefined;
    const head = this.#waiting[0];
    if (head !== undefined) {
      this.#waitTimer = setTimeout(() => this.#processWaiting(), Math.max(0, head.deadline - now));
    }
  }

  /**
   * The error that refuses a waiting record at once: the metadata answered its topic with
   * TOPIC_AUTHORIZATION_FAILED or INVALID_TOPIC_EXCEPTION, which waiting cannot change (as
   * Kafka's `Metadata.maybeThrowExceptionForTopic` throws them to `send`).
   */
  #topicRefusal(p: Prepared): ProtocolError | undefined {
    const code = this.#topicErrorCode(p.topic);
    if (code !== ErrorCode.TOPIC_AUTHORIZATION_FAILED && code !== ErrorCode.INVALID_TOPIC_EXCEPTION)
      return undefined;
    return new ProtocolError(code, `metadata for topic ${JSON.stringify(p.topic)}`);
  }

  /** The topic's error code in the snapshot, else in the last refresh for it; 0 for none. */
  #topicErrorCode(topic: string): number {
    const entry = this.#cluster.snapshot().topic(topic);
    if (entry !== undefined) return entry.errorCode;
    return this.#lastRefresh?.topic === topic ? this.#lastRefresh.errorCode : 0;
  }

  /** What a record that waited `maxBlockMs` is told: which of topic, partition or room was missing. */
  #blockedError(p: Prepared): ProducerBlockedError {
    const waited = `within maxBlockMs (${this.#options.maxBlockMs} ms)`;
    const name = JSON.stringify(p.topic);
    const topic = this.#cluster.snapshot().topic(p.topic);
    const errorCode = this.#topicErrorCode(p.topic);
    if (errorCode !== 0) {
      const cause = new ProtocolError(errorCode, `metadata for topic ${name}`);
      const missing = errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      return new ProducerBlockedError(
        'ERR_KAFKA_PRODUCER_METADATA_TIMEOUT',
        missing
          ? `topic ${name} does not exist: the brokers answered UNKNOWN_TOPIC_OR_PARTITION for it ${waited} (the producer never creates topics; create it first)`
          : `topic ${name} not usable ${waited}: ${cause.message}`,
        p.topic,
        cause,
      );
    }
    if (topic === undefined)
      return new ProducerBlockedError(
        'ERR_KAFKA_PRODUCER_METADATA_TIMEOUT',
        `no metadata for topic ${name} ${waited}: no broker answered for it`,
        p.topic,
        this.#lastRefresh?.topic === p.topic ? this.#lastRefresh.error : undefined,
      );
    if (p.partition !== undefined && p.partition >= topic.partitions.length)
      return new ProducerBlockedError(
        'ERR_KAFKA_PRODUCER_METADATA_TIMEOUT',
        `partition ${p.partition} of topic ${name} does not exist ${waited}: the topic has ${topic.partitions.length} partition${topic.partitions.length === 1 ? '' : 's'}`,
        p.topic,
      );
    return new ProducerBlockedError(
      'ERR_KAFKA_PRODUCER_BUFFER_EXHAUSTED',
      `no room in bufferMemory (${this.#options.bufferMemory} bytes) for a record of topic ${name} ${waited}`,
      p.topic,
    );
  }

  /**
   * Resolves when every record waiting now has been appended or refused: waiting records leave
   * the queue in order, so the last one settling means all before it have.
   */
  async #waitingSettled(): Promise<void> {
    await this.#waiting[this.#waiting.length - 1]?.settled;
  }

  async #flushBatches(): Promise<void> {
    const batches: ProducerBatch[] = [...this.#accumulator.incomplete];
    if (batches.length === 0) return;
    this.#accumulator.flushing++;
    try {
      this.#accumulator.closeAll();
      this.#sender.wakeup();
      await Promise.all(batches.map((b) => b.whenDone));
    } finally {
      this.#accumulator.flushing--;
    }
  }

  #onFatal(error: Error): void {
    if (this.#fatal !== undefined) return;
    const fatal =
      error instanceof ProducerFatalError
        ? error
        : error instanceof ProtocolError && error.errorName === 'PRODUCER_FENCED'
          ? new ProducerFencedError(
              `producer ${JSON.stringify(this.#options.transactionalId ?? '')} was fenced by a newer producer with the same transactionalId`,
              error,
            )
          : new ProducerFatalError(`the producer cannot continue: ${error.message}`, error);
    this.#fatal = fatal;
    this.#txn?.onFatal(fatal);
    this.#sender.failQueued(fatal);
    this.#processWaiting();
  }

  async #close(timeoutMs: number): Promise<void> {
    this.#closed = true;
    const work = (async () => {
      await this.#waitingSettled();
      if (this.#txn !== null && this.#fatal === undefined) {
        // 'aborting': an abort that failed is tried again (one under way is joined).
        const state = this.#txn.state;
        if (state === 'in-transaction' || state === 'committing' || state === 'aborting')
          await this.#txn.abortTransaction().catch(() => {});
      }
      await this.#flushBatches();
    })();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut =
      timeoutMs === Number.POSITIVE_INFINITY
        ? work.then(() => false)
        : Promise.race([
            work.then(() => false),
            new Promise<boolean>((r) => {
              timer = setTimeout(() => r(true), timeoutMs);
            }),
          ]);
    const forced = await timedOut;
    if (timer !== undefined) clearTimeout(timer);
    if (forced) {
      const error = new ProducerClosedError(
        `the producer was closed before these records were delivered (close timeout ${timeoutMs} ms)`,
      );
      for (const p of this.#waiting.splice(0)) {
        p.reject(error);
        p.accepted.reject(error);
      }
      this.#sender.failQueued(error);
    }
    if (this.#waitTimer !== undefined) clearTimeout(this.#waitTimer);
    this.#sender.stop();
  }
}
