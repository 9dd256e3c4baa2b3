// The testkit's brokers keep records whatever their timestamps (log.retention.ms=-1): tests pin
// timestamps in the past, and Kafka's default retention (7 days, checked every
// log.retention.check.interval.ms) deletes a log whose records are all older than that, the
// active segment included. The control topic sets Kafka's default back and loses its records
// to the same check.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KafkaCluster, startCluster } from '../../src/index.js';

const SEVEN_DAYS_MS = 7 * 24 * 60 * 60 * 1000;

describe('record retention on a test cluster', () => {
  let cluster: KafkaCluster;
  beforeAll(async () => {
    cluster = await startCluster({
      nodes: 1,
      // Kafka checks retention every 5 minutes by default; every half second here.
      brokerConfig: { 'log.retention.check.interval.ms': 500 },
    });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('keeps records timestamped in 2023, which a topic with the 7-day default retention loses to the retention check', async () => {
    const { admin } = cluster;
    const suffix = randomUUID().slice(0, 8);
    const kept = `testkit-retention-kept-${suffix}`;
    const expiring = `testkit-retention-expiring-${suffix}`;
    await admin.createTopic(kept, { partitions: 1, replicationFactor: 1 });
    await admin.createTopic(expiring, {
      partitions: 1,
      replicationFactor: 1,
      configs: { 'retention.ms': String(SEVEN_DAYS_MS) },
    });
    const records = Array.from({ length: 10 }, (_, i) => ({
      value: `old-${i}`,
      partition: 0,
      timestamp: 1_700_000_000_000n + BigInt(i),
    }));
    await admin.produce(kept, records);
    await admin.produce(expiring, records);

    // The control: a retention check runs and deletes the whole log of the expiring topic.
    const deadline = Date.now() + 60_000;
    let earliest = await admin.listOffsets(expiring, 'earliest');
    while (earliest[0]?.offset !== 10n) {
      if (Date.now() > deadline)
        throw new Error(
          `no retention check removed the 2023 records: log start ${earliest[0]?.offset}`,
        );
      await new Promise((r) => setTimeout(r, 250));
      earliest = await admin.listOffsets(expiring, 'earliest');
    }

    // The same checks went over the other topic, written first, and left it whole.
    expect(await admin.listOffsets(kept, 'earliest')).toMatchObject([{ partition: 0, offset: 0n }]);
    const read = await admin.consume(kept, { partition: 0, maxRecords: 10, timeoutMs: 20_000 });
    expect(read.map((r) => r.value?.toString())).toEqual(records.map((r) => r.value));
  });
});
