import { KafkaError, MetadataApi } from '@kafkats/codec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BrokerConnection, RequestTimeoutError } from '../../src/index.js';
import { startCodecBroker } from '../helpers/codec-broker.js';

const metadata = () => MetadataApi.createRequest({ topics: [], allowAutoTopicCreation: false });

describe('BrokerConnection against arbitrary response bytes (property)', () => {
  it('every outcome is a typed KafkaError or a response; a closed connection is replaced and works', async () => {
    let hostile: Buffer | null = null;
    const broker = await startCodecBroker((raw, conn, reply) => {
      if (raw.apiKey !== MetadataApi.apiKey) return;
      if (hostile !== null) {
        // Raw bytes where the response should be: sometimes framed, sometimes not.
        conn.write(hostile);
        hostile = null;
      } else {
        reply(MetadataApi, MetadataApi.createResponse({ clusterId: 'fine' }));
      }
    });
    // What the pool does: a connection lives as long as its socket, and a closed one is
    // replaced by a new one on the next call.
    const open = () =>
      new BrokerConnection({ host: broker.host, port: broker.port, maxResponseBytes: 4096 });
    let c = open();
    const live = () => {
      if (c.closed) c = open();
      return c;
    };
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.uint8Array({ minLength: 1, maxLength: 600 }),
          fc.boolean(),
          async (bytes, framed) => {
            let payload = Buffer.from(bytes);
            if (framed) {
              const head = Buffer.alloc(4);
              head.writeInt32BE(payload.length, 0);
              payload = Buffer.concat([head, payload]);
            }
            hostile = payload;
            const outcome = await live()
              .send(MetadataApi, metadata(), { timeoutMs: 300 })
              .then(
                () => 'response',
                (e: unknown) => e,
              );
            if (outcome !== 'response') expect(outcome).toBeInstanceOf(KafkaError);
            // A partial frame leaves the request waiting: it times out, which closes the connection.
            if (outcome instanceof RequestTimeoutError) expect(c.closed).toBe(true);
            hostile = null;
            const next = await live()
              .send(MetadataApi, metadata(), { timeoutMs: 5000 })
              .catch((e: unknown) => e);
            if (!(next instanceof Error))
              expect((next as { clusterId: unknown }).clusterId).toBe('fine');
            else expect(next).toBeInstanceOf(KafkaError);
            const again = await live().send(MetadataApi, metadata(), { timeoutMs: 5000 });
            expect(again.clusterId).toBe('fine');
          },
        ),
        { numRuns: 40 },
      );
    } finally {
      await c.close();
      await broker.close();
    }
  }, 120_000);
});
