import { ErrorCode, ProtocolError } from '@kafkats/codec';
import { describe, expect, it } from 'vitest';
import {
  DeliveryTimeoutError,
  Producer,
  ProducerBlockedError,
  ProducerClosedError,
  ProducerConfigError,
  partitionForKey,
  RecordTooLargeError,
  TransactionStateError,
} from '../../../src/index.js';
import { FakeProduceCluster } from './fake-produce-cluster.js';

/** One record per batch, sent at once, retried fast: every batch's numbering is visible. */
const ONE_RECORD_BATCHES = {
  batchSize: 1,
  lingerMs: 0,
  retryBackoffMs: 1,
  retryBackoffMaxMs: 5,
  requestTimeoutMs: 500,
  deliveryTimeoutMs: 2000,
} as const;

const sendAll = (producer: Producer, topic: string, n: number, partition?: number) =>
  Promise.all(
    Array.from({ length: n }, (_, i) =>
      producer.send({ topic, value: `v${i}`, ...(partition === undefined ? {} : { partition }) }),
    ),
  );

/**
 * Holds the Produce answers of requests sent from now on; the returned function lets them
 * come, and requests sent after it are answered at once.
 */
function holdAnswers(fake: FakeProduceCluster): () => void {
  let release!: () => void;
  fake.gate = new Promise((r) => {
    release = r;
  });
  return () => {
    fake.gate = undefined;
    release();
  };
}

/**
 * An application's loop awaiting each `send(record, callback)` to topic `t`: records of 150
 * bytes, `i` in every byte, each larger than the tests' batchSize (a batch of its own, closed
 * at once). `appended()`: sends whose await has returned; `acked`: indexes delivered, in order.
 */
function awaitingLoop(producer: Producer, n: number) {
  let appended = 0;
  const acked: number[] = [];
  const loop = (async () => {
    for (let i = 0; i < n; i++) {
      await producer.send({ topic: 't', value: Buffer.alloc(150, i) }, (error) => {
        if (error === null) acked.push(i);
      });
      appended++;
    }
  })();
  return { loop, acked, appended: () => appended };
}

describe('Producer defaults', () => {
  it('sends with acks=all and idempotence (producer id, epoch 0, sequence 0) unless told otherwise', async () => {
    const fake = new FakeProduceCluster({ t: 3 });
    const producer = new Producer(fake);
    const m = await producer.send({ topic: 't', partition: 1, value: 'x' });
    await producer.close();
    expect(m).toMatchObject({ topic: 't', partition: 1, offset: 0n });
    expect(typeof m.timestamp).toBe('bigint');
    expect(fake.requests[0]).toMatchObject({
      acks: -1,
      batches: [{ topic: 't', partition: 1, producerEpoch: 0, baseSequence: 0, count: 1 }],
    });
  });

  it('acks=0 is an explicit choice: no idempotence, offsets unknown', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    const producer = new Producer(fake, { acks: 0 });
    const m = await producer.send({ topic: 't', value: 'x' });
    await producer.close();
    expect(fake.requests[0]?.acks).toBe(0);
    expect(fake.requests[0]?.batches[0]?.baseSequence).toBe(-1);
    expect(m.offset).toBe(-1n);
  });

  it('refuses idempotence with acks 1, and a delivery timeout shorter than linger + request timeout', () => {
    expect(() => new Producer(new FakeProduceCluster({}), { acks: 1, idempotent: true })).toThrow(
      ProducerConfigError,
    );
    expect(
      () =>
        new Producer(new FakeProduceCluster({}), {
          deliveryTimeoutMs: 1000,
          requestTimeoutMs: 5000,
        }),
    ).toThrow(ProducerConfigError);
    expect(() => new Producer(new FakeProduceCluster({}), { maxInFlight: 6 })).toThrow(
      ProducerConfigError,
    );
  });
});

