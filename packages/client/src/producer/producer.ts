import {
  ErrorCode,
  KafkaError,
  ProtocolError,
  partitionForKey,
  type RecordHeadersInput,
  recordBatchSizeUpperBound,
} from '@kafkats/codec';
import { retryDelayMs } from '@kafkats/meta';
import { clusterLogger, type ProducerMetricsSnapshot } from '../client-diagnostics.js';
import { Fifo } from '../internal/fifo.js';
import { requireCluster } from '../internal/require-cluster.js';
import { SerializationError } from '../serialization.js';
import { Accumulator, type PartitionQueue, type TopicRoute } from './internal/accumulator.js';
import { type DeliveryListener, type PendingRecord, SendGroup } from './internal/delivery.js';
import { IdempotenceState } from './internal/idempotence.js';
import type { ProducerBatch } from './internal/producer-batch.js';
import { Sender } from './internal/sender.js';
import {
  type Serialization,
  type Serialized,
  serializeRecord,
  waitingFor,
} from './internal/serialize.js';
import { TransactionManager } from './internal/transaction-manager.js';
import { type Partitioner, StickyPartitioner } from './partitioner.js';
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
  type DeliveryCallback,
  type ProducerOptions,
  type ProducerRecord,
  type RecordMetadata,
  type ResolvedProducerOptions,
  resolveProducerOptions,
  type SendBatchResult,
  type TransactionGroup,
  type TransactionOffset,
} from './producer-options.js';

/** A record of any key and value types (serialized or not). */
type AnyRecord = ProducerRecord<unknown, unknown>;

/** What an append did with a record: in a batch now, or it must wait (metadata, room). */
const APPENDED = 0 as const;
const WAIT = 1 as const;

/** The promise of a send whose record went into a batch at once: one, shared. */
const ACCEPTED: Promise<void> = Promise.resolve();

/**
 * Queued records whose serializers start while the head waits for an async serializer: async
 * serializers run this many at a time (appends stay in send order), and no more than this many
 * serialized copies are held beyond what the buffer takes.
 */
const SERIALIZE_AHEAD = 64;
const noop = () => {};

/**
 * Records whose send waits for metadata or buffer room, in send order: one `send` (a single
 * record) or the rest of one `sendBatch` call from `next` on.
 */
interface Waiting {
  readonly records: readonly AnyRecord[];
  next: number;
  /** Who hears of each record: the record's callback or promise, or the call's group. */
  readonly listener: DeliveryListener;
  readonly group: SendGroup | null;
  readonly deadline: number;
  /** The caller's "accepted" promise, when it asked for one. */
  readonly accept: { resolve(): void; reject(error: Error): void } | null;
  /** Whether `accept` rejects when a record is refused (enqueue) or resolves all the same. */
  readonly rejectOnRefusal: boolean;
  /** Resolvers of `#waitingSettled()` calls that wait for this entry. */
  whenDone: (() => void)[] | null;
}

function badRecord(what: string, topic: string): KafkaError {
  return new KafkaError('ERR_KAFKA_PRODUCER_RECORD_INVALID', `${what} (topic ${topic})`);
}

/** A key or value as the batch takes it: bytes, a string, or null; anything else is refused. */
function isField(v: unknown): v is Uint8Array | string | null {
  return v === null || typeof v === 'string' || v instanceof Uint8Array;
}

/** Refuses header values that are not bytes, strings or null (and keys that are not strings). */
function headersInvalid(headers: RecordHeadersInput): string | undefined {
  if (Array.isArray(headers)) {
    for (const h of headers as readonly { key: unknown; value: unknown }[]) {
      if (typeof h?.key !== 'string') return 'a header key is not a string';
      if (h.value !== undefined && !isField(h.value))
        return `header ${JSON.stringify(h.key)} has a value that is not bytes, a string or null`;
    }
    return undefined;
  }
  if (typeof headers !== 'object' || headers === null) return 'headers are not a list or an object';
  for (const key in headers) {
    const v = (headers as Record<string, unknown>)[key];
    if (v !== undefined && !isField(v))
      return `header ${JSON.stringify(key)} has a value that is not bytes, a string or null`;
  }
  return undefined;
}

