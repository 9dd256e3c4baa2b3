// The read-only gate against real Apache Kafka with ACLs on: a SASL user holding only READ and
// DESCRIBE on one topic reads it through a read-only cluster, and nothing mutating ever reaches
// the broker. What reaches the broker is recorded by a TCP proxy in front of it (the testkit's
// fault proxy), not by our own code.
import { randomUUID } from 'node:crypto';
import {
  AlterConfigsApi,
  CreateTopicsApi,
  createAlterConfigsRequest,
  createCreateTopicsRequest,
  createDeleteRecordsRequest,
  createDescribeConfigsRequest,
  createDescribeConfigsRequestResource,
  createFetchRequest,
  createFetchRequestPartition,
  createFetchRequestTopic,
  createIncrementalAlterConfigsRequest,
  createInitProducerIdRequest,
  createListOffsetsRequest,
  createListOffsetsRequestPartition,
  createListOffsetsRequestTopic,
  createMetadataRequest,
  createMetadataRequestTopic,
  createOffsetCommitRequest,
  createProduceRequest,
  createProduceRequestPartitionProduceData,
  createProduceRequestTopicProduceData,
  DeleteRecordsApi,
  DescribeConfigsApi,
  FetchApi,
  IncrementalAlterConfigsApi,
  InitProducerIdApi,
  ListOffsetsApi,
  MetadataApi,
  OffsetCommitApi,
  ProduceApi,
  ProtocolError,
} from '@kafkats/codec';
import { type KafkaCluster, startCluster, startFaultProxy } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, ReadOnlyError, wireConnectionFactory } from '../../src/index.js';

const MUTATING: Record<string, number> = {
  Produce: 0,
  OffsetCommit: 8,
  CreateTopics: 19,
  DeleteRecords: 21,
  InitProducerId: 22,
  AlterConfigs: 33,
  IncrementalAlterConfigs: 44,
};