describe('Producer batching and routing', () => {
  it('puts one batch per partition in one Produce request per leader broker', async () => {
    // Partitions 0 and 3 are led by broker 1, 1 and 4 by broker 2, 2 and 5 by broker 3.
    const fake = new FakeProduceCluster({ t: 6 });
    const producer = new Producer(fake, { lingerMs: 20 });
    await Promise.all(
      [0, 1, 2, 3, 4, 5].map((p) => producer.send({ topic: 't', partition: p, value: 'x' })),
    );
    await producer.close();
    expect(fake.requests).toHaveLength(3);
    for (const r of fake.requests) {
      expect(r.batches.map((b) => b.partition % 3 === r.node - 1)).toEqual([true, true]);
    }
  });

  it('a broker with a ready batch also takes the open batches of its other partitions', async () => {
    // Kafka's Sender drains every partition of a ready node. Partitions 0 and 3 are led by
    // broker 1, 1 and 4 by broker 2, 2 and 5 by broker 3; one request in flight per broker.
    const fake = new FakeProduceCluster({ t: 6 });
    const release = holdAnswers(fake);
    const producer = new Producer(fake, {
      idempotent: false,
      acks: 1,
      maxInFlight: 1,
      lingerMs: 60_000,
      batchSize: 200,
    });
    const big = Buffer.alloc(150);
    const sent: Promise<unknown>[] = [];
    const send = (partition: number, value: Buffer | string) =>
      sent.push(producer.send({ topic: 't', partition, value }));
    // Brokers 1 and 2 each get a full batch on the wire and a second one queued behind it;
    // each record fills its batch, so the next record closes it.
    for (const p of [0, 1]) for (let i = 0; i < 3; i++) send(p, big);
    await new Promise((r) => setImmediate(r));
    expect(fake.requests.map((r) => r.node)).toEqual([1, 2]);
    // Open batches: partition 3 (broker 1), 4 (broker 2) and 5 (broker 3, nothing ready).
    for (const p of [3, 4, 5]) send(p, 'x');
    release();
    // Acknowledged long before lingerMs only if they went with their brokers' ready batches.
    await Promise.all([sent[6], sent[7]]);
    const later = fake.requests.slice(2).map((r) => ({
      node: r.node,
      partitions: r.batches.map((b) => b.partition).sort(),
    }));
    expect(later).toEqual(
      expect.arrayContaining([
        { node: 1, partitions: [0, 3] },
        { node: 2, partitions: [1, 4] },
      ]),
    );
    expect(later.some((r) => r.partitions.includes(5))).toBe(false);
    await producer.close();
    await Promise.all(sent);
    expect(fake.log('t', 5).values).toEqual(['x']);
  });

  it('a loop awaiting each send waits while a full batch is queued behind maxInFlight', async () => {
    // Node reads no answer while such a loop runs on settled promises: without a pause it would
    // fill bufferMemory (32 MiB here) before the broker's first answer was read.
    const fake = new FakeProduceCluster({ t: 1 });
    const release = holdAnswers(fake);
    const producer = new Producer(fake, { maxInFlight: 1, lingerMs: 60_000, batchSize: 200 });
    const run = awaitingLoop(producer, 20);
    while (fake.requests.length < 1) await new Promise((r) => setImmediate(r));
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    // The first batch in flight, the second queued behind it: the second send waits.
    expect(run.appended()).toBe(1);
    expect(fake.requests).toHaveLength(1);
    expect(producer.metrics().bufferedBytes).toBeLessThanOrEqual(2 * 240);
    release();
    await run.loop;
    await producer.flush();
    expect(run.acked).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(fake.log('t', 0).values.map((v) => String(v).charCodeAt(0))).toEqual(run.acked);
    await producer.close();
  });

  it('a loop awaiting each send waits while two of its batches compress off the main thread', async () => {
    // A gzip batch is sealed when node:zlib answers, as a macrotask that a loop awaiting only
    // settled promises never yields to: without a pause it would fill bufferMemory first.
    const fake = new FakeProduceCluster({ t: 1 });
    const producer = new Producer(fake, { compression: 'gzip', lingerMs: 60_000, batchSize: 100 });
    const run = awaitingLoop(producer, 20);
    // Microtasks only: no compression can have answered.
    for (let i = 0; i < 100; i++) await Promise.resolve();
    // The first batch compresses and the loop goes on; the second's send waits.
    expect(run.appended()).toBe(1);
    await run.loop;
    await producer.flush();
    expect(run.acked).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(fake.log('t', 0).values.map((v) => String(v).charCodeAt(0))).toEqual(run.acked);
    await producer.close();
  });

  it('a full batch queued for one broker does not hold sends to another', async () => {
    // Partition 0 is led by broker 1, partition 1 by broker 2.
    const fake = new FakeProduceCluster({ t: 6 });
    const release = holdAnswers(fake);
    const producer = new Producer(fake, { maxInFlight: 1, lingerMs: 60_000, batchSize: 200 });
    const toBroker1 = (value: Buffer) =>
      producer.send({ topic: 't', partition: 0, value }, () => {});
    // Records larger than batchSize, each a batch of its own: one in flight, one queued.
    void toBroker1(Buffer.alloc(150));
    void toBroker1(Buffer.alloc(150));
    while (fake.requests.length < 1) await new Promise((r) => setImmediate(r));
    let held = true;
    const third = toBroker1(Buffer.alloc(150)).then(() => {
      held = false;
    });
    // Records to broker 2 that fill no batch go on while broker 1's queue waits.
    for (let i = 0; i < 3; i++)
      await producer.send({ topic: 't', partition: 1, value: 'x' }, () => {});
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    expect(held).toBe(true);
    release();
    await third;
    await producer.close();
    expect(fake.log('t', 0).values).toHaveLength(3);
    expect(fake.log('t', 1).values).toEqual(['x', 'x', 'x']);
  });

  it('an open batch behind one just drained stays open until full or lingerMs', async () => {
    // A drain pass takes one batch per partition and round; the open batch behind it is not
    // closed because its partition's broker was ready for the batch before it.
    const fake = new FakeProduceCluster({ t: 1 });
    const release = holdAnswers(fake);
    // Not idempotent: an idempotent producer sends one batch at a time until the partition's
    // first is acknowledged.
    const producer = new Producer(fake, {
      idempotent: false,
      acks: 1,
      maxInFlight: 2,
      lingerMs: 60_000,
      batchSize: 200,
    });
    const sent: Promise<unknown>[] = [];
    const send = (value: Buffer) => sent.push(producer.send({ topic: 't', value }, () => {}));
    // Records larger than batchSize, each a batch of its own: two in flight, a third queued;
    // then an open batch with one small record.
    for (let i = 0; i < 3; i++) send(Buffer.alloc(150));
    send(Buffer.alloc(10));
    while (fake.requests.length < 2) await new Promise((r) => setImmediate(r));
    release();
    await Promise.all(sent);
    while (fake.requests.length < 3) await new Promise((r) => setImmediate(r));
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    // The queued one went; the open one is still open and takes more records.
    expect(fake.requests).toHaveLength(3);
    for (let i = 0; i < 4; i++) send(Buffer.alloc(10));
    await producer.flush();
    expect(fake.requests.map((r) => r.batches.map((b) => b.count))).toEqual([[1], [1], [1], [5]]);
    await producer.close();
  });

  it('closes a batch at batchSize and keeps offsets in send order', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    const producer = new Producer(fake, { batchSize: 200, lingerMs: 50 });
    const results = await sendAll(producer, 't', 40, 0);
    await producer.close();
    expect(results.map((r) => r.offset)).toEqual(results.map((_, i) => BigInt(i)));
    expect(fake.log('t', 0).values).toEqual(results.map((_, i) => `v${i}`));
    expect(fake.requests.length).toBeGreaterThan(1);
  });

  it('partitions keyed records by murmur2 of the key bytes', async () => {
    const fake = new FakeProduceCluster({ t: 5 });
    const producer = new Producer(fake);
    const m = await producer.send({ topic: 't', key: 'order-42', value: 'x' });
    await producer.close();
    expect(m.partition).toBe(partitionForKey(Buffer.from('order-42'), 5));
  });

  it('flush sends at once, without waiting for lingerMs', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    const producer = new Producer(fake, { lingerMs: 60_000, deliveryTimeoutMs: 120_000 });
    const pending = producer.send({ topic: 't', value: 'x' });
    await producer.flush();
    await expect(pending).resolves.toMatchObject({ offset: 0n });
    await producer.close();
  });
});

