// A broker with no state for a producer on a partition (a topic just created, or a producer id it
// forgot) takes a batch with any first sequence (ProducerAppendInfo.checkSequence). The failure these
// pin, seen on the first produce to a new 12-partition topic on a loaded cluster: batch b1
// (sequences 0-6) was refused NOT_LEADER_OR_FOLLOWER or UNKNOWN_TOPIC_OR_PARTITION by a leader
// that had not applied its leadership yet, b2 (sequences 7-13), pipelined behind it, was taken,
// and every resend of b1 was answered OUT_OF_ORDER_SEQUENCE_NUMBER: the producer took it for a
// batch waiting on an earlier one and retried it, unbumped, until deliveryTimeoutMs failed it
// 120 s later, the partition stalled behind it all that time.
import { ErrorCode } from '@kafkats/codec';
import { describe, expect, it } from 'vitest';
import { DeliveryTimeoutError, Producer } from '../../../src/index.js';
import { FakeProduceCluster, type SeenRequest } from './fake-produce-cluster.js';

const ONE_RECORD_BATCHES = {
  batchSize: 1,
  lingerMs: 0,
  retryBackoffMs: 1,
  retryBackoffMaxMs: 5,
  requestTimeoutMs: 500,
  deliveryTimeoutMs: 1500,
} as const;

/** A send whose outcome is read later: the offset, or the error. */
function send(producer: Producer, value: string): Promise<bigint | unknown> {
  return producer.send({ topic: 't', value }).then(
    (m) => m.offset,
    (e: unknown) => e,
  );
}

const sequences = (fake: FakeProduceCluster) =>
  fake.requests.map((r: SeenRequest) => [
    r.batches[0]!.producerEpoch,
    r.batches[0]!.baseSequence,
    r.batches[0]!.errorCode,
  ]);

describe('a batch the broker could let later sequences overtake', () => {
  it('goes alone to a partition until the broker acknowledged a batch of the producer there', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    fake.acceptsAnyFirstSequence = true;
    // The leader has not applied the new topic yet when b1 comes, and has when b2 does.
    let first = true;
    fake.partitionFault = () => {
      const fault = first ? 'unknown-partition' : 'ok';
      first = false;
      return fault;
    };
    const producer = new Producer(fake, ONE_RECORD_BATCHES);
    const outcomes = await Promise.all(['b1', 'b2', 'b3'].map((v) => send(producer, v)));
    await producer.close();
    expect(outcomes).toEqual([0n, 1n, 2n]);
    expect(fake.log('t', 0).values).toEqual(['b1', 'b2', 'b3']);
    expect(sequences(fake)).toEqual([
      [0, 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
      [0, 0, ErrorCode.NONE],
      [0, 1, ErrorCode.NONE],
      [0, 2, ErrorCode.NONE],
    ]);
  });

  it('fails with OUT_OF_ORDER_SEQUENCE_NUMBER once overtaken, at once, and the partition goes on', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    fake.acceptsAnyFirstSequence = true;
    const producer = new Producer(fake, ONE_RECORD_BATCHES);
    expect(await send(producer, 'a')).toBe(0n);
    // The broker forgets the producer (its id expired): b2, pipelined behind the refused b1, is
    // taken with its sequence 2, and b1 can never be written in order any more.
    fake.forgetProducers('t', 0);
    let refused = false;
    fake.partitionFault = (_, b) => {
      if (refused || b.baseSequence !== 1) return 'ok';
      refused = true;
      return 'not-leader';
    };
    const [b1, b2] = await Promise.all([send(producer, 'b1'), send(producer, 'b2')]);
    expect(b1).toMatchObject({ errorName: 'OUT_OF_ORDER_SEQUENCE_NUMBER' });
    expect(b1).not.toBeInstanceOf(DeliveryTimeoutError);
    expect(b2).toBe(1n);
    // No gap after b2: the numbering goes on under the same epoch.
    expect(await send(producer, 'c')).toBe(2n);
    await producer.close();
    expect(fake.log('t', 0).values).toEqual(['a', 'b2', 'c']);
    expect(sequences(fake)).toEqual([
      [0, 0, ErrorCode.NONE],
      [0, 1, ErrorCode.NOT_LEADER_OR_FOLLOWER],
      [0, 2, ErrorCode.NONE],
      [0, 1, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER],
      [0, 3, ErrorCode.NONE],
    ]);
  });
});
