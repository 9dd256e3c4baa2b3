// The facade's partitioners against kafkajs 2.2.4's own (node_modules/kafkajs): the same
// partition for every key, pinned partitions kept, unkeyed messages spread round-robin.
import { createRequire } from 'node:module';
import { partitionForKey } from '@kafkats/client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  legacyMurmur2,
  type PartitionMetadataShape,
} from '../../src/internal/producer-partitioners.js';
import { Partitioners } from '../../src/producer.js';

const require = createRequire(import.meta.url);
interface KafkaJSPartitioners {
  DefaultPartitioner: () => (args: unknown) => number;
  LegacyPartitioner: () => (args: unknown) => number;
}
const kafkajs = require('kafkajs') as { Partitioners: KafkaJSPartitioners };
const kafkajsLegacyMurmur2 = require('kafkajs/src/producer/partitioners/legacy/murmur2.js') as (
  key: unknown,
) => number;

function metadata(count: number, leaderless: ReadonlySet<number> = new Set()) {
  const list: PartitionMetadataShape[] = [];
  for (let p = 0; p < count; p++) {
    list.push({
      partitionErrorCode: 0,
      partitionId: p,
      leader: leaderless.has(p) ? -1 : 1,
      replicas: [1],
      isr: [1],
    });
  }
  return list;
}

const key = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
);
const count = fc.integer({ min: 1, max: 500 });

describe('kafkajs partitioners', () => {
  it('DefaultPartitioner places every key where kafkajs 2.2.4 DefaultPartitioner does', () => {
    const ours = Partitioners.DefaultPartitioner();
    const theirs = kafkajs.Partitioners.DefaultPartitioner();
    fc.assert(
      fc.property(key, count, (k, n) => {
        const args = {
          topic: 't',
          partitionMetadata: metadata(n),
          message: { key: k, value: 'v' },
        };
        expect(ours(args)).toBe(theirs(args));
      }),
      { numRuns: 2000 },
    );
  });

  it("kats's own key placement (used when kafkajs's default partitioner is chosen) is kafkajs's", () => {
    const theirs = kafkajs.Partitioners.DefaultPartitioner();
    fc.assert(
      fc.property(key, count, (k, n) => {
        const args = {
          topic: 't',
          partitionMetadata: metadata(n),
          message: { key: k, value: 'v' },
        };
        expect(partitionForKey(k, n)).toBe(theirs(args));
      }),
      { numRuns: 2000 },
    );
  });

  it('legacyMurmur2 hashes every key to kafkajs 1.x murmur2 value, float quirks included', () => {
    fc.assert(
      fc.property(key, (k) => {
        expect(legacyMurmur2(k)).toBe(kafkajsLegacyMurmur2(k));
      }),
      { numRuns: 5000 },
    );
    // Keys where kafkajs 1.x's hash departs from Java's: the legacy partitioner must keep them.
    let differs = 0;
    for (let i = 0; i < 200; i++) {
      if (partitionForKey(`key-${i}`, 1000) !== (legacyMurmur2(`key-${i}`) & 0x7fffffff) % 1000)
        differs++;
    }
    expect(differs).toBeGreaterThan(0);
  });

  it('LegacyPartitioner places every key where kafkajs 2.2.4 LegacyPartitioner does', () => {
    const ours = Partitioners.LegacyPartitioner();
    const theirs = kafkajs.Partitioners.LegacyPartitioner();
    fc.assert(
      fc.property(key, count, (k, n) => {
        const args = {
          topic: 't',
          partitionMetadata: metadata(n),
          message: { key: k, value: 'v' },
        };
        expect(ours(args)).toBe(theirs(args));
      }),
      { numRuns: 2000 },
    );
  });

  it('a pinned partition wins over the key, in both partitioners', () => {
    for (const make of [Partitioners.DefaultPartitioner, Partitioners.LegacyPartitioner]) {
      const partition = make();
      fc.assert(
        fc.property(key, fc.integer({ min: 0, max: 20 }), (k, p) => {
          const args = {
            topic: 't',
            partitionMetadata: metadata(21),
            message: { key: k, value: 'v', partition: p },
          };
          expect(partition(args)).toBe(p);
        }),
      );
    }
  });

  it('unkeyed messages go round-robin over the partitions that have a leader', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 12 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 11 }), { maxLength: 6 }),
        (n, missing) => {
          const leaderless = new Set(missing.filter((p) => p < n));
          if (leaderless.size === n) leaderless.delete(0);
          const available = [...Array(n).keys()].filter((p) => !leaderless.has(p));
          const partition = Partitioners.DefaultPartitioner();
          const args = {
            topic: 't',
            partitionMetadata: metadata(n, leaderless),
            message: { value: 'v' },
          };
          const first = partition(args);
          const start = available.indexOf(first);
          expect(start).toBeGreaterThanOrEqual(0);
          for (let i = 1; i <= 2 * available.length; i++) {
            expect(partition(args)).toBe(available[(start + i) % available.length]);
          }
        },
      ),
    );
  });

  it('JavaCompatiblePartitioner is DefaultPartitioner, as in kafkajs 2', () => {
    expect(Partitioners.JavaCompatiblePartitioner).toBe(Partitioners.DefaultPartitioner);
  });
});
