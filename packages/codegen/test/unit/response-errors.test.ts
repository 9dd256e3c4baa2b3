import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { generate } from '../../src/schema/emit-files.js';
import { newImports, ZERO_UUID } from '../../src/schema/emit-message.js';
import { emitResponseErrors, identifierRole } from '../../src/schema/emit-response-errors.js';
import { buildMessageModel } from '../../src/schema/model.js';
import { validateMessage } from '../../src/schema/validate.js';

const request = validateMessage('clients/WalkRequest.json', {
  apiKey: 93,
  type: 'request',
  name: 'WalkRequest',
  validVersions: '0-1',
  flexibleVersions: '1+',
  fields: [],
});

const response = validateMessage('clients/WalkResponse.json', {
  apiKey: 93,
  type: 'response',
  name: 'WalkResponse',
  validVersions: '0-1',
  flexibleVersions: '1+',
  fields: [
    { name: 'ErrorCode', type: 'int16', versions: '0+' },
    {
      name: 'Topics',
      type: '[]WalkTopic',
      versions: '0+',
      fields: [
        { name: 'Name', type: 'string', versions: '0', entityType: 'topicName' },
        { name: 'TopicId', type: 'uuid', versions: '1+' },
        {
          name: 'Partitions',
          type: '[]WalkPartition',
          versions: '0+',
          fields: [
            { name: 'PartitionIndex', type: 'int32', versions: '0+' },
            { name: 'ErrorCode', type: 'int16', versions: '0+' },
            {
              name: 'ErrorMessage',
              type: 'string',
              versions: '0+',
              nullableVersions: '0+',
              default: 'null',
            },
            { name: 'LeaderId', type: 'int32', versions: '0+', entityType: 'brokerId' },
          ],
        },
        // No ErrorCode below: the walk never reads it.
        {
          name: 'Configs',
          type: '[]WalkConfig',
          versions: '0+',
          fields: [{ name: 'Name', type: 'string', versions: '0+' }],
        },
      ],
    },
    {
      name: 'Groups',
      type: '[]WalkGroup',
      versions: '0+',
      nullableVersions: '1+',
      fields: [
        { name: 'GroupId', type: 'string', versions: '0+', entityType: 'groupId' },
        {
          name: 'Owner',
          type: 'WalkOwner',
          versions: '0+',
          nullableVersions: '0+',
          default: 'null',
          fields: [
            {
              name: 'BrokerId',
              type: 'int32',
              versions: '0+',
              entityType: 'brokerId',
              mapKey: true,
            },
            { name: 'ErrorCode', type: 'int16', versions: '0+' },
          ],
        },
      ],
    },
    {
      name: 'Resources',
      type: '[]WalkResource',
      versions: '0+',
      fields: [
        { name: 'ErrorCode', type: 'int16', versions: '0+' },
        { name: 'ErrorMessage', type: 'string', versions: '0+' },
        { name: 'ResourceName', type: 'string', versions: '0+' },
        { name: 'TransactionalId', type: 'string', versions: '0+', entityType: 'transactionalId' },
      ],
    },
  ],
});

const quiet = validateMessage('clients/QuietResponse.json', {
  apiKey: 94,
  type: 'response',
  name: 'QuietResponse',
  validVersions: '0',
  flexibleVersions: 'none',
  fields: [{ name: 'ThrottleTimeMs', type: 'int32', versions: '0+' }],
});

type Entry = Record<string, unknown>;
type Walker = (m: unknown) => Entry[];

/** The emitted walk as a function, with the two runtime helpers it imports. */
function compile(code: string, name: string): Walker {
  const js = ts.transpileModule(code, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
  }).outputText;
  const make = new Function(
    'newErrorEntry',
    'ZERO_UUID',
    `${js.replace(/^export /gm, '')}\nreturn ${name};`,
  ) as (n: (path: string, errorCode: number) => Entry, z: string) => Walker;
  return make((path, errorCode) => ({ path, errorCode }), ZERO_UUID);
}

describe('response errors: naming rule', () => {
  const roles = (spec: typeof response): Record<string, string | null> => {
    const out: Record<string, string | null> = {};
    for (const s of buildMessageModel(spec).structs) {
      for (const f of s.fields) out[`${s.schemaName}.${f.spec.name}`] = identifierRole(f);
    }
    return out;
  };
  const r = roles(response);

  it('names topics, groups and transactions by entityType, not by spelling', () => {
    expect(r['WalkTopic.Name']).toBe('topic');
    expect(r['WalkConfig.Name']).toBeNull(); // a config name, not a topic
    expect(r['WalkGroup.GroupId']).toBe('group');
    expect(r['WalkResource.TransactionalId']).toBe('transactionalId');
  });

  it('names topic ids, partitions and resources by field name', () => {
    expect(r['WalkTopic.TopicId']).toBe('topicId');
    expect(r['WalkPartition.PartitionIndex']).toBe('partition');
    expect(r['WalkResource.ResourceName']).toBe('resource');
    expect(r['WalkPartition.ErrorCode']).toBeNull();
  });

  it('a broker id names the struct only as its element key', () => {
    expect(r['WalkOwner.BrokerId']).toBe('nodeId');
    expect(r['WalkPartition.LeaderId']).toBeNull();
  });
});

