import type { Cluster } from '@kafkats/meta';

/**
 * What the producer needs of a cluster: a `@kafkats/meta` `Cluster` has all of it. The producer
 * does not own the cluster: closing the producer leaves it open. `sendToNodeCallback` is
 * optional: without it, Produce requests go through `sendToNode`.
 */
export type ProducerCluster = {
  readonly sendToNodeCallback?: Cluster['sendToNodeCallback'] | undefined;
} & Pick<
  Cluster,
  | 'snapshot'
  | 'refreshTopics'
  | 'applyLeaderHints'
  | 'sendToNode'
  | 'sendAny'
  | 'sendToCoordinator'
  | 'invalidateCoordinator'
  | 'negotiatedFor'
  | 'finalizedFeature'
>;
