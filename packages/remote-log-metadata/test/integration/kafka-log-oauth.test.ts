// The metadata event log over SASL/OAUTHBEARER (KIP-255): a writer whose tokens come from an
// OIDC token endpoint (client credentials, KIP-768) creates the topic and writes segment events,
// and a manager on a static token, over a read-only log, catches up with all of them. The
// brokers validate every token with Kafka's own OAuthBearerValidatorCallbackHandler.
import { randomBytes } from 'node:crypto';
import { mintToken, type OAuthServer, sharedCluster, startOAuthServer } from '@kafkats/testkit';
import { oauthClientCredentials } from '@kafkats/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  KafkaMetadataEventLog,
  metadataPartition,
  RemoteLogMetadataManager,
} from '../../src/index.js';
import { randomUuid, segId, segment, tip } from '../support/fixtures.js';

const kafka = sharedCluster();
let server: OAuthServer;
let bootstrap: string;

beforeAll(async () => {
  const oauth = kafka.security?.oauth;
  const sasl = kafka.listeners.SASL_PLAINTEXT;
  if (oauth == null || sasl === undefined) throw new Error('no OAUTHBEARER listener');
  bootstrap = sasl;
  server = await startOAuthServer(oauth, [{ clientId: 'tiering', clientSecret: 'tiering-1' }]);
});
afterAll(async () => {
  await server?.close();
});

describe('KafkaMetadataEventLog over SASL/OAUTHBEARER', () => {
  it('a writer on OIDC tokens writes events that a read-only manager on a static token reads back', async () => {
    const topic = `rlmm-oauth-${randomBytes(4).toString('hex')}`;
    const writerLog = await KafkaMetadataEventLog.start({
      bootstrap,
      topic,
      numPartitions: 3,
      replicationFactor: 3,
      cluster: {
        connection: {
          sasl: {
            mechanism: 'OAUTHBEARER',
            tokenProvider: oauthClientCredentials({
              tokenEndpointUrl: server.tokenEndpointUrl,
              clientId: 'tiering',
              clientSecret: 'tiering-1',
            }),
          },
        },
      },
    });
    const writer = new RemoteLogMetadataManager(writerLog);
    const tp = tip('oauth', 0, randomUuid());
    const oauth = kafka.security?.oauth;
    if (oauth == null) throw new Error('no OAUTHBEARER settings');
    const readerLog = await KafkaMetadataEventLog.openReadOnly({
      bootstrap,
      topic,
      cluster: {
        connection: {
          sasl: {
            mechanism: 'OAUTHBEARER',
            tokenProvider: async () => mintToken(oauth, { subject: 'tiering-reader' }),
          },
        },
      },
    });
    const reader = new RemoteLogMetadataManager(readerLog);
    try {
      await writer.onPartitionLeadershipChanges([tp]);
      await writer.waitUntilReady([tp]);
      for (let i = 0; i < 5; i++) {
        await writer.addRemoteLogSegmentMetadata(
          segment(segId(tp), i * 10, i * 10 + 9, [[0, i * 10]]),
        );
      }
      expect(server.issued.get('tiering')).toBeGreaterThanOrEqual(1);

      await reader.onPartitionLeadershipChanges([tp]);
      await reader.waitUntilReady([tp]);
      expect(reader.listRemoteLogSegments(tp)).toHaveLength(5);
      expect((await readerLog.highWaterMarks()).get(metadataPartition(tp, 3))).toBe(5n);
      // What the writer wrote is on the brokers, as Kafka's own admin sees it.
      const offsets = await kafka.admin.listOffsets(topic, 'latest');
      expect(offsets.reduce((n, p) => n + Number(p.offset), 0)).toBe(5);
    } finally {
      await reader.close();
      await readerLog.close();
      await writer.close();
      await writerLog.close();
    }
  });
});
