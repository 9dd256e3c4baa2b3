import {
  createDescribeTransactionsRequest,
  createListTransactionsRequest,
  createWriteTxnMarkersRequest,
  DescribeTransactionsApi,
  KafkaError,
  ListTransactionsApi,
  ProtocolError,
  WriteTxnMarkersApi,
} from '@kafkats/codec';
import { UnsupportedVersionError } from '@kafkats/wire';
import type {
  AbortTransactionSpec,
  DescribeTransactionsResult,
  ListTransactionsOptions,
  ListTransactionsResult,
  TransactionDescription,
  TransactionListing,
} from '../transactions.js';
import {
  type AdminCall,
  asItemError,
  errorOrUndefined,
  throwIfNothingAnswered,
} from './admin-call.js';
import { fanOutToLeaders, type PartitionOutcome, partitionKey } from './leader-fan-out.js';

/** ListTransactions to every broker (each lists those it coordinates), merged (KIP-664). */
export async function listTransactions(
  call: AdminCall,
  options: ListTransactionsOptions,
): Promise<ListTransactionsResult> {
  let snapshot = call.cluster.snapshot();
  if (snapshot.brokers.length === 0) snapshot = await call.cluster.refresh();
  const found = new Map<string, TransactionListing>();
  const errors: { brokerId: number; error: KafkaError }[] = [];
  await Promise.all(
    snapshot.brokers.map(async ({ nodeId }) => {
      try {
        const r = await call.cluster.sendToNode(
          nodeId,
          ListTransactionsApi,
          (v) => {
            if (options.durationFilterMs !== undefined && v < 1)
              throw new UnsupportedVersionError(
                `ListTransactions v${v} to broker ${nodeId} cannot filter by duration (v1+)`,
              );
            return createListTransactionsRequest({
              stateFilters: [...(options.states ?? [])],
              producerIdFilters: [...(options.producerIds ?? [])],
              ...(v >= 1 ? { durationFilter: BigInt(options.durationFilterMs ?? -1) } : {}),
            });
          },
          call.sendOptions(),
        );
        const error = errorOrUndefined(r.errorCode, `ListTransactions, broker ${nodeId}`);
        if (error !== undefined) throw error;
        for (const t of r.transactionStates)
          found.set(t.transactionalId, {
            transactionalId: t.transactionalId,
            producerId: t.producerId,
            state: t.transactionState,
          });
      } catch (thrown) {
        errors.push({ brokerId: nodeId, error: asItemError(thrown) });
      }
    }),
  );
  if (errors.length === snapshot.brokers.length) throwIfNothingAnswered(errors.map((e) => e.error));
  return {
    transactions: [...found.values()].sort((a, b) =>
      a.transactionalId < b.transactionalId ? -1 : a.transactionalId > b.transactionalId ? 1 : 0,
    ),
    errors: errors.sort((a, b) => a.brokerId - b.brokerId),
  };
}

/** DescribeTransactions, each id to its transaction coordinator (FindCoordinator TRANSACTION). */
export async function describeTransactions(
  call: AdminCall,
  transactionalIds: readonly string[],
): Promise<DescribeTransactionsResult> {
  const transactions = await Promise.all(
    transactionalIds.map(async (transactionalId): Promise<TransactionDescription> => {
      try {
        const coordinatorId = await call.cluster.coordinator('transaction', transactionalId);
        const r = await call.cluster.sendToNode(
          coordinatorId,
          DescribeTransactionsApi,
          () => createDescribeTransactionsRequest({ transactionalIds: [transactionalId] }),
          call.sendOptions(),
        );
        const t = r.transactionStates.find((x) => x.transactionalId === transactionalId);
        if (t === undefined)
          return { transactionalId, error: asItemError(new Error('no answer for this id')) };
        const error = errorOrUndefined(
          t.errorCode,
          `DescribeTransactions, transactional id ${transactionalId}`,
        );
        if (error !== undefined) {
          if (
            error.errorName === 'NOT_COORDINATOR' ||
            error.errorName === 'COORDINATOR_NOT_AVAILABLE'
          )
            call.cluster.invalidateCoordinator('transaction', transactionalId);
          return { transactionalId, error };
        }
        return {
          transactionalId,
          coordinatorId,
          state: t.transactionState,
          producerId: t.producerId,
          producerEpoch: t.producerEpoch,
          transactionTimeoutMs: t.transactionTimeoutMs,
          ...(t.transactionStartTimeMs >= 0n
            ? { transactionStartTimeMs: t.transactionStartTimeMs }
            : {}),
          partitions: t.topics
            .flatMap((x) => x.partitions.map((partition) => ({ topic: x.topic, partition })))
            .sort((a, b) =>
              a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition,
            ),
        };
      } catch (thrown) {
        return { transactionalId, error: asItemError(thrown) };
      }
    }),
  );
  return { transactions };
}

/**
 * Aborts one partition's open transaction (KIP-664): an abort marker written by WriteTxnMarkers
 * to the partition's leader, as Kafka's `AbortTransactionHandler` sends it (transaction
 * version 0: the marker's epoch may equal the producer's). NOT_LEADER_OR_FOLLOWER and the
 * like send it again to the new leader; INVALID_PRODUCER_EPOCH,
 * TRANSACTION_COORDINATOR_FENCED, CLUSTER_AUTHORIZATION_FAILED and the rest are final.
 *
 * @throws KafkaError the partition's final error
 */
export async function abortTransaction(call: AdminCall, spec: AbortTransactionSpec): Promise<void> {
  const where = `${spec.topic}-${spec.partition}`;
  const results = await fanOutToLeaders<AbortTransactionSpec, true>(call, [spec], {
    async send(node, _keys, sendOptions) {
      const r = await call.cluster.sendToNode(
        node,
        WriteTxnMarkersApi,
        createWriteTxnMarkersRequest({
          markers: [
            {
              producerId: spec.producerId,
              producerEpoch: spec.producerEpoch,
              transactionResult: false,
              coordinatorEpoch: spec.coordinatorEpoch,
              transactionVersion: 0,
              topics: [{ name: spec.topic, partitionIndexes: [spec.partition] }],
            },
          ],
        }),
        sendOptions,
      );
      // Exactly the marker, topic and partition asked for, as Kafka's handler checks.
      const marker = r.markers.length === 1 ? r.markers[0]! : undefined;
      const topic =
        marker?.producerId === spec.producerId && marker.topics.length === 1
          ? marker.topics[0]!
          : undefined;
      const partition =
        topic?.name === spec.topic && topic.partitions.length === 1
          ? topic.partitions[0]!
          : undefined;
      if (partition === undefined || partition.partitionIndex !== spec.partition)
        throw new KafkaError(
          'ERR_KAFKA_ADMIN_RESPONSE_INCOMPLETE',
          `WriteTxnMarkers to broker ${node} answered other markers than producer ${spec.producerId} on ${where}`,
        );
      const outcome: PartitionOutcome<true> =
        partition.errorCode === 0
          ? { value: true }
          : {
              error: ProtocolError.fromCode(
                partition.errorCode,
                `WriteTxnMarkers (abort producer ${spec.producerId}, epoch ${spec.producerEpoch}, coordinator epoch ${spec.coordinatorEpoch}), ${where}`,
              ),
            };
      return new Map([[partitionKey(spec.topic, spec.partition), outcome]]);
    },
  });
  const result = results.get(partitionKey(spec.topic, spec.partition));
  if (result?.error !== undefined) throw result.error;
}
