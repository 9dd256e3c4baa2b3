// The admin's translations between kafkajs's shapes and kafkats's, and its enums against the
// ones kafkajs 2.2.4 itself exports.
import { ProtocolError } from '@kafkats/client';
import fc from 'fast-check';
import * as kafkajs from 'kafkajs';
import { describe, expect, it } from 'vitest';
import {
  type AclEntry,
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  ConfigResourceTypes,
  ConfigSource,
  ResourcePatternTypes,
} from '../../src/index.js';
import {
  configResourceTypeId,
  configResourceTypeName,
  configSourceId,
  groupAclsByResource,
  toAclBinding,
  toAclFilter,
  toConfigEntries,
  toMatchingAcl,
  toNewTopic,
  toOffset,
  toPartitionMetadata,
} from '../../src/internal/admin-translate.js';

const ids = (o: object) => Object.values(o) as number[];

describe('kafkajs admin enums', () => {
  it('have kafkajs 2.2.4 names and numbers', () => {
    expect(AclResourceTypes).toEqual(kafkajs.AclResourceTypes);
    expect(ConfigResourceTypes).toEqual(kafkajs.ConfigResourceTypes);
    expect(ConfigSource).toEqual(kafkajs.ConfigSource);
    expect(AclPermissionTypes).toEqual(kafkajs.AclPermissionTypes);
    expect(AclOperationTypes).toEqual(kafkajs.AclOperationTypes);
    expect(ResourcePatternTypes).toEqual(kafkajs.ResourcePatternTypes);
  });

  it('config resource types map to Kafka names and back', () => {
    expect(configResourceTypeName(ConfigResourceTypes.TOPIC)).toBe('TOPIC');
    expect(configResourceTypeName(ConfigResourceTypes.BROKER)).toBe('BROKER');
    expect(configResourceTypeName(ConfigResourceTypes.BROKER_LOGGER)).toBe('BROKER_LOGGER');
    expect(configResourceTypeName(ConfigResourceTypes.UNKNOWN)).toBeUndefined();
    for (const id of [2, 4, 8]) {
      const name = configResourceTypeName(id);
      expect(name === undefined ? undefined : configResourceTypeId(name)).toBe(id);
    }
  });

  it('config sources keep Kafka wire ids, newer ones included', () => {
    expect(configSourceId('DYNAMIC_TOPIC_CONFIG')).toBe(ConfigSource.TOPIC_CONFIG);
    expect(configSourceId('DEFAULT_CONFIG')).toBe(ConfigSource.DEFAULT_CONFIG);
    expect(configSourceId('STATIC_BROKER_CONFIG')).toBe(ConfigSource.STATIC_BROKER_CONFIG);
    expect(configSourceId('DYNAMIC_GROUP_CONFIG')).toBe(8);
  });
});

const aclEntry = fc.record({
  resourceType: fc.constantFrom(...ids(AclResourceTypes)),
  resourceName: fc.string(),
  resourcePatternType: fc.constantFrom(...ids(ResourcePatternTypes)),
  principal: fc.string(),
  host: fc.string(),
  operation: fc.constantFrom(...ids(AclOperationTypes)),
  permissionType: fc.constantFrom(...ids(AclPermissionTypes)),
}) as fc.Arbitrary<AclEntry>;

