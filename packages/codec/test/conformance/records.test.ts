// Conformance, record batches: random v2 batches are built by Kafka's MemoryRecordsBuilder (the
// oracle) and by our encoder from one description. Uncompressed, the bytes must be identical.
// Every codec: each side's decoder must read each side's bytes to the same batch (header fields
// and records), and Kafka's and our bytes must carry the same records. Seed and count as in
// messages.test.ts (KAFKATS_CONFORMANCE_SEED, KAFKATS_CONFORMANCE_RUNS).

import {
  type OracleBatchDescription,
  type OracleDecodedBatch,
  startOracle,
} from '@kafkats/testkit';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import {
  type CompressionCodec,
  decodeRecordBatches,
  encodeRecordBatch,
  endTransactionMarker,
  type RecordBatchInput,
  type TimestampType,
} from '../../src/index.js';
import { compareAlong } from './kafka-json.js';
import { caseSeed, firstDifferingOffset, RUNS, SEED, writeTally } from './settings.js';

const CODECS: readonly CompressionCodec[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
const TIMESTAMP_TYPES: readonly TimestampType[] = ['CreateTime', 'LogAppendTime'];

const oracle = await startOracle();
const LEGACY_CODECS: readonly CompressionCodec[] = ['none', 'gzip', 'snappy', 'lz4'];
const tally = {
  passed: 0,
  total: (CODECS.length * TIMESTAMP_TYPES.length + 1 + 2 * LEGACY_CODECS.length) * RUNS,
};
/** Compressed batches whose bytes happen to equal Kafka's (reported, not required). */
const identicalBytes = new Map<string, { same: number; of: number }>();
console.log(
  `conformance record batches: seed ${SEED}, ${RUNS} batches per (codec, timestamp type)`,
);

afterAll(async () => {
  writeTally('records', tally);
  const identical = [...identicalBytes].map(([kind, n]) => `${kind} ${n.same}/${n.of}`);
  console.log(
    `conformance record batches: ${tally.passed}/${tally.total} cases; byte-identical to Kafka's: ${identical.join(', ')}`,
  );
  await oracle.close();
});

interface Case {
  readonly input: RecordBatchInput;
  readonly description: OracleBatchDescription;
}

const bytesOrNull = fc.option(
  fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
  { nil: null, freq: 4 },
);
const int64 = (min: bigint, max: bigint) => fc.bigInt({ min, max });

/** A batch as a producer (or the broker, for LogAppendTime) would build it. */
function caseArbitrary(
  compression: CompressionCodec,
  timestampType: TimestampType,
): fc.Arbitrary<Case> {
  const record = fc.record({
    key: bytesOrNull,
    value: bytesOrNull,
    timestamp: int64(0n, 2n ** 42n),
    headers: fc.array(fc.record({ key: fc.string({ maxLength: 8 }), value: bytesOrNull }), {
      maxLength: 3,
    }),
  });
  const producer = fc.oneof(
    fc.constant({ producerId: -1n, producerEpoch: -1, baseSequence: -1, transactional: false }),
    fc.record({
      producerId: int64(0n, 2n ** 63n - 1n),
      producerEpoch: fc.integer({ min: 0, max: 32767 }),
      baseSequence: fc.integer({ min: 0, max: 2 ** 31 - 100 }),
      transactional: fc.boolean(),
    }),
  );
  return fc
    .record({
      baseOffset: int64(0n, 2n ** 62n),
      partitionLeaderEpoch: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
      producer,
      logAppendTime: int64(0n, 2n ** 42n),
      records: fc.array(record, { minLength: 1, maxLength: 6 }),
    })
    .map((b) => {
      const input: RecordBatchInput = {
        baseOffset: b.baseOffset,
        partitionLeaderEpoch: b.partitionLeaderEpoch,
        producerId: b.producer.producerId,
        producerEpoch: b.producer.producerEpoch,
        baseSequence: b.producer.baseSequence,
        transactional: b.producer.transactional,
        compression,
        timestampType,
        ...(timestampType === 'LogAppendTime' ? { logAppendTime: b.logAppendTime } : {}),
        records: b.records.map((r, i) => ({
          key: r.key,
          value: r.value,
          timestamp: r.timestamp,
          offsetDelta: i,
          headers: r.headers,
        })),
      };
      const description: OracleBatchDescription = {
        compression,
        timestampType,
        baseOffset: b.baseOffset.toString(),
        logAppendTime: timestampType === 'LogAppendTime' ? b.logAppendTime.toString() : '-1',
        producerId: b.producer.producerId.toString(),
        producerEpoch: b.producer.producerEpoch,
        baseSequence: b.producer.baseSequence,
        isTransactional: b.producer.transactional,
        partitionLeaderEpoch: b.partitionLeaderEpoch,
        records: b.records.map((r, i) => ({
          offsetDelta: i,
          timestamp: r.timestamp.toString(),
          key: base64(r.key),
          value: base64(r.value),
          headers: r.headers.map((h) => ({ key: h.key, value: base64(h.value) })),
        })),
      };
      return { input, description };
    });
}

function base64(b: Buffer | null): string | null {
  return b === null ? null : b.toString('base64');
}

/** Our decoder's reading of `bytes`, shaped like the oracle's batch-decode answer. */
function ourView(bytes: Buffer): OracleDecodedBatch[] {
  const out: OracleDecodedBatch[] = [];
  for (const batch of decodeRecordBatches(bytes)) {
    out.push({
      magic: batch.magic,
      baseOffset: batch.baseOffset.toString(),
      lastOffset: batch.lastOffset.toString(),
      partitionLeaderEpoch: batch.partitionLeaderEpoch,
      compression: batch.compression,
      timestampType: batch.timestampType,
      baseTimestamp: batch.baseTimestamp.toString(),
      maxTimestamp: batch.maxTimestamp.toString(),
      producerId: batch.producerId.toString(),
      producerEpoch: batch.producerEpoch,
      baseSequence: batch.baseSequence,
      isTransactional: batch.isTransactional,
      isControl: batch.isControl,
      crc: String(batch.crc >>> 0),
      records: [...batch.records()].map((r) => ({
        offset: r.offset.toString(),
        timestamp: r.timestamp.toString(),
        key: base64(r.key),
        value: base64(r.value),
        headers: r.headers.map((h) => ({ key: h.key, value: base64(h.value) })),
      })),
    });
  }
  return out;
}

/** The same batches without what legitimately differs between two compressors: CRC. */
function withoutCrc(batches: readonly OracleDecodedBatch[]): unknown[] {
  return batches.map(({ crc: _crc, ...rest }) => rest);
}

for (const compression of CODECS) {
  describe(`record batches, ${compression}`, () => {
    for (const timestampType of TIMESTAMP_TYPES) {
      test(`${timestampType}`, async () => {
        const label = `records ${compression} ${timestampType}`;
        const cases = fc.sample(caseArbitrary(compression, timestampType), {
          seed: caseSeed(label),
          numRuns: RUNS,
        });
        const built = await oracle.buildBatches(cases.map((c) => c.description));
        const ours: Buffer[] = [];
        for (const c of cases) ours.push(await encodeRecordBatch(c.input));
        const kafkaBytes = built.map((b) => Buffer.from('hex' in b ? b.hex : '', 'hex'));
        const kafkaReadsKafka = await oracle.decodeBatches(kafkaBytes);
        const kafkaReadsOurs = await oracle.decodeBatches(ours);
        const failures: string[] = [];
        for (let i = 0; i < cases.length; i++) {
          const problems = checkCase(
            compression,
            compression,
            built[i],
            ours[i] as Buffer,
            kafkaReadsKafka[i],
            kafkaReadsOurs[i],
          );
          if (problems.length === 0) tally.passed++;
          else
            failures.push(
              [
                `${label} case #${i}:`,
                ...problems,
                `  description: ${JSON.stringify(cases[i]?.description)}`,
              ].join('\n'),
            );
        }
        expect(failures.slice(0, 3).join('\n\n')).toBe('');
      });
    }
  });
}

type Answer<T> = T | { error: { class: string; message: string } } | undefined;

function checkCase(
  compression: CompressionCodec,
  kind: string,
  kafkaBuilt: Answer<{ hex: string }>,
  ours: Buffer,
  kafkaReadOfKafka: Answer<{ batches: OracleDecodedBatch[] }>,
  kafkaReadOfOurs: Answer<{ batches: OracleDecodedBatch[] }>,
): string[] {
  if (kafkaBuilt === undefined || 'error' in kafkaBuilt) {
    return [
      `  Kafka's builder refused the batch: ${JSON.stringify(kafkaBuilt)}`,
      `  ours:  ${ours.toString('hex')}`,
    ];
  }
  const kafka = Buffer.from(kafkaBuilt.hex, 'hex');
  const problems: string[] = [];
  const dump = [`  kafka: ${kafka.toString('hex')}`, `  ours:  ${ours.toString('hex')}`];
  const same = kafka.equals(ours);
  const seen = identicalBytes.get(kind) ?? { same: 0, of: 0 };
  identicalBytes.set(kind, { same: seen.same + (same ? 1 : 0), of: seen.of + 1 });
  if (compression === 'none' && !same) {
    problems.push(`  bytes differ at offset ${firstDifferingOffset(kafka, ours)}`);
  }
  // Each side's decoder on each side's bytes: Kafka's reading is the reference.
  const readings: [string, Buffer, Answer<{ batches: OracleDecodedBatch[] }>][] = [
    ["Kafka's bytes", kafka, kafkaReadOfKafka],
    ['our bytes', ours, kafkaReadOfOurs],
  ];
  for (const [what, bytes, kafkaReading] of readings) {
    if (kafkaReading === undefined || 'error' in kafkaReading) {
      problems.push(`  Kafka cannot read ${what}: ${JSON.stringify(kafkaReading)}`);
      continue;
    }
    try {
      const d = compareAlong(kafkaReading.batches, kafkaReading.batches, ourView(bytes));
      if (d) problems.push(`  ${what}, Kafka's reading vs ours: ${d}`);
    } catch (error) {
      problems.push(`  we cannot decode ${what}: ${(error as Error).message}`);
    }
  }
  // Both byte strings carry the same batch and records (the CRC covers compressed bytes).
  if (
    kafkaReadOfKafka &&
    'batches' in kafkaReadOfKafka &&
    kafkaReadOfOurs &&
    'batches' in kafkaReadOfOurs
  ) {
    const k = withoutCrc(kafkaReadOfKafka.batches);
    const d = compareAlong(k, k, withoutCrc(kafkaReadOfOurs.batches));
    if (d) problems.push(`  Kafka's batch vs ours, as Kafka reads them: ${d}`);
  }
  return problems.length === 0 ? problems : [...problems, ...dump];
}

describe('transaction markers', () => {
  test('COMMIT and ABORT control batches', async () => {
    const label = 'records end-transaction markers';
    const markers = fc.sample(
      fc.record({
        type: fc.constantFrom('COMMIT' as const, 'ABORT' as const),
        baseOffset: int64(0n, 2n ** 62n),
        timestamp: int64(0n, 2n ** 42n),
        partitionLeaderEpoch: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
        producerId: int64(0n, 2n ** 63n - 1n),
        producerEpoch: fc.integer({ min: 0, max: 32767 }),
        coordinatorEpoch: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      }),
      { seed: caseSeed(label), numRuns: RUNS },
    );
    // A coordinator writes markers as a transactional control batch with no sequence.
    const ours: Buffer[] = [];
    for (const m of markers) {
      ours.push(
        await encodeRecordBatch({
          baseOffset: m.baseOffset,
          partitionLeaderEpoch: m.partitionLeaderEpoch,
          producerId: m.producerId,
          producerEpoch: m.producerEpoch,
          baseSequence: -1,
          transactional: true,
          control: true,
          records: [
            {
              ...endTransactionMarker(m.type, m.coordinatorEpoch),
              timestamp: m.timestamp,
              offsetDelta: 0,
            },
          ],
        }),
      );
    }
    const built = await oracle.buildEndTransactionMarkers(
      markers.map((m) => ({
        ...m,
        baseOffset: m.baseOffset.toString(),
        timestamp: m.timestamp.toString(),
        producerId: m.producerId.toString(),
      })),
    );
    const kafkaBytes = built.map((b) => Buffer.from('hex' in b ? b.hex : '', 'hex'));
    const kafkaReadsKafka = await oracle.decodeBatches(kafkaBytes);
    const kafkaReadsOurs = await oracle.decodeBatches(ours);
    const failures: string[] = [];
    for (let i = 0; i < markers.length; i++) {
      const problems = checkCase(
        'none',
        'end-transaction markers',
        built[i],
        ours[i] as Buffer,
        kafkaReadsKafka[i],
        kafkaReadsOurs[i],
      );
      if (problems.length === 0) tally.passed++;
      else failures.push([`${label} case #${i}:`, ...problems].join('\n'));
    }
    expect(failures.slice(0, 3).join('\n\n')).toBe('');
  });
});

// Legacy message sets (magic 0 and 1) are only read, never written, by our codec: Kafka's
// builder writes them (still able to in 4.4) and both readers must see the same records. zstd
// never existed for them; lz4 under magic 0 carries Kafka's old, wrong frame-header checksum.
describe('legacy message sets', () => {
  for (const magic of [0, 1]) {
    for (const compression of LEGACY_CODECS) {
      test(`magic ${magic}, ${compression}`, async () => {
        const label = `records legacy v${magic} ${compression}`;
        const batches = fc.sample(
          fc.record({
            baseOffset: int64(0n, 2n ** 62n),
            logAppendTime: fc.option(int64(0n, 2n ** 42n), { nil: null }),
            records: fc.array(
              fc.record({ key: bytesOrNull, value: bytesOrNull, timestamp: int64(0n, 2n ** 42n) }),
              { minLength: 1, maxLength: 6 },
            ),
          }),
          { seed: caseSeed(label), numRuns: RUNS },
        );
        const built = await oracle.buildBatches(
          batches.map((b) => ({
            magic,
            compression,
            timestampType: magic === 1 && b.logAppendTime !== null ? 'LogAppendTime' : 'CreateTime',
            baseOffset: b.baseOffset.toString(),
            logAppendTime: b.logAppendTime === null ? '-1' : b.logAppendTime.toString(),
            producerId: '-1',
            producerEpoch: -1,
            baseSequence: -1,
            isTransactional: false,
            partitionLeaderEpoch: -1,
            records: b.records.map((r, i) => ({
              offsetDelta: i,
              timestamp: r.timestamp.toString(),
              key: base64(r.key),
              value: base64(r.value),
              headers: [],
            })),
          })),
        );
        const kafkaBytes = built.map((b) => Buffer.from('hex' in b ? b.hex : '', 'hex'));
        const readings = await oracle.decodeBatches(kafkaBytes);
        const failures: string[] = [];
        for (let i = 0; i < batches.length; i++) {
          const b = built[i];
          const k = readings[i];
          const bytes = kafkaBytes[i] as Buffer;
          let problem: string | null;
          if (b === undefined || 'error' in b)
            problem = `Kafka's builder refused it: ${JSON.stringify(b)}`;
          else if (k === undefined || 'error' in k)
            problem = `Kafka cannot read its bytes: ${JSON.stringify(k)}`;
          else {
            try {
              const d = compareAlong(k.batches, k.batches, ourView(bytes));
              problem = d ? `Kafka's reading vs ours: ${d}` : null;
            } catch (error) {
              problem = `we cannot decode Kafka's bytes: ${(error as Error).message}`;
            }
          }
          if (problem === null) tally.passed++;
          else failures.push(`${label} case #${i}: ${problem}\n  kafka: ${bytes.toString('hex')}`);
        }
        expect(failures.slice(0, 3).join('\n\n')).toBe('');
      });
    }
  }
});
