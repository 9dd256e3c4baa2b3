import { RemoteLogMetadataError } from '../errors.js';
import {
  createWithUpdates,
  type RemoteLogSegmentMetadata,
  type RemoteLogSegmentMetadataUpdate,
  type RemoteLogSegmentState,
} from '../events.js';
import { LeaderEpochState } from './leader-epoch-state.js';
import { segmentKey } from './segment-key.js';

/** Kafka's `RemoteLogSegmentState.isValidTransition`: self, and the copy/delete ladder. */
export function isValidSegmentTransition(
  from: RemoteLogSegmentState | undefined,
  to: RemoteLogSegmentState,
): boolean {
  if (from === undefined) return to === 'COPY_SEGMENT_STARTED';
  if (from === to) return true;
  switch (from) {
    case 'COPY_SEGMENT_STARTED':
      return to === 'COPY_SEGMENT_FINISHED' || to === 'DELETE_SEGMENT_STARTED';
    case 'COPY_SEGMENT_FINISHED':
      return to === 'DELETE_SEGMENT_STARTED';
    case 'DELETE_SEGMENT_STARTED':
      return to === 'DELETE_SEGMENT_FINISHED';
    case 'DELETE_SEGMENT_FINISHED':
      return false;
  }
}

/** What applying an event did; `dropped` explains an event Kafka logs and ignores. */
export type ApplyOutcome =
  | { readonly applied: true }
  | { readonly applied: false; readonly dropped: string };

const APPLIED: ApplyOutcome = { applied: true };

/** The last offset of `epoch` inside a segment: the next epoch's start - 1, else the segment's end. */
function epochEndOffset(segment: RemoteLogSegmentMetadata, epoch: number): bigint {
  const epochs = segment.segmentLeaderEpochs;
  for (let i = 0; i < epochs.length; i++) {
    if (epochs[i]!.epoch > epoch) return epochs[i]!.startOffset - 1n;
  }
  return segment.endOffset;
}

/**
 * One user partition's remote segments, with Kafka's `RemoteLogMetadataCache` semantics: the
 * segment state machine, a per-leader-epoch index, lookups that only see COPY_SEGMENT_FINISHED
 * segments, listings that also show copies and deletions in progress, and a highest offset per
 * epoch that deletions never lower.
 */
export class PartitionCache {
  /** Segments by key, in insertion order (Kafka's map is unordered). */
  readonly segments = new Map<string, RemoteLogSegmentMetadata>();
  /** Leader epoch -> its state; an epoch is never removed once seen (as in Kafka). */
  readonly epochs = new Map<number, LeaderEpochState>();
  /** Kafka's "initialized": the partition's metadata has been read up to its end once. */
  initialized = false;

