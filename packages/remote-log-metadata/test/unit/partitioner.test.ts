import { murmur2 } from '@kafkats/client';
import { describe, expect, it } from 'vitest';
import { metadataPartition } from '../../src/index.js';
import { tip } from '../support/fixtures.js';

describe('metadataPartition', () => {
  // Golden values from Kafka's RemoteLogMetadataTopicPartitioner for topic id Bp9TDduJRGa9Q5rlvCJOxg.
  it('matches Kafka for 50, 5 and 3 metadata partitions', () => {
    const of = (n: number) => [0, 1, 2, 3].map((p) => metadataPartition(tip('foo', p), n));
    expect(of(50)).toEqual([47, 37, 12, 24]);
    expect(of(5)).toEqual([2, 2, 2, 4]);
    expect(of(3)).toEqual([1, 1, 0, 0]);
  });

  it('ignores the topic name', () => {
    expect(metadataPartition(tip('bar', 1), 50)).toBe(metadataPartition(tip('foo', 1), 50));
  });

  it('hashes Objects.hash(lsb, msb, partition) with murmur2', () => {
    expect(murmur2(Buffer.from('f5eaa1b7', 'hex'))).toBe(-318572101);
  });

  it('refuses a partition count below 1 and a topic id that is not a uuid', () => {
    expect(() => metadataPartition(tip(), 0)).toThrow(
      expect.objectContaining({ code: 'ERR_KAFKA_RLMM_CONFIG_INVALID' }),
    );
    expect(() => metadataPartition(tip('foo', 0, 'abc'), 50)).toThrow(
      expect.objectContaining({ code: 'ERR_KAFKA_RLMM_EVENT_INVALID' }),
    );
  });
});
