// Produce v13 (KIP-516) names topics by id, and the broker answers by id with an empty name:
// each batch finds its answer through the id its request carried. An answer whose id is not
// the batch's topic's leaves that batch unanswered, and it goes again.
import type { ApiDescriptor, ProduceResponse } from '@kafkats/codec';
import type { ClusterSendOptions, RequestInput } from '@kafkats/meta';
import { describe, expect, it } from 'vitest';
import { Producer, type RecordMetadata } from '../../../src/index.js';
import { FakeProduceCluster } from './fake-produce-cluster.js';

/** A fake broker that takes Produce v13 and answers each topic by id only. */
class TopicIdCluster extends FakeProduceCluster {
  /** The id the answer gives a topic (default: the topic's id in the metadata). */
  answerId: (topic: string, request: number) => string = (topic) =>
    this.snapshot().topic(topic)?.topicId ?? '';
  /** Topic ids the requests carried, per request. */
  readonly requestIds: string[][] = [];

  override sendToNode<Req, Res>(
    node: number,
    api: ApiDescriptor<Req, Res>,
    input: RequestInput<Req>,
    options?: ClusterSendOptions,
  ): Promise<Res> {
    const built = typeof input === 'function' ? (input as (v: number) => Req)(13) : input;
    const n = this.requestIds.length;
    this.requestIds.push(
      (built as { topicData: { topicId: string }[] }).topicData.map((t) => t.topicId),
    );
    return super.sendToNode(node, api, built, options).then((response) => {
      for (const t of (response as ProduceResponse).responses) {
        t.topicId = this.answerId(t.name, n);
        t.name = '';
      }
      return response;
    });
  }
}

describe('Produce answered by topic id (v13)', () => {
  it('completes every batch from the answer for its topic id', async () => {
    const fake = new TopicIdCluster({ a: 2, b: 1 });
    const producer = new Producer(fake, { lingerMs: 5 });
    const sent: Promise<RecordMetadata>[] = [];
    for (let i = 0; i < 6; i++) {
      sent.push(producer.send({ topic: 'a', partition: i % 2, value: `a${i}` }));
      sent.push(producer.send({ topic: 'b', partition: 0, value: `b${i}` }));
    }
    const metadata = await Promise.all(sent);
    await producer.close();
    const ids = new Set(fake.requestIds.flat());
    expect(ids).toEqual(
      new Set([fake.snapshot().topic('a')?.topicId, fake.snapshot().topic('b')?.topicId]),
    );
    for (let i = 0; i < 6; i++) {
      expect(metadata[2 * i]).toMatchObject({
        topic: 'a',
        partition: i % 2,
        offset: BigInt(Math.floor(i / 2)),
      });
      expect(metadata[2 * i + 1]).toMatchObject({ topic: 'b', partition: 0, offset: BigInt(i) });
    }
    expect(fake.log('a', 0).values).toEqual(['a0', 'a2', 'a4']);
    expect(fake.log('b', 0).values).toEqual(['b0', 'b1', 'b2', 'b3', 'b4', 'b5']);
  });

  it('sends a batch again when the answer names another topic id, and delivers it once', async () => {
    const fake = new TopicIdCluster({ a: 1 });
    // The first answer is about an id the request did not carry.
    fake.answerId = (topic, request) =>
      request === 0 ? 'AAAAAAAAAAAAAAAAAAAAAQ' : (fake.snapshot().topic(topic)?.topicId ?? '');
    const producer = new Producer(fake, { retryBackoffMs: 1, retryBackoffMaxMs: 1 });
    const metadata = await producer.send({ topic: 'a', value: 'x' });
    await producer.close();
    expect(fake.requestIds.length).toBe(2);
    expect(metadata).toMatchObject({ topic: 'a', partition: 0, offset: 0n });
    // The broker wrote it with the first request; the second was a duplicate of it.
    expect(fake.log('a', 0).values).toEqual(['x']);
  });
});
