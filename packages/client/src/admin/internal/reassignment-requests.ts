import {
  AlterPartitionReassignmentsApi,
  createAlterPartitionReassignmentsRequest,
  createAlterPartitionReassignmentsRequestReassignablePartition,
  createAlterPartitionReassignmentsRequestReassignableTopic,
  createListPartitionReassignmentsRequest,
  createListPartitionReassignmentsRequestTopics,
  ListPartitionReassignmentsApi,
} from '@kafkats/codec';
import type { TopicPartition } from '../../topic-partition.js';
import type {
  AlterPartitionReassignmentsResult,
  ListPartitionReassignmentsResult,
  PartitionReassignment,
} from '../reassignments.js';
import { type AdminCall, errorOrUndefined } from './admin-call.js';
import { byTopic } from './offset-requests.js';

/** AlterPartitionReassignments to the controller (KIP-455): start, change or cancel moves. */
export async function alterPartitionReassignments(
  call: AdminCall,
  reassignments: readonly PartitionReassignment[],
): Promise<AlterPartitionReassignmentsResult> {
  let version = 0;
  const r = await call.cluster.sendToController(
    AlterPartitionReassignmentsApi,
    (v) => {
      version = v;
      return createAlterPartitionReassignmentsRequest({
        timeoutMs: call.serverTimeoutMs(),
        topics: [...byTopic(reassignments)].map(([name, parts]) =>
          createAlterPartitionReassignmentsRequestReassignableTopic({
            name,
            partitions: parts.map((p) =>
              createAlterPartitionReassignmentsRequestReassignablePartition({
                partitionIndex: p.partition,
                replicas: p.replicas === null ? null : [...p.replicas],
              }),
            ),
          }),
        ),
      });
    },
    call.sendOptions(),
  );
  const context = `AlterPartitionReassignments v${version}`;
  const top = errorOrUndefined(r.errorCode, context, r.errorMessage);
  const answers = new Map<string, { errorCode: number; errorMessage: string | null }>();
  for (const t of r.responses)
    for (const p of t.partitions) answers.set(`${t.name}\u0000${p.partitionIndex}`, p);
  return {
    partitions: reassignments.map(({ topic, partition }) => {
      const a = answers.get(`${topic}\u0000${partition}`);
      const error =
        top ??
        (a === undefined
          ? undefined
          : errorOrUndefined(a.errorCode, `${context}, ${topic}-${partition}`, a.errorMessage));
      return error === undefined ? { topic, partition } : { topic, partition, error };
    }),
  };
}

/** ListPartitionReassignments to the controller: every ongoing one, or those of `partitions`. */
export async function listPartitionReassignments(
  call: AdminCall,
  partitions: readonly TopicPartition[] | undefined,
): Promise<ListPartitionReassignmentsResult> {
  const r = await call.cluster.sendToController(
    ListPartitionReassignmentsApi,
    () =>
      createListPartitionReassignmentsRequest({
        timeoutMs: call.serverTimeoutMs(),
        topics:
          partitions === undefined
            ? null
            : [...byTopic(partitions)].map(([name, parts]) =>
                createListPartitionReassignmentsRequestTopics({
                  name,
                  partitionIndexes: parts.map((p) => p.partition),
                }),
              ),
      }),
    call.sendOptions(),
  );
  const top = errorOrUndefined(r.errorCode, 'ListPartitionReassignments', r.errorMessage);
  if (top !== undefined) throw top;
  const reassignments = r.topics
    .flatMap((t) =>
      t.partitions.map((p) => ({
        topic: t.name,
        partition: p.partitionIndex,
        replicas: p.replicas,
        addingReplicas: p.addingReplicas,
        removingReplicas: p.removingReplicas,
      })),
    )
    .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
  return { reassignments };
}
