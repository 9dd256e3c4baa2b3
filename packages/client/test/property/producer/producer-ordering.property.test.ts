// Property: whatever mix of lost requests (before or after the broker appended), answers lost
// in flight and NOT_LEADER_OR_FOLLOWER the brokers throw at it, an idempotent producer with up
// to five batches in flight per partition leaves every partition log holding exactly the records
// sent to it, once each, in send order, and reports each record's true offset.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Producer } from '../../../src/index.js';
import { FakeProduceCluster, type Fault } from '../../unit/producer/fake-produce-cluster.js';

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
});