describe('kafkajs ACL shapes', () => {
  it('an entry survives kafkajs -> kafkats binding -> kafkajs matching ACL unchanged', () => {
    fc.assert(
      fc.property(aclEntry, (entry) => {
        const b = toAclBinding(entry);
        const back = toMatchingAcl({
          resourceType: b.resourceType,
          resourceName: b.resourceName,
          patternType: b.patternType ?? 'LITERAL',
          principal: b.principal,
          host: b.host ?? '*',
          operation: b.operation,
          permission: b.permission ?? 'ALLOW',
        });
        expect(back).toEqual({ errorCode: 0, errorMessage: null, ...entry });
      }),
    );
  });

  it("each kafkajs enum key becomes Kafka's name of the same spelling", () => {
    const base: AclEntry = {
      resourceType: 2,
      resourceName: 'r',
      resourcePatternType: 3,
      principal: 'User:a',
      host: '*',
      operation: 2,
      permissionType: 3,
    };
    for (const [k, id] of Object.entries(AclResourceTypes)) {
      expect(toAclBinding({ ...base, resourceType: id }).resourceType).toBe(k);
    }
    for (const [k, id] of Object.entries(ResourcePatternTypes)) {
      expect(toAclBinding({ ...base, resourcePatternType: id }).patternType).toBe(k);
    }
    for (const [k, id] of Object.entries(AclOperationTypes)) {
      expect(toAclBinding({ ...base, operation: id }).operation).toBe(k);
    }
    for (const [k, id] of Object.entries(AclPermissionTypes)) {
      expect(toAclBinding({ ...base, permissionType: id }).permission).toBe(k);
    }
  });

  it('a filter leaves out names, principal and host as null (match any)', () => {
    expect(
      toAclFilter({
        resourceType: AclResourceTypes.TOPIC,
        resourcePatternType: ResourcePatternTypes.ANY,
        operation: AclOperationTypes.ANY,
        permissionType: AclPermissionTypes.ALLOW,
      }),
    ).toEqual({
      resourceType: 'TOPIC',
      resourceName: null,
      patternType: 'ANY',
      principal: null,
      host: null,
      operation: 'ANY',
      permission: 'ALLOW',
    });
  });

  it('a newer broker id (USER, TWO_PHASE_COMMIT) comes back as its number', () => {
    const m = toMatchingAcl({
      resourceType: 'USER',
      resourceName: 'alice',
      patternType: 'LITERAL',
      principal: 'User:a',
      host: '*',
      operation: 'TWO_PHASE_COMMIT',
      permission: 'ALLOW',
    });
    expect(m).toMatchObject({ resourceType: 7, operation: 15 });
  });

  it('describeAcls groups bindings by resource, in the order the broker listed them', () => {
    fc.assert(
      fc.property(fc.array(aclEntry, { maxLength: 20 }), (entries) => {
        const bindings = entries.map((e) => {
          const b = toAclBinding(e);
          return {
            resourceType: b.resourceType,
            resourceName: b.resourceName,
            patternType: b.patternType ?? 'LITERAL',
            principal: b.principal,
            host: b.host ?? '*',
            operation: b.operation,
            permission: b.permission ?? 'ALLOW',
          };
        });
        const grouped = groupAclsByResource(bindings);
        // Every ACL is in exactly one resource, and resources are distinct.
        expect(grouped.reduce((n, r) => n + r.acls.length, 0)).toBe(entries.length);
        const keys = grouped.map(
          (r) => `${r.resourceType}/${r.resourcePatternType}/${r.resourceName}`,
        );
        expect(new Set(keys).size).toBe(keys.length);
        const flat = grouped.flatMap((r) =>
          r.acls.map((a) => ({
            resourceType: r.resourceType,
            resourceName: r.resourceName,
            resourcePatternType: r.resourcePatternType,
            ...a,
          })),
        );
        expect(new Set(flat.map((x) => JSON.stringify(x)))).toEqual(
          new Set(entries.map((x) => JSON.stringify({ ...x }, Object.keys(flat[0] ?? x)))),
        );
      }),
    );
  });
});

describe('kafkajs topic and config shapes', () => {
  it('a replica assignment listed in any order is indexed by partition', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 3 }), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.func(fc.integer()),
        (replicas, order) => {
          const listed = replicas
            .map((r, partition) => ({ partition, replicas: r }))
            .sort((a, b) => order(a.partition) - order(b.partition));
          const topic = toNewTopic({ topic: 't', replicaAssignment: listed, numPartitions: 3 });
          expect(topic).toEqual({ name: 't', replicaAssignment: replicas });
        },
      ),
    );
  });

  it('counts of -1 mean the broker default; config entries become a record', () => {
    expect(
      toNewTopic({
        topic: 't',
        numPartitions: -1,
        replicationFactor: 2,
        configEntries: [
          { name: 'cleanup.policy', value: 'compact' },
          { name: 'retention.ms', value: '1000' },
        ],
      }),
    ).toEqual({
      name: 't',
      replicationFactor: 2,
      configs: { 'cleanup.policy': 'compact', 'retention.ms': '1000' },
    });
  });

  it('a described config entry has kafkajs field names and numeric sources', () => {
    expect(
      toConfigEntries({
        name: 'cleanup.policy',
        value: 'compact',
        source: 'DYNAMIC_TOPIC_CONFIG',
        isDefault: false,
        isSensitive: false,
        readOnly: false,
        synonyms: [{ name: 'log.cleanup.policy', value: 'delete', source: 'DEFAULT_CONFIG' }],
        type: 'LIST',
        documentation: null,
      }),
    ).toEqual({
      configName: 'cleanup.policy',
      configValue: 'compact',
      readOnly: false,
      isDefault: false,
      configSource: ConfigSource.TOPIC_CONFIG,
      isSensitive: false,
      configSynonyms: [
        {
          configName: 'log.cleanup.policy',
          configValue: 'delete',
          configSource: ConfigSource.DEFAULT_CONFIG,
        },
      ],
    });
  });

  it('a leaderless partition has leader -1 and its error code', () => {
    expect(
      toPartitionMetadata({
        partition: 4,
        leaderEpoch: -1,
        replicas: [1, 2],
        isr: [],
        offlineReplicas: [1, 2],
        error: new ProtocolError(5),
      }),
    ).toEqual({
      partitionErrorCode: 5,
      partitionId: 4,
      leader: -1,
      replicas: [1, 2],
      isr: [],
      offlineReplicas: [1, 2],
    });
  });
});

describe('kafkajs offsets', () => {
  it('a decimal string, a number or a bigint is the same int64, and prints back as the string', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -2n, max: 2n ** 63n - 1n }), (n) => {
        expect(toOffset(String(n))).toBe(n);
        expect(toOffset(n)).toBe(n);
        if (n <= BigInt(Number.MAX_SAFE_INTEGER)) expect(toOffset(Number(n))).toBe(n);
        expect(String(toOffset(String(n)))).toBe(String(n));
      }),
    );
  });
});
