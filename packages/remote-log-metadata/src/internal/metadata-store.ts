import { RemoteLogMetadataError } from '../errors.js';
import {
  partitionName,
  type RemoteLogMetadataEvent,
  type RemotePartitionDeleteMetadata,
  type TopicIdPartition,
  topicIdPartitionOf,
} from '../events.js';
import { type ApplyOutcome, PartitionCache } from './partition-cache.js';
import { partitionKey } from './segment-key.js';

/** One user partition's entry: its cache, or none after DELETE_PARTITION_FINISHED. */
export interface PartitionEntry {
  readonly tp: TopicIdPartition;
  /** The metadata partition its events are in. */
  readonly metadataPartition: number;
  cache: PartitionCache | undefined;
}

/**
 * The state of every user partition met in the metadata partitions read so far, as Kafka's
 * `RemotePartitionMetadataStore` keeps it for its registered partitions. Kafka skips events of
 * partitions not registered and replays the metadata partition from its start when one is
 * registered later; keeping every partition's state instead gives the same state at
 * registration without the replay.
 */
export class MetadataStore {
  readonly entries = new Map<string, PartitionEntry>();
  readonly deletes = new Map<string, RemotePartitionDeleteMetadata>();

  entry(tp: TopicIdPartition): PartitionEntry | undefined {
    return this.entries.get(partitionKey(tp));
  }

  /** Creates the partition's empty cache unless it exists or was deleted (maybeLoadPartition). */
  load(tp: TopicIdPartition, metadataPartition: number): PartitionEntry {
    const key = partitionKey(tp);
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = { tp, metadataPartition, cache: new PartitionCache() };
      this.entries.set(key, entry);
    }
    return entry;
  }

  /**
   * Applies one event. A partition's first event loads it; after DELETE_PARTITION_FINISHED its
   * cache is gone and segment events for it are refused, as Kafka's store refuses them.
   * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_EVENT_INVALID` where Kafka's store throws
   */
  apply(event: RemoteLogMetadataEvent, metadataPartition: number): ApplyOutcome {
    const tp = topicIdPartitionOf(event);
    if (event.kind === 'partition-delete') {
      const key = partitionKey(tp);
      this.deletes.set(key, event);
      if (event.state === 'DELETE_PARTITION_FINISHED') {
        const entry = this.load(tp, metadataPartition);
        entry.cache = undefined;
        this.deletes.delete(key);
      }
      return { applied: true };
    }
    const cache = this.load(tp, metadataPartition).cache;
    if (cache === undefined) {
      throw new RemoteLogMetadataError(
        'ERR_KAFKA_RLMM_EVENT_INVALID',
        `no partition metadata found for ${partitionName(tp)} (its deletion finished)`,
      );
    }
    return event.kind === 'segment' ? cache.addCopyInProgressSegment(event) : cache.update(event);
  }
}
