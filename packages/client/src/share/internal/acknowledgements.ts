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
 * The acknowledgements of one partition waiting to be sent, offset by offset, in the order
 * they were made. Made to be cheap in the order a consumer makes them (ascending offsets, as
 * a fetch hands records out); sorted once, when sent, otherwise. An offset added twice keeps
 * its last type.
 */
export class AckSet {
  #offsets: bigint[] = [];
  #types: AckTypeId[] = [];
  #ascending = true;

  add(offset: bigint, type: AckTypeId): void {
    const n = this.#offsets.length;
    if (n > 0 && offset <= this.#offsets[n - 1]!) this.#ascending = false;
    this.#offsets.push(offset);
    this.#types.push(type);
  }

  /** Each offset, ascending, with its type. */
  *entries(): IterableIterator<[bigint, AckTypeId]> {
    this.#sort();
    for (let i = 0; i < this.#offsets.length; i++) yield [this.#offsets[i]!, this.#types[i]!];
  }

  /** The offsets acknowledged with a type other than gap, ascending. */
  acknowledged(): bigint[] {
    this.#sort();
    return this.#offsets.filter((_, i) => this.#types[i] !== AckType.Gap);
  }

  /**
   * As batches: offsets ascending, a new batch wherever the offsets stop being consecutive,
   * and a batch whose offsets all share one type sends that type once (Kafka's
   * `Acknowledgements.getAcknowledgementBatches` and its optimisation of a uniform batch); a
   * mixed batch sends one type per offset.
   */
  batches(): AckBatch[] {
    this.#sort();
    const offsets = this.#offsets;
    const all = this.#types;
    const batches: AckBatch[] = [];
    let i = 0;
    while (i < offsets.length) {
      const first = offsets[i]!;
      const from = i;
      let last = first;
      let uniform = true;
      i++;
      while (i < offsets.length && offsets[i] === last + 1n) {
        last = offsets[i]!;
        if (all[i] !== all[from]) uniform = false;
        i++;
      }
      batches.push({
        firstOffset: first,
        lastOffset: last,
        acknowledgeTypes: uniform ? [all[from]!] : all.slice(from, i),
      });
    }
    return batches;
  }

  #sort(): void {
    if (this.#ascending) return;
    const order = this.#offsets.map((_, i) => i);
    const o = this.#offsets;
    order.sort((a, b) => (o[a]! < o[b]! ? -1 : o[a]! > o[b]! ? 1 : a - b));
    const offsets: bigint[] = [];
    const types: AckTypeId[] = [];
    for (const i of order) {
      // Equal offsets are adjacent, in the order added: the last one wins.
      const n = offsets.length;
      if (n > 0 && offsets[n - 1] === o[i]) {
        types[n - 1] = this.#types[i]!;
        continue;
      }
      offsets.push(o[i]!);
      types.push(this.#types[i]!);
    }
    this.#offsets = offsets;
    this.#types = types;
    this.#ascending = true;
  }
}

/** The batches of `acks` (see {@link AckSet.batches}). */
export function ackBatches(acks: ReadonlyMap<bigint, AckTypeId>): AckBatch[] {
  const set = new AckSet();
  for (const [offset, type] of acks) set.add(offset, type);
  return set.batches();
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
