// KIP-951 on real brokers: when leadership moves, Kafka's Produce (v10+) and Fetch (v16+) answers
// to the old leader name the new one (CurrentLeader, NodeEndpoints). The producer and the reader
// install that through Cluster.applyLeaderHints and carry on with no Metadata request; the
// control run, with hints ignored, shows what the hint saves. Requests are counted at the
// connection factory; the second client moving leadership is Kafka's own admin.
import { MetadataApi } from '@kafkats/codec';
import { Cluster } from '@kafkats/meta';
import { sharedCluster } from '@kafkats/testkit';
import { describe, expect, it } from 'vitest';
import { PartitionReader, Producer } from '../../src/index.js';
import {
  moveLeader,
  readWhile,
  recordsOf,
  type SentRequest,
  spyFactory,
  unique,
} from './support.js';

const shared = sharedCluster();

/**
 * Produces 20 records and reads them, moves the leader from broker 1 to broker 2, produces and
 * reads 20 more; returns the Metadata requests sent after the move and what was read.
 */
async function produceAndReadAcrossAMove(ignoreHints: boolean): Promise<{
  metadataAfterMove: number;
  values: string[];
  offsets: bigint[];
  readerLeader: number | undefined;
}> {
  const topic = unique(ignoreHints ? 'hints-off' : 'hints-on');
  const created = await shared.admin.createTopic(topic, { assignments: [[1, 2, 3]] });
  expect(created.partitions[0]?.leader).toBe(1);
  const spy = spyFactory();
  const sent: SentRequest[] = spy.sent;
  const cluster = await Cluster.connect(shared.bootstrap, {
    connectionFactory: spy.factory,
    refreshIntervalMs: 0,
  });
  if (ignoreHints) cluster.applyLeaderHints = () => 0;
  const producer = new Producer(cluster, { lingerMs: 0 });
  const guard = new AbortController();
  const reader = new PartitionReader(cluster, {
    topic,
    partition: 0,
    startOffset: 0n,
    maxWaitMs: 200,
    signal: guard.signal,
  });
  const offsets: bigint[] = [];
  try {
    const produce = async (from: number) => {
      for (let i = from; i < from + 20; i++)
        offsets.push((await producer.send({ topic, partition: 0, value: `v${i}` })).offset);
    };
    await produce(0);
    const reading = readWhile(reader, (all) => recordsOf(all).length >= 40, {
      guard,
      guardMs: 90_000,
    });
    while ((reader.position ?? 0n) < 20n) await new Promise((r) => setTimeout(r, 50));
    await moveLeader(shared, topic, [2, 3, 1]);
    const metadataBefore = sent.filter((s) => s.apiKey === MetadataApi.apiKey).length;
    await produce(20);
    const batches = await reading;
    const values = recordsOf(batches).map((r) => r.value?.toString() ?? '');
    return {
      metadataAfterMove:
        sent.filter((s) => s.apiKey === MetadataApi.apiKey).length - metadataBefore,
      values,
      offsets,
      readerLeader: reader.leaderId,
    };
  } finally {
    guard.abort();
    await reader.close();
    await producer.close();
    await cluster.close();
  }
}

describe('leader hints (KIP-951) through a leadership move', () => {
  it('the producer and the reader follow the hinted leader with no Metadata request', async () => {
    const run = await produceAndReadAcrossAMove(false);
    const expected = Array.from({ length: 40 }, (_, i) => `v${i}`);
    expect(run.values).toEqual(expected);
    expect(run.offsets).toEqual(Array.from({ length: 40 }, (_, i) => BigInt(i)));
    expect(run.readerLeader).toBe(2);
    expect(run.metadataAfterMove).toBe(0);
    console.log(`leader hints on: ${run.metadataAfterMove} Metadata requests after the move`);
  });

  it('control: with the hints ignored, the same move costs Metadata requests', async () => {
    const run = await produceAndReadAcrossAMove(true);
    expect(run.values).toEqual(Array.from({ length: 40 }, (_, i) => `v${i}`));
    expect(run.offsets).toEqual(Array.from({ length: 40 }, (_, i) => BigInt(i)));
    expect(run.metadataAfterMove).toBeGreaterThan(0);
    console.log(`leader hints off: ${run.metadataAfterMove} Metadata requests after the move`);
  });
});
