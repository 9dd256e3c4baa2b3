'use strict';
// kafkajs's internal `createAdmin({ cluster, logger, retry })`, as the public call a kafkajs
// user makes: `new Kafka(config).admin({ retry })` on the facade.
const { kafkaFor, defined, tieCluster } = require('./common.cjs');

module.exports = ({ cluster, logger, retry, instrumentationEmitter: _instrumentationEmitter }) => {
  const kafka = kafkaFor(cluster, logger);
  return tieCluster(kafka.admin(defined({ retry })), cluster);
};
