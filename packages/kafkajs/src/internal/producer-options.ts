// kafkajs's producer options and per-send settings as kats ProducerOptions.
import type { CompressionCodec, Partitioner, ProducerOptions } from '@kafkats/client';
import type { Logger as KatsLogger } from '@kafkats/wire';
import type { RetryOptions } from '../config.js';
import { KafkaJSNonRetriableError, KafkaJSProtocolError } from '../errors.js';

/** kafkajs's retry defaults (its `retry` module). */
const RETRY_DEFAULTS = {
  maxRetryTime: 30_000,
  initialRetryTime: 300,
  multiplier: 2,
  retries: 5,
} as const;

/** Longest a kats producer call may wait when kafkajs would retry without end (idempotent). */
const UNBOUNDED_BLOCK_MS = 60_000;
const UNBOUNDED_DELIVERY_MS = 120_000;

/** kafkajs's numbers for CompressionTypes, as kats's codec names. */
const CODECS: Readonly<Record<number, CompressionCodec>> = {
  0: 'none',
  1: 'gzip',
  2: 'snappy',
  3: 'lz4',
  4: 'zstd',
};

/**
 * The kats codec for kafkajs's `compression` (a CompressionTypes number; default None).
 * kafkajs would write an unknown number into the batch attributes over uncompressed bytes; it
 * is refused here instead.
 */
export function codecFor(compression: unknown): CompressionCodec {
  if (compression === undefined || compression === null) return 'none';
  const codec = typeof compression === 'number' ? CODECS[compression] : undefined;
  if (codec === undefined) {
    throw new KafkaJSNonRetriableError(
      `Invalid compression ${String(compression)}: use CompressionTypes (None, GZIP, Snappy, LZ4, ZSTD)`,
    );
  }
  return codec;
}

/**
 * kafkajs's `acks` for a send (default -1). kafkajs passes any number to the broker, which
 * refuses what is not -1, 0 or 1 with INVALID_REQUIRED_ACKS: the same error, before sending.
 */
export function acksFor(acks: unknown): -1 | 0 | 1 {
  if (acks === undefined || acks === null) return -1;
  if (acks === -1 || acks === 0 || acks === 1) return acks;
  throw new KafkaJSProtocolError({
    message: `Invalid acks ${String(acks)}: must be -1, 0 or 1`,
    type: 'INVALID_REQUIRED_ACKS',
    code: 21,
    retriable: false,
  });
}

/**
 * How long kafkajs's retrier keeps trying: the sum of its waits before each retry
 * (`initialRetryTime * multiplier^n`, capped at `maxRetryTime`, without the random factor),
 * ms; Infinity when retries are unbounded.
 */
export function retryBudgetMs(retry: RetryOptions): number {
  const retries = retry.retries ?? RETRY_DEFAULTS.retries;
  const initial = retry.initialRetryTime ?? RETRY_DEFAULTS.initialRetryTime;
  const cap = retry.maxRetryTime ?? RETRY_DEFAULTS.maxRetryTime;
  const multiplier = retry.multiplier ?? RETRY_DEFAULTS.multiplier;
  if (!Number.isFinite(retries) || retries > 1000) return Number.POSITIVE_INFINITY;
  let total = 0;
  let wait = initial;
  for (let i = 0; i < retries; i++) {
    total += Math.min(wait, cap);
    wait *= multiplier;
  }
  return total;
}

/** What every kats producer of one facade producer shares. */
export interface SharedProducerSettings {
  /** kafkajs's producer `retry` over the Kafka-level `retry` (kafkajs merges them so). */
  readonly retry: RetryOptions;
  /** kafkajs's `idempotent` as given (undefined: kats's default, idempotent with acks -1). */
  readonly idempotent: boolean | undefined;
  readonly maxInFlightRequests: number | undefined;
  /** The Kafka config's `requestTimeout` (default 30000). */
  readonly requestTimeoutMs: number;
  readonly partitioner: Partitioner | undefined;
  readonly logger: KatsLogger;
}

/**
 * One kats producer's options for kafkajs sends with these `acks`, `compression` and
 * `timeout`. kats sets acks and compression per producer, so the facade keeps one kats
 * producer per combination used.
 *
 * - Idempotence: kats's default (on with acks -1), unless kafkajs's `idempotent: false` was
 *   given; acks 0 and 1 cannot be idempotent.
 * - Retries: kats retries until a record's `deliveryTimeoutMs`, and waits for a topic's
 *   metadata up to `maxBlockMs`; both are set to kafkajs's retry budget (plus one request
 *   timeout for delivery), so a send fails about when kafkajs's would.
 * - `lingerMs` 0: kafkajs sends each call's messages at once, without waiting for more.
 */
export function katsProducerOptions(
  shared: SharedProducerSettings,
  acks: -1 | 0 | 1,
  compression: CompressionCodec,
  timeout: number | undefined,
  transactional?: { transactionalId: string; transactionTimeoutMs: number | undefined },
): ProducerOptions {
  const idempotent = transactional !== undefined || (acks === -1 && shared.idempotent !== false);
  const requestTimeoutMs = timeout ?? shared.requestTimeoutMs;
  const budget = retryBudgetMs(shared.retry);
  const lingerMs = 0;
  // A transactional producer's coordinator calls are bounded by maxBlockMs too; they get at
  // least kats's default, as a coordinator still aborting a fenced producer's transaction
  // answers CONCURRENT_TRANSACTIONS for seconds on a loaded cluster.
  const floor = transactional === undefined ? 1000 : UNBOUNDED_BLOCK_MS;
  const maxBlockMs = Number.isFinite(budget) ? Math.max(floor, budget) : UNBOUNDED_BLOCK_MS;
  const deliveryTimeoutMs = Number.isFinite(budget)
    ? lingerMs + requestTimeoutMs + budget
    : Math.max(UNBOUNDED_DELIVERY_MS, lingerMs + requestTimeoutMs);
  let maxInFlight = shared.maxInFlightRequests;
  // kafkajs's maxInFlightRequests has no ceiling; Kafka keeps 5 batches per idempotent
  // producer and partition for deduplication, so kats allows at most 5 with idempotence.
  if (maxInFlight !== undefined && idempotent) maxInFlight = Math.min(maxInFlight, 5);
  const retry = shared.retry;
  return {
    acks,
    idempotent,
    compression,
    lingerMs,
    requestTimeoutMs,
    deliveryTimeoutMs,
    maxBlockMs,
    logger: shared.logger,
    ...(maxInFlight === undefined ? {} : { maxInFlight }),
    ...(retry.initialRetryTime === undefined ? {} : { retryBackoffMs: retry.initialRetryTime }),
    ...(retry.maxRetryTime === undefined ? {} : { retryBackoffMaxMs: retry.maxRetryTime }),
    ...(shared.partitioner === undefined ? {} : { partitioner: shared.partitioner }),
    ...(transactional === undefined
      ? {}
      : {
          transactionalId: transactional.transactionalId,
          ...(transactional.transactionTimeoutMs === undefined
            ? {}
            : { transactionTimeoutMs: transactional.transactionTimeoutMs }),
        }),
  };
}
