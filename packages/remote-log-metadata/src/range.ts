import { PartitionReader } from '@kafkats/client';
import type { Cluster } from '@kafkats/meta';
import type { MetadataLogRecord } from './event-log.js';
import { metadataLogRecord } from './serde.js';

/** What a range read needs: the topic and the reader settings of its log. */
export interface RangeReadSettings {
  readonly topic: string;
  readonly fetchMaxBytes: number;
  readonly fetchMaxWaitMs: number;
  readonly fetchRetryBackoffMs: number;
}

/**
 * Reads `[from, min(to, end))` of one partition a page (one Fetch answer) at a time, where
 * `end` is the high-water mark when the read starts. The reader fetches from the leader on a
 * connection of its own and follows the leader when it moves (NOT_LEADER, fenced epochs and
 * lost connections are retried inside), so a range survives a leader change.
 */
export async function visitRange(
  cluster: Cluster,
  settings: RangeReadSettings,
  partition: number,
  from: bigint,
  end: bigint,
  visitor: (record: MetadataLogRecord) => void | Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  if (from >= end) return;
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const reader = new PartitionReader(cluster, {
    topic: settings.topic,
    partition,
    startOffset: from,
    partitionMaxBytes: settings.fetchMaxBytes,
    maxWaitMs: settings.fetchMaxWaitMs,
    retryBackoffMs: settings.fetchRetryBackoffMs,
    prefetch: false,
    signal: controller.signal,
  });
  try {
    for await (const page of reader) {
      for (const r of page.records) {
        if (r.offset >= end) return;
        if (r.offset >= from) await visitor(metadataLogRecord(r.offset, r.value, r.timestamp));
      }
      if (page.nextOffset >= end) return;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await reader.close();
  }
}
