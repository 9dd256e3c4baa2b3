'use strict';
// The `testHelpers` module kafkajs's specs import, rewritten for a broker the harness was
// given instead of kafkajs's docker-compose one. Same exports and behaviour, our own code;
// what changes is setup only: broker addresses, credentials, how topics and partitions are
// made (through kafkajs 2.2.4's own admin, the cross-check client), and that `createCluster`
// returns kafkajs's Cluster carrying the options the client shims hand to the facade.
const crypto = require('node:crypto');
const { env } = process;
const fs = require('node:fs');
const { kafkajs } = require('./common.cjs');

const Cluster = kafkajs('src/cluster');
const waitForCondition = kafkajs('src/utils/waitFor');
const { createLogger, LEVELS } = kafkajs('src/loggers');
const LoggerConsole = kafkajs('src/loggers/console');
const { Kafka } = kafkajs('index');
const socketFactory = kafkajs('src/network/socketFactory')();

/**
 * The broker under test, from run.mjs: PLAINTEXT bootstrap list and, when the cluster has
 * them, the SSL and SASL_SSL listeners with the CA and a SASL user.
 */
const target = JSON.parse(env.KAFKAJS_SUITE_CLUSTER);

const secureRandom = (length = 10) =>
  `${crypto.randomBytes(length).toString('hex')}-${process.pid}-${crypto.randomUUID()}`;

/** A kafkajs logger at NOTHING by default; the facade shims read back its level and creator. */
const newLogger = (opts = {}) => {
  const options = { level: LEVELS.NOTHING, logCreator: LoggerConsole, ...opts };
  const logger = createLogger(options);
  Object.defineProperty(logger, '__suite', { value: options, enumerable: false });
  return logger;
};

const plainTextBrokers = () => [...target.plaintext];
const sslBrokers = () => [...(target.ssl ?? target.plaintext)];
const saslBrokers = () => [...(target.saslSsl ?? target.plaintext)];

const connectionOpts = (opts = {}) => ({
  socketFactory,
  clientId: `test-${secureRandom()}`,
  connectionTimeout: 3000,
  requestTimeout: 30000,
  logger: newLogger(),
  host: target.plaintext[0].split(':')[0],
  port: Number(target.plaintext[0].split(':')[1]),
  ...opts,
});

const sslConnectionOpts = () => ({
  ...connectionOpts(),
  ssl: {
    servername: 'localhost',
    rejectUnauthorized: false,
    ...(target.caPemPath === null ? {} : { ca: [fs.readFileSync(target.caPemPath, 'utf-8')] }),
  },
});

const withSasl = (sasl) => () => ({ ...sslConnectionOpts(), sasl });
const wrong = { username: 'wrong', password: 'wrong' };

const saslConnectionOpts = withSasl({ mechanism: 'plain', username: 'test', password: 'testtest' });
const saslSCRAM256ConnectionOpts = withSasl({
  mechanism: 'scram-sha-256',
  username: 'testscram',
  password: 'testtestscram=256',
});
const saslSCRAM512ConnectionOpts = withSasl({
  mechanism: 'scram-sha-512',
  username: 'testscram',
  password: 'testtestscram=512',
});

/** kafkajs's test credentials replaced by the broker's users of the same role. */
const brokerCredentials = (sasl) => {
  const user = sasl?.username === undefined ? undefined : target.users[sasl.username];
  return user === undefined || user === null
    ? sasl
    : { ...sasl, username: user.username, password: user.password };
};
const saslOAuthBearerConnectionOpts = () => {
  throw new Error('kafkajs-suite: OAUTHBEARER listeners are not set up by this harness');
};

const saslEntries = [
  {
    name: 'PLAIN',
    opts: saslConnectionOpts,
    wrongOpts: withSasl({ mechanism: 'plain', ...wrong }),
    expectedErr: /SASL PLAIN authentication failed/,
  },
  {
    name: 'SCRAM 256',
    opts: saslSCRAM256ConnectionOpts,
    wrongOpts: withSasl({ mechanism: 'scram-sha-256', ...wrong }),
    expectedErr: /SASL SCRAM SHA256 authentication failed/,
  },
  {
    name: 'SCRAM 512',
    opts: saslSCRAM512ConnectionOpts,
    wrongOpts: withSasl({ mechanism: 'scram-sha-512', ...wrong }),
    expectedErr: /SASL SCRAM SHA512 authentication failed/,
  },
];

/**
 * kafkajs's Cluster for these options (the tests read through it as a cross-check), carrying
 * the options themselves for the client shims, which build facade clients from them.
 */
const createCluster = (opts = {}, brokers = plainTextBrokers()) => {
  const options = { ...connectionOpts(), ...opts, brokers };
  if (options.sasl !== undefined) options.sasl = brokerCredentials(options.sasl);
  const cluster = new Cluster(options);
  Object.defineProperty(cluster, '__suite', { value: options, enumerable: false });
  // In kafkajs the client under test has added its topics to this cluster's metadata by the
  // time a test reads offsets through it; here the facade never touches it, so the read adds them.
  const fetchTopicsOffset = cluster.fetchTopicsOffset.bind(cluster);
  cluster.fetchTopicsOffset = async (topics) => {
    await cluster.addMultipleTargetTopics(topics.map((t) => t.topic));
    return fetchTopicsOffset(topics);
  };
  return cluster;
};

const createConnectionPool = () => {
  throw new Error('kafkajs-suite: connection pools are kafkajs internals');
};
const createConnectionBuilder = createConnectionPool;

