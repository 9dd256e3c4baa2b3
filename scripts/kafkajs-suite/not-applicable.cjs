'use strict';
// kafkajs 2.2.4 tests that cannot say anything about the facade, per spec file: they assert on
// kafkajs's internals (spies on its Cluster, Broker, eosManager or retrier, mocked broker
// requests to inject faults, its in-memory caches) or test internal modules directly. `match`
// is a substring (or RegExp) of "describe titles + test title"; `needs` marks tests that are
// skipped only when the broker lacks what they require (run.mjs's capabilities: ssl, sasl,
// acls, autocreate, broker0, kafka-before-4).

const INTERNAL_MODULE = 'tests a kafkajs internal module directly, not the client API';
const CONTROLLER_MOCK =
  "replaces kafkajs's Cluster.findControllerBroker/refreshMetadata with mocks and counts their calls";
const REFRESH_SPY = "asserts kafkajs's Cluster.refreshMetadataIfNecessary was called";
const CLUSTER_STATE =
  "asserts on the kafkajs Cluster object's own connection state (the facade owns its connections)";
const COORDINATOR_MOCK =
  "mocks kafkajs's group coordinator Broker methods (joinGroup, syncGroup, ...) to inject errors";
const BROKER_PRODUCE_MOCK = "mocks kafkajs's Broker.produce to inject errors";
const BROKER_DELETE_RECORDS_SPY = "spies on kafkajs's Broker.deleteRecords to count or fail calls";
const SSL = { needs: ['ssl'], reason: 'needs an SSL listener (run with --listeners SSL,SASL_SSL)' };
const SASL = {
  needs: ['sasl'],
  reason: 'needs a SASL_SSL listener (run with --listeners SSL,SASL_SSL)',
};
const ACLS = {
  needs: ['sasl', 'acls'],
  reason: 'needs a SASL_SSL listener and an authorizer (--kafka-up --listeners SASL_SSL --acls)',
};
const ACL_CLIENT = {
  match: /.*/,
  needs: ['sasl'],
  reason: 'its admin connects through a SASL_SSL listener (--kafka-up --listeners SSL,SASL_SSL)',
};
const BROKER_ZERO = {
  needs: ['broker0'],
  reason: "assigns replicas to broker id 0 (kafkajs's docker brokers are 0..2; the testkit's 1..3)",
};
const AUTO_CREATE = {
  needs: ['autocreate'],
  reason:
    "relies on the broker's auto.create.topics.enable (off on the kafka:up cluster; on with --kafka-up)",
};

const all = (reason) => [{ match: /.*/, reason }];

