import { decode, encode } from '@msgpack/msgpack';
import { RemoteLogMetadataError } from '../errors.js';
import {
  REMOTE_LOG_SEGMENT_STATE_IDS,
  REMOTE_PARTITION_DELETE_STATE_IDS,
  type RemoteLogSegmentMetadata,
  type RemoteLogSegmentState,
  type RemotePartitionDeleteState,
  type TopicIdPartition,
} from '../events.js';
import { LeaderEpochState } from './leader-epoch-state.js';
import { MetadataStore } from './metadata-store.js';
import { PartitionCache } from './partition-cache.js';
import { partitionKey, segmentKey } from './segment-key.js';

/** Format version of the resume snapshot; a different one is refused. */
const SNAPSHOT_FORMAT = 1;

const SEGMENT_STATES = Object.keys(REMOTE_LOG_SEGMENT_STATE_IDS) as RemoteLogSegmentState[];
const DELETE_STATES = Object.keys(
  REMOTE_PARTITION_DELETE_STATE_IDS,
) as RemotePartitionDeleteState[];

/** What a resume snapshot holds: the read position of each metadata partition and the state built from it. */
export interface SnapshotContent {
  readonly topicId: string;
  readonly numPartitions: number;
  readonly positions: ReadonlyMap<number, bigint>;
  readonly store: MetadataStore;
}

type Tip = [string, string, number];
type SegmentTuple = [
  string,
  bigint,
  bigint,
  number,
  bigint,
  bigint,
  [number, bigint][],
  number,
  Uint8Array | null,
  number,
  boolean,
];
type EpochTuple = [number, bigint | null, [bigint, string][], string[]];
type EntryTuple = [Tip, number, SegmentTuple[] | null, EpochTuple[]];
type DeleteTuple = [Tip, number, bigint, number];

const tip = (tp: TopicIdPartition): Tip => [tp.topicId, tp.topic, tp.partition];

/**
 * Encodes the snapshot with msgpack (int64 as msgpack int64). Segment ids inside an epoch's
 * index are the segments' uuids: every segment of a cache belongs to its partition.
 */
export function encodeSnapshot(content: SnapshotContent): Uint8Array {
  const entries: EntryTuple[] = [];
  for (const entry of content.store.entries.values()) {
    const cache = entry.cache;
    if (cache === undefined) {
      entries.push([tip(entry.tp), entry.metadataPartition, null, []]);
      continue;
    }
    const segments: SegmentTuple[] = [];
    for (const s of cache.segments.values()) {
      segments.push([
        s.remoteLogSegmentId.id,
        s.startOffset,
        s.endOffset,
        s.brokerId,
        s.maxTimestampMs,
        s.eventTimestampMs,
        s.segmentLeaderEpochs.map((e) => [e.epoch, e.startOffset]),
        s.segmentSizeInBytes,
        s.customMetadata,
        REMOTE_LOG_SEGMENT_STATE_IDS[s.state],
        s.txnIndexEmpty,
      ]);
    }
    const uuid = (key: string) => key.slice(0, key.indexOf('@'));
    const epochs: EpochTuple[] = [];
    for (const [epoch, state] of cache.epochs) {
      epochs.push([
        epoch,
        state.highestLogOffset ?? null,
        state.offsets.map((o, i) => [o, uuid(state.ids[i]!)]),
        [...state.unreferenced].map(uuid),
      ]);
    }
    entries.push([tip(entry.tp), entry.metadataPartition, segments, epochs]);
  }
  const deletes: DeleteTuple[] = [...content.store.deletes.values()].map((d) => [
    tip(d.topicIdPartition),
    REMOTE_PARTITION_DELETE_STATE_IDS[d.state],
    d.eventTimestampMs,
    d.brokerId,
  ]);
  return encode(
    [
      SNAPSHOT_FORMAT,
      content.topicId,
      content.numPartitions,
      [...content.positions],
      entries,
      deletes,
    ],
    { useBigInt64: true },
  );
}

const bad = (detail: string, cause?: unknown) =>
  new RemoteLogMetadataError(
    'ERR_KAFKA_RLMM_SNAPSHOT_INVALID',
    `remote log metadata snapshot: ${detail}`,
    cause === undefined ? {} : { cause },
  );

