import { describe, expect, it } from 'vitest';
import { selectedBackend, startCluster } from '../../src/index.js';
import { kafkaEnvName } from '../../src/internal/broker-config.js';

describe('backend selection', () => {
  it('defaults to jvm, honours the option, and rejects an unknown KAFKATS_BACKEND', () => {
    const saved = process.env.KAFKATS_BACKEND;
    try {
      delete process.env.KAFKATS_BACKEND;
      expect(selectedBackend()).toBe('jvm');
      expect(selectedBackend({ backend: 'testcontainers' })).toBe('testcontainers');
      process.env.KAFKATS_BACKEND = 'podman-maybe';
      expect(() => selectedBackend()).toThrow(/unknown KAFKATS_BACKEND/);
    } finally {
      if (saved === undefined) delete process.env.KAFKATS_BACKEND;
      else process.env.KAFKATS_BACKEND = saved;
    }
  });

  it('fails with a typed error, not a crash or hang, when the testcontainers backend cannot run', async () => {
    // Here it cannot even load (Node 20); on a Node 22 host, a Docker endpoint nobody listens
    // on gives the same error from the engine probe.
    const saved = process.env.DOCKER_HOST;
    process.env.DOCKER_HOST = 'tcp://127.0.0.1:1';
    try {
      await expect(startCluster({ backend: 'testcontainers', nodes: 1 })).rejects.toMatchObject({
        code: 'ERR_KAFKA_TESTKIT_BACKEND_UNAVAILABLE',
      });
    } finally {
      if (saved === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = saved;
    }
  });
});

describe('kafkaEnvName (apache/kafka image convention)', () => {
  it('maps dots, underscores and dashes', () => {
    expect(kafkaEnvName('node.id')).toBe('KAFKA_NODE_ID');
    expect(kafkaEnvName('listener.security.protocol.map')).toBe(
      'KAFKA_LISTENER_SECURITY_PROTOCOL_MAP',
    );
    expect(kafkaEnvName('a_b-c.d')).toBe('KAFKA_A__B___C_D');
  });
});