module.exports = {
  'src/producer/index.spec.js': [
    {
      match: 'throws an error if the producer is disconnecting',
      reason: "slows kafkajs's Cluster.disconnect to observe the disconnecting state",
    },
    { match: 'support SSL connections', ...SSL },
    { match: 'SASL', ...SASL },
    { match: 'reconnects the cluster if disconnected', reason: CLUSTER_STATE },
    { match: 'allows messages with a null value to support tombstones', ...AUTO_CREATE },
    {
      match: 'sets the default retry value to MAX_SAFE_INTEGER',
      reason: "spies on kafkajs's internal retrier factory",
    },
    {
      match: 'only calls initProducerId if unitialized',
      reason: "spies on kafkajs's eosManager.initProducerId",
    },
    {
      match: 'supports sending offsets',
      reason: "spies on kafkajs's eosManager.sendOffsets and Cluster.markOffsetAsCommitted",
    },
  ],
  'src/producer/__tests__/idempotentProduceMessages.spec.js': [
    { match: 'throws a retriable error', reason: BROKER_PRODUCE_MOCK },
  ],
  'src/consumer/__tests__/assignerProtocol.spec.js': [],
  'src/consumer/__tests__/batch.spec.js': all(INTERNAL_MODULE),
  'src/consumer/__tests__/consumerGroup.spec.js': all(INTERNAL_MODULE),
  'src/consumer/__tests__/filterAbortedMessages.spec.js': all(INTERNAL_MODULE),
  'src/consumer/__tests__/runner.spec.js': all(INTERNAL_MODULE),
  'src/consumer/__tests__/commitOffsets.spec.js': [
    {
      match: 'updates the partition committed offset to the given offset',
      reason: "reads kafkajs's Cluster.committedOffsets in-memory cache",
    },
  ],
  'src/consumer/__tests__/connection.spec.js': [
    { match: 'support SSL connections', ...SSL },
    { match: 'SASL', ...SASL },
    { match: 'reconnects the cluster if disconnected', reason: CLUSTER_STATE },
  ],
  'src/consumer/__tests__/consumeMessages.spec.js': [
    { match: /Consumer consume messages$/, reason: REFRESH_SPY },
    { match: 'commits the last offsets processed before stopping', reason: REFRESH_SPY },
    { match: /consume messages with 0\.11 format$/, reason: REFRESH_SPY },
  ],
  'src/consumer/__tests__/errorRecovery.spec.js': [
    { match: 'recovers from offset out of range', reason: COORDINATOR_MOCK },
    { match: 'recovers from crashes due to retriable errors', reason: COORDINATOR_MOCK },
    {
      match: 'does not recover from crashes due to not retriable errors',
      reason: COORDINATOR_MOCK,
    },
    {
      match: 'allows the user to bail out of restarting on retriable errors',
      reason: COORDINATOR_MOCK,
    },
  ],
  'src/admin/__tests__/connection.spec.js': [
    { match: 'support SSL connections', ...SSL },
    { match: 'SASL', ...SASL },
  ],
  'src/admin/__tests__/alterConfigs.spec.js': [
    { match: 'retries if the controller has moved', reason: CONTROLLER_MOCK },
  ],
  'src/admin/__tests__/alterPartitionReassignments.spec.js': [
    { match: 'retries if the controller has moved', reason: CONTROLLER_MOCK },
    { match: 'throws an error trying to assign invalid broker', ...BROKER_ZERO },
    { match: /alterPartitionReassignments reassign partitions$/, ...BROKER_ZERO },
  ],
  'src/admin/__tests__/createPartitions.spec.js': [
    { match: 'retries if the controller has moved', reason: CONTROLLER_MOCK },
  ],
  'src/admin/__tests__/createTopics.spec.js': [
    { match: 'retries if the controller has moved', reason: CONTROLLER_MOCK },
    { match: 'creating topic with manual replica assignment', ...BROKER_ZERO },
    { match: 'ignore already created topics and return false', reason: CONTROLLER_MOCK },
    { match: 'query metadata if waitForLeaders is true', reason: CONTROLLER_MOCK },
    { match: 'forward non ignorable errors with topic name metadata', reason: CONTROLLER_MOCK },
  ],
  'src/admin/__tests__/describeConfigs.spec.js': [
    { match: 'retries if the controller has moved', reason: CONTROLLER_MOCK },
  ],
  'src/admin/__tests__/listPartitionReassignments.spec.js': [
    { match: 'retries if the controller has moved', reason: CONTROLLER_MOCK },
    { match: 'list reassignments', ...BROKER_ZERO },
  ],
  'src/admin/__tests__/fetchTopicMetadata.spec.js': [
    { match: 'creates a new topic if the topic does not exist', ...AUTO_CREATE },
    {
      match: 'creates a new topic if the topic does not exist',
      needs: ['kafka-before-4'],
      reason:
        'fails on kafkajs 2.2.4 itself against Kafka 4 with auto topic creation on (UNKNOWN_TOPIC_OR_PARTITION is not retried)',
    },
  ],
  'src/admin/__tests__/deleteTopics.spec.js': [
    { match: 'retries if the controller has moved', reason: CONTROLLER_MOCK },
    { match: 'interrupts on REQUEST_TIMED_OUT', reason: CONTROLLER_MOCK },
    {
      match: 'remove deleted topics from the cluster target group',
      reason: "reads kafkajs's Cluster.targetTopics",
    },
  ],
  'src/admin/__tests__/deleteTopicRecords.spec.js': [
    { match: 'tries again from the last successful partition', reason: BROKER_DELETE_RECORDS_SPY },
    { match: 'refresh stale metadata and tries again', reason: BROKER_DELETE_RECORDS_SPY },
    { match: 'throws before processing any partitions', reason: BROKER_DELETE_RECORDS_SPY },
    { match: 'will not attempt to retry', reason: BROKER_DELETE_RECORDS_SPY },
    { match: 'will retry the request', reason: BROKER_DELETE_RECORDS_SPY },
    {
      match: 'in case offset is below low watermark, log a warning',
      reason:
        "spies on the warn method of kafkajs's internal logger object (the facade logs through logCreator)",
    },
  ],
  'src/admin/__tests__/createAcls.spec.js': [
    { match: 'checks topic access', ...ACLS },
    { match: 'can produce to allowed topic after failing', ...ACLS },
    ACL_CLIENT,
  ],
  'src/admin/__tests__/deleteAcls.spec.js': [
    { match: 'applies and deletes acl', ...ACLS },
    ACL_CLIENT,
  ],
  'src/admin/__tests__/describeAcls.spec.js': [
    { match: 'creates and queries acl', ...ACLS },
    ACL_CLIENT,
  ],
};
