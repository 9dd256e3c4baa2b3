import type { KafkaError } from '@kafkats/codec';
import type { TopicPartition } from '../topic-partition.js';
import type { AdminCallOptions } from './admin-options.js';

/** Options of {@link Admin.listTransactions} (Kafka's `ListTransactionsOptions`). */
export interface ListTransactionsOptions extends AdminCallOptions {
  /** Only transactions in these states (`Ongoing`, `PrepareCommit`, `CompleteAbort`, ...). */
  readonly states?: readonly string[];
  /** Only these producer ids. */
  readonly producerIds?: readonly bigint[];
  /** Only transactions running longer than this, ms (ListTransactions v1+, KIP-994). */
  readonly durationFilterMs?: number;
}

/** A transaction as a coordinator lists it (Kafka's `TransactionListing`). */
export interface TransactionListing {
  readonly transactionalId: string;
  readonly producerId: bigint;
  readonly state: string;
}

/** {@link Admin.listTransactions}' answer, merged from every broker. */
export interface ListTransactionsResult {
  /** Sorted by transactional id. */
  readonly transactions: readonly TransactionListing[];
  /** Brokers that could not answer; their transactions are missing above. */
  readonly errors: readonly { readonly brokerId: number; readonly error: KafkaError }[];
}

/** A transaction as its coordinator describes it (Kafka's `TransactionDescription`). */
export interface TransactionDescription {
  readonly transactionalId: string;
  /** TRANSACTIONAL_ID_NOT_FOUND, TRANSACTIONAL_ID_AUTHORIZATION_FAILED, ... */
  readonly error?: KafkaError;
  readonly coordinatorId?: number;
  readonly state?: string;
  readonly producerId?: bigint;
  readonly producerEpoch?: number;
  readonly transactionTimeoutMs?: number;
  /** When the ongoing transaction started (ms); absent when none is ongoing. */
  readonly transactionStartTimeMs?: bigint;
  /** The partitions the ongoing transaction has written to. */
  readonly partitions?: readonly TopicPartition[];
}

/** {@link Admin.describeTransactions}' answer: one entry per id, in request order. */
export interface DescribeTransactionsResult {
  readonly transactions: readonly TransactionDescription[];
}

/**
 * The transaction {@link Admin.abortTransaction} aborts on one partition (Kafka's
 * `AbortTransactionSpec`): the producer, its epoch and the coordinator epoch, as
 * {@link Admin.describeProducers} reports them for the partition.
 */
export interface AbortTransactionSpec extends TopicPartition {
  readonly producerId: bigint;
  readonly producerEpoch: number;
  /**
   * The transaction coordinator's epoch that wrote the producer's last marker. A producer whose
   * first transaction hangs has none (DescribeProducers says -1): give 0, as
   * `kafka-transactions.sh abort` does, which no coordinator epoch is below.
   */
  readonly coordinatorEpoch: number;
}
