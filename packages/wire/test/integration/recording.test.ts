import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ApiVersionsApi,
  apiDescriptor,
  createMetadataRequestTopic,
  decodeResponseFrame,
  MetadataApi,
} from '@kafkats/codec';
import {
  loadRecording,
  type Recording,
  saveRecording,
  sharedCluster,
  startFaultProxy,
} from '@kafkats/testkit';
import { describe, expect, it } from 'vitest';
import { BrokerConnection, parseBrokerAddress } from '../../src/index.js';

/**
 * Records a real conversation (ApiVersions, Metadata for no topics, for one topic of 3
 * partitions x RF 3 created by Kafka's Java admin, and for a missing topic) through
 * the fault proxy. The committed fixture `fixtures/recordings/api-versions-metadata.msgpack`
 * was written by this test with KAFKATS_RECORD=1; without it the recording goes to a temp
 * directory and is only checked.
 */
describe('recording a real session through the proxy', () => {
  it('captures every request/response pair as raw frames that the codec decodes', async () => {
    const cluster = sharedCluster();
    const first = cluster.listeners.PLAINTEXT?.split(',')[0];
    if (first === undefined) throw new Error('no PLAINTEXT listener');
    const topic = `recorded-${randomUUID().slice(0, 8)}`;
    await cluster.admin.createTopic(topic, { partitions: 3, replicationFactor: 3 });
    const proxy = await startFaultProxy({ target: parseBrokerAddress(first), record: true });
    const c = new BrokerConnection({
      host: proxy.host,
      port: proxy.port,
      nodeId: 1,
      clientId: 'kafkats-recorder',
    });
    try {
      const named = (name: string) =>
        MetadataApi.createRequest({
          topics: [createMetadataRequestTopic({ name })],
          allowAutoTopicCreation: false,
        });
      await c.send(
        MetadataApi,
        MetadataApi.createRequest({ topics: [], allowAutoTopicCreation: false }),
      );
      const res = await c.send(MetadataApi, named(topic));
      expect(res.topics[0]?.partitions).toHaveLength(3);
      await c.send(MetadataApi, named(`${topic}-missing`));
    } finally {
      await c.close();
      await proxy.close();
    }
    const exchanges = proxy.recording();
    expect(exchanges.map((e) => e.apiKey)).toEqual([
      ApiVersionsApi.apiKey,
      MetadataApi.apiKey,
      MetadataApi.apiKey,
      MetadataApi.apiKey,
    ]);
    for (const e of exchanges) {
      const api = apiDescriptor(e.apiKey);
      if (api === undefined || e.response === null)
        throw new Error(`no response recorded for key ${e.apiKey}`);
      expect(() => decodeResponseFrame(api, e.apiVersion, e.response as Buffer)).not.toThrow();
    }
    const kafkaVersion = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../../../fixtures/kafka-release.json'), 'utf8'),
    ).kafka as string;
    const recording: Recording = {
      format: 'kafkats-recording',
      formatVersion: 1,
      kafkaVersion,
      recordedAt: new Date().toISOString(),
      description: `BrokerConnection against a 3-node KRaft cluster (testkit): ApiVersions; Metadata for no topics; for ${topic} (3 partitions, RF 3); for ${topic}-missing (UNKNOWN_TOPIC_OR_PARTITION)`,
      exchanges,
    };
    const dir =
      process.env.KAFKATS_RECORD === '1'
        ? join(import.meta.dirname, '../../../../fixtures/recordings')
        : mkdtempSync(join(tmpdir(), 'kafkats-recording-'));
    const path = join(dir, 'api-versions-metadata.msgpack');
    await saveRecording(path, recording);
    const back = await loadRecording(path);
    expect(back.kafkaVersion).toBe(kafkaVersion);
    expect(
      back.exchanges.map((e) =>
        e.request.equals(exchanges[back.exchanges.indexOf(e)]?.request ?? Buffer.alloc(0)),
      ),
    ).toEqual([true, true, true, true]);
  });
});