const big = (v: unknown): bigint => {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  throw bad(`expected an integer, got ${typeof v}`);
};
const int = (v: unknown): number => {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'bigint') return Number(v);
  throw bad(`expected an integer, got ${typeof v}`);
};
const str = (v: unknown): string => {
  if (typeof v !== 'string') throw bad(`expected a string, got ${typeof v}`);
  return v;
};
const arr = (v: unknown): unknown[] => {
  if (!Array.isArray(v)) throw bad(`expected an array, got ${typeof v}`);
  return v;
};
const toTip = (v: unknown): TopicIdPartition => {
  const [topicId, topic, partition] = arr(v);
  return { topicId: str(topicId), topic: str(topic), partition: int(partition) };
};
function segmentState(id: number): RemoteLogSegmentState {
  const s = SEGMENT_STATES[id];
  if (s === undefined) throw bad(`unknown segment state ${id}`);
  return s;
}

/**
 * Decodes a snapshot written by {@link encodeSnapshot}.
 * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_SNAPSHOT_INVALID` for anything else
 */
export function decodeSnapshot(bytes: Uint8Array): SnapshotContent {
  let root: unknown[];
  try {
    root = arr(decode(bytes, { useBigInt64: true }));
  } catch (error) {
    if (error instanceof RemoteLogMetadataError) throw error;
    throw bad('not msgpack', error);
  }
  const [format, topicId, numPartitions, positions, entries, deletes] = root;
  if (format !== SNAPSHOT_FORMAT)
    throw bad(`format ${String(format)} (this version reads ${SNAPSHOT_FORMAT})`);
  const store = new MetadataStore();
  for (const e of arr(entries)) {
    const [tipValue, metadataPartition, segments, epochs] = arr(e);
    const tp = toTip(tipValue);
    const entry = store.load(tp, int(metadataPartition));
    if (segments === null) {
      entry.cache = undefined;
      continue;
    }
    const cache = new PartitionCache();
    const keyOf = (uuid: unknown) => segmentKey({ topicIdPartition: tp, id: str(uuid) });
    for (const s of arr(segments)) {
      const f = arr(s);
      const segment: RemoteLogSegmentMetadata = {
        kind: 'segment',
        remoteLogSegmentId: { topicIdPartition: tp, id: str(f[0]) },
        startOffset: big(f[1]),
        endOffset: big(f[2]),
        brokerId: int(f[3]),
        maxTimestampMs: big(f[4]),
        eventTimestampMs: big(f[5]),
        segmentLeaderEpochs: arr(f[6]).map((p) => {
          const [epoch, startOffset] = arr(p);
          return { epoch: int(epoch), startOffset: big(startOffset) };
        }),
        segmentSizeInBytes: int(f[7]),
        customMetadata: f[8] === null ? null : Buffer.from(f[8] as Uint8Array),
        state: segmentState(int(f[9])),
        txnIndexEmpty: f[10] === true,
      };
      cache.segments.set(segmentKey(segment.remoteLogSegmentId), segment);
    }
    for (const ep of arr(epochs)) {
      const [epoch, highest, index, unreferenced] = arr(ep);
      const state = new LeaderEpochState();
      state.highestLogOffset = highest === null ? undefined : big(highest);
      for (const pair of arr(index)) {
        const [offset, uuid] = arr(pair);
        state.offsets.push(big(offset));
        state.ids.push(keyOf(uuid));
      }
      for (const uuid of arr(unreferenced)) state.unreferenced.add(keyOf(uuid));
      cache.epochs.set(int(epoch), state);
    }
    entry.cache = cache;
  }
  for (const d of arr(deletes)) {
    const [tipValue, state, eventTimestampMs, brokerId] = arr(d);
    const tp = toTip(tipValue);
    const deleteState = DELETE_STATES[int(state)];
    if (deleteState === undefined) throw bad(`unknown partition delete state ${String(state)}`);
    store.deletes.set(partitionKey(tp), {
      kind: 'partition-delete',
      topicIdPartition: tp,
      state: deleteState,
      eventTimestampMs: big(eventTimestampMs),
      brokerId: int(brokerId),
    });
  }
  const positionMap = new Map<number, bigint>();
  for (const p of arr(positions)) {
    const [partition, offset] = arr(p);
    positionMap.set(int(partition), big(offset));
  }
  return {
    topicId: str(topicId),
    numPartitions: int(numPartitions),
    positions: positionMap,
    store,
  };
}
