import { randomBytes } from 'node:crypto';
import { Admin, Producer } from '@kafkats/client';
import { Cluster } from '@kafkats/meta';
import {
  KafkaMetadataEventLog,
  RemoteLogMetadataManager,
  type RemoteLogSegmentId,
  type RemoteLogSegmentState,
  remoteLogSegmentMetadata,
  remoteLogSegmentMetadataUpdate,
  type TopicIdPartition,
} from '@kafkats/remote-log-metadata';
import { CliError } from './cli-error.js';
import { describeEvent } from './rlmm-view.js';
import { processIo, Terminal, type TerminalIo } from './terminal.js';

/** The user topic whose (pretend) remote segments the sample events describe. */
export const SAMPLE_TOPIC = 'orders';
const SAMPLE_PARTITIONS = 3;
/** Records written to each sample partition: 250, as three segments of 100, 100 and 50. */
const RECORDS_PER_PARTITION = 250;
const BROKER_ID = 1;

/** A fresh segment uuid in Kafka's text form (base64url, no padding). */
function segmentUuid(): string {
  return randomBytes(16).toString('base64url');
}

/** What the sample job wrote, for the summary and for tests. */
export interface SampleJobResult {
  readonly metadataTopic: string;
  readonly metadataTopicId: string;
  readonly topic: string;
  readonly topicId: string;
  /** Events written to the metadata topic. */
  readonly events: number;
  /** Records written to the sample topic. */
  readonly records: number;
}

/**
 * The job `npm start` runs on its embedded single-node cluster: provisions the tiered-storage
 * metadata topic (`KafkaMetadataEventLog.start`), creates a sample topic with records, and writes
 * each partition's segment lifecycle through a RemoteLogMetadataManager, as a broker copying
 * segments to remote storage would (COPY_SEGMENT_STARTED, COPY_SEGMENT_FINISHED; on partition 0
 * the oldest segment also expires: DELETE_SEGMENT_STARTED, DELETE_SEGMENT_FINISHED), printing
 * every event once the manager has read it back.
 *
 * For a scratch cluster only: it writes metadata events for segments that exist nowhere, which
 * a real broker with tiered storage would act on.
 *
 * @throws CliError `ERR_KAFKA_CLI_BROKER` when the cluster refuses; the client's errors
 */
