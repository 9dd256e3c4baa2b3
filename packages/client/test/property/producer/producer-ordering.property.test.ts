// Property: whatever mix of lost requests (before or after the broker appended), answers lost
// in flight and NOT_LEADER_OR_FOLLOWER the brokers throw at it, an idempotent producer with up
// to five batches in flight per partition leaves every partition log holding exactly the records
// sent to it, once each, in send order, and reports each record's true offset.
import { KafkaError } from '@kafkats/codec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DeliveryTimeoutError, Producer } from '../../../src/index.js';
import {
  FakeProduceCluster,
  type Fault,
  type PartitionFault,
  type SeenRequest,
} from '../../unit/producer/fake-produce-cluster.js';

const faultArb = fc.constantFrom<Fault>(
  'ok',
  'ok',
  'ok',
  'lost-before',
  'lost-after',
  'not-leader',
);

describe('idempotent producer ordering under faults', () => {
  it('writes every record exactly once and in order per partition', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(faultArb, { maxLength: 40 }),
        fc.array(fc.tuple(fc.nat(2), fc.nat(60)), { minLength: 1, maxLength: 120 }),
        fc.integer({ min: 1, max: 5 }),
        fc.func(fc.nat(3)),
        async (faults, records, maxInFlight, turns) => {
          const fake = new FakeProduceCluster({ t: 3 });
          let n = 0;
          fake.fault = () => faults[n++] ?? 'ok';
          let k = 0;
          fake.delayTurns = () => turns(k++);
          const producer = new Producer(fake, {
            batchSize: 120,
            lingerMs: 0,
            maxInFlight,
            retryBackoffMs: 0,
            retryBackoffMaxMs: 0,
          });
          const sent = records.map(([partition, size], i) => ({
            partition,
            value: `${i}:${'x'.repeat(size)}`,
          }));
          const results = await Promise.all(
            sent.map((r) => producer.send({ topic: 't', partition: r.partition, value: r.value })),
          );
          await producer.close();
          for (const p of [0, 1, 2]) {
            expect(fake.log('t', p).values).toEqual(
              sent.filter((r) => r.partition === p).map((r) => r.value),
            );
          }
          results.forEach((m, i) => {
            expect(fake.log('t', m.partition).values[Number(m.offset)]).toBe(sent[i]!.value);
          });
        },
      ),
      { numRuns: Number(process.env.RUNS ?? 150), seed: Number(process.env.FC_SEED ?? 20240611) },
    );
  });

  // The brokers here are those of Kafka 2.5 to 4.4: a partition with no state for the producer
  // (a topic just created) takes any first sequence, so a later batch can land before an earlier
  // one refused NOT_LEADER_OR_FOLLOWER or UNKNOWN_TOPIC_OR_PARTITION. Add errors
  // after the append, leaders that move with batches out on the old one, and hints (KIP-951).
  // Whatever the mix, once the faults run out every record is delivered once, in send order
  // among those delivered, or fails with a typed error that is not a delivery timeout (a
  // producer that spun on a batch until its deadline), and the requests stay bounded.
  it('delivers or fails every record, in order and without stalling, under partition errors and leader moves', async () => {
    const partitionFaultArb = fc.constantFrom<PartitionFault>(
      'ok',
      'ok',
      'ok',
      'ok',
      'not-leader',
      'unknown-partition',
      'timed-out-after-append',
      'not-enough-replicas-after-append',
    );
    const stepArb = fc.record({
      fault: faultArb,
      partitions: fc.tuple(partitionFaultArb, partitionFaultArb, partitionFaultArb),
      move: fc.option(fc.tuple(fc.nat(2), fc.integer({ min: 1, max: 3 })), { freq: 4 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { maxLength: 30 }),
        fc.array(fc.tuple(fc.nat(2), fc.nat(60)), { minLength: 1, maxLength: 80 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.nat(3), { maxLength: 40 }),
        fc.boolean(),
        async (steps, records, maxInFlight, turns, leaderHints) => {
          const fake = new FakeProduceCluster({ t: 3 });
          fake.acceptsAnyFirstSequence = true;
          fake.leaderHints = leaderHints;
          const partitionFaults = new Map<SeenRequest, readonly PartitionFault[]>();
          let n = 0;
          fake.fault = (request) => {
            const step = steps[n++];
            if (step === undefined) return 'ok';
            if (step.move !== null) fake.moveLeader('t', step.move[0], step.move[1]);
            partitionFaults.set(request, step.partitions);
            return step.fault;
          };
          fake.partitionFault = (request, b) => partitionFaults.get(request)?.[b.partition] ?? 'ok';
          let k = 0;
          fake.delayTurns = () => turns[k++] ?? 0;
          const producer = new Producer(fake, {
            batchSize: 120,
            lingerMs: 0,
            maxInFlight,
            retryBackoffMs: 0,
            retryBackoffMaxMs: 0,
            requestTimeoutMs: 1000,
            deliveryTimeoutMs: 1500,
          });
          const sent = records.map(([partition, size], i) => ({
            partition,
            value: `${i}:${'x'.repeat(size)}`,
          }));
          const outcomes = await Promise.all(
            sent.map((r) =>
              producer.send({ topic: 't', partition: r.partition, value: r.value }).then(
                (m) => ({ offset: m.offset, error: undefined }),
                (error: unknown) => ({ offset: -1n, error }),
              ),
            ),
          );
          await producer.close();
          for (const o of outcomes) {
            if (o.error === undefined) continue;
            expect(o.error).toBeInstanceOf(KafkaError);
            expect(o.error).not.toBeInstanceOf(DeliveryTimeoutError);
          }
          for (const p of [0, 1, 2]) {
            expect(fake.log('t', p).values).toEqual(
              sent
                .filter((r, i) => r.partition === p && outcomes[i]!.error === undefined)
                .map((r) => r.value),
            );
          }
          outcomes.forEach((o, i) => {
            if (o.error !== undefined) return;
            expect(fake.log('t', sent[i]!.partition).values[Number(o.offset)]).toBe(sent[i]!.value);
          });
          expect(fake.requests.length).toBeLessThanOrEqual(
            20 * (steps.length + 1) + 2 * records.length,
          );
        },
      ),
      { numRuns: Number(process.env.RUNS ?? 150), seed: Number(process.env.FC_SEED ?? 20240611) },
    );
  }, 120_000);
});
