import type { TracingChannel } from 'node:diagnostics_channel';
import { createTracingChannel } from '@kafkats/wire';
import type { RemoteLogMetadataEvent, TopicIdPartition } from './events.js';

/**
 * The context of one `kafkats:remote-log-metadata:apply` trace: a
 * {@link RemoteLogMetadataManager} applying one event read from the metadata topic to its state.
 * Synchronous: `start`, then `error` if applying threw (a record Kafka would refuse), then `end`.
 */
export interface ApplyTraceContext {
  /** Where the event was read. */
  readonly metadataPartition: number;
  readonly offset: bigint;
  /** `'segment'`, `'segment-update'` or `'partition-delete'`. */
  readonly kind: RemoteLogMetadataEvent['kind'];
  /** The user partition the event is about. */
  readonly topicIdPartition: TopicIdPartition;
  /** The event's state (`COPY_SEGMENT_FINISHED`, `DELETE_PARTITION_STARTED`, ...). */
  readonly state: string;
  readonly event: RemoteLogMetadataEvent;
  /** Filled: true when the state changed; false when Kafka's cache drops the event (see `dropped`). */
  applied: boolean;
  /** Filled: why the event was dropped; null when applied. */
  dropped: string | null;
  /** Set by the channel: why applying threw. */
  error?: unknown;
  result?: unknown;
}

/** Name of the event-apply tracing channel (`node:diagnostics_channel`). */
export const APPLY_CHANNEL = 'kafkats:remote-log-metadata:apply';

/** Every event a manager applies. Nothing is built or published while no one subscribes. */
export const applyChannel: TracingChannel<unknown, ApplyTraceContext> =
  createTracingChannel(APPLY_CHANNEL);
