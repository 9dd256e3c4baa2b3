// The fake produce cluster with transaction and group coordinators behind it. Every
// coordinator request is recorded (API, coordinator kind and key, node, the request built for
// the version asked for); `answer` can replace the default reply (everything accepted) with a
// response, an error the send rejects with, or a promise of either (a coordinator that is slow).
// Coordinators are cached as the meta Cluster caches them: `coordinatorNode` is asked (a
// FindCoordinator) only for a key not cached, and `invalidateCoordinator` drops a key.
import type { ApiDescriptor } from '@kafkats/codec';
import type { ClusterSendOptions } from '@kafkats/meta';
import { FakeProduceCluster } from './fake-produce-cluster.js';

export type CoordinatorKind = 'group' | 'transaction';

/** One request to a coordinator. `request` is read loosely: tests look at a few fields. */
export interface CoordinatorCall {
  readonly api: string;
  readonly kind: CoordinatorKind;
  readonly key: string;
  readonly node: number;
  /** The version the request was built for. */
  readonly version: number;
  // biome-ignore lint/suspicious/noExplicitAny: requests of several APIs, read by field name
  readonly request: any;
}

/** A scripted reply: fields of the response, or the error the send rejects with. */
export type CoordinatorReply = Record<string, unknown> | Error;

export class TxnFakeCluster extends FakeProduceCluster {
  readonly calls: CoordinatorCall[] = [];
  /** Replaces the default reply of a request when it returns something. */
  answer: (
    call: CoordinatorCall,
  ) => CoordinatorReply | Promise<CoordinatorReply | undefined> | undefined = () => undefined;
  /** What a coordinator lookup (FindCoordinator) answers for a kind and key. */
  coordinatorNode: (kind: CoordinatorKind, key: string) => number = () => 1;
  /** Lookups made, and keys invalidated, as `kind key`. */
  readonly lookups: string[] = [];
  readonly invalidated: string[] = [];
  readonly #cached = new Map<string, number>();
  #epoch = 0;

  override invalidateCoordinator(kind?: CoordinatorKind, key?: string): void {
    this.invalidated.push(`${kind} ${key}`);
    this.#cached.delete(`${kind} ${key}`);
  }

  #coordinator(kind: CoordinatorKind, key: string): number {
    const cacheKey = `${kind} ${key}`;
    let node = this.#cached.get(cacheKey);
    if (node === undefined) {
      this.lookups.push(cacheKey);
      node = this.coordinatorNode(kind, key);
      this.#cached.set(cacheKey, node);
    }
    return node;
  }

  /** The recorded calls of one API. */
  callsOf(api: string): CoordinatorCall[] {
    return this.calls.filter((c) => c.api === api);
  }

  // Parameters optional: the base fake declares none.
  override async sendToCoordinator<Req, Res>(
    kind?: CoordinatorKind,
    key?: string,
    descriptor?: ApiDescriptor<Req, Res>,
    input?: unknown,
    options?: ClusterSendOptions,
  ): Promise<Res> {
    const api = descriptor!;
    const version = options?.version ?? 3;
    const request = typeof input === 'function' ? (input as (v: number) => Req)(version) : input;
    const call: CoordinatorCall = {
      api: api.name,
      kind: kind!,
      key: key!,
      node: this.#coordinator(kind!, key!),
      version,
      request,
    };
    this.calls.push(call);
    const reply = (await this.answer(call)) ?? this.#defaultReply(call);
    if (reply instanceof Error) throw reply;
    return api.createResponse(reply as Partial<Res>);
  }

  #defaultReply(call: CoordinatorCall): CoordinatorReply {
    switch (call.api) {
      case 'InitProducerId':
        return { producerId: 7n, producerEpoch: this.#epoch++ };
      case 'AddPartitionsToTxn':
        return addPartitionsReply(call, () => 0);
      case 'TxnOffsetCommit':
        return txnOffsetCommitReply(call, () => 0);
      case 'AddOffsetsToTxn':
        return {};
      case 'EndTxn':
        // v5+ (KIP-890) names the next transaction's epoch.
        return call.version >= 5 ? { producerId: 7n, producerEpoch: this.#epoch++ } : {};
      default:
        return new Error(`fake: coordinator ${call.api}`);
    }
  }
}

/** An AddPartitionsToTxn (v3 and below) answer with `code(topic, partition)` per partition. */
export function addPartitionsReply(
  call: CoordinatorCall,
  code: (topic: string, partition: number) => number,
): CoordinatorReply {
  const topics: { name: string; partitions: number[] }[] = call.request.v3AndBelowTopics;
  return {
    resultsByTopicV3AndBelow: topics.map((t) => ({
      name: t.name,
      resultsByPartition: t.partitions.map((p) => ({
        partitionIndex: p,
        partitionErrorCode: code(t.name, p),
      })),
    })),
  };
}

/** A TxnOffsetCommit answer with `code(topic, partition)` per partition. */
export function txnOffsetCommitReply(
  call: CoordinatorCall,
  code: (topic: string, partition: number) => number,
): CoordinatorReply {
  const topics: { name: string; partitions: { partitionIndex: number }[] }[] = call.request.topics;
  return {
    topics: topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({
        partitionIndex: p.partitionIndex,
        errorCode: code(t.name, p.partitionIndex),
      })),
    })),
  };
}
