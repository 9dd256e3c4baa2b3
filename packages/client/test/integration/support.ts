// Shared pieces of the reader's integration tests: unique names, a connection factory that
// records every request, a bounded read loop (a guard against hanging, not a timing check), and
// a leadership move that every broker has seen.
import { randomUUID } from 'node:crypto';
import { MetadataApi } from '@kafkats/codec';
import {
  buildMetadataRequest,
  Cluster,
  type ConnectionFactory,
  type MetaConnection,
  type WireConnectionOptions,
  wireConnectionFactory,
} from '@kafkats/meta';
import type { ConsumedRecord, SharedCluster } from '@kafkats/testkit';
import { expect } from 'vitest';
import type { ConsumerRecord, PartitionBatch } from '../../src/index.js';

export const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

export interface SentRequest {
  /** Undefined on a bootstrap connection (the pool may adopt one as a node's connection). */
  readonly nodeId: number | undefined;
  /** `host:port` of the broker. */
  readonly address: string;
  readonly dedicated: boolean;
  readonly apiKey: number;
  /** Set when the answer (or a failure) came back. */
  settled: 'answered' | 'failed' | undefined;
}

/** The real wire factory, with every request on every connection recorded. */
export function spyFactory(options: WireConnectionOptions = {}): {
  factory: ConnectionFactory;
  sent: SentRequest[];
  /** Every connection opened, in order: its broker and whether it is a dedicated one. */
  opened: { nodeId: number | undefined; dedicated: boolean }[];
} {
  const inner = wireConnectionFactory(options);
  const sent: SentRequest[] = [];
  const opened: { nodeId: number | undefined; dedicated: boolean }[] = [];
  const factory: ConnectionFactory = async (target) => {
    const c = await inner(target);
    const dedicated = target.label.includes('dedicated');
    opened.push({ nodeId: target.nodeId, dedicated });
    const wrapped: MetaConnection = {
      get closed() {
        return c.closed;
      },
      get pending() {
        return c.pending;
      },
      get lastActivityMs() {
        return c.lastActivityMs;
      },
      negotiatedVersion: (k) => c.negotiatedVersion(k),
      onClose: (l) => c.onClose(l),
      close: () => c.close(),
      send: async (api, request, sendOptions) => {
        const entry: SentRequest = {
          nodeId: target.nodeId,
          address: `${target.host}:${target.port}`,
          dedicated,
          apiKey: api.apiKey,
          settled: undefined,
        };
        sent.push(entry);
        try {
          const response = await c.send(api, request, sendOptions);
          entry.settled = 'answered';
          return response;
        } catch (error) {
          entry.settled = 'failed';
          throw error;
        }
      },
    };
    return wrapped;
  };
  return { factory, sent, opened };
}

/**
 * Iterates until `done` says so or `guardMs` passes (then the loop is aborted and the caller's
 * assertions on what was read fail with the evidence).
 */
export async function readWhile(
  source: AsyncIterable<PartitionBatch>,
  done: (all: PartitionBatch[]) => boolean,
  options: {
    guard?: AbortController;
    guardMs?: number;
    onBatch?: (b: PartitionBatch) => void;
  } = {},
): Promise<PartitionBatch[]> {
  const all: PartitionBatch[] = [];
  const guard = options.guard;
  const timer = guard ? setTimeout(() => guard.abort(), options.guardMs ?? 90_000) : undefined;
  try {
    for await (const batch of source) {
      all.push(batch);
      options.onBatch?.(batch);
      if (done(all)) break;
    }
  } finally {
    clearTimeout(timer);
  }
  return all;
}

/** A record as plain data, comparable with what Kafka's own consumer read. */
export interface PlainRecord {
  offset: bigint;
  timestamp: bigint;
  key: string | null;
  value: string | null;
  headers: { key: string; value: string | null }[];
}

const hex = (b: Buffer | null) => (b === null ? null : b.toString('hex'));

export function plain(record: ConsumerRecord): PlainRecord {
  return {
    offset: record.offset,
    timestamp: record.timestamp,
    key: hex(record.key),
    value: hex(record.value),
    headers: record.headers.map((h) => ({ key: h.key, value: hex(h.value) })),
  };
}

export function plainJava(record: ConsumedRecord): PlainRecord {
  return {
    offset: record.offset,
    timestamp: record.timestamp,
    key: hex(record.key),
    value: hex(record.value),
    headers: record.headers.map((h) => ({ key: h.key, value: hex(h.value) })),
  };
}

export const recordsOf = (batches: readonly PartitionBatch[]) => batches.flatMap((b) => b.records);

/**
 * Makes `replicas[0]` the leader of partition 0 (reorder the replicas with Kafka's admin, then a
 * preferred election), and waits until every broker's own metadata names it: an old leader can
 * only hint at a leader it knows about. The brokers are asked by a client of its own, so these
 * Metadata requests are never among the ones a test counts.
 */
export async function moveLeader(
  kafka: SharedCluster,
  topic: string,
  replicas: number[],
): Promise<void> {
  await kafka.admin.reassignPartitions(topic, { 0: replicas });
  while ((await kafka.admin.listReassignments()).some((r) => r.topic === topic)) {
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(await kafka.admin.electLeaders(topic, { partitions: [0] })).toEqual([
    { partition: 0, error: null },
  ]);
  const probe = await Cluster.connect(kafka.bootstrap, { refreshIntervalMs: 0 });
  try {
    for (let i = 0; i < 120; i++) {
      const leaders = await Promise.all(
        kafka.brokers.map((b) =>
          probe
            .sendToNode(b.nodeId, MetadataApi, (v) => buildMetadataRequest([topic], v))
            .then((m) => m.topics[0]?.partitions[0]?.leaderId),
        ),
      );
      if (leaders.every((l) => l === replicas[0])) return;
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    await probe.close();
  }
  throw new Error(`leadership of ${topic}-0 did not move to ${replicas[0]} on every broker`);
}
