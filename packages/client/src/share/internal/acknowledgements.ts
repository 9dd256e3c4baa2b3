/**
 * KIP-932 acknowledgements of one share partition, and their wire form: the
 * `AcknowledgementBatches` of ShareFetch and ShareAcknowledge, as Kafka's `Acknowledgements`
 * builds them.
 */

/** `AcknowledgeType` ids on the wire (ShareFetchRequest.json, ShareAcknowledgeRequest.json). */
export const AckType = {
  /** An acquired offset that holds no record the consumer could be given (KIP-932 "gap"). */
  Gap: 0,
  Accept: 1,
  Release: 2,
  Reject: 3,
} as const;
export type AckTypeId = (typeof AckType)[keyof typeof AckType];

/** One acknowledgement batch: consecutive offsets, one type for all or one per offset. */
export interface AckBatch {
  readonly firstOffset: bigint;
  readonly lastOffset: bigint;
  readonly acknowledgeTypes: number[];
}

/**
 * The acknowledgements of one partition as batches: offsets ascending, a new batch wherever
 * the offsets stop being consecutive, and a batch whose offsets all share one type sends that
 * type once (Kafka's `Acknowledgements.getAcknowledgementBatches` and its optimisation of a
 * uniform batch); a mixed batch sends one type per offset.
 */
export function ackBatches(acks: ReadonlyMap<bigint, AckTypeId>): AckBatch[] {
  const offsets = [...acks.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const batches: AckBatch[] = [];
  let i = 0;
  while (i < offsets.length) {
    const first = offsets[i]!;
    const types: number[] = [acks.get(first)!];
    let last = first;
    i++;
    while (i < offsets.length && offsets[i] === last + 1n) {
      last = offsets[i]!;
      types.push(acks.get(last)!);
      i++;
    }
    const uniform = types.every((t) => t === types[0]);
    batches.push({
      firstOffset: first,
      lastOffset: last,
      acknowledgeTypes: uniform ? [types[0]!] : types,
    });
  }
  return batches;
}

/** Every offset of `batches` with its type: the inverse of {@link ackBatches}. */
export function ackOffsets(batches: readonly AckBatch[]): Map<bigint, number> {
  const out = new Map<bigint, number>();
  for (const b of batches) {
    const n = Number(b.lastOffset - b.firstOffset) + 1;
    for (let k = 0; k < n; k++) {
      const type =
        b.acknowledgeTypes.length === 1 ? b.acknowledgeTypes[0]! : b.acknowledgeTypes[k]!;
      out.set(b.firstOffset + BigInt(k), type);
    }
  }
  return out;
}

/** The acquired offset ranges of one ShareFetch partition answer. */
export interface AcquiredRange {
  readonly firstOffset: bigint;
  readonly lastOffset: bigint;
  readonly deliveryCount: number;
}

/** Most offsets one partition answer may acquire before it is taken for a broken answer. */
export const MAX_ACQUIRED_OFFSETS = 1_000_000;

/**
 * What is wrong with a partition's acquired ranges, or undefined: each range must be ordered
 * (first <= last, delivery count >= 1), the ranges ascending without overlap, and together at
 * most {@link MAX_ACQUIRED_OFFSETS} offsets (a broker acquires about `maxRecords`, a log batch
 * more at most).
 */
export function acquiredRangesInvalid(ranges: readonly AcquiredRange[]): string | undefined {
  let total = 0n;
  let previous = -1n;
  for (const r of ranges) {
    if (r.firstOffset < 0n || r.firstOffset > r.lastOffset)
      return `acquired range ${r.firstOffset}-${r.lastOffset} is not ordered`;
    if (r.firstOffset <= previous)
      return `acquired range ${r.firstOffset}-${r.lastOffset} overlaps or precedes the one before`;
    if (r.deliveryCount < 1)
      return `acquired range ${r.firstOffset}-${r.lastOffset} has delivery count ${r.deliveryCount}`;
    total += r.lastOffset - r.firstOffset + 1n;
    if (total > BigInt(MAX_ACQUIRED_OFFSETS))
      return `acquired ranges hold more than ${MAX_ACQUIRED_OFFSETS} offsets`;
    previous = r.lastOffset;
  }
  return undefined;
}

/**
 * Walks a partition's acquired ranges (ascending, as the broker sends them) alongside its
 * records (ascending too): `countAt(offset)` is the delivery count of an acquired offset, 0
 * for one this member did not acquire (not handed out). Offsets must be asked in ascending
 * order; the walk is linear in records plus ranges.
 */
export class AcquiredCursor {
  readonly #ranges: readonly AcquiredRange[];
  #i = 0;

  constructor(ranges: readonly AcquiredRange[]) {
    this.#ranges = ranges;
  }

  countAt(offset: bigint): number {
    const ranges = this.#ranges;
    while (this.#i < ranges.length && ranges[this.#i]!.lastOffset < offset) this.#i++;
    const r = ranges[this.#i];
    return r !== undefined && offset >= r.firstOffset ? r.deliveryCount : 0;
  }
}
