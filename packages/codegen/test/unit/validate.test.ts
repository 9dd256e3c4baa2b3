import { describe, expect, it } from 'vitest';
import { validateMessage } from '../../src/schema/validate.js';

type Raw = Record<string, unknown>;

function msg(fields: Raw[], extra: Raw = {}): Raw {
  return {
    apiKey: 90,
    type: 'request',
    name: 'MiniRequest',
    validVersions: '0-3',
    flexibleVersions: '2+',
    fields,
    ...extra,
  };
}

const ok = (raw: Raw) => validateMessage('mini.json', raw);
const bad = (raw: Raw, pattern: RegExp) =>
  expect(() => validateMessage('mini.json', raw)).toThrow(pattern);

describe('validate: message level', () => {
  it('parses versions, listeners and latestVersionUnstable', () => {
    const s = ok(msg([], { listeners: ['broker', 'controller'], latestVersionUnstable: true }));
    expect(s.validVersions).toEqual({ lo: 0, hi: 3 });
    expect(s.flexibleVersions).toEqual({ lo: 2, hi: 0x7fff });
    expect(s.listeners).toEqual(['broker', 'controller']);
    expect(s.latestVersionUnstable).toBe(true);
  });

  it('rejects unknown keys, open validVersions, bounded flexibleVersions', () => {
    bad(msg([], { colour: 'red' }), /unknown message key "colour"/);
    bad(msg([], { validVersions: '0+' }), /does not specify a maximum version/);
    bad(msg([], { flexibleVersions: '1-3' }), /flexibleVersions must be "none" or open-ended/);
    bad(msg([], { flexibleVersions: undefined }), /flexibleVersions is required/);
    bad(msg([], { listeners: ['zookeeper'] }), /unknown listener/);
  });

  it('accepts a retired API: validVersions "none" without flexibleVersions', () => {
    const s = ok(msg([], { validVersions: 'none', flexibleVersions: undefined }));
    expect(s.validVersions.lo > s.validVersions.hi).toBe(true);
  });

  it('rejects listeners and latestVersionUnstable on non-requests', () => {
    bad(msg([], { type: 'response', listeners: ['broker'] }), /only allowed on requests/);
    bad(msg([], { type: 'response', latestVersionUnstable: true }), /only allowed on requests/);
  });
});