describe('Producer retries', () => {
  it('resends a batch with the same sequence after a lost answer, and the broker keeps it once', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    let n = 0;
    fake.fault = () => (n++ === 0 ? 'lost-after' : 'ok');
    const producer = new Producer(fake, { retryBackoffMs: 1 });
    const m = await producer.send({ topic: 't', value: 'x' });
    await producer.close();
    expect(fake.requests.map((r) => r.batches[0]?.baseSequence)).toEqual([0, 0]);
    expect(fake.log('t', 0).values).toEqual(['x']);
    expect(m.offset).toBe(0n);
  });

  it('reports DUPLICATE_SEQUENCE_NUMBER as success with an unknown offset', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    fake.log('t', 0).nextError = ErrorCode.DUPLICATE_SEQUENCE_NUMBER;
    const producer = new Producer(fake);
    await expect(producer.send({ topic: 't', value: 'x' })).resolves.toMatchObject({ offset: -1n });
    await producer.close();
  });

  it('bumps the epoch and restarts sequences at 0 when the broker lost the producer state', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    const producer = new Producer(fake, { retryBackoffMs: 1 });
    await sendAll(producer, 't', 3, 0);
    await producer.send({ topic: 't', partition: 0, value: 'second' });
    // Retention removed everything the producer wrote: the broker forgot it.
    const log = fake.log('t', 0);
    log.producers.clear();
    log.logStartOffset = BigInt(log.values.length);
    const m = await producer.send({ topic: 't', partition: 0, value: 'after' });
    await producer.close();
    const last = fake.requests.map((r) => r.batches[0]!);
    expect(last.at(-2)).toMatchObject({ producerEpoch: 0, baseSequence: 4 });
    expect(last.at(-1)).toMatchObject({ producerEpoch: 1, baseSequence: 0 });
    expect(m.offset).toBe(4n);
  });

  it('bumps the epoch after OUT_OF_ORDER_SEQUENCE_NUMBER on the next expected sequence', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    const producer = new Producer(fake, { retryBackoffMs: 1 });
    await producer.send({ topic: 't', value: 'a' });
    fake.log('t', 0).nextError = ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER;
    await producer.send({ topic: 't', value: 'b' });
    await producer.close();
    expect(
      fake.requests.map((r) => [r.batches[0]!.producerEpoch, r.batches[0]!.baseSequence]),
    ).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
    ]);
    expect(fake.log('t', 0).values).toEqual(['a', 'b']);
  });

  it('renumbers a partition still on the old epoch when its batch fails after another partition bumped', async () => {
    // Partition 0 has three batches out under epoch 0 when partition 1's sequence gap bumps the
    // producer to epoch 1. Then the first of the three fails for good: the other two must start
    // epoch 1 at sequence 0, not resend epoch 0 sequences the broker will never accept.
    const fake = new FakeProduceCluster({ t: 2 });
    const producer = new Producer(fake, ONE_RECORD_BATCHES);
    await producer.send({ topic: 't', partition: 0, value: 'a' });
    await producer.send({ topic: 't', partition: 1, value: 'q0' });
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    // Partition 0 (broker 1): its epoch 0 answers wait until partition 1 has bumped the epoch.
    fake.fault = (request) => {
      const epoch0 = request.node === 1 && request.batches.some((b) => b.producerEpoch === 0);
      fake.gate = epoch0 ? held : undefined;
      return 'ok';
    };
    fake.log('t', 0).nextError = ErrorCode.MESSAGE_TOO_LARGE;
    const outcomes = ['b1', 'b2', 'b3'].map((value) =>
      producer.send({ topic: 't', partition: 0, value }).then(
        (m) => m.offset,
        (e: unknown) => e,
      ),
    );
    fake.log('t', 1).nextError = ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER;
    await producer.send({ topic: 't', partition: 1, value: 'q1' });
    release();
    const [b1, b2, b3] = await Promise.all(outcomes);
    expect(b1).toMatchObject({ errorName: 'MESSAGE_TOO_LARGE' });
    expect([b2, b3]).toEqual([1n, 2n]);
    // Neither partition bumps again: both go on numbering under epoch 1.
    const more = await Promise.all([
      producer.send({ topic: 't', partition: 0, value: 'c' }),
      producer.send({ topic: 't', partition: 1, value: 'q2' }),
    ]);
    await producer.close();
    expect(more.map((m) => m.offset)).toEqual([3n, 2n]);
    expect(fake.log('t', 0).values).toEqual(['a', 'b2', 'b3', 'c']);
    const sent = (partition: number) =>
      fake.requests
        .flatMap((r) => r.batches)
        .filter((b) => b.partition === partition)
        .map((b) => [b.producerEpoch, b.baseSequence]);
    expect(sent(0)).toEqual([
      [0, 0],
      [0, 1],
      [0, 2],
      [0, 3],
      [1, 0],
      [1, 1],
      [1, 2],
    ]);
    expect(sent(1)).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
      [1, 1],
    ]);
  });

  it('bumps again when a renumbered batch, resent, meets a real gap', async () => {
    // After a bump renumbered b1 and b2, the broker acknowledged b1 under epoch 1 and then lost
    // it (an unclean leader election). b2, resent under epoch 1, is the next sequence the
    // producer knows of, yet out of order: only another bump lets it through.
    const fake = new FakeProduceCluster({ t: 1 });
    const producer = new Producer(fake, ONE_RECORD_BATCHES);
    await producer.send({ topic: 't', value: 'a' });
    const log = fake.log('t', 0);
    log.nextError = ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER;
    let lost = false;
    fake.fault = (request) => {
      const b = request.batches[0];
      if (!lost && b?.producerEpoch === 1 && b.baseSequence === 1) {
        lost = true;
        log.values.pop();
        for (const p of log.producers.values()) {
          p.lastSeq = -1;
          p.cache.length = 0;
        }
      }
      return 'ok';
    };
    const [b1, b2] = await Promise.all(
      ['b1', 'b2'].map((value) => producer.send({ topic: 't', value })),
    );
    await producer.close();
    expect(lost).toBe(true);
    expect([b1?.offset, b2?.offset]).toEqual([1n, 1n]);
    expect(log.values).toEqual(['a', 'b2']);
    expect(
      fake.requests.map((r) => [r.batches[0]!.producerEpoch, r.batches[0]!.baseSequence]),
    ).toEqual([
      [0, 0],
      [0, 1],
      [0, 2],
      [1, 0],
      [1, 1],
      [2, 0],
    ]);
  });

  it('fails records with DeliveryTimeoutError (cause: the last error) after deliveryTimeoutMs', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    fake.fault = () => 'not-leader';
    const producer = new Producer(fake, {
      deliveryTimeoutMs: 300,
      requestTimeoutMs: 100,
      retryBackoffMs: 10,
      retryBackoffMaxMs: 20,
    });
    const error = await producer.send({ topic: 't', value: 'x' }).catch((e: unknown) => e);
    await producer.close();
    expect(error).toBeInstanceOf(DeliveryTimeoutError);
    expect((error as DeliveryTimeoutError).code).toBe('ERR_KAFKA_PRODUCER_DELIVERY_TIMEOUT');
    expect(((error as Error).cause as { errorName?: string }).errorName).toBe(
      'NOT_LEADER_OR_FOLLOWER',
    );
  });

  it('keeps at most maxInFlight batches of a partition outstanding', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    const producer = new Producer(fake, { batchSize: 100, lingerMs: 0, maxInFlight: 3 });
    // One at a time until the broker acknowledged a batch of the producer (it has state then).
    await producer.send({ topic: 't', value: 'first' });
    let open!: () => void;
    fake.gate = new Promise((r) => {
      open = r;
    });
    const results = sendAll(producer, 't', 60, 0);
    await new Promise((r) => setTimeout(r, 50));
    expect(fake.requests).toHaveLength(4);
    open();
    await results;
    await producer.close();
    expect(fake.requests.length).toBeGreaterThan(4);
  });
});