  #epoch(epoch: number): LeaderEpochState {
    let state = this.epochs.get(epoch);
    if (state === undefined) {
      state = new LeaderEpochState();
      this.epochs.set(epoch, state);
    }
    return state;
  }

  /**
   * A segment event (record type 0). Kafka's `addCopyInProgressSegment`.
   * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_EVENT_INVALID` when its state is not
   *   COPY_SEGMENT_STARTED (Kafka's IllegalArgumentException)
   */
  addCopyInProgressSegment(segment: RemoteLogSegmentMetadata): ApplyOutcome {
    if (segment.state !== 'COPY_SEGMENT_STARTED') {
      throw new RemoteLogMetadataError(
        'ERR_KAFKA_RLMM_EVENT_INVALID',
        `segment ${segment.remoteLogSegmentId.id} should have state COPY_SEGMENT_STARTED but has ${segment.state}`,
      );
    }
    const key = segmentKey(segment.remoteLogSegmentId);
    const existing = this.segments.get(key);
    if (!isValidSegmentTransition(existing?.state, segment.state)) {
      return {
        applied: false,
        dropped: `invalid transition ${existing?.state} -> ${segment.state} of segment ${segment.remoteLogSegmentId.id}`,
      };
    }
    for (const e of segment.segmentLeaderEpochs) this.#epoch(e.epoch).copyStarted(key);
    this.segments.set(key, segment);
    return APPLIED;
  }

  /**
   * A segment update (record type 1). Kafka's `updateRemoteLogSegmentMetadata`: an update
   * whose segment is unknown is dropped before the partition is initialized (its add was
   * removed by retention) and reported after; an invalid transition is dropped.
   * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_EVENT_INVALID` for COPY_SEGMENT_STARTED
   *   onto a started segment (Kafka's IllegalArgumentException)
   */
  update(update: RemoteLogSegmentMetadataUpdate): ApplyOutcome {
    const key = segmentKey(update.remoteLogSegmentId);
    const existing = this.segments.get(key);
    if (existing === undefined) {
      return {
        applied: false,
        dropped: `no remote log segment metadata found for segment ${update.remoteLogSegmentId.id}`,
      };
    }
    if (!isValidSegmentTransition(existing.state, update.state)) {
      return {
        applied: false,
        dropped: `invalid transition ${existing.state} -> ${update.state} of segment ${update.remoteLogSegmentId.id}`,
      };
    }
    const updated = createWithUpdates(existing, update);
    switch (update.state) {
      case 'COPY_SEGMENT_STARTED':
        throw new RemoteLogMetadataError(
          'ERR_KAFKA_RLMM_EVENT_INVALID',
          `update of segment ${update.remoteLogSegmentId.id} with state COPY_SEGMENT_STARTED can not be applied`,
        );
      case 'COPY_SEGMENT_FINISHED':
        for (const e of updated.segmentLeaderEpochs) {
          this.#epoch(e.epoch).copyFinished(e.startOffset, key, epochEndOffset(updated, e.epoch));
        }
        this.segments.set(key, updated);
        break;
      case 'DELETE_SEGMENT_STARTED':
        for (const e of updated.segmentLeaderEpochs)
          this.#epoch(e.epoch).deleteStarted(e.startOffset, key);
        this.segments.set(key, updated);
        break;
      case 'DELETE_SEGMENT_FINISHED':
        for (const e of updated.segmentLeaderEpochs) this.#epoch(e.epoch).deleteFinished(key);
        this.segments.delete(key);
        break;
    }
    return APPLIED;
  }

  /**
   * The COPY_SEGMENT_FINISHED segment holding `offset` in `epoch`, if the offset is within that
   * epoch's range inside the segment.
   */
  lookup(epoch: number, offset: bigint): RemoteLogSegmentMetadata | undefined {
    const key = this.epochs.get(epoch)?.floor(offset);
    if (key === undefined) return undefined;
    const segment = this.segments.get(key);
    if (segment === undefined) return undefined;
    return offset > epochEndOffset(segment, epoch) ? undefined : segment;
  }

  /**
   * Kafka's `nextSegmentWithTxnIndex`: from the segment holding `offset`, the first one (going
   * forward within `epoch`) whose transaction index is not empty.
   */
  nextSegmentWithTxnIndex(epoch: number, offset: bigint): RemoteLogSegmentMetadata | undefined {
    let segment = this.lookup(epoch, offset);
    while (segment?.txnIndexEmpty) {
      segment = this.lookup(epoch, segment.endOffset + 1n);
    }
    return segment;
  }

  highestOffsetForEpoch(epoch: number): bigint | undefined {
    return this.epochs.get(epoch)?.highestLogOffset;
  }

  /**
   * Segments of an epoch: readable ones in offset order, then, when any copy or deletion is in
   * progress there, all of them sorted by start offset (stable).
   * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_RESOURCE_NOT_FOUND` if an indexed id has no
   *   metadata (Kafka's RemoteResourceNotFoundException; not reachable through events)
   */
  listByEpoch(epoch: number): RemoteLogSegmentMetadata[] {
    const state = this.epochs.get(epoch);
    if (state === undefined) return [];
    const out: RemoteLogSegmentMetadata[] = [];
    const collect = (key: string) => {
      const segment = this.segments.get(key);
      if (segment === undefined) {
        throw new RemoteLogMetadataError(
          'ERR_KAFKA_RLMM_RESOURCE_NOT_FOUND',
          `no remote log segment metadata found for ${key}`,
        );
      }
      out.push(segment);
    };
    for (const key of state.ids) collect(key);
    if (state.unreferenced.size > 0) {
      for (const key of state.unreferenced) collect(key);
      out.sort((a, b) =>
        a.startOffset < b.startOffset ? -1 : a.startOffset > b.startOffset ? 1 : 0,
      );
    }
    return out;
  }

  /** Every segment not yet DELETE_SEGMENT_FINISHED, in the order first added. */
  listAll(): RemoteLogSegmentMetadata[] {
    return [...this.segments.values()];
  }
}
