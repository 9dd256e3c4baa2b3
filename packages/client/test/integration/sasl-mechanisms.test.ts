// The client over SASL_SSL with each password mechanism: PLAIN (RFC 4616) and SCRAM-SHA-256/512
// (RFC 5802, RFC 7677). An idempotent Producer writes, a group Consumer reads every record back
// and commits, and Kafka's Java consumer confirms the records; a wrong password is a fatal
// AuthenticationError with the broker's reason, and the password appears in no message.
import { readFileSync } from 'node:fs';
import { Cluster } from '@kafkats/meta';
import { sharedCluster } from '@kafkats/testkit';
import { AuthenticationError } from '@kafkats/wire';
import { describe, expect, it } from 'vitest';
import { Consumer, Producer } from '../../src/index.js';
import { unique } from './admin-support.js';

const kafka = sharedCluster();

describe.each(['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const)(
  'SASL/%s over TLS',
  (mechanism) => {
    const connection = (password?: string) => {
      const user = kafka.security?.users[1];
      const bootstrap = kafka.listeners.SASL_SSL;
      if (user === undefined || bootstrap === undefined) throw new Error('no SASL_SSL listener');
      return {
        bootstrap,
        options: {
          connection: {
            tls: { ca: readFileSync(kafka.security?.caPemPath ?? '') },
            sasl: { mechanism, username: user.username, password: password ?? user.password },
          },
        },
      };
    };

    it('produces idempotently and a group reads every record back', async () => {
      const topic = unique(`sasl-${mechanism.toLowerCase()}`);
      await kafka.admin.createTopic(topic, { partitions: 2, replicationFactor: 3 });
      const { bootstrap, options } = connection();
      const cluster = await Cluster.connect(bootstrap, options);
      try {
        const producer = new Producer(cluster);
        const total = 200;
        await producer.sendBatch(
          Array.from({ length: total }, (_, i) => ({ topic, key: `k${i % 7}`, value: `v${i}` })),
        );
        await producer.close();
        const consumer = new Consumer(cluster, {
          groupId: unique('sasl-g'),
          topics: [topic],
          autoOffsetReset: 'earliest',
        });
        const seen = new Set<string>();
        for await (const batch of consumer) {
          for (const r of batch.records) seen.add(String(r.value));
          if (seen.size >= total) break;
        }
        await consumer.close();
        expect(seen.size).toBe(total);
        const java = await kafka.admin.consume(topic, { maxRecords: total, timeoutMs: 30_000 });
        expect(java).toHaveLength(total);
      } finally {
        await cluster.close();
      }
    });

    it('a wrong password is a fatal AuthenticationError with the broker reason', async () => {
      const { bootstrap, options } = connection('not-the-password-42');
      const error = await Cluster.connect(bootstrap, options).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error).toMatchObject({ code: 'ERR_KAFKA_AUTHENTICATION_FAILED', retriable: false });
      expect((error as Error).message).toMatch(/Authentication failed/i);
      expect((error as Error).message).not.toContain('not-the-password-42');
    });
  },
);
