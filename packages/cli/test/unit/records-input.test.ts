import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli-error.js';
import { type InputOptions, parseHeaderFlags, parseInputLine } from '../../src/records-input.js';

const lines: InputOptions = { format: 'lines', headers: [] };
const json: InputOptions = { format: 'json', headers: [] };

describe('parseInputLine', () => {
  it('makes each line a value, with --key, --partition and -H applied to every record', () => {
    expect(
      parseInputLine('hello', 1, { ...lines, key: 'k', partition: 2, headers: ['a=1', 'b=x=y'] }),
    ).toEqual({
      key: 'k',
      value: 'hello',
      partition: 2,
      headers: [
        { key: 'a', value: '1' },
        { key: 'b', value: 'x=y' },
      ],
    });
    expect(parseInputLine('', 1, lines)).toBeUndefined();
  });

  it('splits key and value at the first --key-separator, and names the line without one', () => {
    expect(parseInputLine('user-1:{"a":1}:x', 1, { ...lines, keySeparator: ':' })).toMatchObject({
      key: 'user-1',
      value: '{"a":1}:x',
    });
    expect(() => parseInputLine('novalue', 7, { ...lines, keySeparator: ':' })).toThrow(
      /stdin line 7: no key separator/,
    );
  });

  it('reads JSON objects: non-string values as their JSON text, headers as an object or a list', () => {
    expect(
      parseInputLine(
        '{"key":"k","value":{"n":1},"headers":{"h":"v","n":null},"partition":1,"timestamp":1700000000000}',
        1,
        json,
      ),
    ).toEqual({
      key: 'k',
      value: '{"n":1}',
      headers: [
        { key: 'h', value: 'v' },
        { key: 'n', value: null },
      ],
      partition: 1,
      timestamp: 1700000000000n,
    });
    expect(parseInputLine('{"value":null,"headers":[{"key":"a","value":"b"}]}', 1, json)).toEqual({
      key: null,
      value: null,
      headers: [{ key: 'a', value: 'b' }],
    });
  });

  it('refuses JSON lines it cannot send, naming the line', () => {
    for (const [line, why] of [
      ['{', 'not JSON'],
      ['[1]', 'not a JSON object'],
      ['{"valu":"x"}', 'unknown field "valu"'],
      ['{"value":"x","partition":-1}', 'partition must be an integer'],
      ['{"value":"x","timestamp":"soon"}', 'timestamp must be ms'],
    ] as const) {
      let error: unknown;
      try {
        parseInputLine(line, 3, json);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).code).toBe('ERR_KAFKA_CLI_INPUT_INVALID');
      expect((error as CliError).message).toContain(`stdin line 3: ${why}`);
    }
  });

  it('gives back any key, value and string headers written as a JSON line', () => {
    const text = fc.option(fc.string(), { nil: null });
    fc.assert(
      fc.property(
        text,
        text,
        fc.array(fc.tuple(fc.string(), text), { maxLength: 4 }),
        (key, value, headers) => {
          const line = JSON.stringify({
            key,
            value,
            headers: headers.map(([k, v]) => ({ key: k, value: v })),
          });
          expect(parseInputLine(line, 1, json)).toEqual({
            key,
            value,
            headers: headers.map(([k, v]) => ({ key: k, value: v })),
          });
        },
      ),
    );
  });
});

describe('parseHeaderFlags', () => {
  it('needs name=value with a non-empty name', () => {
    expect(() => parseHeaderFlags(['=v'])).toThrow(/not name=value/);
    expect(() => parseHeaderFlags(['novalue'])).toThrow(/not name=value/);
    expect(parseHeaderFlags(['n='])).toEqual([{ key: 'n', value: '' }]);
  });
});
