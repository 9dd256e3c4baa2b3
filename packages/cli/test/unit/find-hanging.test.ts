// `transactions find-hanging`'s decision, as Kafka's FindHangingTransactionsCommand makes it:
// an open transaction on a partition hangs when no coordinator lists its producer, when its
// transactional id is unknown to its coordinator, or when its transaction does not name the
// partition; one its coordinator still names will be finished by it.
import { ErrorCode, ProtocolError } from '@kafkats/codec';
import { describe, expect, it } from 'vitest';
import { hangingOf } from '../../src/commands/transactions.js';

const open = (topic: string, partition: number, producerId: bigint) => ({
  topic,
  partition,
  producerId,
});

describe('find-hanging', () => {
  it('keeps what no coordinator will finish, and only that', () => {
    const candidates = [
      open('t', 0, 1n), // listed, its transaction names t-0: not hanging
      open('t', 1, 1n), // listed, its transaction does not name t-1: hanging
      open('t', 2, 2n), // no coordinator lists producer 2: hanging
      open('u', 0, 3n), // listed, but its id is unknown to its coordinator: hanging
      open('u', 1, 4n), // listed, not described at all: hanging
    ];
    const listed = [
      { transactionalId: 'a', producerId: 1n, state: 'Ongoing' },
      { transactionalId: 'c', producerId: 3n, state: 'Ongoing' },
      { transactionalId: 'd', producerId: 4n, state: 'Ongoing' },
    ];
    const described = [
      { transactionalId: 'a', state: 'Ongoing', partitions: [{ topic: 't', partition: 0 }] },
      {
        transactionalId: 'c',
        error: ProtocolError.fromCode(ErrorCode.TRANSACTIONAL_ID_NOT_FOUND, 'describe c'),
      },
    ];
    expect(hangingOf(candidates, listed, described)).toEqual([
      open('t', 1, 1n),
      open('t', 2, 2n),
      open('u', 0, 3n),
      open('u', 1, 4n),
    ]);
    expect(hangingOf([], listed, described)).toEqual([]);
  });
});