describe('Producer record headers', () => {
  it('takes headers as a list (keys may repeat) or as an object, in order, values as bytes, strings or null', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    const producer = new Producer(fake, { lingerMs: 0 });
    await producer.send({
      topic: 't',
      value: 'list',
      headers: [
        { key: 'a', value: '1' },
        { key: 'a', value: Buffer.from('2') },
        { key: 'b', value: null },
      ],
    });
    await producer.send({
      topic: 't',
      value: 'object',
      headers: { trace: 'x-1', bytes: Buffer.from([0x68, 0x69]), gone: null },
    });
    await producer.send({ topic: 't', value: 'none' });
    await producer.close();
    expect(fake.log('t', 0).values).toEqual(['list', 'object', 'none']);
    expect(fake.log('t', 0).headers).toEqual([
      [
        ['a', '1'],
        ['a', '2'],
        ['b', null],
      ],
      [
        ['trace', 'x-1'],
        ['bytes', 'hi'],
        ['gone', null],
      ],
      [],
    ]);
  });
});

describe('Producer limits and lifecycle', () => {
  it('rejects a send with BUFFER_EXHAUSTED when bufferMemory stays full for maxBlockMs', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    fake.gate = new Promise(() => {});
    const producer = new Producer(fake, { bufferMemory: 300, maxBlockMs: 50, lingerMs: 0 });
    void producer.send({ topic: 't', value: Buffer.alloc(200) }).catch(() => {});
    const error = await producer
      .send({ topic: 't', value: Buffer.alloc(200) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProducerBlockedError);
    expect((error as ProducerBlockedError).code).toBe('ERR_KAFKA_PRODUCER_BUFFER_EXHAUSTED');
    await producer.close({ timeoutMs: 10 });
  });

  it('a record that waits for room gets its whole maxBlockMs after an earlier wait ended', async () => {
    // The wait timer stays armed across waits (for the first waiter's deadline); a later
    // waiter must not fail when that earlier deadline passes, nor hang past its own.
    const fake = new FakeProduceCluster({ t: 1 });
    let release!: () => void;
    fake.gate = new Promise((r) => {
      release = r;
    });
    const producer = new Producer(fake, { bufferMemory: 300, maxBlockMs: 120, lingerMs: 0 });
    const first = producer.send({ topic: 't', value: Buffer.alloc(200) });
    const second = producer.send({ topic: 't', value: Buffer.alloc(200) });
    await new Promise((r) => setTimeout(r, 40));
    // The first answer frees room for the second; its own answer is held from now on.
    const held = fake.gate;
    fake.gate = new Promise(() => {});
    release();
    await held;
    await first;
    await new Promise((r) => setTimeout(r, 20));
    const thirdAt = Date.now();
    const third = await producer
      .send({ topic: 't', value: Buffer.alloc(200) })
      .then(() => 'sent')
      .catch((e: unknown) => e);
    expect(third).toBeInstanceOf(ProducerBlockedError);
    expect((third as ProducerBlockedError).code).toBe('ERR_KAFKA_PRODUCER_BUFFER_EXHAUSTED');
    expect(Date.now() - thirdAt).toBeGreaterThanOrEqual(119);
    expect(fake.log('t', 0).values).toHaveLength(2);
    void second.catch(() => {});
    await producer.close({ timeoutMs: 10 });
  });

  it('rejects a topic missing from metadata with METADATA_TIMEOUT after maxBlockMs', async () => {
    const producer = new Producer(new FakeProduceCluster({}), {
      maxBlockMs: 30,
      retryBackoffMs: 5,
    });
    const error = await producer.send({ topic: 'nope', value: 'x' }).catch((e: unknown) => e);
    expect((error as ProducerBlockedError).code).toBe('ERR_KAFKA_PRODUCER_METADATA_TIMEOUT');
    expect(error).toMatchObject({ topic: 'nope' });
    await producer.close();
  });

  it('says a topic the brokers answer UNKNOWN_TOPIC_OR_PARTITION for does not exist, not that the buffer is full', async () => {
    const fake = new FakeProduceCluster({}, undefined, {
      nope: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    });
    const producer = new Producer(fake, { maxBlockMs: 30, retryBackoffMs: 5 });
    const error = await producer.send({ topic: 'nope', value: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProducerBlockedError);
    expect(error).toMatchObject({
      code: 'ERR_KAFKA_PRODUCER_METADATA_TIMEOUT',
      topic: 'nope',
      cause: { errorName: 'UNKNOWN_TOPIC_OR_PARTITION' },
    });
    expect((error as Error).message).toContain('topic "nope" does not exist');
    await producer.close();
  });

  it('still says the topic does not exist when a full refresh dropped its entry from the snapshot meanwhile', async () => {
    // A full metadata refresh lists existing topics only: the UNKNOWN_TOPIC_OR_PARTITION entry
    // of the last targeted refresh is gone from the snapshot when maxBlockMs runs out.
    const answered = new FakeProduceCluster({}, undefined, {
      nope: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    });
    const fake = new FakeProduceCluster({});
    fake.refreshTopics = () => answered.refreshTopics();
    const producer = new Producer(fake, { maxBlockMs: 30, retryBackoffMs: 5 });
    const error = await producer.send({ topic: 'nope', value: 'x' }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'ERR_KAFKA_PRODUCER_METADATA_TIMEOUT',
      cause: { errorName: 'UNKNOWN_TOPIC_OR_PARTITION' },
    });
    expect((error as Error).message).toContain('topic "nope" does not exist');
    await producer.close();
  });

  it('names the partition a pinned record asks for when the topic has fewer', async () => {
    const producer = new Producer(new FakeProduceCluster({ t: 2 }), {
      maxBlockMs: 30,
      retryBackoffMs: 5,
    });
    const error = await producer
      .send({ topic: 't', partition: 5, value: 'x' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ERR_KAFKA_PRODUCER_METADATA_TIMEOUT', topic: 't' });
    expect((error as Error).message).toContain('partition 5 of topic "t" does not exist');
    expect((error as Error).message).toContain('the topic has 2 partitions');
    await producer.close();
  });

  it('refuses a topic the metadata answers TOPIC_AUTHORIZATION_FAILED for at once, without waiting maxBlockMs', async () => {
    const fake = new FakeProduceCluster({}, undefined, {
      secret: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
    });
    const producer = new Producer(fake, { maxBlockMs: 60_000 });
    const error = await producer.send({ topic: 'secret', value: 'x' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ errorName: 'TOPIC_AUTHORIZATION_FAILED' });
    await producer.close();
  });

  it('rejects a record larger than maxRequestSize', async () => {
    const producer = new Producer(new FakeProduceCluster({ t: 1 }), { maxRequestSize: 1000 });
    await expect(producer.send({ topic: 't', value: Buffer.alloc(2000) })).rejects.toBeInstanceOf(
      RecordTooLargeError,
    );
    await producer.close();
  });

  it('asks for a producer id once when the answer is fatal, and does not ask again', async () => {
    const cluster = new FakeProduceCluster({ t: 1 });
    cluster.initProducerIdError = new ProtocolError(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    const producer = new Producer(cluster, { lingerMs: 0 });
    await expect(producer.send({ topic: 't', partition: 0, value: 'x' })).rejects.toMatchObject({
      code: 'ERR_KAFKA_PRODUCER_FATAL',
    });
    // Several event-loop turns: a halted sender neither retries nor spins on the answer.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(cluster.initProducerIdCalls).toBe(1);
    await expect(producer.send({ topic: 't', partition: 0, value: 'y' })).rejects.toMatchObject({
      code: 'ERR_KAFKA_PRODUCER_FATAL',
    });
    await producer.close();
    expect(cluster.initProducerIdCalls).toBe(1);
  });

  it('close drains what was sent, then refuses new records', async () => {
    const fake = new FakeProduceCluster({ t: 2 });
    const producer = new Producer(fake, { lingerMs: 1000 });
    const pending = sendAll(producer, 't', 10);
    await producer.close();
    await expect(pending).resolves.toHaveLength(10);
    await expect(producer.send({ topic: 't', value: 'late' })).rejects.toBeInstanceOf(
      ProducerClosedError,
    );
  });

  it('close with a timeout fails what could not be delivered with ProducerClosedError', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    fake.fault = () => 'not-leader';
    const producer = new Producer(fake, { retryBackoffMs: 5 });
    const pending = producer.send({ topic: 't', value: 'x' });
    await producer.close({ timeoutMs: 50 });
    await expect(pending).rejects.toBeInstanceOf(ProducerClosedError);
  });

  it('refuses transactional calls without transactionalId, and sends outside a transaction', async () => {
    const plain = new Producer(new FakeProduceCluster({ t: 1 }));
    expect(() => plain.beginTransaction()).toThrow(TransactionStateError);
    await plain.close();
    const txn = new Producer(new FakeProduceCluster({ t: 1 }), { transactionalId: 'tx' });
    await expect(txn.send({ topic: 't', value: 'x' })).rejects.toBeInstanceOf(
      TransactionStateError,
    );
    await txn.close();
  });
});
