// Batch sizing as Kafka's RecordAccumulator does it: with compression, a batch is "full" when its
// estimated compressed size (uncompressed x the topic's observed ratio x 1.05, Kafka's
// CompressionRatioEstimator) reaches batchSize, so compressible records fill batches as Java's.
import { decodeRecordBatches } from '@kafkats/codec';
import { describe, expect, it } from 'vitest';
import { Accumulator } from '../../../src/producer/internal/accumulator.js';
import type { ProducerBatch } from '../../../src/producer/internal/producer-batch.js';

const noop = () => {};
const record = (i: number) => ({
  key: null,
  value: Buffer.from(`{"id":${i},"text":"${'lorem ipsum '.repeat(8)}"}`),
  headers: [],
  timestamp: 1_700_000_000_000,
});

/** Appends `n` records the way the producer does and returns the batches made. */
async function fill(acc: Accumulator, n: number, bytesEach: number): Promise<ProducerBatch[]> {
  const made: ProducerBatch[] = [];
  for (let i = 0; i < n; i++) {
    const batch = acc.batchFor('t', 0, bytesEach, 0);
    if (made.at(-1) !== batch) made.push(batch);
    batch.append(record(i), bytesEach, bytesEach, { resolve: noop, reject: noop, timestamp: 0 });
    acc.afterAppend(batch);
    // A batch that closed (here, or in batchFor when the record did not fit) is encoded off the
    // main thread (compressed): wait for that to finish, however long it takes, so its ratio is
    // observed before the next append is sized.
    for (const b of made.slice(-2)) {
      while (b.closed && b.encoded === null && !b.done) await new Promise((r) => setImmediate(r));
    }
  }
  return made;
}

describe('Accumulator batch sizing', () => {
  it('without compression, a batch holds batchSize of uncompressed bytes', async () => {
    const acc = new Accumulator(
      1_000,
      5,
      { compression: 'none', compressionLevel: undefined, transactional: false },
      noop,
      noop,
    );
    const batches = await fill(acc, 50, 120);
    expect(batches[0]?.recordCount).toBe(8); // 8 x 120 = 960; a ninth would pass 1,000
    expect(acc.compressionRatio('t')).toBe(1);
  });

  it('with compression, batches grow as the observed ratio comes down', async () => {
    const acc = new Accumulator(
      2_000,
      5,
      { compression: 'gzip', compressionLevel: undefined, transactional: false },
      noop,
      noop,
    );
    const batches = await fill(acc, 3_000, 120);
    const first = batches[0] as ProducerBatch;
    // The first batch is sized at ratio 1 (nothing observed yet), as Kafka's first batch is;
    // the estimate then comes down 0.005 per batch (Kafka's improving step) to what is observed.
    expect(first.recordCount).toBe(15);
    const ratio = acc.compressionRatio('t');
    expect(ratio).toBeLessThan(0.5);
    const later = batches.at(-2) as ProducerBatch;
    expect(later.recordCount).toBeGreaterThan(2 * first.recordCount);
    // The compressed bytes of a later batch still fit batchSize.
    await new Promise((r) => setTimeout(r, 50));
    const encoded = later.encoded;
    expect(encoded).not.toBeNull();
    expect((encoded as Buffer).length).toBeLessThanOrEqual(2_000);
    const decoded = [...decodeRecordBatches(encoded as Buffer)];
    expect(decoded).toHaveLength(1);
    expect([...(decoded[0]?.records() ?? [])]).toHaveLength(later.recordCount);
  });
});
