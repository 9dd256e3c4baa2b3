// The pure parts of `kafkats groups reset-offsets`: each mode's new offset as Kafka's
// ConsumerGroupCommand computes it (explicit offsets and shifts kept within the log, a
// timestamp past every record giving the log end, a shift without a commit refused), and the
// parsing of --topic, --to-datetime, --by-duration and --from-file.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  newOffset,
  type PartitionOffsets,
  parseDateTime,
  parseDuration,
  parseResetFile,
  parseTopicSpec,
  type ResetMode,
} from '../../src/commands/group-offsets.js';

const p = { topic: 'orders', partition: 2 };
const log: PartitionOffsets = { earliest: 10n, latest: 100n, committed: 40n };
const plan = (mode: ResetMode, o: PartitionOffsets = log) => {
  const warnings: string[] = [];
  return { offset: newOffset('g', p, mode, o, (w) => warnings.push(w)), warnings };
};

describe('reset-offsets: the new offset of a partition', () => {
  it('earliest, latest and current', () => {
    expect(plan({ kind: 'earliest' }).offset).toBe(10n);
    expect(plan({ kind: 'latest' }).offset).toBe(100n);
    expect(plan({ kind: 'current' }).offset).toBe(40n);
    // No commit: the log end, as Kafka's --to-current.
    expect(plan({ kind: 'current' }, { ...log, committed: undefined }).offset).toBe(100n);
  });

  it('keeps an explicit offset or a shift within [earliest, latest], with a warning', () => {
    expect(plan({ kind: 'offset', offset: 50n })).toEqual({ offset: 50n, warnings: [] });
    const high = plan({ kind: 'offset', offset: 500n });
    expect(high.offset).toBe(100n);
    expect(high.warnings[0]).toMatch(/higher than latest offset for topic partition orders-2/);
    const low = plan({ kind: 'shift', by: -35n });
    expect(low.offset).toBe(10n);
    expect(low.warnings[0]).toMatch(/lower than earliest offset/);
    expect(plan({ kind: 'shift', by: 5n }).offset).toBe(45n);
  });

  it('refuses to shift a partition the group has no commit for', () => {
    expect(() => plan({ kind: 'shift', by: 1n }, { ...log, committed: undefined })).toThrow(
      /no committed offset for it/,
    );
  });

  it('a timestamp gives the first offset at or after it, or the log end when no record is that late', () => {
    expect(plan({ kind: 'timestamp', timestamp: 1n }, { ...log, atTimestamp: 77n }).offset).toBe(
      77n,
    );
    expect(plan({ kind: 'timestamp', timestamp: 1n }, { ...log, atTimestamp: -1n }).offset).toBe(
      100n,
    );
  });

  it('every mode lands within the log, for any log and any request (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 1n << 40n }),
        fc.bigInt({ min: 0n, max: 1n << 20n }),
        fc.option(fc.bigInt({ min: 0n, max: 1n << 41n }), { nil: undefined }),
        fc.bigInt({ min: -(1n << 42n), max: 1n << 42n }),
        (earliest, length, committedAt, n) => {
          const o: PartitionOffsets = {
            earliest,
            latest: earliest + length,
            committed: committedAt,
          };
          const modes: ResetMode[] = [
            { kind: 'offset', offset: n },
            { kind: 'earliest' },
            { kind: 'latest' },
            { kind: 'file', offsets: new Map([['orders\u00002', n]]) },
          ];
          if (committedAt !== undefined) modes.push({ kind: 'shift', by: n });
          for (const mode of modes) {
            const { offset } = plan(mode, o);
            expect(offset >= o.earliest && offset <= o.latest).toBe(true);
          }
        },
      ),
      { numRuns: 300, seed: 20261204 },
    );
  });
});

describe('reset-offsets: parsing', () => {
  it('--topic: a name, or name:partitions', () => {
    expect(parseTopicSpec('orders')).toEqual({ topic: 'orders' });
    expect(parseTopicSpec('orders:0,2')).toEqual({ topic: 'orders', partitions: [0, 2] });
    expect(() => parseTopicSpec('orders:a')).toThrow(/--topic takes/);
  });

  it('--to-datetime: with a zone as given, without one in UTC, as Kafka reads it', () => {
    expect(parseDateTime('2026-12-01T12:00:00.000Z')).toBe(BigInt(Date.UTC(2026, 11, 1, 12)));
    expect(parseDateTime('2026-12-01T12:00:00.5+02:00')).toBe(
      BigInt(Date.UTC(2026, 11, 1, 10, 0, 0, 500)),
    );
    expect(parseDateTime('2026-12-01T12:00:00-0130')).toBe(BigInt(Date.UTC(2026, 11, 1, 13, 30)));
    expect(parseDateTime('2026-12-01T12:00:00.000')).toBe(BigInt(Date.UTC(2026, 11, 1, 12)));
    expect(parseDateTime('2026-12-01T12:00')).toBe(BigInt(Date.UTC(2026, 11, 1, 12)));
    expect(parseDateTime('2026-12-01T12:00:00.000+08')).toBe(BigInt(Date.UTC(2026, 11, 1, 4)));
    expect(() => parseDateTime('yesterday')).toThrow(/--to-datetime takes/);
  });

  it('--by-duration: ISO-8601 durations as Java’s Duration.parse', () => {
    expect(parseDuration('PT1H30M')).toBe(5_400_000n);
    expect(parseDuration('P2D')).toBe(172_800_000n);
    expect(parseDuration('PT0.5S')).toBe(500n);
    expect(parseDuration('P1DT2H3M4.005S')).toBe(93_784_005n);
    expect(parseDuration('-PT1M')).toBe(-60_000n);
    for (const bad of ['', 'P', 'PT', '1H', 'PT1X'])
      expect(() => parseDuration(bad)).toThrow(/--by-duration/);
  });

  it('--from-file: topic,partition,offset lines, or group-prefixed lines of that group', () => {
    const offsets = parseResetFile(
      'orders,0,5\norders,1,7\n\nother-g,orders,2,9\ng,orders,3,11\n',
      'g',
    );
    expect([...offsets]).toEqual([
      ['orders\u00000', 5n],
      ['orders\u00001', 7n],
      ['orders\u00003', 11n],
    ]);
    expect(() => parseResetFile('orders,x,5', 'g')).toThrow(/line 1 of the reset file/);
    // Kafka refuses a negative offset in the file (OffsetAndMetadata), so do we.
    expect(() => parseResetFile('orders,0,-4', 'g')).toThrow(/offsets >= 0/);
  });
});

describe('reassign: the plan file', () => {
  it("reads Kafka's reassignment JSON and refuses what it cannot carry out", async () => {
    const { parsePlan } = await import('../../src/commands/reassign.js');
    expect(
      parsePlan(
        '{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[2,3],"log_dirs":["any","any"]}]}',
      ),
    ).toEqual([{ topic: 't', partition: 0, replicas: [2, 3] }]);
    expect(() => parsePlan('nope')).toThrow(/not JSON/);
    expect(() =>
      parsePlan('{"partitions":[{"topic":"t","partition":0,"replicas":[2,2]}]}'),
    ).toThrow(/distinct broker ids/);
    expect(() =>
      parsePlan('{"partitions":[{"topic":"t","partition":0,"replicas":[1],"log_dirs":["/d"]}]}'),
    ).toThrow(/log_dirs/);
    expect(() =>
      parsePlan(
        '{"partitions":[{"topic":"t","partition":0,"replicas":[1]},{"topic":"t","partition":0,"replicas":[2]}]}',
      ),
    ).toThrow(/named twice/);
  });
});
