import type { Cluster } from '@kafkats/meta';

/**
 * What the producer needs of a cluster: a `@kafkats/meta` `Cluster` has all of it. The producer
 * does not own the cluster: closing the producer leaves it open.
 */
export type ProducerCluster = Pick<
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
