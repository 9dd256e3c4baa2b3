// The naming rule of the response-error walks against every response schema of the pinned
// release: nothing that names a topic or a partition beside an ErrorCode is left unread.
import { describe, expect, it } from 'vitest';
import { identifierRole, responseErrorSites } from '../../src/schema/emit-response-errors.js';
import { loadSchemas } from '../../src/schema/load.js';
import { buildMessageModel, type MessageModel } from '../../src/schema/model.js';
import { isEmpty } from '../../src/schema/versions.js';
import { ensureSchemas, pinned, schemasDir } from '../support/pinned-schemas.js';

function responses(): MessageModel[] {
  ensureSchemas();
  return loadSchemas(schemasDir, pinned)
    .specs.filter((s) => s.type === 'response' && !isEmpty(s.validVersions))
    .map(buildMessageModel);
}

describe('response errors against the pinned schemas', () => {
  const models = responses();
  const sites = new Map(
    models.map((m) => [
      m.spec.name,
      new Map(responseErrorSites(m).map((s) => [s.path, s.roles.join(' ')])),
    ]),
  );

  it('every response has at least one ErrorCode to report', () => {
    expect(
      models.filter((m) => responseErrorSites(m).length === 0).map((m) => m.spec.name),
    ).toEqual([]);
  });

  it('every topic-name spelling beside an ErrorCode or above one is tagged as a topic', () => {
    const untagged: string[] = [];
    for (const m of models) {
      for (const s of m.structs) {
        for (const f of s.fields) {
          const topicish = ['Name', 'Topic', 'TopicName'].includes(f.spec.name);
          const beside = s.fields.some((x) => x.spec.name === 'ErrorCode');
          const above = s.fields.some((x) =>
            x.struct?.fields.some((y) => y.spec.name === 'ErrorCode'),
          );
          if (topicish && (beside || above) && identifierRole(f) === null) {
            untagged.push(`${m.spec.name}.${s.schemaName}.${f.spec.name}`);
          }
        }
      }
    }
    expect(untagged).toEqual([]);
  });

  it('every error struct below a topic names its partition', () => {
    const missing: string[] = [];
    for (const [name, byPath] of sites) {
      for (const [path, roles] of byPath) {
        const belowTopic = path.includes('.') && /\btopic(Id)?\b/.test(roles);
        if (belowTopic && !roles.includes('partition')) missing.push(`${name} ${path}: ${roles}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('names the structs of the everyday APIs', () => {
    expect(sites.get('ProduceResponse')).toEqual(
      new Map([['responses[].partitionResponses[]', 'topic topicId partition']]),
    );
    expect(sites.get('FetchResponse')).toEqual(
      new Map([
        ['', ''],
        ['responses[].partitions[]', 'topic topicId partition'],
      ]),
    );
    expect(sites.get('OffsetFetchResponse')).toEqual(
      new Map([
        ['', ''],
        ['topics[].partitions[]', 'topic partition'],
        ['groups[]', 'group'],
        ['groups[].topics[].partitions[]', 'topic topicId partition group'],
      ]),
    );
    expect(sites.get('FetchSnapshotResponse')?.get('topics[].partitions[]')).toBe(
      'topic partition',
    );
    expect(sites.get('DescribeTransactionsResponse')?.get('transactionStates[]')).toBe(
      'transactionalId',
    );
    expect(sites.get('DeleteAclsResponse')?.get('filterResults[].matchingAcls[]')).toBe('resource');
    expect(sites.get('FindCoordinatorResponse')?.get('coordinators[]')).toBe('resource');
    expect(sites.get('ShareFetchResponse')?.get('responses[].partitions[]')).toBe(
      'topicId partition',
    );
  });
});
