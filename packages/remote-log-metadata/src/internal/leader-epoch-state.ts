/**
 * One leader epoch's view of a partition's remote segments, as Kafka's
 * `RemoteLogLeaderEpochState`: `offsetToId` maps the epoch's start offset in each
 * COPY_SEGMENT_FINISHED segment to its id (kept sorted), `unreferenced` holds segments listed
 * but not readable (copy in progress, deletion started, or replaced by a later copy), and
 * `highestLogOffset` only ever grows.
 */
export class LeaderEpochState {
  /** Start offsets ascending, parallel to `ids`. */
  readonly offsets: bigint[] = [];
  readonly ids: string[] = [];
  /** Insertion-ordered set of segment keys. */
  readonly unreferenced = new Set<string>();
  highestLogOffset: bigint | undefined;

  copyStarted(key: string): void {
    this.unreferenced.add(key);
  }

  /**
   * A finished copy replaces the epoch's last entries that start at or after it while the
   * epoch's highest offset is within it (a new leader re-uploaded a superset, or an overlap).
   */
  copyFinished(startOffset: bigint, key: string, epochEndOffset: bigint): void {
    for (;;) {
      const last = this.offsets.length - 1;
      if (last < 0) break;
      const lastStart = this.offsets[last]!;
      if (!(lastStart >= startOffset && (this.highestLogOffset ?? 0n) <= epochEndOffset)) break;
      this.unreferenced.add(this.ids[last]!);
      this.offsets.pop();
      this.ids.pop();
    }
    this.#put(startOffset, key);
    this.unreferenced.delete(key);
    if (this.highestLogOffset === undefined || epochEndOffset > this.highestLogOffset) {
      this.highestLogOffset = epochEndOffset;
    }
  }

  deleteStarted(startOffset: bigint, key: string): void {
    const i = this.#indexOf(startOffset);
    if (i >= 0 && this.ids[i] === key) {
      this.offsets.splice(i, 1);
      this.ids.splice(i, 1);
    }
    this.unreferenced.add(key);
  }

  deleteFinished(key: string): void {
    this.unreferenced.delete(key);
  }

  /** The id of the entry with the greatest start offset <= offset (TreeMap.floorEntry). */
  floor(offset: bigint): string | undefined {
    let lo = 0;
    let hi = this.offsets.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.offsets[mid]! <= offset) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found < 0 ? undefined : this.ids[found];
  }

  #indexOf(offset: bigint): number {
    let lo = 0;
    let hi = this.offsets.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = this.offsets[mid]!;
      if (v === offset) return mid;
      if (v < offset) lo = mid + 1;
      else hi = mid - 1;
    }
    return -lo - 1;
  }

  #put(offset: bigint, key: string): void {
    const i = this.#indexOf(offset);
    if (i >= 0) {
      this.ids[i] = key;
    } else {
      const at = -i - 1;
      this.offsets.splice(at, 0, offset);
      this.ids.splice(at, 0, key);
    }
  }
}
