// The facade producer: kafkajs's calls, checks and errors over kats producers on one cluster
// that the facade opens in connect() and closes in disconnect().
import {
  type Cluster,
  type CompressionCodec,
  Producer as KatsProducer,
  type Partitioner,
  ProducerBlockedError,
  ProducerFatalError,
  ProtocolError,
  RecordTooLargeError,
  type TransactionOffset,
} from '@kafkats/client';
import type { ClientContext, RetryOptions } from '../config.js';
import {
  KafkaJSError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  toKafkaJSError,
} from '../errors.js';
import {
  InstrumentationEmitter,
  type InstrumentationEvent,
  PRODUCER_EVENTS,
  type RemoveInstrumentationEventListener,
} from '../instrumentation.js';
import { kafkatsLogger, type Logger } from '../logger.js';
import type {
  ProducerBatch,
  ProducerConfig,
  ProducerRecord,
  RecordMetadata,
  Transaction,
} from '../producer.js';
import {
  type LooseMessage,
  type LooseTopicMessages,
  mergeByTopic,
  toPartitionResults,
  toRecord,
  validateTopicMessages,
} from './producer-messages.js';
import {
  acksFor,
  codecFor,
  katsProducerOptions,
  type SharedProducerSettings,
} from './producer-options.js';
import {
  defaultPartitioner,
  type PartitionerFunction,
  partitionMetadataOf,
} from './producer-partitioners.js';

type Status = 'disconnected' | 'connected' | 'disconnecting';

/** kafkajs's (and Kafka's) default `transactionTimeout`, ms. */
const TRANSACTION_TIMEOUT_MS = 60_000;

/** One transaction's state: ended once its commit or abort succeeded, or the producer left. */
interface TransactionState {
  ended: boolean;
}

/**
 * kafkajs's error for a failed kats send. A topic that stayed missing (or without the
 * partition) for the whole wait is what kafkajs reports after its retries ran out: the broker's
 * error inside KafkaJSNumberOfRetriesExceeded. A record over kats's `maxRequestSize` (1 MiB) is
 * the broker's MESSAGE_TOO_LARGE. The rest maps as everywhere in the facade.
 */
export function producerError(error: unknown): unknown {
  if (
    error instanceof ProducerBlockedError &&
    error.code === 'ERR_KAFKA_PRODUCER_METADATA_TIMEOUT' &&
    error.cause instanceof ProtocolError
  ) {
    return new KafkaJSNumberOfRetriesExceeded(
      new KafkaJSProtocolError(error.cause, { cause: error.cause }),
      { cause: error },
    );
  }
  // kafkajs has no client-side size limit: the broker refuses a batch over the topic's
  // max.message.bytes with MESSAGE_TOO_LARGE, which is what its users catch.
  if (error instanceof RecordTooLargeError) {
    return new KafkaJSProtocolError(
      { message: error.message, type: 'MESSAGE_TOO_LARGE', code: 10, retriable: false },
      { cause: error },
    );
  }
  return toKafkaJSError(error);
}

/**
 * What `kafka.producer()` returns, behind kafkajs's plain-object API: the cluster opened in
 * `connect()`, kats producers made as sends need them, one transaction at a time. Calls
 * reject with KafkaJS* errors only (a custom partitioner's own exception passes through).
 */
export class FacadeProducer {
  readonly logger: Logger;
  readonly #context: ClientContext;
  readonly #config: ProducerConfig;
  readonly #emitter: InstrumentationEmitter;
  readonly #shared: SharedProducerSettings;
  /** kafkajs calls a custom partitioner with its own message: the kats record's original. */
  readonly #messages = new WeakMap<object, LooseMessage>();
  readonly #custom: boolean;
  #status: Status = 'disconnected';
  #cluster: Cluster | undefined;
  #connecting: Promise<void> | undefined;
  #disconnecting: Promise<void> | undefined;
  /** One kats producer per (acks, compression, timeout) used outside transactions. */
  readonly #producers = new Map<string, KatsProducer>();
  #transactional: KatsProducer | undefined;
  #initialized = false;
  #transaction: TransactionState | undefined;
  #warnedCompression = false;