describe('validate: fields', () => {
  it('parses every primitive type, arrays and structs', () => {
    const types = [
      'bool',
      'int8',
      'int16',
      'uint16',
      'int32',
      'uint32',
      'int64',
      'float64',
      'string',
      'bytes',
      'records',
      'uuid',
    ];
    const s = ok(
      msg([
        ...types.map((t, i) => ({ name: `F${i}`, type: t, versions: '0+' })),
        { name: 'Ids', type: '[]int32', versions: '0+' },
        {
          name: 'Items',
          type: '[]Item',
          versions: '1+',
          fields: [{ name: 'A', type: 'int8', versions: '1+' }],
        },
      ]),
    );
    expect(s.fields.map((f) => f.type.kind)).toEqual([
      ...types.map(() => 'primitive'),
      'array',
      'array',
    ]);
    expect(s.fields.at(-1)?.fields?.[0]?.name).toBe('A');
  });

  it('parses defaults: hex, negative, int64, bool, float, string null, uuid', () => {
    const s = ok(
      msg([
        { name: 'A', type: 'int32', versions: '0+', default: '0x7fffffff' },
        { name: 'B', type: 'int16', versions: '0+', default: '-1' },
        { name: 'C', type: 'int64', versions: '0+', default: '9223372036854775807' },
        { name: 'D', type: 'bool', versions: '0+', default: 'true' },
        { name: 'E', type: 'float64', versions: '0+', default: '1.5' },
        { name: 'F', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null' },
        { name: 'G', type: 'uuid', versions: '0+', default: 'AAAAAAAAAAAAAAAAAAAAAQ' },
        { name: 'H', type: 'int32', versions: '0+', default: '010' },
      ]),
    );
    expect(s.fields.map((f) => f.default)).toEqual([
      { kind: 'number', value: 0x7fffffff },
      { kind: 'number', value: -1 },
      { kind: 'bigint', value: 9223372036854775807n },
      { kind: 'bool', value: true },
      { kind: 'number', value: 1.5 },
      { kind: 'null' },
      { kind: 'uuid', value: 'AAAAAAAAAAAAAAAAAAAAAQ' },
      { kind: 'number', value: 10 }, // a leading zero is decimal, as Kafka parses it
    ]);
  });

  it('rejects bad defaults', () => {
    bad(msg([{ name: 'A', type: 'int8', versions: '0+', default: '300' }]), /not a valid int8/);
    bad(msg([{ name: 'A', type: 'uint16', versions: '0+', default: '-1' }]), /not a valid uint16/);
    bad(
      msg([{ name: 'A', type: 'string', versions: '0+', nullableVersions: '1+', default: 'null' }]),
      /nullable in all/,
    );
    bad(msg([{ name: 'A', type: 'bool', versions: '0+', default: 'yes' }]), /bad bool default/);
    bad(msg([{ name: 'A', type: '[]int32', versions: '0+', default: 'x' }]), /array default/);
  });

  it('rejects unknown field keys, bad names and types, nullable scalars and uuids', () => {
    bad(
      msg([{ name: 'A', type: 'int8', versions: '0+', colour: 1 }]),
      /unknown field .* key "colour"/,
    );
    bad(msg([{ name: '1A', type: 'int8', versions: '0+' }]), /invalid field name/);
    bad(msg([{ name: 'A', type: 'int128', versions: '0+' }]), /unknown type/);
    bad(
      msg([{ name: 'A', type: 'int32', versions: '0+', nullableVersions: '0+' }]),
      /cannot be nullable/,
    );
    bad(
      msg([{ name: 'A', type: 'uuid', versions: '0+', nullableVersions: '0+' }]),
      /cannot be nullable/,
    );
    bad(msg([{ name: 'A', type: 'int8' }]), /versions is required/);
    bad(
      msg([
        { name: 'A', type: 'int8', versions: '0+' },
        { name: 'A', type: 'int8', versions: '0+' },
      ]),
      /duplicate field A/,
    );
  });

  it('checks tags: contiguous from 0, open-ended, flexible, not mapKey, not records', () => {
    const s = ok(msg([{ name: 'T', type: 'int32', taggedVersions: '2+', tag: 0 }]));
    expect(s.fields[0]?.versions).toEqual({ lo: 2, hi: 0x7fff }); // versions default to taggedVersions
    bad(
      msg([{ name: 'T', type: 'int32', versions: '0+', taggedVersions: '2+', tag: 1 }]),
      /contiguous from 0/,
    );
    bad(
      msg([{ name: 'T', type: 'int32', versions: '0+', taggedVersions: '1+', tag: 0 }]),
      /not all flexible/,
    );
    bad(
      msg([{ name: 'T', type: 'int32', versions: '0+', taggedVersions: '2-3', tag: 0 }]),
      /open-ended/,
    );
    bad(msg([{ name: 'T', type: 'int32', versions: '0+', tag: 0 }]), /needs taggedVersions/);
    bad(
      msg([{ name: 'T', type: 'records', versions: '0+', taggedVersions: '2+', tag: 0 }]),
      /records cannot be tagged/,
    );
    bad(
      msg([
        { name: 'T', type: 'int32', versions: '0+', taggedVersions: '2+', tag: 0, mapKey: true },
      ]),
      /mapKey field cannot be tagged/,
    );
  });

  it('checks field flexibleVersions, zeroCopy and entityType against the type', () => {
    const s = ok(msg([{ name: 'C', type: 'string', versions: '0+', flexibleVersions: 'none' }]));
    expect(s.fields[0]?.flexibleVersions).toEqual({ lo: 1, hi: 0 });
    bad(
      msg([{ name: 'C', type: 'int32', versions: '0+', flexibleVersions: 'none' }]),
      /only be set on string and bytes/,
    );
    bad(
      msg([{ name: 'C', type: 'string', versions: '0+', zeroCopy: true }]),
      /zeroCopy is only for bytes/,
    );
    bad(
      msg([{ name: 'C', type: 'int32', versions: '0+', entityType: 'topicName' }]),
      /needs type string/,
    );
    ok(msg([{ name: 'C', type: '[]string', versions: '0+', entityType: 'topicName' }]));
    bad(
      msg([{ name: 'C', type: 'string', versions: '0+', entityType: 'planet' }]),
      /unknown entityType/,
    );
  });

  it('resolves common structs and rejects duplicates and dangling references', () => {
    const common = [
      { name: 'Shared', versions: '0+', fields: [{ name: 'X', type: 'int8', versions: '0+' }] },
    ];
    ok(msg([{ name: 'S', type: 'Shared', versions: '0+' }], { commonStructs: common }));
    bad(msg([{ name: 'S', type: 'Missing', versions: '0+' }]), /not a common struct/);
    bad(
      msg(
        [
          {
            name: 'S',
            type: 'Shared',
            versions: '0+',
            fields: [{ name: 'Y', type: 'int8', versions: '0+' }],
          },
        ],
        {
          commonStructs: common,
        },
      ),
      /duplicate struct name Shared/,
    );
    bad(
      msg([{ name: 'I', type: 'int32', versions: '0+', fields: [] }]),
      /only struct types can have fields/,
    );
  });
});
