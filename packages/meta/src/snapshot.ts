import { ZERO_UUID } from '@kafkats/codec';
import type { MetadataTable } from './metadata-table.js';

/** A broker as Metadata describes it. */
export interface BrokerInfo {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  /** Null when the broker has no `broker.rack` (or the version predates racks, v0). */
  readonly rack: string | null;
}

/** One partition of a topic. */
export interface PartitionInfo {
  readonly partition: number;
  /** The leader's node id; absent when there is none (the protocol's -1 never gets here). */
  readonly leader?: number;
  /** -1 when unknown (Metadata below v7). */
  readonly leaderEpoch: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  /** Empty below Metadata v5. */
  readonly offlineReplicas: readonly number[];
  /** The partition-level error code; 0 when none. See `ProtocolError` for its meaning. */
  readonly errorCode: number;
}

/** One topic. */
export interface TopicInfo {
  readonly name: string;
  /** Kafka's uuid text form; the zero uuid `AAAAAAAAAAAAAAAAAAAAAA` below v10 or when unknown. */
  readonly topicId: string;
  readonly isInternal: boolean;
  /** The topic-level error code (UNKNOWN_TOPIC_OR_PARTITION, ...); 0 when none. */
  readonly errorCode: number;
  /** Sorted by partition index. */
  readonly partitions: readonly PartitionInfo[];
}

/** A partition's new leader as a Produce (v10+) or Fetch (v16+) answer names it (KIP-951). */
export interface LeaderHint {
  readonly topic: string;
  readonly partition: number;
  readonly leaderId: number;
  readonly leaderEpoch: number;
}

/** The constructor's input. */
export interface SnapshotInit {
  readonly brokers: readonly BrokerInfo[];
  readonly topics: readonly TopicInfo[];
  /** Absent when the response had none (-1). */
  readonly controllerId?: number;
  readonly clusterId: string | null;
  /** When the answer arrived, epoch milliseconds. */
  readonly fetchedAtMs: number;
}

function freezePartition(p: PartitionInfo): PartitionInfo {
  return Object.freeze({
    ...p,
    replicas: Object.freeze([...p.replicas]),
    isr: Object.freeze([...p.isr]),
    offlineReplicas: Object.freeze([...p.offlineReplicas]),
  });
}

function freezeTopic(t: TopicInfo): TopicInfo {
  const partitions = [...t.partitions]
    .sort((a, b) => a.partition - b.partition)
    .map(freezePartition);
  return Object.freeze({ ...t, partitions: Object.freeze(partitions) });
}

/** Where a snapshot built from response bytes keeps its columns (not part of `SnapshotInit`). */
const TABLE: unique symbol = Symbol('MetadataSnapshot.table');
/** Topics a targeted refresh merged over a table-backed snapshot, by name. */
const OVERLAY: unique symbol = Symbol('MetadataSnapshot.overlay');

/** A `SnapshotInit` whose topics are in a {@link MetadataTable} instead of objects. */
export interface TableSnapshotInit extends Omit<SnapshotInit, 'topics'> {
  readonly topics: readonly TopicInfo[];
  readonly [TABLE]: MetadataTable;
  /** Frozen topics that replace the table's same-named ones. */
  readonly [OVERLAY]?: ReadonlyMap<string, TopicInfo>;
}

/** Builds a snapshot over a table (module-internal, set by the class's static block). */
let snapshotOverTable: (
  init: Omit<SnapshotInit, 'topics'>,
  table: MetadataTable,
  overlay?: ReadonlyMap<string, TopicInfo>,
) => MetadataSnapshot;
/** True when some partition of `next` has an older known leader epoch than `previous` has. */
let hasOlderLeaderEpoch: (next: MetadataSnapshot, previous: MetadataSnapshot) => boolean;

/**
 * What the cluster looked like at `fetchedAtMs`. Deeply frozen: a reader holding one sees
 * the same view for as long as it holds it, whatever refreshes land meanwhile (the cluster
 * swaps the reference, it never edits a snapshot).
 *
 * A snapshot the cluster builds from a Metadata answer keeps the answer's partitions in
 * typed arrays and makes `TopicInfo` / `PartitionInfo` objects only when they are asked for
 * (`topics`, `topic()`, `partition()`); `leaderFor()` reads the arrays directly. A targeted
 * refresh merged into it keeps those arrays and lays the refreshed topics over them. What a
 * reader sees is the same either way.
 */