  constructor(context: ClientContext, config: ProducerConfig) {
    this.#context = context;
    this.#config = config;
    this.logger = context.logger.namespace('Producer');
    const retry: RetryOptions = { ...context.config.retry, ...config.retry };
    if (config.idempotent === true && retry.retries !== undefined) {
      if (retry.retries < 1) {
        throw new KafkaJSNonRetriableError(
          'Idempotent producer must allow retries to protect against transient errors',
        );
      }
      if (retry.retries < Number.MAX_SAFE_INTEGER) {
        this.logger.warn(
          'Limiting retries for the idempotent producer may invalidate EoS guarantees',
        );
      }
    }
    this.#emitter = new InstrumentationEmitter(PRODUCER_EVENTS, this.logger, {
      request: PRODUCER_EVENTS.REQUEST,
      timeout: PRODUCER_EVENTS.REQUEST_TIMEOUT,
    });
    const create = config.createPartitioner;
    // kafkajs's DefaultPartitioner places keys as kats does; for it, kats places every message
    // (unkeyed ones sticky per batch rather than round-robin, which kafkajs leaves open).
    this.#custom = create !== undefined && create !== null && create !== defaultPartitioner;
    const partitioner = this.#custom
      ? this.#partitioner((create as () => PartitionerFunction)())
      : undefined;
    this.#shared = {
      retry,
      idempotent: config.idempotent,
      maxInFlightRequests: config.maxInFlightRequests,
      requestTimeoutMs: context.config.requestTimeout ?? 30_000,
      partitioner,
      logger: kafkatsLogger(this.logger),
    };
  }

  /**
   * kats asks a partitioner only for records that name no partition; kafkajs asks a custom one
   * for every message, so records are sent without their partition and the message (with it)
   * goes to the kafkajs function, with the topic's partitions in kafkajs's shape.
   */
  #partitioner(fn: PartitionerFunction): Partitioner {
    return (record, context) => {
      const cluster = this.#cluster;
      const message = this.#messages.get(record) ?? record;
      const partitionMetadata =
        cluster === undefined ? [] : partitionMetadataOf(cluster.snapshot(), context.topic);
      return fn({ topic: context.topic, partitionMetadata, message });
    };
  }

  isIdempotent(): boolean {
    return this.#config.idempotent !== false;
  }

  on(
    eventName: string,
    listener: (event: InstrumentationEvent<unknown>) => void,
  ): RemoveInstrumentationEventListener<unknown> {
    // The emitter refuses a name the producer does not emit, as kafkajs does.
    return this.#emitter.on(eventName, listener);
  }

  /** Opens the cluster once; a call while connected re-emits CONNECT, as kafkajs does. */
  async connect(): Promise<void> {
    if (this.#disconnecting !== undefined) await this.#disconnecting;
    if (this.#status === 'connected') {
      this.#emitter.emit(PRODUCER_EVENTS.CONNECT, undefined);
      return;
    }
    this.#connecting ??= (async () => {
      const maxAge = this.#config.metadataMaxAge;
      this.#cluster = await this.#context.openCluster(
        this.logger,
        maxAge === undefined ? {} : { refreshIntervalMs: maxAge },
        this.#emitter,
      );
      this.#status = 'connected';
    })().finally(() => {
      this.#connecting = undefined;
    });
    await this.#connecting;
    this.#emitter.emit(PRODUCER_EVENTS.CONNECT, undefined);
  }

  /**
   * Sends what the kats producers hold (a transaction still open is aborted), then closes the
   * cluster. Sends made meanwhile are refused as kafkajs refuses them while disconnecting.
   */
  async disconnect(): Promise<void> {
    if (this.#connecting !== undefined) await this.#connecting.catch(() => undefined);
    this.#disconnecting ??= this.#close().finally(() => {
      this.#disconnecting = undefined;
    });
    await this.#disconnecting;
    this.#emitter.emit(PRODUCER_EVENTS.DISCONNECT, undefined);
  }

  async #close(): Promise<void> {
    this.#status = 'disconnecting';
    const producers = [...this.#producers.values()];
    const transactional = this.#transactional;
    if (transactional !== undefined) producers.push(transactional);
    this.#producers.clear();
    this.#transactional = undefined;
    this.#initialized = false;
    if (this.#transaction !== undefined) this.#transaction.ended = true;
    this.#transaction = undefined;
    // The open transaction's abort waits at most the transaction timeout: by then the coordinator
    // aborts it itself, and a coordinator still completing a fencing producer's takeover answers
    // CONCURRENT_TRANSACTIONS until then (kafkajs's disconnect does not abort at all).
    const abortBound = { timeoutMs: this.#config.transactionTimeout ?? TRANSACTION_TIMEOUT_MS };
    await Promise.all(
      producers.map((p) =>
        p.close(p === transactional ? abortBound : {}).catch((e: unknown) => {
          this.logger.warn(`Producer closed with an error: ${(e as Error)?.message}`, {
            error: String(e),
          });
        }),
      ),
    );
    const cluster = this.#cluster;
    this.#cluster = undefined;
    try {
      await cluster?.close();
    } finally {
      this.#status = 'disconnected';
    }
  }

  send(record: ProducerRecord): Promise<RecordMetadata[]> {
    return this.#send(record, undefined);
  }

  sendBatch(batch: ProducerBatch): Promise<RecordMetadata[]> {
    return this.#sendBatch(batch, undefined);
  }

  #send(record: ProducerRecord | undefined, txn: TransactionState | undefined) {
    const r = (record ?? {}) as Partial<ProducerRecord>;
    return this.#sendBatch(
      {
        ...(r.acks === undefined ? {} : { acks: r.acks }),
        ...(r.timeout === undefined ? {} : { timeout: r.timeout }),
        ...(r.compression === undefined ? {} : { compression: r.compression }),
        topicMessages: [{ topic: r.topic as string, messages: r.messages as [] }],
      },
      txn,
    );
  }

  #checkStatus(): Cluster {
    if (this.#status === 'disconnecting') {
      throw new KafkaJSNonRetriableError(
        "The producer is disconnecting; therefore, it can't safely accept messages anymore",
      );
    }
    const cluster = this.#cluster;
    if (this.#status !== 'connected' || cluster === undefined) {
      throw new KafkaJSError('The producer is disconnected');
    }
    return cluster;
  }

  async #sendBatch(
    batch: ProducerBatch | undefined,
    txn: TransactionState | undefined,
  ): Promise<RecordMetadata[]> {
    const b = (batch ?? {}) as { [K in keyof ProducerBatch]?: unknown };
    const acks = b.acks ?? -1;
    const topicMessages = (b.topicMessages ?? []) as LooseTopicMessages[];
    if (!Array.isArray(topicMessages)) {
      throw new KafkaJSNonRetriableError(
        `Invalid topicMessages ${String(topicMessages)}: must be an array`,
      );
    }
    const strict = txn !== undefined || this.#config.idempotent === true;
    validateTopicMessages(topicMessages, acks as number, strict);
    const cluster = this.#checkStatus();
    const acksValue = acksFor(acks);
    const codec = codecFor(b.compression);
    const now = Date.now();
    const records = [];
    for (const { topic, messages } of mergeByTopic(topicMessages)) {
      for (const message of messages) {
        const record = toRecord(topic, message, now, !this.#custom);
        if (this.#custom) this.#messages.set(record, message);
        records.push(record);
      }
    }
    if (records.length === 0) return [];
    const producer =
      txn === undefined
        ? this.#producerFor(cluster, acksValue, codec, b.timeout)
        : this.#inTransaction(codec);
    try {
      const result = await producer.sendBatch(records);
      return acksValue === 0 ? [] : toPartitionResults(result);
    } catch (e) {
      throw producerError(e);
    }
  }

  #producerFor(
    cluster: Cluster,
    acks: -1 | 0 | 1,
    codec: CompressionCodec,
    timeout: unknown,
  ): KatsProducer {
    if (timeout !== undefined && (typeof timeout !== 'number' || !(timeout > 0))) {
      throw new KafkaJSNonRetriableError(`Invalid timeout ${String(timeout)}: must be ms > 0`);
    }
    const id = `${acks}|${codec}|${timeout ?? ''}`;
    let producer = this.#producers.get(id);
    if (producer === undefined) {
      try {
        producer = new KatsProducer(
          cluster,
          katsProducerOptions(this.#shared, acks, codec, timeout as number | undefined),
        );
      } catch (e) {
        throw toKafkaJSError(e);
      }
      this.#producers.set(id, producer);
    }
    return producer;
  }

  /**
   * The transactional kats producer (one per transactionalId: a second would fence the first).
   * It compresses nothing: a `compression` given in a transaction is not applied (logged once).
   */
  #inTransaction(codec: CompressionCodec): KatsProducer {
    const producer = this.#transactional;
    if (producer === undefined) throw new KafkaJSError('The producer is disconnected');
    if (codec !== 'none' && !this.#warnedCompression) {
      this.#warnedCompression = true;
      this.logger.warn('compression is not applied to messages sent in a transaction', {
        compression: codec,
      });
    }
    return producer;
  }

  async transaction(): Promise<Transaction> {
    const transactionalId = this.#config.transactionalId;
    if (!transactionalId) {
      throw new KafkaJSNonRetriableError(
        'Must provide transactional id for transactional producer',
      );
    }
    if (this.#transaction !== undefined) {
      throw new KafkaJSNonRetriableError(
        'There is already an ongoing transaction for this producer. Please end the transaction before beginning another.',
      );
    }
    const cluster = this.#checkStatus();
    const state: TransactionState = { ended: false };
    this.#transaction = state;
    let producer: KatsProducer | undefined;
    try {
      producer = this.#transactional;
      if (producer === undefined) {
        producer = new KatsProducer(
          cluster,
          katsProducerOptions(this.#shared, -1, 'none', undefined, {
            transactionalId,
            transactionTimeoutMs: this.#config.transactionTimeout,
          }),
        );
        this.#transactional = producer;
      }
      if (!this.#initialized) {
        await producer.initTransactions();
        this.#initialized = true;
      }
      producer.beginTransaction();
    } catch (e) {
      this.#end(state);
      if (!this.#initialized && producer !== undefined) this.#drop(producer);
      throw toKafkaJSError(e);
    }
    return this.#transactionObject(state, producer);
  }

  #end(state: TransactionState): void {
    state.ended = true;
    if (this.#transaction === state) this.#transaction = undefined;
  }

  /** A transactional producer that failed for good (fenced, fatal, never initialized) goes. */
  #drop(producer: KatsProducer): void {
    if (this.#transactional !== producer) return;
    this.#transactional = undefined;
    this.#initialized = false;
    producer.close().catch(() => undefined);
  }

  #transactionObject(state: TransactionState, producer: KatsProducer): Transaction {
    const isActive = () => !state.ended && this.#transaction === state;
    const guard =
      <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        if (!isActive()) {
          throw new KafkaJSNonRetriableError('Cannot continue to use transaction once ended');
        }
        return fn(...args);
      };
    const ending = (end: () => Promise<void>) =>
      guard(async () => {
        try {
          await end();
        } catch (e) {
          if (e instanceof ProducerFatalError) {
            this.#end(state);
            this.#drop(producer);
          }
          throw toKafkaJSError(e);
        }
        this.#end(state);
      });
    return {
      send: guard((record: ProducerRecord) => this.#send(record, state)),
      sendBatch: guard((batch: ProducerBatch) => this.#sendBatch(batch, state)),
      sendOffsets: guard(async (offsets: Parameters<Transaction['sendOffsets']>[0]) => {
        const { groupId, list } = transactionOffsets(offsets);
        try {
          await producer.sendOffsetsToTransaction(list, groupId);
        } catch (e) {
          throw toKafkaJSError(e);
        }
      }),
      commit: ending(() => producer.commitTransaction()),
      abort: ending(() => producer.abortTransaction()),
      isActive,
    };
  }
}

