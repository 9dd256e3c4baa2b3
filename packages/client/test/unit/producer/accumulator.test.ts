// Batch sizing as Kafka's RecordAccumulator does it: a batch's buffer is batchSize, header
// included; with compression it takes the uncompressed bytes whose estimated compressed size
// (uncompressed x the topic's observed ratio x 1.05, Kafka's CompressionRatioEstimator) is
// batchSize, so compressible records fill batches as Java's.
import { decodeRecordBatches, RECORD_BATCH_OVERHEAD, recordSizeInBytes } from '@kafkats/codec';
import { describe, expect, it } from 'vitest';
import { Accumulator, type BatchEncoding } from '../../../src/producer/internal/accumulator.js';
import type { ProducerBatch } from '../../../src/producer/internal/producer-batch.js';

const noop = () => {};
const TIMESTAMP = 1_700_000_000_000;
const value = (i: number) => Buffer.from(`{"id":${i},"text":"${'lorem ipsum '.repeat(8)}"}`);

const encoding = (compression: BatchEncoding['compression']): BatchEncoding => ({
  compression,
  compressionLevel: undefined,
  compressionBackend: 'js',
  transactional: false,
  stampedAtDrain: false,
});

/** Appends `n` records the way the producer does and returns the batches made. */
async function fill(acc: Accumulator, n: number): Promise<ProducerBatch[]> {
  const q = acc.queue('t', 0);
  const made: ProducerBatch[] = [];
  for (let i = 0; i < n; i++) {
    const open = acc.openBatch(q);
    if (open !== null && open.append(TIMESTAMP, null, value(i), null) >= 0) continue;
    if (open !== null) acc.close(open);
    // A batch that closed is compressed off the main thread (gzip): wait for it, however long
    // it takes, so its ratio is observed before the next batch is sized.
    while (open !== null && open.encoded === null && !open.done) {
      await new Promise((r) => setImmediate(r));
    }
    const batch = acc.newBatch(q, 0) as ProducerBatch;
    expect(batch.append(TIMESTAMP, null, value(i), null)).toBeGreaterThan(0);
    made.push(batch);
  }
  return made;
}

describe('Accumulator batch sizing', () => {
  it('without compression, a batch holds batchSize bytes, header included, and no more', async () => {
    const acc = new Accumulator(1_000, 1_000_000, 1_000_000, 5, encoding('none'), noop, noop);
    const batches = await fill(acc, 50);
    const first = batches[0] as ProducerBatch;
    expect(first.uncompressedBytes).toBeLessThanOrEqual(1_000);
    // The next record (offset delta = the count) would not have fit.
    const next = recordSizeInBytes(first.recordCount, 0, null, value(first.recordCount));
    expect(first.uncompressedBytes + next).toBeGreaterThan(1_000);
    expect(first.recordCount).toBe(Math.floor((1_000 - RECORD_BATCH_OVERHEAD) / next));
    expect(acc.compressionRatio('t')).toBe(1);
    // Each batch's buffer is taken from bufferMemory until the batch is done.
    expect(acc.memoryUsed).toBe(1_000 * batches.length);
  });

  it('with compression, batches grow as the observed ratio comes down', async () => {
    const acc = new Accumulator(2_000, 1_000_000, 10_000_000, 5, encoding('gzip'), noop, noop);
    const batches = await fill(acc, 3_000);
    const first = batches[0] as ProducerBatch;
    // The first batch is sized at ratio 1 (nothing observed yet), as Kafka's first batch is;
    // the estimate then comes down 0.005 per batch (Kafka's improving step) to what is observed.
    expect(first.uncompressedBytes).toBeLessThanOrEqual(2_000);
    const ratio = acc.compressionRatio('t');
    expect(ratio).toBeLessThan(0.5);
    const later = batches.at(-2) as ProducerBatch;
    expect(later.recordCount).toBeGreaterThan(2 * first.recordCount);
    // The compressed bytes of a later batch still fit batchSize, and decode to its records.
    const encoded = later.encoded as Buffer;
    expect(encoded).not.toBeNull();
    expect(encoded.length).toBeLessThanOrEqual(2_000);
    const decoded = [...decodeRecordBatches(encoded)];
    expect(decoded).toHaveLength(1);
    expect([...(decoded[0]?.records() ?? [])]).toHaveLength(later.recordCount);
  });

  it('has no room for a batch past bufferMemory until one is done', async () => {
    const acc = new Accumulator(1_000, 1_000_000, 2_500, 5, encoding('none'), noop, noop);
    const q = acc.queue('t', 0);
    const a = acc.newBatch(q, 0) as ProducerBatch;
    expect(acc.newBatch(q, 0)).not.toBeNull();
    expect(acc.newBatch(q, 0)).toBeNull();
    acc.finished(a);
    expect(acc.memoryUsed).toBe(1_000);
    expect(acc.newBatch(q, 0)).not.toBeNull();
  });
});

