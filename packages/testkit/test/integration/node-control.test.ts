import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KafkaCluster, startCluster } from '../../src/index.js';

async function eventually<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await probe();
    if (accept(last)) return last;
    if (Date.now() > deadline)
      throw new Error(`condition not met in ${timeoutMs} ms; last value ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('stopNode, startNode and restartNode on a private 3-node cluster', () => {
  let cluster: KafkaCluster;
  const topic = `testkit-nodes-${randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    cluster = await startCluster({ nodes: 3 });
    await cluster.admin.createTopic(topic, {
      partitions: 3,
      replicationFactor: 3,
      configs: { 'min.insync.replicas': '1' },
    });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  const registered = async () =>
    (await cluster.admin.describeCluster()).nodes.map((n) => `${n.id}@${n.port}`);

  it('stops a node (controlled shutdown): it leaves the cluster and leads nothing', async () => {
    await cluster.stopNode(2);
    expect(cluster.brokers.find((b) => b.nodeId === 2)?.running).toBe(false);
    const ids = await eventually(registered, (nodes) => nodes.length === 2);
    expect(ids.map((n) => n.split('@')[0])).toEqual(['1', '3']);
    const described = await cluster.admin.describeTopic(topic);
    for (const p of described.partitions) expect(p.leader).not.toBe(2);
  });

  it('starts it again and it is registered on its old port', async () => {
    const port = cluster.brokers.find((b) => b.nodeId === 2)?.port;
    await cluster.startNode(2);
    expect(await registered()).toContain(`2@${port}`);
  });

  it('restarts a node on a new port and re-advertises it', async () => {
    const before = cluster.brokers.find((b) => b.nodeId === 3)?.port;
    const oldBootstrap = cluster.bootstrap;
    await cluster.restartNode(3);
    const after = cluster.brokers.find((b) => b.nodeId === 3)?.port;
    expect(after).not.toBe(before);
    expect(cluster.bootstrap).not.toBe(oldBootstrap);
    expect(cluster.bootstrap).toContain(`127.0.0.1:${after}`);
    expect(await registered()).toEqual(cluster.brokers.map((b) => `${b.nodeId}@${b.port}`));
    // A fresh client bootstrapping from the new addresses reaches the data.
    const fresh = cluster.javaAdmin();
    expect(fresh.bootstrap).toBe(cluster.bootstrap);
    await fresh.produce(topic, [{ value: 'after-restart', partition: 0 }]);
    const read = await fresh.consume(topic, { partition: 0, maxRecords: 1, timeoutMs: 20_000 });
    expect(read.map((r) => r.value?.toString())).toEqual(['after-restart']);
  });

  it('kills a node with SIGKILL: the controller fences it after the session timeout', async () => {
    await cluster.stopNode(1, { signal: 'SIGKILL' });
    const nodes = await eventually(registered, (n) => n.length === 2);
    expect(nodes.map((n) => n.split('@')[0])).toEqual(['2', '3']);
    await cluster.startNode(1);
    expect((await registered()).map((n) => n.split('@')[0])).toEqual(['1', '2', '3']);
  });

  it('rolls every node onto a new port; the cluster admin follows the new addresses', async () => {
    // Regression: readiness used an admin bootstrapped from the first addresses, which can
    // never reach the cluster again once every broker has moved (seen by the meta tests).
    const before = new Set(cluster.brokers.map((b) => b.port));
    for (const nodeId of [1, 2, 3]) await cluster.restartNode(nodeId);
    expect(cluster.brokers.filter((b) => before.has(b.port))).toEqual([]);
    expect(cluster.admin.bootstrap).toBe(cluster.bootstrap);
    expect(await registered()).toEqual(cluster.brokers.map((b) => `${b.nodeId}@${b.port}`));
  });

  it('rejects an unknown node id with a typed error', async () => {
    await expect(cluster.stopNode(7)).rejects.toMatchObject({
      code: 'ERR_KAFKA_TESTKIT_CLUSTER_STATE',
    });
  });
});
