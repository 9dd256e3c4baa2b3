import { describe, expect, it } from 'vitest';
import { buildMessageModel, camel, structTsName } from '../../src/schema/model.js';
import { validateMessage } from '../../src/schema/validate.js';

const spec = validateMessage('mini.json', {
  apiKey: 90,
  type: 'request',
  name: 'MiniRequest',
  validVersions: '0-4',
  flexibleVersions: '3+',
  fields: [
    { name: 'GroupId', type: 'string', versions: '0+' },
    { name: 'Extra', type: 'int32', versions: '2+' },
    {
      name: 'MiniTopics',
      type: '[]MiniTopic',
      versions: '0+',
      fields: [{ name: 'Name', type: 'string', versions: '0+' }],
    },
    {
      name: 'Hint',
      type: 'string',
      versions: '3+',
      taggedVersions: '4+',
      tag: 0,
      nullableVersions: '3+',
      default: 'null',
    },
  ],
});

describe('model', () => {
  it('groups versions with the same wire layout into one encoder/decoder', () => {
    const m = buildMessageModel(spec);
    const ids = [0, 1, 2, 3, 4].map((v) => m.versionLayouts.get(v)?.id);
    // v0-1 same; v2 adds Extra; v3 turns flexible (and Hint is a regular field); v4 tags Hint.
    expect(ids).toEqual(['v0', 'v0', 'v2', 'v3', 'v4']);
    const v4 = m.versionLayouts.get(4)!;
    expect(v4.fields.map((f) => f.mode)).toEqual(['regular', 'regular', 'regular', 'tagged']);
    expect(v4.fields[0]?.compact).toBe(true);
    expect(m.versionLayouts.get(0)?.fields[1]?.mode).toBe('absent');
  });

  it('nested structs get one layout per distinct shape', () => {
    const m = buildMessageModel(spec);
    const topic = m.structs.find((s) => s.schemaName === 'MiniTopic')!;
    // Non-flexible (v0-2) and flexible (v3-4) element layouts.
    expect([...topic.layouts.values()].map((l) => l.versions)).toEqual([
      [0, 1, 2],
      [3, 4],
    ]);
  });

  it('names structs deterministically and camel-cases fields', () => {
    expect(structTsName('MetadataResponse', 'MetadataResponseTopic')).toBe('MetadataResponseTopic');
    expect(structTsName('FetchRequest', 'FetchTopic')).toBe('FetchRequestTopic');
    expect(structTsName('FetchResponse', 'FetchableTopicResponse')).toBe(
      'FetchResponseFetchableTopicResponse',
    );
    expect(structTsName('FetchRequest', 'ReplicaState')).toBe('FetchRequestReplicaState');
    expect(camel('ClientId')).toBe('clientId');
    expect(buildMessageModel(spec).structs.map((s) => s.tsName)).toEqual([
      'MiniRequest',
      'MiniRequestTopic',
    ]);
  });
});