export async function runSampleJob(
  bootstrap: string,
  io: TerminalIo | undefined,
  options: { color: boolean },
): Promise<SampleJobResult> {
  const term = new Terminal(io ?? processIo(), { json: false, color: options.color });
  const c = term.colors;
  const cluster = await Cluster.connect(bootstrap, { refreshIntervalMs: 0 });
  const admin = new Admin(cluster);
  let log: KafkaMetadataEventLog | undefined;
  let manager: RemoteLogMetadataManager | undefined;
  try {
    const brokers = cluster.snapshot().brokers.length;
    const replicas = Math.min(3, brokers);
    const step = (text: string) => term.line(`${c.cyan('›')} ${text}`);

    step('provisioning the tiered-storage metadata topic (KafkaMetadataEventLog.start)');
    log = await KafkaMetadataEventLog.start({
      bootstrap,
      replicationFactor: replicas,
      minInsyncReplicas: Math.min(2, replicas),
      cluster: { refreshIntervalMs: 0 },
    });
    term.line(`  ${log.topic} ${c.dim(log.topicId)}: ${log.numPartitions} partitions`);

    step(
      `creating topic ${SAMPLE_TOPIC} with ${SAMPLE_PARTITIONS} partitions and ${RECORDS_PER_PARTITION} records each`,
    );
    const [created] = (
      await admin.createTopics(
        [
          {
            name: SAMPLE_TOPIC,
            numPartitions: SAMPLE_PARTITIONS,
            replicationFactor: replicas,
            configs: { 'retention.ms': '-1' },
          },
        ],
        { waitForLeaders: true },
      )
    ).topics;
    if (created?.error !== undefined && created.error.errorName !== 'TOPIC_ALREADY_EXISTS') {
      throw new CliError(
        'ERR_KAFKA_CLI_BROKER',
        `creating ${SAMPLE_TOPIC} failed: ${created.error.message}`,
        { cause: created.error },
      );
    }
    const [described] = (await admin.describeTopics([SAMPLE_TOPIC])).topics;
    const topicId = described?.topicId ?? '';
    const producer = new Producer(cluster, { lingerMs: 20 });
    const sends = [];
    for (let p = 0; p < SAMPLE_PARTITIONS; p++) {
      for (let i = 0; i < RECORDS_PER_PARTITION; i++) {
        sends.push(
          (
            await producer.enqueue({
              topic: SAMPLE_TOPIC,
              partition: p,
              key: `order-${p}-${i}`,
              value: JSON.stringify({ order: i, partition: p, amount: (i * 7) % 100 }),
              headers: [{ key: 'source', value: 'npm-start' }],
            })
          ).result,
        );
      }
    }
    await Promise.all(sends);
    await producer.close();

    step('writing the segment lifecycle of each partition through the RemoteLogMetadataManager');
    manager = new RemoteLogMetadataManager(log);
    const tps: TopicIdPartition[] = [];
    for (let p = 0; p < SAMPLE_PARTITIONS; p++)
      tps.push({ topicId, topic: SAMPLE_TOPIC, partition: p });
    await manager.onPartitionLeadershipChanges(tps);
    await manager.waitUntilReady(tps);
    let events = 0;
    const show = async (write: Promise<{ partition: number; offset: bigint }>, text: string) => {
      const at = await write;
      events++;
      term.line(`  ${c.dim(`${at.partition}@${at.offset}`)} ${text}`);
    };
    const now = BigInt(Date.now());
    for (const tp of tps) {
      const segments: { id: RemoteLogSegmentId; start: bigint; end: bigint }[] = [
        { id: { topicIdPartition: tp, id: segmentUuid() }, start: 0n, end: 99n },
        { id: { topicIdPartition: tp, id: segmentUuid() }, start: 100n, end: 199n },
        { id: { topicIdPartition: tp, id: segmentUuid() }, start: 200n, end: 249n },
      ];
      for (const [i, s] of segments.entries()) {
        const segment = remoteLogSegmentMetadata({
          remoteLogSegmentId: s.id,
          startOffset: s.start,
          endOffset: s.end,
          brokerId: BROKER_ID,
          maxTimestampMs: now - BigInt((3 - i) * 60_000),
          eventTimestampMs: BigInt(Date.now()),
          segmentLeaderEpochs: [{ epoch: 0, startOffset: s.start }],
          segmentSizeInBytes: Number(s.end - s.start + 1n) * 96,
        });
        await show(manager.addRemoteLogSegmentMetadata(segment), describeEvent(segment, c));
        // The last segment stays in COPY_SEGMENT_STARTED: a copy still under way.
        if (i === segments.length - 1) continue;
        const states: RemoteLogSegmentState[] =
          tp.partition === 0 && i === 0
            ? ['COPY_SEGMENT_FINISHED', 'DELETE_SEGMENT_STARTED', 'DELETE_SEGMENT_FINISHED']
            : ['COPY_SEGMENT_FINISHED'];
        for (const state of states) {
          const update = remoteLogSegmentMetadataUpdate({
            remoteLogSegmentId: s.id,
            eventTimestampMs: BigInt(Date.now()),
            state,
            brokerId: BROKER_ID,
          });
          await show(manager.updateRemoteLogSegmentMetadata(update), describeEvent(update, c));
        }
      }
    }
    return {
      metadataTopic: log.topic,
      metadataTopicId: log.topicId,
      topic: SAMPLE_TOPIC,
      topicId,
      events,
      records: SAMPLE_PARTITIONS * RECORDS_PER_PARTITION,
    };
  } finally {
    await manager?.close();
    await log?.close();
    await cluster.close();
  }
}
