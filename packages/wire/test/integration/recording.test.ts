import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiVersionsApi, apiDescriptor, decodeResponseFrame, MetadataApi } from '@kafkats/codec';
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
 * Records a real conversation (ApiVersions, Metadata for all topics and for none) through
 * the fault proxy. The committed fixture `fixtures/recordings/api-versions-metadata.msgpack`
 * was written by this test with KAFKATS_RECORD=1; without it the recording goes to a temp
 * directory and is only checked.
 */
describe('recording a real session through the proxy', () => {
  it('captures every request/response pair as raw frames that the codec decodes', async () => {
    const cluster = sharedCluster();
    const first = cluster.listeners.PLAINTEXT?.split(',')[0];
    if (first === undefined) throw new Error('no PLAINTEXT listener');
    const proxy = await startFaultProxy({ target: parseBrokerAddress(first), record: true });
    const c = new BrokerConnection({
      host: proxy.host,
      port: proxy.port,
      nodeId: 1,
      clientId: 'kafkats-recorder',
    });
    try {
      await c.send(
        MetadataApi,
        MetadataApi.createRequest({ topics: null, allowAutoTopicCreation: false }),
      );
      await c.send(
        MetadataApi,
        MetadataApi.createRequest({ topics: [], allowAutoTopicCreation: false }),
      );
    } finally {
      await c.close();
      await proxy.close();
    }
    const exchanges = proxy.recording();
    expect(exchanges.map((e) => e.apiKey)).toEqual([
      ApiVersionsApi.apiKey,
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
      description:
        'BrokerConnection against a 3-node KRaft cluster (testkit): ApiVersions, Metadata all topics, Metadata no topics',
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
    ).toEqual([true, true, true]);
  });
});