/** A closed, sealed batch of `n` records in partition 0 of `t`, created at `createdMs`. */
function sealed(acc: Accumulator, createdMs: number, n = 3): ProducerBatch {
  const q = acc.queue('t', 0);
  const b = acc.newBatch(q, createdMs) as ProducerBatch;
  for (let i = 0; i < n; i++) expect(b.append(TIMESTAMP, null, value(i), null)).toBeGreaterThan(0);
  expect(acc.close(b)).toBe(true);
  return b;
}

describe('Accumulator batch buffers (Kafka BufferPool)', () => {
  it('gives a finished batch buffer to the next batch', () => {
    const acc = new Accumulator(1_000, 1_000_000, 1_000_000, 5, encoding('none'), noop, noop);
    const a = sealed(acc, 0);
    const bytes = a.encoded as Buffer;
    acc.finished(a);
    a.complete(0n, -1n, -1n);
    acc.recycle(a);
    const b = sealed(acc, 1);
    expect((b.encoded as Buffer).buffer).toBe(bytes.buffer);
    expect([...decodeRecordBatches(b.encoded as Buffer)][0]?.recordCount).toBe(3);
  });

  it('never reuses bytes that a renumbering copied away from (they may still be queued)', () => {
    const acc = new Accumulator(1_000, 1_000_000, 1_000_000, 5, encoding('none'), noop, noop);
    const a = sealed(acc, 0);
    a.stamp(7n, 0, 0, false);
    const queued = a.encoded as Buffer;
    const before = Buffer.from(queued);
    a.stamp(7n, 1, 0, true);
    acc.finished(a);
    a.complete(0n, -1n, -1n);
    acc.recycle(a);
    const b = sealed(acc, 1, 5);
    expect((b.encoded as Buffer).buffer).not.toBe(queued.buffer);
    expect(queued.equals(before)).toBe(true);
  });

  it('with compression, reuses the uncompressed buffer once the batch is sealed', () => {
    const acc = new Accumulator(1_000, 1_000_000, 1_000_000, 5, encoding('lz4'), noop, noop);
    const a = sealed(acc, 0, 5);
    // Sealing gave the uncompressed buffer back at once; b writes its records into it.
    expect(a.takeRecyclable()).toBeNull();
    const b = sealed(acc, 1, 5);
    for (const x of [a, b]) {
      const [batch] = [...decodeRecordBatches(x.encoded as Buffer)];
      expect([...(batch?.records() ?? [])].map((r) => String(r.value))).toEqual(
        [0, 1, 2, 3, 4].map((i) => value(i).toString()),
      );
    }
  });
});

describe('Accumulator delivery timeouts', () => {
  it('expires batches from the head of each queue and stops at the first with time left', () => {
    const acc = new Accumulator(1_000, 1_000_000, 1_000_000, 5, encoding('none'), noop, noop);
    const old1 = sealed(acc, 0);
    const old2 = sealed(acc, 10);
    const young = sealed(acc, 50);
    expect(acc.nextExpiryMs(100)).toBe(100);
    expect(acc.expired(115, 100)).toEqual([old1, old2]);
    expect(acc.queue('t', 0).batches).toEqual([young]);
    expect(acc.nextExpiryMs(100)).toBe(150);
    expect(acc.expired(149, 100)).toEqual([]);
  });
});