describe('response errors: emitted walk', () => {
  const g = generate([request, response], '9.9.9');
  const file = g.files.find((f) => f.path === 'src/gen/messages/walk.ts')!.content;
  const code = emitResponseErrors(buildMessageModel(response), newImports());
  const walk = compile(code, 'collectWalkResponseErrors');

  it('is in the message file and on the descriptor', () => {
    expect(file).toContain('export function collectWalkResponseErrors(m: WalkResponse)');
    expect(file).toMatch(/import type \{ ResponseErrorEntry, UnknownTaggedField \}/);
    const apis = g.files.find((f) => f.path === 'src/gen/api-keys.ts')!.content;
    expect(apis).toContain('responseErrors: collectWalkResponseErrors,');
  });

  it('is plain loops over the structs that lead to an ErrorCode: no closures, no reflection', () => {
    const body = code.slice(code.indexOf('*/'));
    expect(body).not.toMatch(/=>|Object\.|\bin\b/);
    expect(code.match(/function /g)).toHaveLength(1);
    expect(code).not.toContain('configs');
    expect(code).not.toContain('_unknownTaggedFields');
    expect(code).toContain('for (let i0 = 0; i0 < a0.length; i0++)');
  });

  it('reports nothing for an all-OK response, in a fresh array', () => {
    const ok = {
      errorCode: 0,
      topics: [
        { name: 't', topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, errorCode: 0 }] },
      ],
      groups: null,
      resources: [],
    };
    const a = walk(ok);
    expect(a).toEqual([]);
    expect(walk(ok)).not.toBe(a);
  });

  it('finds every non-zero code, top level first, then depth-first in field order', () => {
    const m = {
      errorCode: 7,
      topics: [
        {
          name: 'a',
          topicId: ZERO_UUID,
          partitions: [
            { partitionIndex: 0, errorCode: 0, errorMessage: null, leaderId: 1 },
            { partitionIndex: 4, errorCode: 6, errorMessage: 'moved', leaderId: 2 },
          ],
          configs: [{ name: 'x', errorCode: 99 }], // not a schema ErrorCode: ignored
        },
        {
          name: '',
          topicId: 'AAAAAAAAAAAAAAAAAAAAAQ',
          partitions: [{ partitionIndex: 1, errorCode: 3, errorMessage: null, leaderId: -1 }],
          configs: [],
        },
      ],
      groups: [
        { groupId: 'g', owner: null },
        { groupId: 'h', owner: { brokerId: 5, errorCode: 15 } },
      ],
      resources: [{ errorCode: 29, errorMessage: '', resourceName: '', transactionalId: 'tx' }],
    };
    expect(walk(m)).toEqual([
      { path: '', errorCode: 7 },
      {
        path: 'topics[0].partitions[1]',
        errorCode: 6,
        errorMessage: 'moved',
        topic: 'a',
        partition: 4,
      },
      {
        path: 'topics[1].partitions[0]',
        errorCode: 3,
        topicId: 'AAAAAAAAAAAAAAAAAAAAAQ',
        partition: 1,
      },
      { path: 'groups[1].owner', errorCode: 15, group: 'h', nodeId: 5 },
      {
        path: 'resources[0]',
        errorCode: 29,
        errorMessage: '',
        transactionalId: 'tx',
        resource: '',
      },
    ]);
  });

  it('adds identifiers in one fixed order, so entries share a shape', () => {
    const m = {
      errorCode: 0,
      topics: [
        {
          name: 'a',
          topicId: 'AAAAAAAAAAAAAAAAAAAAAQ',
          partitions: [{ partitionIndex: 2, errorCode: 6, errorMessage: 'x', leaderId: 1 }],
          configs: [],
        },
      ],
      groups: null,
      resources: [],
    };
    expect(Object.keys(walk(m)[0]!)).toEqual([
      'path',
      'errorCode',
      'errorMessage',
      'topic',
      'topicId',
      'partition',
    ]);
  });

  it('a response without any ErrorCode gets a walk that returns an empty array', () => {
    const quietCode = emitResponseErrors(buildMessageModel(quiet), newImports());
    expect(quietCode).toContain('collectQuietResponseErrors(_m: QuietResponse)');
    expect(compile(quietCode, 'collectQuietResponseErrors')({ throttleTimeMs: 0 })).toEqual([]);
  });
});
