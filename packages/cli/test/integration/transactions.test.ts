// `kafkats transactions` on the shared cluster: a transaction left open by a kafkats producer
// is listed as Ongoing and described with its producer id, epoch and partition, as Kafka's
// kafka-transactions.sh (TransactionsCommand) describes it.
import { Cluster, Producer } from '@kafkats/client';
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
});