/** kafkajs's `sendOffsets` argument as kats's list of offsets (strings to bigints). */
export function transactionOffsets(
  offsets: Parameters<Transaction['sendOffsets']>[0] | undefined,
): {
  groupId: string;
  list: TransactionOffset[];
} {
  const groupId = offsets?.consumerGroupId;
  if (typeof groupId !== 'string' || groupId === '') {
    throw new KafkaJSNonRetriableError(`Invalid consumer group id ${String(groupId)}`);
  }
  const topics = offsets?.topics;
  if (!Array.isArray(topics)) {
    throw new KafkaJSNonRetriableError(`Invalid topics ${String(topics)}: must be an array`);
  }
  const list: TransactionOffset[] = [];
  for (const { topic, partitions } of topics) {
    if (!Array.isArray(partitions)) {
      throw new KafkaJSNonRetriableError(`Invalid partitions for topic "${topic}"`);
    }
    for (const { partition, offset } of partitions) {
      let value: bigint;
      try {
        value = BigInt(offset);
      } catch {
        throw new KafkaJSNonRetriableError(
          `Invalid offset ${String(offset)} for ${topic}-${partition}: must be a string of digits`,
        );
      }
      // kafkajs's own uncommittedOffsets() gives partitions as strings.
      const index = Number(partition);
      if (!Number.isInteger(index) || index < 0) {
        throw new KafkaJSNonRetriableError(
          `Invalid partition ${String(partition)} for topic "${topic}"`,
        );
      }
      list.push({ topic, partition: index, offset: value });
    }
  }
  return { groupId, list };
}
