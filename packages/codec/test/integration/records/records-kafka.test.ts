/**
 * Cross-decoding with Apache Kafka itself: Kafka's Java producer
 * writes with every codec and our decoder reads the raw batches the broker serves; our
 * encoder writes batches with every codec, the broker accepts them (Produce, acks=-1) and
 * Kafka's Java consumer reads them back. Fetch and Produce go through the test-only
 * MiniKafka helper (kafka-wire.ts) because the wire layer is not in this package.
 */
import { randomUUID } from 'node:crypto';
import { sharedCluster } from '@kafkats/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type CompressionCodec,
  decodeControlRecord,
  decodeRecordBatches,
  encodeRecordBatch,
  type KafkaRecord,
  type RecordBatch,
} from '../../../src/index.js';
import { MiniKafka } from './kafka-wire.js';

const CODECS: CompressionCodec[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
const BASE_TS = 1_750_000_000_000;

interface Sent {
  key: Buffer | null;
  value: Buffer | null;
  headers: { key: string; value: Buffer | null }[];
  timestamp: number;
}

function corpus(n: number, salt: string): Sent[] {
  const out: Sent[] = [];
  for (let i = 0; i < n; i++) {
    const body = `${salt}-${i}-`.repeat(1 + (i % 40));
    out.push({
      key: i % 10 === 0 ? null : Buffer.from(`key-${i}`),
      value: i % 13 === 0 ? null : Buffer.from(body),
      headers:
        i % 3 === 0
          ? []
          : [
              { key: `h-${i}`, value: Buffer.from([i & 0xff, 0, 255]) },
              { key: 'null-header', value: null },
              { key: 'ключ', value: Buffer.alloc(0) },
            ],
      // Out of order on purpose: negative timestamp deltas inside a batch.
      timestamp: BASE_TS + i * 7 - (i % 5) * 1000,
    });
  }
  return out;
}

function topicName(what: string): string {
  return `records-${what}-${randomUUID().slice(0, 8)}`;
}

const clients: MiniKafka[] = [];
afterAll(() => {
  for (const c of clients) c.close();
});

async function leaderClient(topic: string): Promise<MiniKafka> {
  const cluster = sharedCluster();
  const d = await cluster.admin.describeTopic(topic);
  const leader = d.partitions.find((p) => p.partition === 0)!.leader;
  const broker = cluster.brokers.find((b) => b.nodeId === leader)!;
  const client = await MiniKafka.open(broker.host, broker.port);
  clients.push(client);
  return client;
}

/** Broker codes a just-created topic answers until its leader has caught up. */
const NOT_READY = new Set([3, 5, 6]); // UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER

async function produceRetrying(client: MiniKafka, topic: string, batch: Buffer) {
  for (let attempt = 0; ; attempt++) {
    const res = await client.produce(topic, 0, batch);
    if (!NOT_READY.has(res.errorCode) || attempt === 50) return res;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function expectSame(got: KafkaRecord, want: Sent) {
  expect(got.key).toEqual(want.key);
  expect(got.value).toEqual(want.value);
  expect(got.timestamp).toBe(BigInt(want.timestamp));
  expect(got.headers.map((h) => ({ key: h.key, value: h.value }))).toEqual(want.headers);
}

describe('Kafka writes, we read', () => {
  for (const codec of CODECS) {
    it(`${codec}: every key, value, header and timestamp of Kafka's Java producer survives our decoder`, async () => {
      const cluster = sharedCluster();
      const topic = topicName(`java-${codec}`);
      await cluster.admin.createTopic(topic, {
        partitions: 1,
        replicationFactor: 3,
        waitForLeaders: true,
      });
      const sent = corpus(400, codec);
      await cluster.admin.produce(
        topic,
        sent.map((r) => ({ ...r, partition: 0 })),
        { compression: codec, lingerMs: 20, idempotent: true },
      );
      const client = await leaderClient(topic);
      const got: KafkaRecord[] = [];
      let offset = 0n;
      let fetches = 0;
      let partials = 0;
      let batches = 0;
      let maxBytes = 4096; // small on purpose: the broker cuts batches at this limit
      while (got.length < sent.length) {
        expect(fetches++).toBeLessThan(500);
        const res = await client.fetch(topic, 0, offset, maxBytes);
        if (NOT_READY.has(res.errorCode) && fetches < 50) {
          await new Promise((r) => setTimeout(r, 100));
          continue;
        }
        expect(res.errorCode).toBe(0);
        if (res.records === null || res.records.length === 0) continue;
        const it = decodeRecordBatches(res.records);
        let progressed = false;
        for (const batch of it) {
          batches++;
          expect(batch.compression).toBe(codec);
          expect(batch.magic).toBe(2);
          expect(batch.producerId).toBeGreaterThanOrEqual(0n); // idempotent producer
          for (const r of batch.records()) {
            if (r.offset >= offset) got.push(r);
          }
          offset = batch.lastOffset + 1n;
          progressed = true;
        }
        if (it.partialBatchBytes > 0) partials++;
        if (!progressed) maxBytes *= 2;
      }
      expect(got.length).toBe(sent.length);
      got.forEach((r, i) => {
        expect(r.offset).toBe(BigInt(i));
        expectSame(r, sent[i]!);
      });
      console.log(
        `[records] Kafka -> kafkats ${codec}: ${got.length} records in ${batches} batches, ${fetches} fetches, ${partials} ended in a partial batch`,
      );
    });
  }
});

describe('we write, Kafka reads', () => {
  for (const codec of CODECS) {
    it(`${codec}: the broker accepts our batches and Kafka's Java consumer reads them intact`, async () => {
      const cluster = sharedCluster();
      const topic = topicName(`ours-${codec}`);
      await cluster.admin.createTopic(topic, {
        partitions: 1,
        replicationFactor: 3,
        waitForLeaders: true,
      });
      const client = await leaderClient(topic);
      const sent = corpus(300, `ours-${codec}`);
      const halves = [sent.slice(0, 150), sent.slice(150)];
      let expectedBase = 0n;
      let bytes = 0;
      for (const half of halves) {
        const batch = await encodeRecordBatch({ compression: codec, records: half });
        bytes += batch.length;
        const res = await produceRetrying(client, topic, batch);
        expect(res.errorCode).toBe(0);
        expect(res.baseOffset).toBe(expectedBase);
        expectedBase += BigInt(half.length);
      }
      const read = await cluster.admin.consume(topic, {
        partition: 0,
        maxRecords: sent.length,
        timeoutMs: 30_000,
      });
      expect(read.length).toBe(sent.length);
      read.forEach((r, i) => {
        const want = sent[i]!;
        expect(r.offset).toBe(BigInt(i));
        expect(r.timestampType).toBe('CreateTime');
        expect(r.key).toEqual(want.key);
        expect(r.value).toEqual(want.value);
        expect(r.timestamp).toBe(BigInt(want.timestamp));
        expect(r.headers).toEqual(want.headers);
      });
      console.log(
        `[records] kafkats -> Kafka ${codec}: ${sent.length} records in 2 batches (${bytes} bytes) accepted with acks=-1 and read back by KafkaConsumer`,
      );
    });
  }
});

describe("Kafka's transactions: data and control batches", () => {
  it('committed and aborted transactions come back as transactional data batches and COMMIT/ABORT markers', async () => {
    const cluster = sharedCluster();
    const topic = topicName('txn');
    await cluster.admin.createTopic(topic, {
      partitions: 1,
      replicationFactor: 3,
      waitForLeaders: true,
    });
    const transactionalId = `${topic}-tx`;
    const committed = corpus(20, 'txn-commit');
    const aborted = corpus(10, 'txn-abort');
    const onP0 = (rs: Sent[]) => rs.map((r) => ({ ...r, partition: 0 }));
    await cluster.admin.produce(topic, onP0(committed), { compression: 'lz4', transactionalId });
    await cluster.admin.produce(topic, onP0(aborted), {
      compression: 'zstd',
      transactionalId,
      abort: true,
    });
    // Log: 0-19 committed data, 20 COMMIT marker, 21-30 aborted data, 31 ABORT marker.
    const client = await leaderClient(topic);
    const batches: RecordBatch[] = [];
    let offset = 0n;
    for (let fetches = 0; offset < 32n; fetches++) {
      expect(fetches).toBeLessThan(100);
      const res = await client.fetch(topic, 0, offset, 1 << 20);
      if (NOT_READY.has(res.errorCode) && fetches < 50) {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      expect(res.errorCode).toBe(0);
      for (const b of decodeRecordBatches(res.records ?? Buffer.alloc(0))) {
        batches.push(b);
        offset = b.lastOffset + 1n;
      }
    }
    expect(offset).toBe(32n);
    const controls = batches.filter((b) => b.isControl);
    expect(controls.map((b) => b.baseOffset)).toEqual([20n, 31n]);
    const markers = controls.map((b) => {
      expect(b.isTransactional).toBe(true);
      expect(b.recordCount).toBe(1);
      const recs = [...b.records()];
      expect(recs.length).toBe(1);
      return decodeControlRecord(recs[0]!);
    });
    expect(markers.map((m) => m.typeName)).toEqual(['COMMIT', 'ABORT']);
    for (const m of markers) expect(m.coordinatorEpoch).toBeGreaterThanOrEqual(0);
    const data = batches.filter((b) => !b.isControl);
    expect(data.length).toBeGreaterThan(0);
    for (const b of data) {
      expect(b.isTransactional).toBe(true);
      expect(b.producerId).toBeGreaterThanOrEqual(0n);
      // Each marker closes the transaction of the same producer id; with transactions v2
      // (KIP-890) the coordinator writes it under the next epoch, so the epoch may be higher.
      const marker = controls.find((c) => c.baseOffset > b.lastOffset)!;
      expect(marker.producerId).toBe(b.producerId);
      expect(marker.producerEpoch).toBeGreaterThanOrEqual(b.producerEpoch);
      expect(b.compression).toBe(b.baseOffset < 20n ? 'lz4' : 'zstd');
    }
    const records = data.flatMap((b) => [...b.records()]);
    expect(records.map((r) => r.offset)).toEqual([
      ...Array.from({ length: 20 }, (_, i) => BigInt(i)),
      ...Array.from({ length: 10 }, (_, i) => BigInt(21 + i)),
    ]);
    records.forEach((r, i) => {
      expectSame(r, i < 20 ? committed[i]! : aborted[i - 20]!);
    });
    console.log(
      `[records] Kafka transactions -> kafkats: ${data.length} transactional data batches (epochs ${data.map((b) => b.producerEpoch).join(',')}), markers ${controls.map((c, i) => `${markers[i]!.typeName} at ${c.baseOffset} (producer epoch ${c.producerEpoch}, coordinator epoch ${markers[i]!.coordinatorEpoch})`).join(', ')}`,
    );
  });
});
