import { describe, expect, it } from 'vitest';
import { selectedBackend } from '../../src/index.js';
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
