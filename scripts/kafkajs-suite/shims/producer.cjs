'use strict';
// kafkajs's internal `createProducer({ cluster, logger, ...options })`, as the public call a
// kafkajs user makes: `new Kafka(config).producer(options)` on the facade.
const { kafkaFor, clusterClientOptions, defined, tieCluster } = require('./common.cjs');

module.exports = ({
  cluster,
  logger,
  createPartitioner,
  retry,
  idempotent,
  transactionalId,
  transactionTimeout,
  // kafkajs's Kafka makes one emitter per client itself; events reach tests through on().
  instrumentationEmitter: _instrumentationEmitter,
}) => {
  const kafka = kafkaFor(cluster, logger);
  const producer = kafka.producer(
    defined({
      ...clusterClientOptions(cluster),
      createPartitioner,
      retry,
      idempotent,
      transactionalId,
      transactionTimeout,
    }),
  );
  return tieCluster(producer, cluster);
};
