// A transactional producer aborting while one of its Produce requests is still out: when that
// request then fails retriably (the leader died, the connection dropped), the batch goes back to
// the queue, where nothing drains it (the transaction is aborting) and nothing expires it (no
// sender pass is due). Kafka's Sender aborts undrained batches on every pass while the
// transaction is aborting or in an abortable error (`abortUndrainedBatches`); without that,
// abortTransaction's flush waits for the batch forever.
import { type ApiDescriptor, ErrorCode } from '@kafkats/codec';
import type { ClusterSendOptions, RequestInput } from '@kafkats/meta';
import { describe, expect, it } from 'vitest';
import { Producer } from '../../../src/index.js';
import { FakeProduceCluster } from './fake-produce-cluster.js';

/** The fake broker plus a transaction coordinator that accepts everything. */
class TxnFakeCluster extends FakeProduceCluster {
  readonly coordinatorCalls: string[] = [];
  epoch = 0;
  /** Produce requests to these nodes wait for `held` before they are looked at. */
  readonly holdNodes = new Set<number>();
  held: Promise<void> = Promise.resolve();

  override async sendToNode<Req, Res>(
    node: number,
    api: ApiDescriptor<Req, Res>,
    input: RequestInput<Req>,
    options?: ClusterSendOptions,
  ): Promise<Res> {
    if (this.holdNodes.has(node)) await this.held;
    return super.sendToNode(node, api, input, options);
  }

  // Parameters optional: the base fake declares none.
  override sendToCoordinator<Req, Res>(
    _kind?: 'group' | 'transaction',
    _key?: string,
    descriptor?: ApiDescriptor<Req, Res>,
    input?: unknown,
  ): Promise<Res> {
    const api = descriptor!;
    this.coordinatorCalls.push(api.name);
    const request = (typeof input === 'function' ? (input as (v: number) => Req)(3) : input) as {
      v3AndBelowTopics?: { name: string; partitions: number[] }[];
    };
    switch (api.apiKey) {
      case 22: // InitProducerId
        return Promise.resolve(
          api.createResponse({
            producerId: 7n,
            producerEpoch: this.epoch++,
          } as unknown as Partial<Res>),
        );
      case 24: // AddPartitionsToTxn v3
        return Promise.resolve(
          api.createResponse({
            resultsByTopicV3AndBelow: (request.v3AndBelowTopics ?? []).map((t) => ({
              name: t.name,
              resultsByPartition: t.partitions.map((p) => ({
                partitionIndex: p,
                partitionErrorCode: 0,
              })),
            })),
          } as unknown as Partial<Res>),
        );
      case 25: // AddOffsetsToTxn
      case 26: // EndTxn
        return Promise.resolve(api.createResponse({} as Partial<Res>));
      default:
        return Promise.reject(new Error(`fake: coordinator ${api.name}`));
    }
  }
}

const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([
    p.then(
      () => 'settled' as const,
      () => 'settled' as const,
    ),
    new Promise<'hung'>((r) => setTimeout(() => r('hung'), ms)),
  ]);

describe('transactional producer: abort with a Produce in flight', () => {
  it('abortTransaction settles when the in-flight Produce then fails retriably', async () => {
    const cluster = new TxnFakeCluster({ out: 1 });
    const producer = new Producer(cluster, {
      transactionalId: 'tx',
      lingerMs: 0,
      requestTimeoutMs: 1000,
      deliveryTimeoutMs: 1500,
    });
    await producer.initTransactions();
    producer.beginTransaction();
    let release!: () => void;
    cluster.gate = new Promise<void>((r) => {
      release = r;
    });
    cluster.fault = () => 'lost-before';
    const sent = producer.send({ topic: 'out', partition: 0, value: 'a' });
    sent.catch(() => {});
    for (let i = 0; i < 200 && cluster.requests.length === 0; i++)
      await new Promise((r) => setTimeout(r, 5));
    expect(cluster.requests.length).toBe(1);
    // The application aborts (e.g. sendOffsetsToTransaction failed) while the batch is out.
    const aborting = producer.abortTransaction();
    aborting.catch(() => {});
    cluster.gate = undefined;
    cluster.fault = () => 'ok';
    release();
    expect(await within(aborting, 5000)).toBe('settled');
    await expect(sent).rejects.toThrow();
    // The failed batch may have been written: the epoch is bumped before the next transaction.
    expect(cluster.coordinatorCalls).toContain('EndTxn');
    expect(cluster.coordinatorCalls.filter((c) => c === 'InitProducerId').length).toBe(2);
    producer.beginTransaction();
    const next = producer.send({ topic: 'out', partition: 0, value: 'b' });
    await producer.commitTransaction();
    await expect(next).resolves.toMatchObject({ partition: 0 });
    await producer.close();
  });

  it('commitTransaction settles when one batch fails for good and another, in flight, fails retriably', async () => {
    // Partition 0 is led by node 1, partition 1 by node 2.
    const cluster = new TxnFakeCluster({ out: 2 });
    const producer = new Producer(cluster, { transactionalId: 'tx', lingerMs: 0 });
    await producer.initTransactions();
    producer.beginTransaction();
    let release!: () => void;
    cluster.held = new Promise<void>((r) => {
      release = r;
    });
    cluster.holdNodes.add(2);
    cluster.log('out', 0).nextError = ErrorCode.MESSAGE_TOO_LARGE;
    cluster.fault = (r) => (r.node === 2 ? 'lost-before' : 'ok');
    const a = producer.send({ topic: 'out', partition: 0, value: 'a' });
    const b = producer.send({ topic: 'out', partition: 1, value: 'b' });
    a.catch(() => {});
    b.catch(() => {});
    const committing = producer.commitTransaction();
    committing.catch(() => {});
    await expect(a).rejects.toThrow();
    release();
    expect(await within(committing, 3000)).toBe('settled');
    await expect(committing).rejects.toThrow();
    await expect(b).rejects.toThrow();
    expect(await within(producer.abortTransaction(), 3000)).toBe('settled');
    await producer.close();
  });
});
