import { describe, expect, it } from 'vitest';
import { parseErrorsExtract } from '../../src/errors/errors-extract.js';

const row = (code: number, name: string, extra: Record<string, unknown> = {}) => ({
  code,
  name,
  message: `${name} message`,
  exceptionClass: code === 0 ? null : `x.${name}`,
  retriable: false,
  invalidMetadata: false,
  ...extra,
});
const doc = (errors: unknown[], count = errors.length) =>
  JSON.stringify({ source: 'kafka-clients-test.jar', count, errors });
const base = [row(-1, 'UNKNOWN_SERVER_ERROR'), row(0, 'NONE'), row(6, 'NOT_LEADER_OR_FOLLOWER')];

describe('parseErrorsExtract', () => {
  it('accepts a well-formed extract and keeps every field', () => {
    const parsed = parseErrorsExtract(doc(base));
    expect(parsed.source).toBe('kafka-clients-test.jar');
    expect(parsed.count).toBe(3);
    expect(parsed.errors.map((e) => e.name)).toEqual([
      'UNKNOWN_SERVER_ERROR',
      'NONE',
      'NOT_LEADER_OR_FOLLOWER',
    ]);
    expect(parsed.errors[1]?.exceptionClass).toBeNull();
  });

  it.each([
    ['not JSON', '{'],
    ['a count that disagrees with the rows (truncated output)', doc(base, 4)],
    ['a repeated code', doc([...base, row(6, 'OTHER')])],
    ['a repeated name', doc([...base, row(7, 'NONE')])],
    ['rows out of order', doc([base[0], base[2], base[1]])],
    ['NONE missing', doc([base[0], base[2]])],
    ['a code outside int16', doc([...base, row(40000, 'BIG')])],
    ['a lower-case name', doc([...base, row(7, 'notAName')])],
    ['a missing flag', doc([...base, { code: 7, name: 'X', message: 'm', exceptionClass: 'x' }])],
    ['invalidMetadata without retriable', doc([...base, row(7, 'X', { invalidMetadata: true })])],
  ])('rejects %s', (_why, text) => {
    expect(() => parseErrorsExtract(text)).toThrow(/error table extract/);
  });
});
