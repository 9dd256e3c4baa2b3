// A batch the broker refuses as too large (MESSAGE_TOO_LARGE over the topic's max.message.bytes)
// is split and sent again, as Kafka's Sender does with ProducerBatch.split: every record lands
// once, in order, with its own result; idempotent sequences stay gapless; a record too large
// alone fails with the broker's error and nothing else does.
import { randomBytes } from 'node:crypto';
import type { CompressionCodec } from '@kafkats/codec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Producer, type RecordMetadata, type SendBatchResult } from '../../../src/index.js';
import { FakeProduceCluster } from './fake-produce-cluster.js';

/** Values that do not compress: a batch's bytes stay close to its records' size. */
const values = (n: number, bytes: number) =>
  Array.from({ length: n }, (_, i) => `${i}:${randomBytes(bytes / 2).toString('hex')}`);

describe('MESSAGE_TOO_LARGE: the batch is split and sent again', () => {
  for (const compression of ['none', 'lz4', 'gzip'] as CompressionCodec[]) {
    it(`idempotent, ${compression}: every record lands once, in send order, with its own offset`, async () => {
      const fake = new FakeProduceCluster({ t: 1 });
      // Full batches are about 16 KiB; the topic takes 3000 bytes: each is split about 3 times.
      fake.log('t', 0).maxMessageBytes = 3000;
      const producer = new Producer(fake, { batchSize: 16_384, lingerMs: 0, compression });
      const sent = values(240, 100);
      // Promises, callbacks and a sendBatch call, interleaved in the same batches.
      const byPromise: Promise<RecordMetadata>[] = [];
      const byCallback: (RecordMetadata | Error)[] = [];
      let group: Promise<SendBatchResult> | undefined;
      for (let i = 0; i < 160; i++) {
        const record = { topic: 't', value: sent[i] as string };
        if (i % 2 === 0) byPromise.push(producer.send(record));
        else
          void producer.send(record, (error, m) => {
            byCallback.push(error ?? (m as RecordMetadata));
          });
      }
      group = producer.sendBatch(sent.slice(160).map((value) => ({ topic: 't', value })));
      const promised = await Promise.all(byPromise);
      const grouped = [...(await group)];
      await producer.flush();

      expect(fake.log('t', 0).values).toEqual(sent);
      expect(promised.map((m) => m.offset)).toEqual(promised.map((_, k) => BigInt(2 * k)));
      expect(byCallback.map((m) => (m instanceof Error ? m : m.offset))).toEqual(
        byCallback.map((_, k) => BigInt(2 * k + 1)),
      );
      expect(grouped.map((m) => m.offset)).toEqual(grouped.map((_, k) => BigInt(160 + k)));
      expect(producer.metrics()).toMatchObject({ recordsAcked: 240, recordsFailed: 0 });
      expect(producer.metrics().batchesSplit).toBeGreaterThan(0);

      // The broker saw one run of sequences per epoch, no gap: the parts took the refused
      // batch's sequences, and the batches behind it were refused as out of order meanwhile
      // and sent again after them.
      const accepted = fake.requests
        .flatMap((r) => r.batches)
        .filter((b) => b.errorCode === 0)
        .sort((a, b) => a.baseSequence - b.baseSequence);
      let next = 0;
      for (const b of accepted) {
        expect(b.producerEpoch).toBe(accepted[0]?.producerEpoch);
        expect(b.baseSequence).toBe(next);
        next += b.count;
      }
      expect(next).toBe(240);
      await producer.close();
      group = undefined;
    });
  }

  it('not idempotent: the parts go before the batches queued after the refused one', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    fake.log('t', 0).maxMessageBytes = 2000;
    const producer = new Producer(fake, {
      idempotent: false,
      acks: 1,
      maxInFlight: 1,
      batchSize: 8192,
      lingerMs: 0,
    });
    const sent = values(120, 60);
    const results = await Promise.all(sent.map((value) => producer.send({ topic: 't', value })));
    expect(fake.log('t', 0).values).toEqual(sent);
    expect(results.map((m) => m.offset)).toEqual(sent.map((_, i) => BigInt(i)));
    await producer.close();
  });

  it('a record too large alone fails with MESSAGE_TOO_LARGE; the records around it land', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    fake.log('t', 0).maxMessageBytes = 1000;
    const producer = new Producer(fake, { batchSize: 16_384, lingerMs: 0 });
    const small = values(20, 40);
    const big = `big:${'x'.repeat(1500)}`;
    const outcomes = await Promise.allSettled([
      ...small.slice(0, 10).map((value) => producer.send({ topic: 't', value })),
      producer.send({ topic: 't', value: big }),
      ...small.slice(10).map((value) => producer.send({ topic: 't', value })),
    ]);
    expect(outcomes[10]).toMatchObject({
      status: 'rejected',
      reason: { errorName: 'MESSAGE_TOO_LARGE', retriable: false },
    });
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(20);
    expect(fake.log('t', 0).values).toEqual(small);
    expect(producer.metrics()).toMatchObject({ recordsAcked: 20, recordsFailed: 1 });
    await producer.close();
  });

  it('flush() waits for the parts, not for the refused batch', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    fake.log('t', 0).maxMessageBytes = 1500;
    const producer = new Producer(fake, { batchSize: 16_384, lingerMs: 60_000 });
    const sent = values(50, 80);
    for (const value of sent) void producer.send({ topic: 't', value }, () => {});
    await producer.flush();
    expect(fake.log('t', 0).values).toEqual(sent);
    await producer.close();
  });

  it('property: any mix of sizes and limits delivers every record that fits alone, once, in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.integer({ min: 1, max: 200 }), fc.constant(-1)), {
          minLength: 1,
          maxLength: 80,
        }),
        fc.integer({ min: 700, max: 6000 }),
        fc.constantFrom<CompressionCodec>('none', 'lz4'),
        fc.boolean(),
        async (sizes, maxMessageBytes, compression, idempotence) => {
          const fake = new FakeProduceCluster({ t: 1 });
          fake.log('t', 0).maxMessageBytes = maxMessageBytes;
          const producer = new Producer(fake, {
            batchSize: 16_384,
            lingerMs: 0,
            compression,
            idempotent: idempotence,
            ...(idempotence ? {} : { acks: 1 as const, maxInFlight: 1 }),
          });
          // -1: a record larger than the topic takes even alone (random hex: no codec shrinks it).
          const sent = sizes.map((n, i) =>
            n < 0
              ? `${i}:${randomBytes(maxMessageBytes / 2 + 64).toString('hex')}`
              : `${i}:${randomBytes(n).toString('hex')}`,
          );
          const outcomes = await Promise.allSettled(
            sent.map((value) => producer.send({ topic: 't', value })),
          );
          await producer.close();
          const fits = sent.filter((_, i) => (sizes[i] as number) >= 0);
          expect(fake.log('t', 0).values).toEqual(fits);
          outcomes.forEach((o, i) => {
            if ((sizes[i] as number) < 0)
              expect(o).toMatchObject({
                status: 'rejected',
                reason: { errorName: 'MESSAGE_TOO_LARGE' },
              });
            else expect(o.status).toBe('fulfilled');
          });
          const offsets = outcomes.flatMap((o) =>
            o.status === 'fulfilled' ? [o.value.offset] : [],
          );
          expect(offsets).toEqual(fits.map((_, k) => BigInt(k)));
        },
      ),
      { numRuns: 40 },
    );
  });
});
