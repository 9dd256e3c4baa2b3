'use strict';
// What every shim shares: the facade (one CommonJS bundle of @kafkats/kafkajs that run.mjs
// builds, loaded once per test file by jest's module registry) and the translation of
// kafkajs's internal factory arguments (`{ cluster, logger, ...options }`) into the public
// calls a kafkajs user makes: `new Kafka(config).producer(options)`.
const path = require('node:path');

const env = process.env;
const facade = require(env.KAFKAJS_SUITE_FACADE);
const kafkajsTree = env.KAFKAJS_SUITE_KAFKAJS_TREE;

/** A module of the exported kafkajs tree (the tests' helpers still use kafkajs's own pieces). */
function kafkajs(relativePath) {
  return require(path.join(kafkajsTree, relativePath));
}

/**
 * The `new Kafka(...)` config a kafkajs user would have written for the cluster options a
 * test gave `createCluster(opts, brokers)`, and the test logger's level and log creator.
 */
function kafkaConfig(cluster, logger) {
  const opts = cluster?.__suite ?? { brokers: [] };
  const config = { brokers: opts.brokers };
  for (const key of [
    'clientId',
    'ssl',
    'sasl',
    'connectionTimeout',
    'authenticationTimeout',
    'reauthenticationThreshold',
    'requestTimeout',
    'enforceRequestTimeout',
    'retry',
  ]) {
    if (opts[key] !== undefined) config[key] = opts[key];
  }
  const logOptions = logger?.__suite;
  if (logOptions !== undefined) {
    config.logLevel = logOptions.level;
    config.logCreator = logOptions.logCreator;
  }
  return config;
}

/**
 * The facade `Kafka` a test's cluster object stands for. In kafkajs every client made by one
 * `Kafka` shares state through it (the committed-offsets cache a transactional producer's
 * sendOffsets updates for the consumer), and a test passing one cluster to several factories
 * is that case; so one cluster object is one `Kafka`, made with the first client's logger.
 */
function kafkaFor(cluster, logger) {
  if (cluster === undefined || cluster === null || typeof cluster !== 'object') {
    return new facade.Kafka(kafkaConfig(cluster, logger));
  }
  if (cluster.__suiteKafka === undefined) {
    Object.defineProperty(cluster, '__suiteKafka', {
      value: new facade.Kafka(kafkaConfig(cluster, logger)),
      enumerable: false,
    });
  }
  return cluster.__suiteKafka;
}

/** The per-client cluster options kafkajs's `kafka.producer()`/`consumer()` take. */
function clusterClientOptions(cluster) {
  const opts = cluster?.__suite ?? {};
  const out = {};
  for (const key of ['metadataMaxAge', 'allowAutoTopicCreation', 'maxInFlightRequests']) {
    if (opts[key] !== undefined && opts[key] !== null) out[key] = opts[key];
  }
  return out;
}

/** Drops undefined values, as a kafkajs user leaves an option out. */
function defined(options) {
  const out = {};
  for (const [k, v] of Object.entries(options)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * In kafkajs a client's connect() connects the cluster object the test holds; tests then
 * read through that cluster (kafkajs as a cross-check client: offsets, coordinators). The
 * facade opens its own connections, so the test's kafkajs cluster is connected alongside it,
 * after the facade call settled and without changing its result.
 */
function tieCluster(client, cluster) {
  if (cluster === undefined || cluster === null || typeof cluster.connect !== 'function') {
    return client;
  }
  const connect = client.connect.bind(client);
  const disconnect = client.disconnect.bind(client);
  client.connect = async () => {
    await connect();
    cluster.__suiteUsers = (cluster.__suiteUsers ?? 0) + 1;
    try {
      await cluster.connect();
    } catch (e) {
      process.stderr.write(`kafkajs-suite: the test's kafkajs cluster did not connect: ${e}\n`);
    }
  };
  client.disconnect = async () => {
    try {
      await disconnect();
    } finally {
      if (cluster.__suiteUsers > 0) {
        cluster.__suiteUsers -= 1;
        if (cluster.__suiteUsers === 0) await cluster.disconnect().catch(() => {});
      }
    }
  };
  return client;
}

module.exports = {
  facade,
  kafkajs,
  kafkaConfig,
  kafkaFor,
  clusterClientOptions,
  defined,
  tieCluster,
};
