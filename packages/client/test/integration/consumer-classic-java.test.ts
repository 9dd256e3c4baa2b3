// Our classic members and Kafka's own KafkaConsumer (group.protocol=classic, cooperative-sticky,
// through ClassicGroupMember.java) in one group on the shared cluster, so that our subscription
// and assignment bytes are read by Java and Java's by us: once with our member as the leader
// (ours join first, the coordinator keeps its leader), once with Java's (Java joins first).
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Cluster } from '@kafkats/meta';
import { kafkaDist, sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, unique } from './admin-support.js';
import {
  classicMember,
  connect,
  ownedLabels,
  type TestMember,
} from './consumer-classic-support.js';

const JAVA_SOURCE = join(import.meta.dirname, '..', 'support', 'ClassicGroupMember.java');
const COOPERATIVE_STICKY = 'org.apache.kafka.clients.consumer.CooperativeStickyAssignor';

const kafka = sharedCluster();
let cluster: Cluster;
const running: TestMember[] = [];
const javas: JavaMember[] = [];

/** A Java KafkaConsumer in the group, and what its rebalance listener printed. */
class JavaMember {
  readonly lines: string[] = [];
  owned: string[] = [];
  closed = false;
  readonly #child: ChildProcess;

  constructor(group: string, topic: string) {
    this.#child = spawn(
      'java',
      [
        '-cp',
        kafkaDist().classpath,
        JAVA_SOURCE,
        kafka.bootstrap,
        group,
        topic,
        COOPERATIVE_STICKY,
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    createInterface({ input: this.#child.stdout! }).on('line', (line) => {
      this.lines.push(line);
      if (line.startsWith('OWNS '))
        this.owned = line.slice(5) === '' ? [] : line.slice(5).split(',');
      if (line === 'CLOSED') this.closed = true;
    });
    this.#child.stderr!.resume();
  }

  /** Closes the consumer (a LeaveGroup) and waits for the JVM to say so. */
  async close(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    this.#child.stdin!.end('close\n');
    await eventually(
      async () => this.closed,
      (c) => c,
      60_000,
    );
    if (!this.closed) this.#child.kill('SIGKILL');
  }

  kill(): void {
    if (this.#child.exitCode === null) this.#child.kill('SIGKILL');
  }
}

beforeAll(async () => {
  cluster = await connect(kafka.bootstrap);
});
afterAll(async () => {
  await Promise.all(running.map((m) => m.membership.leave()));
  for (const j of javas) j.kill();
  await cluster?.close();
});

async function topicWith(partitions: number): Promise<{ topic: string; labels: string[] }> {
  const topic = unique('classic-java');
  await kafka.admin.createTopic(topic, { partitions, replicationFactor: 1 });
  await cluster.refreshTopics([topic]);
  return { topic, labels: Array.from({ length: partitions }, (_, p) => `${topic}-${p}`).sort() };
}

function ours(group: string, topic: string): TestMember {
  const m = classicMember(cluster, group, [topic], { assignors: ['cooperative-sticky'] });
  running.push(m);
  return m;
}

function java(group: string, topic: string): JavaMember {
  const j = new JavaMember(group, topic);
  javas.push(j);
  return j;
}

/** Disjoint shares that together are every partition, each of `share` partitions. */
function split(
  shares: readonly (readonly string[])[],
  labels: readonly string[],
  share: number,
): boolean {
  const all = shares.flat();
  return (
    all.length === labels.length &&
    new Set(all).size === all.length &&
    labels.every((l) => all.includes(l)) &&
    shares.every((s) => s.length === share)
  );
}

describe('ClassicMembership with a Java KafkaConsumer in the group', () => {
  it('our leader assigns to Java, and Java leaving hands its share back cooperatively', async () => {
    const { topic, labels } = await topicWith(6);
    const group = unique('g-java-follower');
    const a = ours(group, topic);
    const b = ours(group, topic);
    await Promise.all([a.membership.start(), b.membership.start()]);
    await eventually(
      async () => [a, b],
      (ms) => split(ms.map(ownedLabels), labels, 3),
      60_000,
    );
    const leader = [a, b].find((m) => m.membership.isLeader);
    expect(leader).toBeDefined();
    const before = new Map([a, b].map((m) => [m, ownedLabels(m)]));

    const j = java(group, topic);
    const shares = () => [ownedLabels(a), ownedLabels(b), j.owned];
    await eventually(
      async () => shares(),
      (s) => split(s, labels, 2),
      120_000,
    );
    expect(split(shares(), labels, 2)).toBe(true);
    // The leader is still ours: it decoded Java's subscription and Java read our assignment.
    expect(leader!.membership.isLeader).toBe(true);
    // Cooperative: ours only gave partitions up, kept the rest.
    for (const m of [a, b]) for (const p of ownedLabels(m)) expect(before.get(m)).toContain(p);
    expect(j.lines.some((l) => l.startsWith('LOST'))).toBe(false);

    await j.close();
    await eventually(
      async () => [a, b],
      (ms) => split(ms.map(ownedLabels), labels, 3),
      60_000,
    );
    expect(split([ownedLabels(a), ownedLabels(b)], labels, 3)).toBe(true);
    for (const m of [a, b]) expect(m.listener.events.some((e) => e.kind === 'lost')).toBe(false);
  });

  it("Java's leader assigns to ours, and ours leaving hands the share back", async () => {
    const { topic, labels } = await topicWith(6);
    const group = unique('g-java-leader');
    const j = java(group, topic);
    await eventually(
      async () => j.owned,
      (o) => o.length === 6,
      120_000,
    );
    expect([...j.owned].sort()).toEqual(labels);

    const a = ours(group, topic);
    const b = ours(group, topic);
    await Promise.all([a.membership.start(), b.membership.start()]);
    const shares = () => [ownedLabels(a), ownedLabels(b), j.owned];
    await eventually(
      async () => shares(),
      (s) => split(s, labels, 2),
      120_000,
    );
    expect(split(shares(), labels, 2)).toBe(true);
    // Java kept leading: neither of ours ran the assignor.
    expect(a.membership.isLeader || b.membership.isLeader).toBe(false);
    // Java gave up four partitions (cooperatively revoked, never lost) and kept two of its six.
    expect(j.lines.some((l) => l.startsWith('LOST'))).toBe(false);
    expect(j.lines.filter((l) => l.startsWith('REVOKED')).length).toBeGreaterThan(0);
    for (const m of [a, b]) expect([...m.listener.owned].sort()).toEqual(ownedLabels(m));

    await b.membership.leave();
    await eventually(
      async () => [ownedLabels(a), j.owned],
      (s) => split(s, labels, 3),
      60_000,
    );
    expect(split([ownedLabels(a), j.owned], labels, 3)).toBe(true);
  });
});
