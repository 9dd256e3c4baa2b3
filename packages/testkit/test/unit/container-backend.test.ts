import { describe, expect, it } from 'vitest';
import { KAFKA_VERSION_ENV, resolveKafkaVersion, startCluster } from '../../src/index.js';
import { kafkaEnvName } from '../../src/internal/broker-config.js';
import { containerNodeSpecs } from '../../src/internal/container-spec.js';

const input = {
  clusterId: 'q1Sh-9_ISia_zwGINzRvyQ',
  kafkaVersion: '3.9.2',
  ports: [30001, 30002, 30003],
};

describe('testcontainers backend: what it asks Docker for', () => {
  it('loads on this Node.js (testcontainers 11 and its undici 7 support Node 20, 22 and 24)', async () => {
    const tc = await import('testcontainers');
    expect(typeof tc.GenericContainer).toBe('function');
    expect(typeof tc.getContainerRuntimeClient).toBe('function');
  });

  it('one apache/kafka container per node, tagged with the Kafka release, named on its network', () => {
    const specs = containerNodeSpecs({ nodes: 3 }, input);
    expect(specs.map((s) => [s.nodeId, s.image, s.alias, s.port])).toEqual([
      [1, 'apache/kafka:3.9.2', 'kafka-1', 30001],
      [2, 'apache/kafka:3.9.2', 'kafka-2', 30002],
      [3, 'apache/kafka:3.9.2', 'kafka-3', 30003],
    ]);
    for (const s of specs) {
      expect(s.readyLog.test('[KafkaRaftServer nodeId=1] Kafka Server started')).toBe(true);
      expect(s.startupTimeoutMs).toBe(120_000);
    }
  });

  it('configures each node through the image environment: KRaft quorum, listeners, cluster id', () => {
    const [, second] = containerNodeSpecs({ nodes: 3 }, input);
    const env = second?.env ?? {};
    expect(env.CLUSTER_ID).toBe(input.clusterId);
    expect(env.KAFKA_NODE_ID).toBe('2');
    expect(env.KAFKA_PROCESS_ROLES).toBe('broker,controller');
    expect(env.KAFKA_CONTROLLER_QUORUM_VOTERS).toBe('1@kafka-1:9093,2@kafka-2:9093,3@kafka-3:9093');
    // The host reaches a broker on the same port it listens on inside; peers use the alias.
    expect(env.KAFKA_LISTENERS).toBe(
      'PLAINTEXT://0.0.0.0:30002,INTERNAL://0.0.0.0:19092,CONTROLLER://0.0.0.0:9093',
    );
    expect(env.KAFKA_ADVERTISED_LISTENERS).toBe(
      'PLAINTEXT://127.0.0.1:30002,INTERNAL://kafka-2:19092',
    );
    expect(env.KAFKA_INTER_BROKER_LISTENER_NAME).toBe('INTERNAL');
    expect(env.KAFKA_CONTROLLER_LISTENER_NAMES).toBe('CONTROLLER');
    // The testkit's small-cluster defaults, sized to the node count.
    expect(env.KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR).toBe('3');
    expect(env.KAFKA_TRANSACTION_STATE_LOG_MIN_ISR).toBe('2');
    expect(env.KAFKA_AUTO_CREATE_TOPICS_ENABLE).toBe('false');
    // Every value is a property name in the image's convention.
    for (const key of Object.keys(env)) {
      if (key !== 'CLUSTER_ID') expect(key).toMatch(/^KAFKA_[A-Z0-9_]+$/);
    }
  });

  it('applies brokerConfig last and a single node gets replication factor 1', () => {
    const [only] = containerNodeSpecs(
      {
        nodes: 1,
        startTimeoutMs: 5000,
        brokerConfig: { 'auto.create.topics.enable': true, 'log.retention.ms': 1000 },
      },
      { ...input, ports: [30009] },
    );
    expect(only?.env[kafkaEnvName('auto.create.topics.enable')]).toBe('true');
    expect(only?.env.KAFKA_LOG_RETENTION_MS).toBe('1000');
    expect(only?.env.KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR).toBe('1');
    expect(only?.env.KAFKA_CONTROLLER_QUORUM_VOTERS).toBe('1@kafka-1:9093');
    expect(only?.startupTimeoutMs).toBe(5000);
  });

  it('applies a node its own settings after brokerConfig, and to that node only', () => {
    const specs = containerNodeSpecs(
      {
        nodes: 3,
        brokerConfig: { 'broker.rack': 'everywhere' },
        nodeConfig: { 2: { 'broker.rack': 'rack-2' } },
      },
      input,
    );
    expect(specs.map((s) => s.env.KAFKA_BROKER_RACK)).toEqual([
      'everywhere',
      'rack-2',
      'everywhere',
    ]);
  });

  it('refuses TLS/SASL listeners and ACLs with ERR_KAFKA_TESTKIT_UNSUPPORTED', () => {
    expect(() => containerNodeSpecs({ listeners: ['PLAINTEXT', 'SASL_SSL'] }, input)).toThrow(
      expect.objectContaining({
        code: 'ERR_KAFKA_TESTKIT_UNSUPPORTED',
        message: expect.stringMatching(/PLAINTEXT without ACLs only \(asked for SASL_SSL\)/),
      }),
    );
    expect(() => containerNodeSpecs({ acls: true }, input)).toThrow(
      expect.objectContaining({ code: 'ERR_KAFKA_TESTKIT_UNSUPPORTED' }),
    );
    // PLAINTEXT alone is what it offers.
    expect(containerNodeSpecs({ listeners: ['PLAINTEXT'] }, input)).toHaveLength(3);
  });
});

describe('testcontainers backend: starting without Docker', () => {
  async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>) {
    const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
    for (const [k, v] of Object.entries(vars)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    try {
      return await fn();
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  }

  it('an unsupported option fails before Docker is asked anything', async () => {
    await expect(
      startCluster({ backend: 'testcontainers', listeners: ['SSL'] }),
    ).rejects.toMatchObject({ code: 'ERR_KAFKA_TESTKIT_UNSUPPORTED' });
  });

  it('a Kafka version the testkit cannot start fails with a typed error naming it', async () => {
    await expect(
      startCluster({ backend: 'testcontainers', kafkaVersion: '3.7' }),
    ).rejects.toMatchObject({
      code: 'ERR_KAFKA_TESTKIT_UNSUPPORTED',
      message: expect.stringMatching(/Kafka 3\.7 is not supported/),
    });
    // The same check applies to the version from the environment.
    await withEnv({ [KAFKA_VERSION_ENV]: '3.8' }, async () => {
      await expect(startCluster({ backend: 'testcontainers' })).rejects.toMatchObject({
        code: 'ERR_KAFKA_TESTKIT_UNSUPPORTED',
      });
    });
    expect(resolveKafkaVersion('3.9')).toMatch(/^3\.9\.\d+$/);
  });

  it('without a reachable Docker engine: ERR_KAFKA_TESTKIT_BACKEND_UNAVAILABLE, not a hang', async () => {
    await withEnv(
      { DOCKER_HOST: 'tcp://127.0.0.1:1', TESTCONTAINERS_RYUK_DISABLED: 'true' },
      async () => {
        await expect(startCluster({ backend: 'testcontainers', nodes: 1 })).rejects.toMatchObject({
          code: 'ERR_KAFKA_TESTKIT_BACKEND_UNAVAILABLE',
          message: expect.stringMatching(/needs a reachable Docker engine/),
        });
      },
    );
  });
});