describe('a read-only cluster against an ACL-enabled broker', () => {
  let kafka: KafkaCluster;
  beforeAll(async () => {
    kafka = await startCluster({ nodes: 1, acls: true, listeners: ['SASL_PLAINTEXT'] });
  });
  afterAll(async () => {
    await kafka?.stop();
  });

  it('reads with only READ and DESCRIBE, and sends nothing mutating', async () => {
    const alice = kafka.security?.users.find((u) => u.username === 'alice');
    const broker = kafka.brokers[0];
    const saslPort = broker?.ports.SASL_PLAINTEXT;
    if (alice === undefined || broker === undefined || saslPort === undefined)
      throw new Error('the cluster has no SASL listener or no alice');
    const topic = `read-only-${randomUUID().slice(0, 8)}`;
    await kafka.admin.createTopic(topic, { partitions: 1, replicationFactor: 1 });
    await kafka.admin.produce(topic, [
      { value: 'a', partition: 0 },
      { value: 'b', partition: 0 },
    ]);
    await kafka.admin.createAcls([
      { name: topic, principal: 'User:alice', operation: 'READ' },
      { name: topic, principal: 'User:alice', operation: 'DESCRIBE' },
      { name: topic, principal: 'User:alice', operation: 'DESCRIBE_CONFIGS' },
    ]);

    const proxy = await startFaultProxy({
      target: { host: broker.host, port: saslPort },
      record: true,
    });
    const viaProxy = wireConnectionFactory({
      sasl: { mechanism: 'SCRAM-SHA-256', username: alice.username, password: alice.password },
    });
    const cluster = await Cluster.connect(proxy.address, {
      readOnly: true,
      refreshIntervalMs: 0,
      // Every connection (bootstrap and node) goes through the recording proxy.
      connectionFactory: (target) => viaProxy({ ...target, host: proxy.host, port: proxy.port }),
    });
    try {
      // Reads work: Metadata (with the topic id), ListOffsets, Fetch, DescribeConfigs.
      const snapshot = await cluster.refreshTopics([topic]);
      const info = snapshot.topic(topic);
      expect(info?.errorCode).toBe(0);
      const topicId = info?.topicId as string;
      const offsets = await cluster.sendToLeader(
        topic,
        0,
        ListOffsetsApi,
        createListOffsetsRequest({
          replicaId: -1,
          topics: [
            createListOffsetsRequestTopic({
              name: topic,
              partitions: [
                createListOffsetsRequestPartition({ partitionIndex: 0, timestamp: -1n }),
              ],
            }),
          ],
        }),
      );
      expect(offsets.topics[0]?.partitions[0]?.offset).toBe(2n);
      const fetched = await cluster.sendToLeader(topic, 0, FetchApi, (v) =>
        createFetchRequest({
          replicaId: -1,
          maxWaitMs: 100,
          minBytes: 1,
          maxBytes: 1 << 20,
          topics: [
            createFetchRequestTopic({
              ...(v >= 13 ? { topicId } : { topic }),
              partitions: [
                createFetchRequestPartition({
                  partition: 0,
                  fetchOffset: 0n,
                  partitionMaxBytes: 1 << 20,
                }),
              ],
            }),
          ],
        }),
      );
      expect(fetched.responses[0]?.partitions[0]?.errorCode).toBe(0);
      expect(fetched.responses[0]?.partitions[0]?.highWatermark).toBe(2n);
      const configs = await cluster.sendAny(
        DescribeConfigsApi,
        createDescribeConfigsRequest({
          resources: [
            createDescribeConfigsRequestResource({
              resourceType: 2,
              resourceName: topic,
              configurationKeys: null,
            }),
          ],
        }),
      );
      expect(configs.results[0]?.errorCode).toBe(0);
      expect(configs.results[0]?.configs.some((c) => c.name === 'retention.ms')).toBe(true);

      // Every mutating API is refused before it is built; nothing reaches the proxy.
      const refused = await Promise.all(
        [
          cluster.sendToLeader(topic, 0, ProduceApi, createProduceRequest({ acks: -1 })),
          cluster.sendToCoordinator(
            'group',
            'g',
            OffsetCommitApi,
            createOffsetCommitRequest({ groupId: 'g' }),
          ),
          cluster.sendToController(CreateTopicsApi, createCreateTopicsRequest({})),
          cluster.sendToLeader(topic, 0, DeleteRecordsApi, createDeleteRecordsRequest({})),
          cluster.sendAny(InitProducerIdApi, createInitProducerIdRequest({})),
          cluster.sendAny(AlterConfigsApi, createAlterConfigsRequest({})),
          cluster.sendAny(IncrementalAlterConfigsApi, createIncrementalAlterConfigsRequest({})),
        ].map((p) =>
          p.then(
            () => 'sent',
            (e: unknown) => e,
          ),
        ),
      );
      for (const r of refused) expect(r).toBeInstanceOf(ReadOnlyError);

      // A connection handed out by openConnection() passes the gate on its own send, and a
      // Metadata request letting the broker create the topics it names is refused on every path.
      const missing = `read-only-missing-${randomUUID().slice(0, 8)}`;
      const creating = createMetadataRequest({
        topics: [createMetadataRequestTopic({ name: missing })],
        allowAutoTopicCreation: true,
      });
      const dedicated = await cluster.openConnection(broker.nodeId);
      const version = (key: number) => dedicated.negotiatedVersion(key) as number;
      const refusedToo = await Promise.all(
        [
          dedicated.send(ProduceApi, createProduceRequest({ acks: -1 }), { version: version(0) }),
          dedicated.send(CreateTopicsApi, createCreateTopicsRequest({}), { version: version(19) }),
          dedicated.send(MetadataApi, creating, { version: version(3) }),
          cluster.sendOn(dedicated, MetadataApi, creating),
          cluster.sendAny(MetadataApi, creating),
          cluster.sendToNode(broker.nodeId, MetadataApi, creating),
        ].map((p) =>
          p.then(
            () => 'sent',
            (e: unknown) => e,
          ),
        ),
      );
      for (const r of refusedToo) expect(r).toBeInstanceOf(ReadOnlyError);
      // Reads still go through the handed-out connection.
      const described = await dedicated.send(
        MetadataApi,
        createMetadataRequest({
          topics: [createMetadataRequestTopic({ name: topic })],
          allowAutoTopicCreation: false,
        }),
        { version: version(3) },
      );
      expect(described.topics[0]?.errorCode).toBe(0);
      await dedicated.close();
      const named = proxy
        .recording()
        .filter((e) => e.apiKey === MetadataApi.apiKey && e.request.includes(missing));
      expect(named).toEqual([]);

      const seen = proxy.recording().map((e) => e.apiKey);
      const counts = new Map<number, number>();
      for (const k of seen) counts.set(k, (counts.get(k) ?? 0) + 1);
      for (const [name, key] of Object.entries(MUTATING))
        expect(counts.get(key) ?? 0, `${name} reached the broker`).toBe(0);
      expect(counts.get(MetadataApi.apiKey) ?? 0).toBeGreaterThan(0);
      expect(counts.get(FetchApi.apiKey)).toBe(1);
      expect(counts.get(ListOffsetsApi.apiKey)).toBe(1);
      expect(counts.get(DescribeConfigsApi.apiKey)).toBe(1);
      console.log(
        `read-only over ACLs: ${[...counts].map(([k, n]) => `key ${k} x${n}`).join(', ')} reached the broker; ${refused.length} mutating requests refused locally`,
      );
    } finally {
      await cluster.close();
    }

    // Control: the same principal without the gate gets as far as the broker, which refuses
    // the write by ACL; the proxy sees that Produce. The gate, not the ACL, kept it off the wire.
    const open = await Cluster.connect(proxy.address, {
      refreshIntervalMs: 0,
      connectionFactory: (target) => viaProxy({ ...target, host: proxy.host, port: proxy.port }),
    });
    try {
      const answer = await open.sendToLeader(
        topic,
        0,
        ProduceApi,
        createProduceRequest({
          acks: -1,
          timeoutMs: 5000,
          topicData: [
            createProduceRequestTopicProduceData({
              name: topic,
              partitionData: [createProduceRequestPartitionProduceData({ index: 0 })],
            }),
          ],
        }),
        // By name: Produce v13+ names topics by id.
        { maxAttempts: 1, version: 12 },
      );
      const code = answer.responses[0]?.partitionResponses[0]?.errorCode;
      expect(new ProtocolError(code ?? 0).errorName).toBe('TOPIC_AUTHORIZATION_FAILED');
      expect(proxy.recording().filter((e) => e.apiKey === ProduceApi.apiKey)).toHaveLength(1);
    } finally {
      await open.close();
      await proxy.close();
    }
  });
});