export class MetadataSnapshot {
  readonly brokers: readonly BrokerInfo[];
  readonly controllerId: number | undefined;
  readonly clusterId: string | null;
  readonly fetchedAtMs: number;
  readonly #byNode: ReadonlyMap<number, BrokerInfo>;
  /** Sorted by name; made on first access when the snapshot is table-backed. */
  #topics: readonly TopicInfo[] | undefined;
  #byName: Map<string, TopicInfo> | undefined;
  readonly #table: MetadataTable | undefined;
  /** Table-backed: topics that replace the table's same-named ones (targeted refreshes). */
  readonly #overlay: ReadonlyMap<string, TopicInfo> | undefined;
  /** Table-backed: topic name to its slot (the last of equal names, as `#byName` keeps). */
  #slots: Map<string, number> | undefined;
  #topicAt: (TopicInfo | undefined)[] | undefined;

  static {
    snapshotOverTable = (init, table, overlay) =>
      new MetadataSnapshot({
        ...init,
        topics: [],
        [TABLE]: table,
        // A merged snapshot keeps its (maybe empty) overlay: merging also makes names unique.
        ...(overlay === undefined ? {} : { [OVERLAY]: overlay }),
      } as TableSnapshotInit);
    hasOlderLeaderEpoch = (next, previous) => next.#hasOlderLeaderEpoch(previous);
  }