/** kafkajs's test partitioner: the digits of the key, mod 3, mod the partition count. */
const createModPartitioner =
  () =>
  ({ partitionMetadata, message }) => {
    const digits = Number.parseInt(String(message.key).replace(/[^\d]/g, ''), 10);
    return ((digits || 0) % 3) % partitionMetadata.length;
  };

const waitFor = (fn, opts = {}) => waitForCondition(fn, { ignoreTimeout: true, ...opts });

const retryProtocol = (errorType, fn) =>
  waitFor(async () => {
    try {
      return await fn();
    } catch (e) {
      if (e.type !== errorType) throw e;
      return false;
    }
  });

const waitForMessages = (buffer, { number = 1, delay = 50 } = {}) =>
  waitFor(() => (buffer.length >= number ? buffer : false), { delay });

const waitForNextEvent = (consumer, eventName, { maxWait = 10000 } = {}) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`Timeout waiting for '${eventName}'`)),
      maxWait,
    );
    consumer.on(eventName, (event) => {
      clearTimeout(timer);
      resolve(event);
    });
    consumer.on(consumer.events.CRASH, (event) => {
      clearTimeout(timer);
      reject(event.payload.error);
    });
  });

const waitForConsumerToJoinGroup = (consumer, { maxWait = 10000, label = '' } = {}) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      consumer.disconnect().then(() => reject(new Error(`Timeout ${label}`.trim())));
    }, maxWait);
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      clearTimeout(timer);
      resolve(event);
    });
    consumer.on(consumer.events.CRASH, (event) => {
      clearTimeout(timer);
      consumer.disconnect().then(() => reject(event.payload.error));
    });
  });

/** kafkajs 2.2.4's admin is the helper client here, so setup does not depend on the facade. */
const withAdmin = async (fn) => {
  const admin = new Kafka({
    clientId: 'testHelpers',
    brokers: plainTextBrokers(),
    logLevel: LEVELS.NOTHING,
  }).admin();
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.disconnect();
  }
};

const createTopic = ({ topic, partitions = 1, replicas = 1, config = [] }) =>
  withAdmin((admin) =>
    admin.createTopics({
      waitForLeaders: true,
      topics: [
        { topic, numPartitions: partitions, replicationFactor: replicas, configEntries: config },
      ],
    }),
  );

const addPartitions = ({ topic, partitions }) =>
  withAdmin(async (admin) => {
    await admin.createPartitions({ topicPartitions: [{ topic, count: partitions }] });
    await waitFor(async () => {
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
      return topics[0].partitions.length === partitions;
    });
  });

/** Compares "major.minor[.patch]" strings numerically. */
const compareVersions = (a, b) => {
  const pa = String(a).split('.').map(Number);
  const pb = String(b).split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
};

const testIfKafkaVersion = (version, accept) => {
  const scoped = (description, callback, testFn = test) =>
    accept(compareVersions(env.KAFKA_VERSION, version))
      ? testFn(description, callback)
      : test.skip(description, callback);
  scoped.only = (description, callback) => scoped(description, callback, test.only);
  return scoped;
};

const testIfKafkaAtMost_0_10 = testIfKafkaVersion('0.10', (d) => d <= 0);
const testIfKafkaAtLeast_0_11 = testIfKafkaVersion('0.11', (d) => d >= 0);
const testIfKafkaAtLeast_1_1_0 = testIfKafkaVersion('1.1', (d) => d >= 0);

const flakyTest = (description, callback, testFn = test) =>
  testFn(`[flaky] ${description}`, callback);
flakyTest.skip = (description, callback) => flakyTest(description, callback, test.skip);
flakyTest.only = (description, callback) => flakyTest(description, callback, test.only);

const oauthbearer = env.OAUTHBEARER_ENABLED === '1';
const describeIfOauthbearerEnabled = (description, callback) =>
  oauthbearer ? describe(description, callback) : describe.skip(description, callback);
const describeIfOauthbearerDisabled = (description, callback) =>
  oauthbearer ? describe.skip(description, callback) : describe(description, callback);

const unsupportedVersionResponse = () => Buffer.from([0, 35, 0, 0, 0, 0]);
const unsupportedVersionResponseWithTimeout = () => Buffer.from([0, 0, 0, 0, 0, 35]);

const generateMessages = ({ prefix, number = 100 } = {}) => {
  const tag = prefix ? `-${prefix}` : '';
  return Array.from({ length: number }, (_, i) => {
    const value = secureRandom();
    return { key: `key${tag}-${i}-${value}`, value: `value${tag}-${i}-${value}` };
  });
};

module.exports = {
  secureRandom,
  connectionOpts,
  sslConnectionOpts,
  saslConnectionOpts,
  saslSCRAM256ConnectionOpts,
  saslSCRAM512ConnectionOpts,
  saslOAuthBearerConnectionOpts,
  saslEntries,
  createConnectionPool,
  createConnectionBuilder,
  createCluster,
  createModPartitioner,
  plainTextBrokers,
  sslBrokers,
  saslBrokers,
  newLogger,
  retryProtocol,
  createTopic,
  waitFor,
  waitForMessages,
  waitForNextEvent,
  waitForConsumerToJoinGroup,
  testIfKafkaAtMost_0_10,
  testIfKafkaAtLeast_0_11,
  testIfKafkaAtLeast_1_1_0,
  flakyTest,
  describeIfOauthbearerEnabled,
  describeIfOauthbearerDisabled,
  addPartitions,
  unsupportedVersionResponse,
  generateMessages,
  unsupportedVersionResponseWithTimeout,
};
