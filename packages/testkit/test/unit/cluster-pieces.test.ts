import { describe, expect, it } from 'vitest';
import { javaClientConfig } from '../../src/client-config.js';
import {
  makeUsers,
  normaliseListeners,
  randomKafkaUuid,
  scramFormatArgs,
} from '../../src/internal/jvm-cluster.js';

describe('randomKafkaUuid', () => {
  it('gives 22 URL-safe base64 chars that never start with a dash', () => {
    for (let i = 0; i < 500; i++) {
      const id = randomKafkaUuid();
      expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    }
  });
});

describe('normaliseListeners', () => {
  it('always includes PLAINTEXT first and drops duplicates', () => {
    expect(normaliseListeners(undefined)).toEqual(['PLAINTEXT']);
    expect(normaliseListeners(['SASL_SSL', 'SSL', 'SASL_SSL'])).toEqual([
      'PLAINTEXT',
      'SSL',
      'SASL_SSL',
    ]);
  });
});

describe('users and SCRAM format arguments', () => {
  it('creates admin, alice and bob with distinct random passwords, extra users appended or overriding', () => {
    const users = makeUsers([
      { username: 'carol', password: 'c' },
      { username: 'bob', password: 'b' },
    ]);
    expect(users.map((u) => u.username)).toEqual(['admin', 'alice', 'bob', 'carol']);
    expect(users[2]?.password).toBe('b');
    expect(users[0]?.password).not.toBe(users[1]?.password);
  });

  it('adds both SCRAM mechanisms for every user', () => {
    expect(scramFormatArgs([{ username: 'u', password: 'p' }])).toEqual([
      '--add-scram',
      'SCRAM-SHA-256=[name=u,password=p]',
      '--add-scram',
      'SCRAM-SHA-512=[name=u,password=p]',
    ]);
  });
});

describe('javaClientConfig', () => {
  const cluster = {
    listeners: { PLAINTEXT: '127.0.0.1:1', SASL_SSL: '127.0.0.1:2', SSL: '127.0.0.1:3' },
    security: {
      caPemPath: '/ca.pem',
      caKeyPath: '/ca.key',
      mechanisms: ['SCRAM-SHA-256', 'SCRAM-SHA-512', 'PLAIN'] as const,
      admin: { username: 'admin', password: 'pw' },
      users: [{ username: 'admin', password: 'pw' }],
      oauth: null,
    },
  };

  it('is just the bootstrap for PLAINTEXT', () => {
    expect(javaClientConfig(cluster)).toEqual({
      'bootstrap.servers': '127.0.0.1:1',
      'security.protocol': 'PLAINTEXT',
    });
  });

  it('trusts the CA and logs in with SCRAM-SHA-512 as admin by default on SASL_SSL', () => {
    const config = javaClientConfig(cluster, { listener: 'SASL_SSL' });
    expect(config['bootstrap.servers']).toBe('127.0.0.1:2');
    expect(config['ssl.truststore.location']).toBe('/ca.pem');
    expect(config['sasl.mechanism']).toBe('SCRAM-SHA-512');
    expect(config['sasl.jaas.config']).toBe(
      'org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="pw";',
    );
  });

  it('uses PlainLoginModule for PLAIN and no SASL on SSL', () => {
    const plain = javaClientConfig(cluster, {
      listener: 'SASL_SSL',
      mechanism: 'PLAIN',
      user: { username: 'x', password: 'y' },
    });
    expect(plain['sasl.jaas.config']).toContain('PlainLoginModule required username="x"');
    expect(javaClientConfig(cluster, { listener: 'SSL' })['sasl.mechanism']).toBeUndefined();
  });

  it('rejects a listener the cluster does not have', () => {
    expect(() => javaClientConfig(cluster, { listener: 'SASL_PLAINTEXT' })).toThrow(
      /no SASL_PLAINTEXT listener/,
    );
  });
});
