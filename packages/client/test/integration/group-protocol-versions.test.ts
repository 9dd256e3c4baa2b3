// The group protocol a Consumer can use depends on the broker release. KIP-848's consumer
// protocol (`groupProtocol: 'consumer'`, the default) is on by default from Kafka 4.0. A 3.9
// broker advertises ConsumerGroupHeartbeat v0 but, with its default
// `group.coordinator.rebalance.protocols=classic`, refuses it per request with
// UNSUPPORTED_VERSION: the Consumer must fail `start()` with GroupProtocolUnsupportedError (not
// a protocol error, not a retry loop) and the same group works with `groupProtocol: 'classic'`.
// The test reads the release from the shared cluster and says which case it checks.
import { Cluster } from '@kafkats/meta';
import { kafkaVersionAtLeast, sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Consumer, GroupProtocolUnsupportedError } from '../../src/index.js';
import { unique } from './admin-support.js';
import { Member, produceNumbered, Tally, waitFor } from './consumer-support.js';

const kafka = sharedCluster();
const release = kafka.description.kafkaVersion;
/** KIP-848 is on by default from Kafka 4.0 (GA); 3.9 brokers leave it off. */
const kip848 = kafkaVersionAtLeast(release, '4.0');

let cluster: Cluster;
beforeAll(async () => {
  cluster = await Cluster.connect(kafka.bootstrap);
});
afterAll(async () => {
  await cluster?.close();
});

async function topicWith(records: number): Promise<string> {
  const topic = unique('gp-versions');
  await kafka.admin.createTopic(topic, { partitions: 2, replicationFactor: 3 });
  await cluster.refreshTopics([topic]);
  await produceNumbered(cluster, topic, records, 2, { perRound: records, pauseMs: 0 }).done;
  return topic;
}

async function consumeAll(groupProtocol: 'consumer' | 'classic', topic: string, total: number) {
  const tally = new Tally();
  const member = new Member(
    cluster,
    { groupId: unique('g-gp'), groupProtocol, topics: [topic] },
    tally,
  );
  try {
    await waitFor(
      () => tally.counts.size >= total || member.error !== undefined,
      90_000,
      `${total} records`,
    );
    expect(member.error).toBeUndefined();
  } finally {
    await member.close();
  }
  expect(tally.missing(total)).toEqual([]);
  expect(tally.duplicates()).toEqual([]);
}

describe(`group protocols on Kafka ${release} (KIP-848 consumer protocol ${kip848 ? 'on by default' : 'off by default'})`, () => {
  if (kip848) {
    it(`groupProtocol 'consumer' joins through ConsumerGroupHeartbeat and reads every record (Kafka ${release} >= 4.0)`, async () => {
      const topic = await topicWith(50);
      await consumeAll('consumer', topic, 50);
    });
  } else {
    it(`groupProtocol 'consumer' fails start() with GroupProtocolUnsupportedError (Kafka ${release} < 4.0 refuses ConsumerGroupHeartbeat)`, async () => {
      const topic = await topicWith(10);
      const consumer = new Consumer(cluster, {
        groupId: unique('g-gp-848'),
        groupProtocol: 'consumer',
        topics: [topic],
      });
      try {
        const started = consumer.start();
        await expect(started).rejects.toBeInstanceOf(GroupProtocolUnsupportedError);
        await expect(started).rejects.toMatchObject({
          code: 'ERR_KAFKA_CONSUMER_GROUP_PROTOCOL_UNSUPPORTED',
          retriable: false,
          message: expect.stringContaining("use groupProtocol: 'classic'"),
        });
      } finally {
        await consumer.close();
      }
    });
  }

  it(`groupProtocol 'classic' reads every record on every supported release`, async () => {
    const topic = await topicWith(50);
    await consumeAll('classic', topic, 50);
  });
});