/**
 * A Kafka producer: idempotent by default, batching per partition (`lingerMs`, `batchSize`),
 * at most `maxInFlight` batches per partition with order kept across retries, compression,
 * memory bounded by `bufferMemory`, optional transactions. Built on a `@kafkats/meta` Cluster
 * that it does not own.
 *
 * Each record is written once, as it is appended, into its batch's final bytes; a batch that
 * fills goes to the broker from the call that filled it (through a microtask, so an application
 * sending in a tight `await` loop pipelines with the broker), and `lingerMs` holds for
 * batches that are not full.
 *
 * ```ts
 * const producer = new Producer(cluster, { compression: 'zstd' });
 * const { offset } = await producer.send({ topic: 'orders', key: 'order-1', value: '{...}' });
 * await producer.close();
 * ```
 */
export class Producer<K = Buffer | string, V = Buffer | string> {
  readonly #cluster: ProducerCluster;
  readonly #options: ResolvedProducerOptions;
  readonly #accumulator: Accumulator;
  readonly #idempotence: IdempotenceState | null;
  readonly #sender: Sender;
  readonly #txn: TransactionManager | null;
  readonly #sticky: StickyPartitioner;
  readonly #waiting = new Fifo<Waiting>();
  #waitTimer: ReturnType<typeof setTimeout> | undefined;
  /** The partition the last record appended went to (what `Sender.pace` asks about). */
  #appendedTo: PartitionQueue | undefined;
  /** When `#waitTimer` is due, epoch ms. */
  #waitTimerAtMs = Number.POSITIVE_INFINITY;
  #processing = false;
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
  // The custom partitioner's choice for a record that then had to wait: asked once per record.
  readonly #chosen = new WeakMap<AnyRecord, number>();
  // With serializers: a waiting record's serialization, made once (its promise while an async
  // serializer runs), taken when the record is appended or refused.
  readonly #serialized = new WeakMap<AnyRecord, Serialization>();
  // Kafka's RecordAccumulator.allBatchesFull for the sticky partitioner: no open batch queued.
  readonly #allBatchesFull = (topic: string, partition: number): boolean => {
    const q = this.#accumulator.knownRoute(topic)?.queues[partition];
    return q === undefined || this.#accumulator.openBatch(q) === null;
  };
  #closing: Promise<void> | undefined;
  #closed = false;

  /**
   * @throws ProducerConfigError `ERR_KAFKA_PRODUCER_CONFIG_INVALID` for conflicting options
   */
  constructor(cluster: ProducerCluster, options: ProducerOptions<K, V> = {}) {
    requireCluster('Producer', cluster);
    this.#cluster = cluster;
    const o = resolveProducerOptions(
      options as ProducerOptions<unknown, unknown>,
      clusterLogger(cluster),
    );
    this.#options = o;
    const transactional = o.transactionalId !== undefined;
    this.#idempotence = o.idempotent ? new IdempotenceState(transactional, o.maxInFlight) : null;
    const timeoutMs = o.partitionerAvailabilityTimeoutMs;
    this.#sticky = new StickyPartitioner(
      o.batchSize,
      o.random,
      o.partitionerAdaptive
        ? (topic, partition) =>
            this.#accumulator.knownRoute(topic)?.queues[partition]?.batches.length
        : undefined,
      o.partitionerAdaptive && timeoutMs > 0
        ? (topic, partition) => {
            const leader = this.#cluster.snapshot().leaderFor(topic, partition);
            return leader !== undefined && this.#sender.nodeWaitingMs(leader) > timeoutMs;
          }
        : undefined,
    );
    this.#accumulator = new Accumulator(
      o.batchSize,
      Math.min(o.maxRequestSize, o.bufferMemory),
      o.bufferMemory,
      o.lingerMs,
      {
        compression: o.compression,
        compressionLevel: o.compressionLevel,
        compressionBackend: o.compressionBackend,
        transactional,
        stampedAtDrain: this.#idempotence !== null,
      },
      () => this.#sender.wakeup(),
      () => this.#release(),
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
            protocolChanged: (cap) => {
              this.#sender.produceVersionCap = cap;
            },
          });
  }

  /**
   * Sends one record. Without a callback, resolves when the broker acknowledged it (a promise
   * per record). With one (Java's `send(record, callback)`), the record's outcome goes to the
   * callback, exactly once, and the returned promise resolves once the record is in the buffer
   * or was refused: at once (a settled promise, nothing allocated) when there is room and
   * metadata, so awaiting it in a loop keeps memory bounded by `bufferMemory` at the cost of a
   * microtask per record. While a full batch for the record's broker waits in the buffer for
   * one of that broker's `maxInFlight` requests, it resolves once the sender has caught up: a
   * loop that awaits each send stays a batch or two ahead of the broker rather than filling
   * `bufferMemory` (Node reads no answer while such a loop runs). So it does while two batches
   * of the record's partition compress off the main thread (gzip, zstd), until one is done.
   * Either way the record waits (up to `maxBlockMs`) for buffer room and for its topic's
   * metadata, and records are appended in the order `send` was called.
   *
   * @throws (rejects, or goes to the callback) ProducerClosedError, ProducerFatalError /
   *   ProducerFencedError, TransactionStateError or TransactionAbortableError (transactional,
   *   outside or after a failed step of a transaction), RecordTooLargeError,
   *   ProducerBlockedError (`ERR_KAFKA_PRODUCER_BUFFER_EXHAUSTED`,
   *   `ERR_KAFKA_PRODUCER_METADATA_TIMEOUT`), a KafkaError `ERR_KAFKA_PRODUCER_RECORD_INVALID`
   *   or `ERR_KAFKA_PRODUCER_PARTITION_INVALID`, DeliveryTimeoutError, or the broker's
   *   ProtocolError for the record's partition
   */
  send(record: ProducerRecord<K, V>): Promise<RecordMetadata>;
  send(record: ProducerRecord<K, V>, callback: DeliveryCallback): Promise<void>;
  send(record: ProducerRecord<K, V>, callback?: DeliveryCallback): Promise<unknown> {
    if (callback !== undefined) {
      if (typeof callback !== 'function') throw new TypeError('callback must be a function');
      return this.#submitOne(record, callback, false);
    }
    return this.#sendForResult(record);
  }

  /**
   * `send` without a callback. A method of its own: the closure over `pending` makes V8
   * allocate a context on entry to the function that holds it, which the callback path
   * would otherwise pay for every record.
   */
  #sendForResult(record: AnyRecord): Promise<RecordMetadata> {
    let pending!: PendingRecord;
    const result = new Promise<RecordMetadata>((resolve, reject) => {
      pending = { resolve, reject };
    });
    this.#submitOne(record, pending, false, true);
    // In a transaction every failure of a record is also the transaction's (it becomes
    // abortable, and commitTransaction() rejects), as a Java send's failed Future is: a send
    // nobody awaits is then safe, and its rejection is not reported as unhandled.
    if (this.#txn !== null) result.catch(noop);
    return result;
  }

  /**
   * Sends many records with one promise (or one callback) for the whole call, and no promise
   * or result object per record. Records are appended in the order given, each routed as
   * `send` routes it. Without a callback, resolves once every record was acknowledged, with
   * the records' metadata made when read; rejects, once every record has settled, with the
   * first failure (records that were delivered stay delivered). With a callback, the callback
   * gets that outcome and the promise resolves once every record is in the buffer or refused
   * (held as `send`'s is, while a full batch waits for an in-flight slot or two batches
   * compress).
   *
   * @throws (rejects, or goes to the callback) as `send`
   */
  sendBatch(records: readonly ProducerRecord<K, V>[]): Promise<SendBatchResult>;
  sendBatch(
    records: readonly ProducerRecord<K, V>[],
    callback: (error: Error | null, result?: SendBatchResult) => void,
  ): Promise<void>;
  sendBatch(
    records: readonly ProducerRecord<K, V>[],
    callback?: (error: Error | null, result?: SendBatchResult) => void,
  ): Promise<unknown> {
    if (!Array.isArray(records)) throw new TypeError('sendBatch takes an array of records');
    if (callback !== undefined && typeof callback !== 'function')
      throw new TypeError('callback must be a function');
    let group!: SendGroup;
    let result: Promise<SendBatchResult> | undefined;
    if (callback === undefined) {
      result = new Promise<SendBatchResult>((resolve, reject) => {
        group = new SendGroup(records.length, (error, done) =>
          error === undefined ? resolve(done as SendBatchResult) : reject(error),
        );
      });
      if (this.#txn !== null) result.catch(noop);
    } else {
      group = new SendGroup(records.length, (error, done) => callback(error ?? null, done));
    }
    if (records.length === 0) group.settled(0, undefined);
    const accepted = this.#submit(records, group, group, callback !== undefined, false);
    return result ?? accepted;
  }

  /**
   * Takes a record into the buffer and resolves once it is there (waiting, like `send`, up to
   * `maxBlockMs` for room or metadata, and held as `send` is while a full batch waits for an
   * in-flight slot or two batches compress); the returned `result` settles on delivery. Awaiting `enqueue` in a loop
   * keeps memory bounded by `bufferMemory` while batches stay full.
   *
   * @throws (rejects) as `send`, for the errors that refuse the record before it is buffered
   */
  async enqueue(record: ProducerRecord<K, V>): Promise<Delivery> {
    let pending!: PendingRecord;
    const result = new Promise<RecordMetadata>((resolve, reject) => {
      pending = { resolve, reject };
    });
    result.catch(noop);
    await this.#submitOne(record, pending, true, true);
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
      bufferedBytes: this.#accumulator.memoryUsed,
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
   * The transaction protocol in use after initTransactions(): 2 for KIP-890's second
   * generation (the cluster finalizes `transaction.version` 2 or more: Kafka 4.x), 1 for the
   * first (AddPartitionsToTxn from the client); undefined before, or without `transactionalId`.
   * It follows an upgrade of the cluster between two transactions.
   */
  get transactionProtocol(): 1 | 2 | undefined {
    const txn = this.#txn;
    return txn === null || txn.state === 'uninitialized' ? undefined : txn.protocolVersion;
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

  /**
   * What an accepted send returns in place of the settled acceptance, if anything: while the
   * partition the last record went to has two batches compressing off the main thread, or its
   * broker has a full batch queued behind `maxInFlight`, a promise that settles when that is
   * no longer so (see `Accumulator.compressionWait` and `Sender.pace`).
   */
  #paced(): Promise<void> | undefined {
    const q = this.#appendedTo;
    return this.#accumulator.compressionWait(q) ?? this.#sender.pace(q);
  }

  /** One record's send: the fast path of {@link #submit}, with no list made for it. */
  #submitOne(
    record: AnyRecord,
    listener: DeliveryListener,
    rejectOnRefusal: boolean,
    noAcceptance = false,
  ): Promise<void> {
    if (this.#waiting.length === 0) {
      const refused = this.#refusal();
      const r =
        refused === undefined ? this.#append(record, listener, null, 0, Date.now()) : refused;
      if (r === APPENDED) return this.#paced() ?? ACCEPTED;
      if (r !== WAIT) {
        // A record refused on its way in fails the transaction it was sent in, as Kafka's
        // KafkaProducer.doSend hands such an ApiException to the TransactionManager.
        this.#refuse(listener, r, refused === undefined);
        return rejectOnRefusal ? Promise.reject(r) : ACCEPTED;
      }
    }
    return this.#wait([record], 0, listener, null, rejectOnRefusal, noAcceptance);
  }

  /** Appends `records` in order (or queues them behind records that wait); see `sendBatch`. */
  #submit(
    records: readonly AnyRecord[],
    listener: DeliveryListener,
    group: SendGroup | null,
    acceptance: boolean,
    rejectOnRefusal: boolean,
  ): Promise<void> {
    let i = 0;
    if (this.#waiting.length === 0) {
      const now = Date.now();
      for (; i < records.length; i++) {
        const refused = this.#refusal();
        const r =
          refused === undefined
            ? this.#append(records[i] as AnyRecord, listener, group, i, now)
            : refused;
        if (r === APPENDED) continue;
        if (r === WAIT) break;
        this.#refuse(listener, r, refused === undefined);
      }
      if (i === records.length) return this.#paced() ?? ACCEPTED;
    }
    return this.#wait(records, i, listener, group, rejectOnRefusal, !acceptance);
  }

  /** Queues records that must wait; the promise settles once they are in the buffer or refused. */
  #wait(
    records: readonly AnyRecord[],
    next: number,
    listener: DeliveryListener,
    group: SendGroup | null,
    rejectOnRefusal: boolean,
    noAcceptance: boolean,
  ): Promise<void> {
    let accept: Waiting['accept'] = null;
    let promise = ACCEPTED;
    if (!noAcceptance) {
      promise = new Promise<void>((resolve, reject) => {
        accept = { resolve, reject };
      });
    }
    this.#waiting.push({
      records,
      next,
      listener,
      group,
      deadline: Date.now() + this.#options.maxBlockMs,
      accept,
      rejectOnRefusal,
      whenDone: null,
    });
    this.#processWaiting();
    return promise;
  }

  /**
   * Tells a record's listener it was refused (`abortable`: the transaction must abort too). A
   * serializer's failure never is: Kafka's KafkaProducer.doSend throws a SerializationException
   * (a KafkaException, not an ApiException) to the caller without failing the transaction.
   */
  #refuse(listener: DeliveryListener, error: Error, abortable: boolean): void {
    if (abortable && !(error instanceof SerializationError)) this.#txn?.onAbortable(error);
    if (typeof listener === 'function') {
      try {
        listener(error);
      } catch (thrown) {
        process.nextTick(() => {
          throw thrown;
        });
      }
    } else if (listener instanceof SendGroup) listener.settled(1, error);
    else listener.reject(error);
  }

  #refusal(): Error | undefined {
    if (this.#fatal !== undefined) return this.#fatal;
    if (this.#closed) return new ProducerClosedError('the producer is closed');
    return this.#txn?.sendError();
  }

  /**
   * Writes a record into its partition's open batch (a new batch when it does not fit, the
   * full one going to the broker now). Returns WAIT when the topic's metadata is not known (a
   * topic the metadata answered with an error counts as unknown: another process may be
   * creating it, so it is asked for again until `maxBlockMs`) or `bufferMemory` has no room
   * for a new batch; an error when the record is refused.
   */
  #append(
    record: AnyRecord,
    listener: DeliveryListener,
    group: SendGroup | null,
    index: number,
    now: number,
  ): typeof APPENDED | typeof WAIT | Error {
    const topic = record?.topic;
    if (typeof topic !== 'string' || topic === '')
      return badRecord('a record needs a topic name', String(topic));
    const snapshot = this.#cluster.snapshot();
    let route = this.#accumulator.knownRoute(topic);
    if (route === undefined || route.snapshot !== snapshot) route = this.#reroute(topic, snapshot);
    const count = route.partitionCount;
    let partition = record.partition;
    if (partition !== undefined && (!Number.isInteger(partition) || partition < 0)) {
      return new KafkaError(
        'ERR_KAFKA_PRODUCER_PARTITION_INVALID',
        `partition ${partition} of topic ${topic} is not a partition number`,
      );
    }
    if (count <= 0 || route.errorCode !== 0 || (partition !== undefined && partition >= count)) {
      this.#refreshFor(topic);
      return WAIT;
    }
    let key: unknown;
    let value: unknown;
    let headers: RecordHeadersInput | null;
    let serialized: Serialized | undefined;
    if (this.#options.serializers === undefined) {
      key = record.key ?? null;
      value = record.value ?? null;
      headers = (record.headers ?? null) as RecordHeadersInput | null;
    } else {
      const s = this.#serialize(record, topic);
      if (s === WAIT || s instanceof Error) return s;
      serialized = s;
      key = s.key;
      value = s.value;
      headers = s.headers;
    }
    if (!isField(key)) return badRecord('a key must be bytes, a string or null', topic);
    if (!isField(value)) return badRecord('a value must be bytes, a string or null', topic);
    if (headers !== null) {
      const invalid = headersInvalid(headers);
      if (invalid !== undefined) return badRecord(invalid, topic);
    }
    let timestamp = now;
    if (record.timestamp !== undefined) {
      timestamp = Number(record.timestamp);
      if (!Number.isSafeInteger(timestamp))
        return badRecord(`timestamp ${String(record.timestamp)} is not an integer ms`, topic);
    }
    const partitioner = this.#options.partitioner;
    if (partition === undefined && partitioner !== undefined) {
      const chosen = this.#waiting.length > 0 ? this.#chosen.get(record) : undefined;
      const p = chosen ?? this.#partition(partitioner, record, route);
      if (p instanceof Error) return p;
      if (p !== undefined) {
        if (p >= count) {
          this.#chosen.set(record, p);
          if (serialized !== undefined) this.#serialized.set(record, serialized);
          this.#refreshFor(topic);
          return WAIT;
        }
        partition = p;
      }
    }
    const sticky = partition === undefined && (key === null || this.#options.partitionerIgnoreKeys);
    if (partition === undefined) {
      partition = sticky
        ? this.#sticky.partition(topic, route.available, count, this.#allBatchesFull)
        : partitionForKey(key as Buffer | string, count);
    }
    const accumulator = this.#accumulator;
    const q = route.queues[partition] ?? accumulator.queue(topic, partition);
    let batch = accumulator.openBatch(q);
    let size = batch === null ? -1 : batch.append(timestamp, key, value, headers);
    let dedicated = false;
    if (size < 0) {
      // Full for this record: it closes, and goes to the broker from this call.
      const full = batch !== null && accumulator.close(batch);
      batch = accumulator.newBatch(q, now);
      if (batch !== null) {
        size = batch.append(timestamp, key, value, headers);
        if (size < 0) {
          // Larger than a batch: one of its own, as Kafka gives it.
          accumulator.discardEmpty(q, batch);
          const bound = recordBatchSizeUpperBound(key, value, headers);
          const o = this.#options;
          if (bound > o.maxRequestSize || bound > o.bufferMemory) {
            if (full) this.#sender.drainPartition(q);
            return new RecordTooLargeError(
              `a record of ${bound} bytes (as a batch of its own, at most) for topic ${topic} exceeds maxRequestSize (${o.maxRequestSize}) or bufferMemory (${o.bufferMemory})`,
            );
          }
          batch = accumulator.newBatch(q, now, bound);
          if (batch !== null) {
            size = batch.append(timestamp, key, value, headers);
            dedicated = true;
          }
        }
      }
      if (full) this.#sender.drainPartition(q);
      if (batch === null) {
        if (record.partition === undefined && partitioner !== undefined)
          this.#chosen.set(record, partition);
        if (serialized !== undefined) this.#serialized.set(record, serialized);
        return WAIT;
      }
      this.#sender.scheduleAt(now + this.#options.lingerMs);
    }
    const b = batch as ProducerBatch;
    b.listen(listener);
    if (group !== null) group.placed(index, b, b.recordCount - 1);
    if (sticky) this.#sticky.onAppend(topic, partition, size, accumulator.openBatch(q) === null);
    // A batch of its own is full with its one record (Kafka's MemoryRecordsBuilder.isFull once
    // past batchSize): it goes now, not with the next record.
    if (dedicated && accumulator.close(b)) this.#sender.drainPartition(q);
    this.#appendedTo = q;
    return APPENDED;
  }

  /**
   * A record's serialized fields (with `serializers`): made once, kept while the record waits
   * (WAIT while an async serializer runs; the record is looked at again when it settles).
   * Returns the error that fails the record when a serializer failed.
   */
  #serialize(record: AnyRecord, topic: string): Serialized | typeof WAIT | SerializationError {
    const serializers = this.#options.serializers as NonNullable<
      ResolvedProducerOptions['serializers']
    >;
    let s: Serialization | undefined;
    if (this.#waiting.length > 0) {
      s = this.#serialized.get(record);
      if (s instanceof Promise) return WAIT;
      if (s !== undefined) this.#serialized.delete(record);
    }
    s ??= serializeRecord(record, topic, serializers);
    if (s instanceof Promise) {
      this.#whenSerialized(record, s);
      this.#serializeAhead();
      return WAIT;
    }
    return s;
  }

  /** Keeps a pending serialization, its result once it settles, and wakes the queue then. */
  #whenSerialized(record: AnyRecord, pending: Promise<Serialized | SerializationError>): void {
    this.#serialized.set(record, pending);
    void pending.then((done) => {
      if (this.#serialized.get(record) !== pending) return;
      this.#serialized.set(record, done);
      // Only the record at the head of the queue can be appended now.
      const head = this.#waiting.first();
      if (head !== undefined && head.records[head.next] === record) this.#processWaiting();
    });
  }

  /**
   * Starts the serializers of the next SERIALIZE_AHEAD queued records that have not started,
   * in send order, while the head waits for an async one: async serializers overlap, and each
   * record is still appended only when its turn comes.
   */
  #serializeAhead(): void {
    const serializers = this.#options.serializers;
    if (serializers === undefined) return;
    let budget = SERIALIZE_AHEAD;
    for (const w of this.#waiting) {
      for (let i = w.next; i < w.records.length; i++) {
        if (budget-- === 0) return;
        const record = w.records[i] as AnyRecord;
        const topic = record?.topic;
        if (this.#serialized.has(record) || typeof topic !== 'string' || topic === '') continue;
        const s = serializeRecord(record, topic, serializers);
        if (s instanceof Promise) this.#whenSerialized(record, s);
        else this.#serialized.set(record, s);
      }
    }
  }

  /**
   * The custom partitioner's answer for `record`: a partition, undefined for the default
   * partitioning, or the error the record fails with (Kafka's KafkaProducer.partition).
   */
  #partition(
    partitioner: Partitioner<unknown, unknown>,
    record: AnyRecord,
    route: TopicRoute,
  ): number | undefined | Error {
    let p: number | undefined;
    try {
      route.partitionerContext ??= {
        topic: route.name,
        partitionCount: route.partitionCount,
        availablePartitions: route.available,
      };
      p = partitioner(record, route.partitionerContext);
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
    if (p === undefined || (Number.isInteger(p) && p >= 0)) return p;
    return new KafkaError(
      'ERR_KAFKA_PRODUCER_PARTITION_INVALID',
      `the partitioner returned ${String(p)} for a record of topic ${route.name}: not a partition number`,
    );
  }

  /** Reads a topic's routing from a new metadata snapshot (its columns: no topic objects). */
  #reroute(topic: string, snapshot: ReturnType<ProducerCluster['snapshot']>): TopicRoute {
    const route = this.#accumulator.route(topic);
    route.snapshot = snapshot;
    const count = snapshot.partitionCount(topic);
    route.partitionCount = count;
    route.errorCode = count < 0 ? 0 : snapshot.topicErrorCode(topic);
    const available: number[] = [];
    for (let p = 0; p < count; p++)
      if (snapshot.leaderFor(topic, p) !== undefined) available.push(p);
    route.available = available;
    route.partitionerContext = undefined;
    return route;
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

  /** A batch gave its memory back: records waiting for room may go in now. */
  #release(): void {
    if (this.#waiting.length > 0) this.#processWaiting();
  }

  /**
   * Appends waiting records in order; the head blocks the rest (order of `send` calls). A
   * record that waited `maxBlockMs` fails, as one refused outright does.
   */
  #processWaiting(): void {
    // Appending can close a batch, which can give memory back and call here again.
    if (this.#processing) return;
    this.#processing = true;
    try {
      this.#drainWaiting(Date.now());
    } finally {
      this.#processing = false;
    }
    // One timer, due no later than the head's deadline. A loop at `bufferMemory` waits once
    // per batch: the timer stays armed between waits (unreferenced while nothing waits)
    // rather than being cleared and made again each time. Deadlines rise along the queue, so
    // a timer armed for an earlier head fires early at worst and is armed again from here.
    const head = this.#waiting.first();
    const timer = this.#waitTimer;
    if (head === undefined) {
      timer?.unref();
    } else if (timer === undefined || head.deadline < this.#waitTimerAtMs) {
      if (timer !== undefined) clearTimeout(timer);
      this.#waitTimerAtMs = head.deadline;
      this.#waitTimer = setTimeout(this.#onWaitTimer, Math.max(0, head.deadline - Date.now()));
    } else {
      timer.ref();
    }
  }

  /** The `maxBlockMs` timer of waiting records: one function for the producer's life. */
  readonly #onWaitTimer = (): void => {
    this.#waitTimer = undefined;
    this.#waitTimerAtMs = Number.POSITIVE_INFINITY;
    this.#processWaiting();
  };

  #drainWaiting(now: number): void {
    while (this.#waiting.length > 0) {
      const head = this.#waiting.first() as Waiting;
      const records = head.records;
      while (head.next < records.length) {
        const record = records[head.next] as AnyRecord;
        const refused = this.#refusal();
        const r =
          refused === undefined
            ? this.#append(record, head.listener, head.group, head.next, now)
            : refused;
        if (r === APPENDED) {
          head.next++;
          this.#refreshRounds = 0;
          continue;
        }
        if (r === WAIT) {
          const refusedTopic = this.#topicRefusal(record.topic);
          if (refusedTopic === undefined && head.deadline > now) return;
          this.#fail(head, refusedTopic ?? this.#blockedError(record), true);
          continue;
        }
        this.#fail(head, r, refused === undefined);
      }
      this.#waiting.shift();
      head.accept?.resolve();
      if (head.whenDone !== null) for (const done of head.whenDone) done();
    }
  }

  /** Fails the next record of a waiting entry. */
  #fail(head: Waiting, error: Error, abortable: boolean): void {
    // A serialization started ahead for a record refused before it was used is dropped.
    this.#serialized.delete(head.records[head.next] as AnyRecord);
    head.next++;
    this.#refuse(head.listener, error, abortable);
    if (head.rejectOnRefusal && head.accept !== null) {
      head.accept.reject(error);
      // Settled: the resolve when the entry leaves the queue is a no-op.
    }
  }

  /**
   * The error that refuses a waiting record at once: the metadata answered its topic with
   * TOPIC_AUTHORIZATION_FAILED or INVALID_TOPIC_EXCEPTION, which waiting cannot change (as
   * Kafka's `Metadata.maybeThrowExceptionForTopic` throws them to `send`).
   */
  #topicRefusal(topic: string): ProtocolError | undefined {
    const code = this.#topicErrorCode(topic);
    if (code !== ErrorCode.TOPIC_AUTHORIZATION_FAILED && code !== ErrorCode.INVALID_TOPIC_EXCEPTION)
      return undefined;
    return new ProtocolError(code, `metadata for topic ${JSON.stringify(topic)}`);
  }

  /** The topic's error code in the snapshot, else in the last refresh for it; 0 for none. */
  #topicErrorCode(topic: string): number {
    const code = this.#cluster.snapshot().topicErrorCode(topic);
    if (code >= 0) return code;
    return this.#lastRefresh?.topic === topic ? this.#lastRefresh.errorCode : 0;
  }

  /** What a record that waited `maxBlockMs` is told: which of topic, partition or room was missing. */
  #blockedError(record: AnyRecord): ProducerBlockedError | SerializationError {
    const waited = `within maxBlockMs (${this.#options.maxBlockMs} ms)`;
    const pending = this.#serialized.get(record);
    if (pending instanceof Promise) {
      this.#serialized.delete(record);
      return new SerializationError(record.topic, waitingFor(pending), `did not settle ${waited}`);
    }
    const name = JSON.stringify(record.topic);
    const count = this.#cluster.snapshot().partitionCount(record.topic);
    const errorCode = this.#topicErrorCode(record.topic);
    if (errorCode !== 0) {
      const cause = new ProtocolError(errorCode, `metadata for topic ${name}`);
      const missing = errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      return new ProducerBlockedError(
        'ERR_KAFKA_PRODUCER_METADATA_TIMEOUT',
        missing
          ? `topic ${name} does not exist: the brokers answered UNKNOWN_TOPIC_OR_PARTITION for it ${waited} (the producer never creates topics; create it first)`
          : `topic ${name} not usable ${waited}: ${cause.message}`,
        record.topic,
        cause,
      );
    }
    if (count < 0)
      return new ProducerBlockedError(
        'ERR_KAFKA_PRODUCER_METADATA_TIMEOUT',
        `no metadata for topic ${name} ${waited}: no broker answered for it`,
        record.topic,
        this.#lastRefresh?.topic === record.topic ? this.#lastRefresh.error : undefined,
      );
    const partition = record.partition ?? this.#chosen.get(record);
    if (partition !== undefined && partition >= count)
      return new ProducerBlockedError(
        'ERR_KAFKA_PRODUCER_METADATA_TIMEOUT',
        `partition ${partition}${record.partition === undefined ? ' (from the partitioner)' : ''} of topic ${name} does not exist ${waited}: the topic has ${count} partition${count === 1 ? '' : 's'}`,
        record.topic,
      );
    return new ProducerBlockedError(
      'ERR_KAFKA_PRODUCER_BUFFER_EXHAUSTED',
      `no room in bufferMemory (${this.#options.bufferMemory} bytes) for a record of topic ${name} ${waited}`,
      record.topic,
    );
  }

  /**
   * Resolves when every record waiting now has been appended or refused: waiting records leave
   * the queue in order, so the last entry leaving means all before it have.
   */
  #waitingSettled(): Promise<void> {
    const tail = this.#waiting.last();
    if (tail === undefined) return ACCEPTED;
    return new Promise((resolve) => {
      tail.whenDone ??= [];
      tail.whenDone.push(resolve);
    });
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
    this.#sender.halt(fatal);
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
      for (const w of this.#waiting.drain()) {
        while (w.next < w.records.length) this.#fail(w, error, false);
        w.accept?.resolve();
        if (w.whenDone !== null) for (const done of w.whenDone) done();
      }
      this.#sender.failQueued(error);
    }
    if (this.#waitTimer !== undefined) clearTimeout(this.#waitTimer);
    this.#waitTimer = undefined;
    this.#sender.stop();
  }
}
