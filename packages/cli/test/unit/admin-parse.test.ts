// The flag parsers of the CLI's admin commands: ACL bindings and filters from kafka-acls.sh's
// flags, config and quota changes, feature levels.
import { describe, expect, it } from 'vitest';
import { aclBindings, aclFilters } from '../../src/commands/acls.js';
import { parseFeatureLevels } from '../../src/commands/features.js';
import { quotaEntity, quotaOps } from '../../src/commands/quotas.js';
import { configOps } from '../../src/commands/topic-admin.js';

const flags = { allowPrincipal: [], denyPrincipal: [], operation: [] };

describe('acls flags', () => {
  it('add: every principal with every operation on the one resource', () => {
    expect(
      aclBindings({
        ...flags,
        allowPrincipal: ['User:bob'],
        denyPrincipal: ['User:eve'],
        operation: ['read', 'describe'],
        topic: 'orders',
        resourcePatternType: 'prefixed',
      }).map((b) => `${b.principal} ${b.permission} ${b.operation} ${b.patternType} ${b.host}`),
    ).toEqual([
      'User:bob ALLOW READ PREFIXED *',
      'User:bob ALLOW DESCRIBE PREFIXED *',
      'User:eve DENY READ PREFIXED *',
      'User:eve DENY DESCRIBE PREFIXED *',
    ]);
    expect(() =>
      aclBindings({ ...flags, allowPrincipal: ['bob'], operation: ['READ'], topic: 't' }),
    ).toThrow(/Type:name/);
    expect(() =>
      aclBindings({ ...flags, allowPrincipal: ['User:b'], operation: ['FLY'], topic: 't' }),
    ).toThrow(/unknown --operation FLY/);
    expect(() =>
      aclBindings({
        ...flags,
        allowPrincipal: ['User:b'],
        operation: ['READ'],
        topic: 't',
        group: 'g',
      }),
    ).toThrow(/name one resource/);
    expect(() =>
      aclBindings({
        ...flags,
        allowPrincipal: ['User:b'],
        operation: ['READ'],
        topic: 't',
        resourcePatternType: 'match',
      }),
    ).toThrow(/literal, prefixed/);
  });

  it('list and remove: one filter per operation, ANY without', () => {
    expect(aclFilters({ ...flags, group: 'g', principal: 'User:bob' }, 'LITERAL')).toEqual([
      {
        resourceType: 'GROUP',
        resourceName: 'g',
        patternType: 'LITERAL',
        principal: 'User:bob',
        host: null,
      },
    ]);
    expect(
      aclFilters({ ...flags, operation: ['READ', 'WRITE'] }, 'ANY').map((f) => f.operation),
    ).toEqual(['READ', 'WRITE']);
  });
});

describe('configs, quotas and features flags', () => {
  it('configs: --set name=value and --delete name, each name once', () => {
    expect(
      configOps(['retention.ms=1000', 'cleanup.policy=compact,delete'], ['segment.ms']),
    ).toEqual([
      { name: 'retention.ms', op: 'SET', value: '1000' },
      { name: 'cleanup.policy', op: 'SET', value: 'compact,delete' },
      { name: 'segment.ms', op: 'DELETE' },
    ]);
    expect(() => configOps(['a=1'], ['a'])).toThrow(/named twice/);
    expect(() => configOps(['=1'], [])).toThrow(/--set takes name=value/);
  });

  it('quotas: numeric values, <default> entities', () => {
    expect(
      quotaOps(['producer_byte_rate=1024', 'request_percentage=12.5'], ['consumer_byte_rate']),
    ).toEqual([
      { key: 'producer_byte_rate', value: 1024 },
      { key: 'request_percentage', value: 12.5 },
      { key: 'consumer_byte_rate', value: null },
    ]);
    expect(() => quotaOps(['producer_byte_rate=fast'], [])).toThrow(/key=number/);
    expect(quotaEntity({ user: '<default>', clientId: 'app' })).toEqual({
      user: null,
      'client-id': 'app',
    });
  });

  it('features: name=level, each feature once', () => {
    expect(parseFeatureLevels(['transaction.version=1'])).toEqual([
      { feature: 'transaction.version', level: 1 },
    ]);
    expect(() => parseFeatureLevels(['x'])).toThrow(/name=level/);
    expect(() => parseFeatureLevels(['a=1', 'a=2'])).toThrow(/named twice/);
  });
});
