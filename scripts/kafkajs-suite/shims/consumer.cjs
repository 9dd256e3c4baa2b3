'use strict';
// kafkajs's internal `createConsumer({ cluster, logger, groupId, ...options })`, as the public
// call a kafkajs user makes: `new Kafka(config).consumer(options)` on the facade.
const { kafkaFor, clusterClientOptions, defined, tieCluster } = require('./common.cjs');

// kafkajs's internal isolationLevel (0 READ_UNCOMMITTED, 1 READ_COMMITTED) is the public
// `readUncommitted` flag; the cluster's own isolationLevel option counts when the consumer's is unset.
const READ_UNCOMMITTED = 0;

module.exports = ({
  cluster,
  logger,
  groupId,
  retry,
  partitionAssigners,
  sessionTimeout,
  rebalanceTimeout,
  heartbeatInterval,
  maxBytesPerPartition,
  minBytes,
  maxBytes,
  maxWaitTimeInMs,
  isolationLevel,
  rackId,
  metadataMaxAge,
  instrumentationEmitter: _instrumentationEmitter,
}) => {
  const kafka = kafkaFor(cluster, logger);
  const level = isolationLevel ?? cluster?.__suite?.isolationLevel;
  // The cluster's options (createCluster({ metadataMaxAge })) count unless the test gave the
  // consumer its own: an option left undefined here must not erase the cluster's.
  const consumer = kafka.consumer({
    ...clusterClientOptions(cluster),
    ...defined({
      groupId,
      retry,
      partitionAssigners,
      sessionTimeout,
      rebalanceTimeout,
      heartbeatInterval,
      maxBytesPerPartition,
      minBytes,
      maxBytes,
      maxWaitTimeInMs,
      readUncommitted: level === undefined ? undefined : level === READ_UNCOMMITTED,
      rackId,
      metadataMaxAge,
    }),
  });
  return tieCluster(consumer, cluster);
};
