// `kafkats transactions` on the shared cluster: a transaction left open by a kafkats producer
// is listed as Ongoing and described with its producer id, epoch and partition, as Kafka's
// kafka-transactions.sh (TransactionsCommand) describes it; its partition's producers read as
// that tool's describe-producers reads them, find-hanging agrees with its find-hanging, and
// abort (WriteTxnMarkers) moves the partition's last stable offset past the transaction.
import { Admin, Cluster, Producer } from '@kafkats/client';
import { runKafkaTool, sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/index.js';
import { kafkats, unique } from '../support/run-cli.js';

const shared = sharedCluster();
const b = () => ['--bootstrap', shared.bootstrap];
let cluster: Cluster;

beforeAll(async () => {
  cluster = await Cluster.connect(shared.bootstrap);
});
afterAll(async () => {
  await cluster?.close();
});

describe('kafkats transactions, beside kafka-transactions.sh', () => {
  it('lists and describes an open transaction as Kafka’s tool does', async () => {
    const topic = unique('cli-txn');
    await shared.admin.createTopic(topic, { partitions: 2, replicationFactor: 3 });
    await cluster.refreshTopics([topic]);
    const id = unique('cli-txn-id');
    const producer = new Producer(cluster, { transactionalId: id });
    try {
      await producer.initTransactions();
      producer.beginTransaction();
      await producer.send({ topic, partition: 1, value: 'open' });

      const listed = await kafkats(['transactions', '--state', 'Ongoing', ...b(), '--json']);
      expect(listed.code, listed.stderr).toBe(0);
      const mine = JSON.parse(listed.stdout).transactions.find(
        (t: { transactionalId: string }) => t.transactionalId === id,
      );
      expect(mine).toMatchObject({ transactionalId: id, state: 'Ongoing' });

      const described = await kafkats(['transactions', 'describe', id, ...b(), '--json']);
      expect(described.code, described.stderr).toBe(0);
      const [doc] = JSON.parse(described.stdout).transactions;
      expect(doc).toMatchObject({
        transactionalId: id,
        state: 'Ongoing',
        partitions: [{ topic, partition: 1 }],
      });
      expect(doc.producerId).toBe(mine.producerId);

      const java = await runKafkaTool('org.apache.kafka.tools.TransactionsCommand', [
        '--bootstrap-server',
        shared.bootstrap,
        'describe',
        '--transactional-id',
        id,
      ]);
      expect(java.status, java.stderr).toBe(0);
      // CoordinatorId TransactionalId ProducerId ProducerEpoch TransactionState ...
      const row =
        java.stdout
          .split('\n')
          .find((l) => l.includes(id))
          ?.trim()
          .split(/\s+/) ?? [];
      expect(row.slice(0, 5)).toEqual([
        String(doc.coordinatorId),
        id,
        String(doc.producerId),
        String(doc.producerEpoch),
        'Ongoing',
      ]);
      expect(row.at(-1)).toBe(`${topic}-1`);
    } finally {
      await producer.abortTransaction().catch(() => {});
      await producer.close();
    }
    const unknown = await kafkats(['transactions', 'describe', unique('no-such-txn'), ...b()]);
    expect(unknown.code).not.toBe(ExitCode.OK);
    expect(unknown.stderr).toContain('TRANSACTIONAL_ID_NOT_FOUND');
  });

  it('finds a partition’s open transaction and aborts it, as kafka-transactions.sh does', async () => {
    const topic = unique('cli-txn-abort');
    await shared.admin.createTopic(topic, { partitions: 1, replicationFactor: 3 });
    await cluster.refreshTopics([topic]);
    const admin = new Admin(cluster);
    const producer = new Producer(cluster, { transactionalId: unique('cli-txn-abort-id') });
    const javaTool = (args: string[]) =>
      runKafkaTool('org.apache.kafka.tools.TransactionsCommand', [
        '--bootstrap-server',
        shared.bootstrap,
        ...args,
      ]);
    // The row of kafka-transactions.sh's table whose first cell is `first`.
    const javaRow = (stdout: string, first: string) =>
      stdout
        .split('\n')
        .map((l) => l.trim().split(/\s+/))
        .find((cells) => cells[0] === first);
    const lastStable = async () =>
      (
        await admin.listOffsets([{ topic, partition: 0, spec: 'latest' }], {
          isolationLevel: 'read_committed',
        })
      ).partitions[0]!.offset;
    try {
      await producer.initTransactions();
      producer.beginTransaction();
      for (const value of ['a', 'b', 'c']) await producer.send({ topic, partition: 0, value });

      // The partition's producers, beside describe-producers.
      const described = await kafkats([
        'transactions',
        'producers',
        '--topic',
        topic,
        ...b(),
        '--json',
      ]);
      expect(described.code, described.stderr).toBe(0);
      const producers = JSON.parse(described.stdout).producers;
      expect(producers).toHaveLength(1);
      const [p] = producers;
      expect(p).toMatchObject({ topic, partition: 0, currentTxnStartOffset: '0', lastSequence: 2 });
      const java = await javaTool(['describe-producers', '--topic', topic, '--partition', '0']);
      expect(java.status, java.stderr).toBe(0);
      // ProducerId ProducerEpoch LatestCoordinatorEpoch LastSequence LastTimestamp CurrentTransactionStartOffset
      expect(javaRow(java.stdout, p.producerId)).toEqual([
        p.producerId,
        String(p.producerEpoch),
        String(p.coordinatorEpoch),
        String(p.lastSequence),
        p.lastTimestamp,
        '0',
      ]);

      // Open, but its coordinator still names the partition: not hanging, for either tool.
      const hanging = await kafkats([
        'transactions',
        'find-hanging',
        '--topic',
        topic,
        '--max-transaction-timeout',
        '0',
        ...b(),
        '--json',
      ]);
      expect(hanging.code, hanging.stderr).toBe(0);
      expect(JSON.parse(hanging.stdout).hanging).toEqual([]);
      const javaHanging = await javaTool([
        'find-hanging',
        '--topic',
        topic,
        '--max-transaction-timeout',
        '0',
      ]);
      expect(javaHanging.status, javaHanging.stderr).toBe(0);
      expect(javaHanging.stdout.trim().split('\n')).toHaveLength(1); // the header alone

      const abort = ['transactions', 'abort', '--topic', topic, '--partition', '0'];
      expect(await lastStable()).toBe(0n);
      // Without --execute: the plan, and nothing changes.
      const planned = await kafkats([...abort, '--start-offset', '0', ...b()]);
      expect(planned.code, planned.stderr).toBe(0);
      expect(planned.stdout).toContain(p.producerId);
      expect(planned.stderr).toContain('nothing changed');
      expect(await lastStable()).toBe(0n);

      const done = await kafkats([
        ...abort,
        '--start-offset',
        '0',
        '--execute',
        '--yes',
        ...b(),
        '--json',
      ]);
      expect(done.code, done.stderr).toBe(0);
      expect(JSON.parse(done.stdout)).toMatchObject({
        producerId: p.producerId,
        producerEpoch: p.producerEpoch,
        coordinatorEpoch: Math.max(p.coordinatorEpoch, 0),
        startOffset: '0',
        aborted: true,
      });
      // Three records and the abort marker: the last stable offset is the end of the log.
      expect(await lastStable()).toBe(4n);
      const after = await javaTool(['describe-producers', '--topic', topic, '--partition', '0']);
      expect(after.status, after.stderr).toBe(0);
      expect(javaRow(after.stdout, p.producerId)?.at(-1)).toBe('None');

      const again = await kafkats([...abort, '--start-offset', '0', '--execute', '--yes', ...b()]);
      expect(again.code).not.toBe(ExitCode.OK);
      expect(again.stderr).toContain('no open transaction starts at offset 0');
    } finally {
      await producer.abortTransaction().catch(() => {});
      await producer.close();
      await admin.close();
    }
  });
});