  constructor(init: SnapshotInit) {
    this.brokers = Object.freeze(
      [...init.brokers].sort((a, b) => a.nodeId - b.nodeId).map((b) => Object.freeze({ ...b })),
    );
    const table = (init as Partial<TableSnapshotInit>)[TABLE];
    this.#table = table;
    this.#overlay = table === undefined ? undefined : (init as TableSnapshotInit)[OVERLAY];
    if (table === undefined) {
      this.#topics = Object.freeze(
        [...init.topics]
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
          .map(freezeTopic),
      );
    }
    this.controllerId =
      init.controllerId !== undefined && init.controllerId >= 0 ? init.controllerId : undefined;
    this.clusterId = init.clusterId;
    this.fetchedAtMs = init.fetchedAtMs;
    this.#byNode = new Map(this.brokers.map((b) => [b.nodeId, b]));
    Object.freeze(this);
  }

  /** Sorted by name; partitions sorted by index. */
  get topics(): readonly TopicInfo[] {
    if (this.#topics !== undefined) return this.#topics;
    const table = this.#table!;
    const names = table.names;
    const overlay = this.#overlay;
    if (overlay !== undefined) {
      // As an eager merge makes it: one topic per name, the overlay's where it has one, else
      // the table's (the last of equal names), sorted by name.
      const merged: TopicInfo[] = [...overlay.values()];
      for (let slot = 0; slot < table.topicCount; slot++) {
        const name = names[slot]!;
        if (!overlay.has(name) && this.#slot(name) === slot) merged.push(this.#materialise(slot));
      }
      merged.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      this.#topics = Object.freeze(merged);
      return this.#topics;
    }
    const count = table.topicCount;
    const topics = new Array<TopicInfo>(count);
    const slots = this.#slotMap();
    if (slots.size === count) {
      // Names are unique (the usual case): the engine's own sort, which orders strings by code
      // units as `<` does, without a call into a comparator per comparison.
      const sorted = names.slice().sort();
      for (let i = 0; i < count; i++) topics[i] = this.#materialise(slots.get(sorted[i]!)!);
    } else {
      const order = Array.from({ length: count }, (_, i) => i);
      order.sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : a - b));
      for (let i = 0; i < count; i++) topics[i] = this.#materialise(order[i]!);
    }
    this.#topics = Object.freeze(topics);
    return this.#topics;
  }

  #slotMap(): Map<string, number> {
    if (this.#slots === undefined) {
      const names = this.#table!.names;
      const m = new Map<string, number>();
      for (let i = 0; i < names.length; i++) m.set(names[i]!, i);
      this.#slots = m;
    }
    return this.#slots;
  }

  #slot(name: string): number | undefined {
    return this.#slotMap().get(name);
  }

  #materialise(slot: number): TopicInfo {
    this.#topicAt ??= new Array<TopicInfo | undefined>(this.#table!.topicCount);
    const cached = this.#topicAt[slot];
    if (cached !== undefined) return cached;
    const table = this.#table!;
    const { names, topicInts, topicSorted } = table;
    const first = topicInts[slot * 5 + 2]!;
    const n = topicInts[slot * 5 + 3]!;
    const partitions = table.partitions(first, n);
    if (topicSorted[slot] === 0) partitions.sort((a, b) => a.partition - b.partition);
    const topic: TopicInfo = Object.freeze({
      name: names[slot]!,
      topicId: table.topicId(slot),
      isInternal: topicInts[slot * 5 + 1] === 1,
      errorCode: topicInts[slot * 5]!,
      partitions: Object.freeze(partitions),
    });
    this.#topicAt[slot] = topic;
    return topic;
  }

  /**
   * The partition slot of (`slot`, `partition`) when the table answers it directly (sorted
   * topic, index at its own position), else -1.
   */
  #directSlot(slot: number, partition: number): number {
    const t = this.#table!;
    const n = t.topicInts[slot * 5 + 3]!;
    if (t.topicSorted[slot] !== 1 || !(partition >= 0 && partition < n)) return -1;
    const k = t.topicInts[slot * 5 + 2]! + partition;
    return t.index(k) === partition ? k : -1;
  }

  /** The known leader epoch of a partition, -1 when unknown or absent. */
  #epochOf(topic: string, partition: number): number {
    if (this.#table !== undefined && this.#overlay?.has(topic) !== true) {
      const slot = this.#slot(topic);
      if (slot === undefined) return -1;
      const k = this.#directSlot(slot, partition);
      if (k >= 0) return this.#table.epoch(k);
    }
    return this.partition(topic, partition)?.leaderEpoch ?? -1;
  }

  #hasOlderLeaderEpoch(previous: MetadataSnapshot): boolean {
    const table = this.#table;
    if (table === undefined || this.#overlay !== undefined) {
      return this.topics.some((t) =>
        t.partitions.some((p) => {
          const before = previous.#epochOf(t.name, p.partition);
          return p.leaderEpoch >= 0 && p.leaderEpoch < before;
        }),
      );
    }
    const { names, topicInts } = table;
    for (let slot = 0; slot < table.topicCount; slot++) {
      const first = topicInts[slot * 5 + 2]!;
      const end = first + topicInts[slot * 5 + 3]!;
      for (let k = first; k < end; k++) {
        const epoch = table.epoch(k);
        if (epoch >= 0 && epoch < previous.#epochOf(names[slot]!, table.index(k))) return true;
      }
    }
    return false;
  }

  /** A snapshot that knows nothing, fetched "never" (age is infinite). */
  static empty(): MetadataSnapshot {
    return new MetadataSnapshot({
      brokers: [],
      topics: [],
      clusterId: null,
      fetchedAtMs: Number.NEGATIVE_INFINITY,
    });
  }

  /** Milliseconds since the answer arrived; `Infinity` for the empty snapshot. */
  age(nowMs: number = Date.now()): number {
    return nowMs - this.fetchedAtMs;
  }

  /** The topic, or undefined when this snapshot does not have it. */
  topic(name: string): TopicInfo | undefined {
    if (this.#table !== undefined) {
      const merged = this.#overlay?.get(name);
      if (merged !== undefined) return merged;
      const slot = this.#slot(name);
      return slot === undefined ? undefined : this.#materialise(slot);
    }
    this.#byName ??= new Map(this.topics.map((t) => [t.name, t]));
    return this.#byName.get(name);
  }

  /** The broker, or undefined. */
  broker(nodeId: number): BrokerInfo | undefined {
    return this.#byNode.get(nodeId);
  }

  /** The partition, or undefined. */
  partition(topic: string, partition: number): PartitionInfo | undefined {
    const t = this.topic(topic);
    if (t === undefined) return undefined;
    const p = t.partitions[partition];
    // Partitions are dense 0..n-1 in practice; fall back to a search if they are not.
    return p?.partition === partition ? p : t.partitions.find((q) => q.partition === partition);
  }

  /**
   * The topic's partition count, or -1 when this snapshot does not have the topic; read from
   * the answer's columns, without making the topic's objects (a producer routes every record
   * through it).
   */
  partitionCount(topic: string): number {
    if (this.#table !== undefined && this.#overlay?.has(topic) !== true) {
      const slot = this.#slot(topic);
      return slot === undefined ? -1 : this.#table.topicInts[slot * 5 + 3]!;
    }
    return this.topic(topic)?.partitions.length ?? -1;
  }

  /** The topic's error code in the answer (0 for none), or -1 when this snapshot does not have it. */
  topicErrorCode(topic: string): number {
    if (this.#table !== undefined && this.#overlay?.has(topic) !== true) {
      const slot = this.#slot(topic);
      return slot === undefined ? -1 : this.#table.topicInts[slot * 5]!;
    }
    return this.topic(topic)?.errorCode ?? -1;
  }

  /** The partition's leader node id, or undefined when unknown or leaderless. */
  leaderFor(topic: string, partition: number): number | undefined {
    if (this.#table !== undefined && this.#overlay?.has(topic) !== true) {
      const slot = this.#slot(topic);
      if (slot === undefined) return undefined;
      const k = this.#directSlot(slot, partition);
      if (k >= 0) {
        const leader = this.#table.leader(k);
        return leader >= 0 ? leader : undefined;
      }
    }
    const leader = this.partition(topic, partition)?.leader;
    return leader !== undefined && leader >= 0 ? leader : undefined;
  }

  /** Every (topic, partition) whose leader is `nodeId`. */
  partitionsLedBy(nodeId: number): { topic: string; partition: number }[] {
    const out: { topic: string; partition: number }[] = [];
    for (const t of this.topics) {
      for (const p of t.partitions)
        if (p.leader === nodeId) out.push({ topic: t.name, partition: p.partition });
    }
    return out;
  }

  /**
   * A new snapshot with `fresh`'s topics replacing same-named ones (others kept), brokers and
   * controller from `fresh` when it has brokers. `fetchedAtMs` stays the older one: a targeted
   * refresh does not make the rest of the view any younger. Leader epochs never go backwards
   * (see {@link keepNewerLeaderEpochs}).
   */
  withTopicsMerged(fresh: MetadataSnapshot): MetadataSnapshot {
    const refreshed = keepNewerLeaderEpochs(fresh, this).topics;
    const hasBrokers = fresh.brokers.length > 0;
    const controllerId = hasBrokers ? fresh.controllerId : this.controllerId;
    const init = {
      brokers: hasBrokers ? fresh.brokers : this.brokers,
      ...(controllerId === undefined ? {} : { controllerId }),
      clusterId: fresh.clusterId ?? this.clusterId,
      fetchedAtMs: Math.min(this.fetchedAtMs, fresh.fetchedAtMs),
    };
    if (this.#table !== undefined) {
      // A few refreshed topics over a table of thousands: keep the table, lay them over it.
      const overlay = new Map(this.#overlay);
      for (const t of refreshed) overlay.set(t.name, t);
      return snapshotOverTable(init, this.#table, overlay);
    }
    const topics = new Map(this.topics.map((t) => [t.name, t]));
    for (const t of refreshed) topics.set(t.name, t);
    return new MetadataSnapshot({ ...init, topics: [...topics.values()] });
  }

  /**
   * A copy with the leaders that produce and fetch answers name (KIP-951 `CurrentLeader`)
   * applied: a hint replaces a partition's leader and epoch only when its epoch is newer than
   * the one this snapshot holds (as Kafka's `Metadata.updatePartitionLeadership` does), and
   * only when the new leader's address is known (here or in `endpoints`, which join the
   * brokers). Replicas and ISR are kept. Returns this snapshot when no hint applies.
   */
  withLeaderHints(
    hints: readonly LeaderHint[],
    endpoints: readonly BrokerInfo[],
  ): MetadataSnapshot {
    const known = new Map(this.brokers.map((b) => [b.nodeId, b]));
    const added: BrokerInfo[] = [];
    for (const e of endpoints) {
      if (!known.has(e.nodeId)) {
        known.set(e.nodeId, e);
        added.push(e);
      }
    }
    const byTopic = new Map<string, Map<number, LeaderHint>>();
    for (const h of hints) {
      const p = this.partition(h.topic, h.partition);
      if (p === undefined || h.leaderId < 0 || !known.has(h.leaderId)) continue;
      if (!(h.leaderEpoch > p.leaderEpoch)) continue;
      let m = byTopic.get(h.topic);
      if (m === undefined) byTopic.set(h.topic, (m = new Map()));
      m.set(h.partition, h);
    }
    if (byTopic.size === 0) return this;
    const topics = this.topics.map((t) => {
      const m = byTopic.get(t.name);
      if (m === undefined) return t;
      return {
        ...t,
        partitions: t.partitions.map((p) => {
          const h = m.get(p.partition);
          return h === undefined ? p : { ...p, leader: h.leaderId, leaderEpoch: h.leaderEpoch };
        }),
      };
    });
    return new MetadataSnapshot({
      brokers: [...this.brokers, ...added],
      topics,
      ...(this.controllerId === undefined ? {} : { controllerId: this.controllerId }),
      clusterId: this.clusterId,
      fetchedAtMs: this.fetchedAtMs,
    });
  }

  /** A copy that names no controller (after NOT_CONTROLLER: the next lookup refreshes). */
  withoutController(): MetadataSnapshot {
    if (this.controllerId === undefined) return this;
    if (this.#table !== undefined) {
      const init = {
        brokers: this.brokers,
        clusterId: this.clusterId,
        fetchedAtMs: this.fetchedAtMs,
      };
      return snapshotOverTable(init, this.#table, this.#overlay);
    }
    return new MetadataSnapshot({
      brokers: this.brokers,
      topics: this.topics,
      clusterId: this.clusterId,
      fetchedAtMs: this.fetchedAtMs,
    });
  }

  /** A copy with the leader of every partition `nodeId` led removed (the broker went away). */
  withoutLeader(nodeId: number): MetadataSnapshot {
    let changed = false;
    const topics = this.topics.map((t) => {
      if (!t.partitions.some((p) => p.leader === nodeId)) return t;
      changed = true;
      return {
        ...t,
        partitions: t.partitions.map((p) => {
          if (p.leader !== nodeId) return p;
          const { leader: _, ...rest } = p;
          return rest;
        }),
      };
    });
    if (!changed) return this;
    return new MetadataSnapshot({
      brokers: this.brokers,
      topics,
      ...(this.controllerId === undefined ? {} : { controllerId: this.controllerId }),
      clusterId: this.clusterId,
      fetchedAtMs: this.fetchedAtMs,
    });
  }
}

/**
 * `next`, except that a partition whose leader epoch is older than the one `previous` holds
 * keeps `previous`'s partition. A broker that lags on metadata answers with an older leader and
 * epoch; installing it would route to a leader that already stepped down. Compared only when
 * the topic ids match (a topic deleted and re-created starts again at epoch 0) and both epochs
 * are known (>= 0).
 */
export function keepNewerLeaderEpochs(
  next: MetadataSnapshot,
  previous: MetadataSnapshot,
): MetadataSnapshot {
  // Refreshes almost never go backwards: answer that from the columns before making objects.
  if (!hasOlderLeaderEpoch(next, previous)) return next;
  let changed = false;
  const topics = next.topics.map((t) => {
    const old = previous.topic(t.name);
    if (
      old === undefined ||
      (old.topicId !== t.topicId && old.topicId !== ZERO_UUID && t.topicId !== ZERO_UUID)
    ) {
      return t;
    }
    let topicChanged = false;
    const partitions = t.partitions.map((p) => {
      const before = previous.partition(t.name, p.partition);
      if (
        before !== undefined &&
        before.leaderEpoch >= 0 &&
        p.leaderEpoch >= 0 &&
        p.leaderEpoch < before.leaderEpoch
      ) {
        topicChanged = true;
        return before;
      }
      return p;
    });
    if (!topicChanged) return t;
    changed = true;
    return { ...t, partitions };
  });
  if (!changed) return next;
  return new MetadataSnapshot({
    brokers: next.brokers,
    topics,
    ...(next.controllerId === undefined ? {} : { controllerId: next.controllerId }),
    clusterId: next.clusterId,
    fetchedAtMs: next.fetchedAtMs,
  });
}

/**
 * A snapshot over `table` (see `readMetadataTable`): topics and partitions become objects
 * only when read.
 */
export function snapshotFromTable(
  init: Omit<SnapshotInit, 'topics'>,
  table: MetadataTable,
): MetadataSnapshot {
  return snapshotOverTable(init, table);
}
