import { describe, expect, it } from 'vitest';
import { ClientContext } from '../../src/config.js';
import { KafkaJSNonRetriableError, KafkaJSNotImplemented } from '../../src/errors.js';
import { createLogger, logLevel } from '../../src/logger.js';

const quiet = createLogger({ level: logLevel.NOTHING });

describe('kafkajs config to kafkats cluster options', () => {
  it('takes kafkajs defaults for clientId and the timeouts', () => {
    const c = new ClientContext({ brokers: ['h:9092'], logLevel: logLevel.NOTHING });
    const o = c.clusterConfig(quiet);
    expect(c.clientId).toBe('kafkajs');
    expect(o.connection?.clientId).toBe('kafkajs');
    expect(o.connection?.connectionSetupTimeoutMs).toBe(1000);
    expect(o.requestTimeoutMs).toBe(30_000);
    expect(o.connection?.tls).toBeUndefined();
    expect(o.connection?.sasl).toBeUndefined();
    expect(o.retry).toBeUndefined();
  });

  it('maps ssl, sasl, timeouts and retry', () => {
    const c = new ClientContext({
      brokers: ['h:9092'],
      clientId: 'billing',
      connectionTimeout: 3000,
      requestTimeout: 5000,
      ssl: { ca: ['CA'], cert: 'CERT', key: 'KEY', passphrase: 'p', rejectUnauthorized: false },
      sasl: { mechanism: 'scram-sha-512', username: 'u', password: 'pw' },
      retry: { retries: 8, initialRetryTime: 250, maxRetryTime: 4000, factor: 0.1 },
      logLevel: logLevel.NOTHING,
    });
    const o = c.clusterConfig(quiet);
    expect(o.connection).toMatchObject({
      clientId: 'billing',
      connectionSetupTimeoutMs: 3000,
      tls: { ca: ['CA'], cert: 'CERT', key: 'KEY', passphrase: 'p', rejectUnauthorized: false },
      sasl: { mechanism: 'SCRAM-SHA-512', username: 'u', password: 'pw' },
    });
    expect(o.requestTimeoutMs).toBe(5000);
    expect(o.retry).toEqual({ maxAttempts: 9, backoffMs: 250, maxBackoffMs: 4000, jitter: 0.1 });
    expect(
      new ClientContext({ brokers: ['h:1'], ssl: true }).clusterConfig(quiet).connection?.tls,
    ).toBe(true);
  });

  it('turns an oauthbearer provider into a token provider', async () => {
    const c = new ClientContext({
      brokers: ['h:9092'],
      sasl: { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: 'jwt' }) },
    });
    const sasl = c.clusterConfig(quiet).connection?.sasl as {
      mechanism: string;
      tokenProvider: () => Promise<{ value: string }>;
    };
    expect(sasl.mechanism).toBe('OAUTHBEARER');
    expect(await sasl.tokenProvider()).toEqual({ value: 'jwt' });
  });

  it('refuses what it cannot honour at construction, typed', () => {
    expect(() => new ClientContext({ brokers: ['h:1'], socketFactory: () => null })).toThrow(
      KafkaJSNotImplemented,
    );
    expect(
      () =>
        new ClientContext({
          brokers: ['h:1'],
          sasl: {
            mechanism: 'aws',
            authorizationIdentity: 'a',
            accessKeyId: 'k',
            secretAccessKey: 's',
          },
        }),
    ).toThrow(KafkaJSNotImplemented);
    expect(
      () => new ClientContext({ brokers: ['h:1'], sasl: { mechanism: 'gssapi' } as never }),
    ).toThrow(KafkaJSNonRetriableError);
    expect(() => new ClientContext({ brokers: null as never })).toThrow(
      'Failed to connect: brokers parameter should not be null',
    );
  });

  it('asks a brokers function at each connect, and fails typed when it gives none', async () => {
    let calls = 0;
    const c = new ClientContext({
      brokers: () => {
        calls++;
        return [];
      },
      logLevel: logLevel.NOTHING,
    });
    await expect(c.openCluster(quiet)).rejects.toThrow(
      'Failed to connect: "config.brokers" returned void or empty array',
    );
    await expect(c.openCluster(quiet)).rejects.toBeInstanceOf(KafkaJSNonRetriableError);
    expect(calls).toBe(2);
  });
});
