// Pure translations between kafkajs's admin shapes (numeric enum ids, string offsets, arrays of
// `{ name, value }`) and kafkats's (Kafka's enum names, bigint offsets, records). No I/O here.
import {
  ACL_OPERATIONS,
  type AclBinding,
  type AclBindingFilter,
  type AclBindingInput,
  type AclOperation,
  type AclPatternType,
  type AclPermissionType,
  type AclResourceType,
  CONFIG_RESOURCE_TYPE_CODES,
  type ConfigEntry,
  type ConfigResourceType,
  type ConfigSource as KatsConfigSource,
  type NewTopic,
  type PartitionDescription,
  ProtocolError,
} from '@kafkats/client';
import type {
  AclEntry,
  AclFilter,
  ConfigEntries,
  ConfigResourceTypes,
  ConfigSource,
  DescribeAclResource,
  ITopicConfig,
  MatchingAcl,
  PartitionMetadata,
} from '../admin.js';

// Kafka's enum names in the order of their wire ids, which are kafkajs's numbers.
const RESOURCE_TYPES: readonly AclResourceType[] = [
  'UNKNOWN',
  'ANY',
  'TOPIC',
  'GROUP',
  'CLUSTER',
  'TRANSACTIONAL_ID',
  'DELEGATION_TOKEN',
  'USER',
];
const PATTERN_TYPES: readonly AclPatternType[] = ['UNKNOWN', 'ANY', 'MATCH', 'LITERAL', 'PREFIXED'];
const PERMISSIONS: readonly AclPermissionType[] = ['UNKNOWN', 'ANY', 'DENY', 'ALLOW'];
const CONFIG_SOURCES: readonly KatsConfigSource[] = [
  'UNKNOWN',
  'DYNAMIC_TOPIC_CONFIG',
  'DYNAMIC_BROKER_CONFIG',
  'DYNAMIC_DEFAULT_BROKER_CONFIG',
  'STATIC_BROKER_CONFIG',
  'DEFAULT_CONFIG',
  'DYNAMIC_BROKER_LOGGER_CONFIG',
  'DYNAMIC_CLIENT_METRICS_CONFIG',
  'DYNAMIC_GROUP_CONFIG',
];

/** Kafka's name for a kafkajs id; ids this release does not know become UNKNOWN. */
function nameOf<T extends string>(names: readonly T[], id: number): T {
  return names[id] ?? (names[0] as T);
}

/** kafkajs's id for Kafka's name: the wire id, so a newer name keeps its number. */
function idOf<T extends string>(names: readonly T[], name: T): number {
  const i = names.indexOf(name);
  return Math.max(i, 0);
}

export const aclResourceTypeName = (id: number): AclResourceType => nameOf(RESOURCE_TYPES, id);
export const aclPatternTypeName = (id: number): AclPatternType => nameOf(PATTERN_TYPES, id);
export const aclPermissionName = (id: number): AclPermissionType => nameOf(PERMISSIONS, id);
export const aclOperationName = (id: number): AclOperation => nameOf(ACL_OPERATIONS, id);

/** An ACL entry of `createAcls`, as kafkats's binding. */
export function toAclBinding(a: AclEntry): AclBindingInput {
  // Filter-only values (ANY, MATCH) pass through for the broker to refuse, as with kafkajs.
  return {
    resourceType: aclResourceTypeName(a.resourceType) as AclBindingInput['resourceType'],
    resourceName: a.resourceName,
    patternType: aclPatternTypeName(a.resourcePatternType) as 'LITERAL',
    principal: a.principal,
    host: a.host,
    operation: aclOperationName(a.operation) as AclBindingInput['operation'],
    permission: aclPermissionName(a.permissionType) as AclBindingInput['permission'] & string,
  };
}

/** A kafkajs ACL filter as kafkats's: a name, principal or host left out matches any. */
export function toAclFilter(f: AclFilter): AclBindingFilter {
  return {
    resourceType: aclResourceTypeName(f.resourceType),
    resourceName: f.resourceName ?? null,
    patternType: aclPatternTypeName(f.resourcePatternType),
    principal: f.principal ?? null,
    host: f.host ?? null,
    operation: aclOperationName(f.operation),
    permission: aclPermissionName(f.permissionType),
  };
}

/** A binding a broker reported, as kafkajs's `deleteAcls` lists it (`errorCode` 0). */
export function toMatchingAcl(b: AclBinding): MatchingAcl {
  return {
    errorCode: 0,
    errorMessage: null,
    resourceType: idOf(RESOURCE_TYPES, b.resourceType) as MatchingAcl['resourceType'],
    resourceName: b.resourceName,
    resourcePatternType: idOf(PATTERN_TYPES, b.patternType) as MatchingAcl['resourcePatternType'],
    principal: b.principal,
    host: b.host,
    operation: idOf(ACL_OPERATIONS, b.operation) as MatchingAcl['operation'],
    permissionType: idOf(PERMISSIONS, b.permission) as MatchingAcl['permissionType'],
  };
}

/**
 * DescribeAcls' answer as kafkajs gives it: one entry per resource (type, name, pattern) in the
 * order the broker listed them, each with its ACLs.
 */
export function groupAclsByResource(bindings: readonly AclBinding[]): DescribeAclResource[] {
  const byResource = new Map<string, DescribeAclResource>();
  for (const b of bindings) {
    const m = toMatchingAcl(b);
    const key = `${m.resourceType}\u0000${m.resourcePatternType}\u0000${m.resourceName}`;
    let resource = byResource.get(key);
    if (resource === undefined) {
      resource = {
        resourceType: m.resourceType,
        resourceName: m.resourceName,
        resourcePatternType: m.resourcePatternType,
        acls: [],
      };
      byResource.set(key, resource);
    }
    resource.acls.push({
      principal: m.principal,
      host: m.host,
      operation: m.operation,
      permissionType: m.permissionType,
    });
  }
  return [...byResource.values()];
}

/** A kafkajs config resource type id as Kafka's name, or undefined for UNKNOWN (0). */
export function configResourceTypeName(id: number): ConfigResourceType | undefined {
  for (const [name, code] of Object.entries(CONFIG_RESOURCE_TYPE_CODES)) {
    if (code === id) return name as ConfigResourceType;
  }
  return undefined;
}

export function configResourceTypeId(name: ConfigResourceType): ConfigResourceTypes {
  return CONFIG_RESOURCE_TYPE_CODES[name] as ConfigResourceTypes;
}

export function configSourceId(source: KatsConfigSource): ConfigSource {
  return idOf(CONFIG_SOURCES, source) as ConfigSource;
}

/** One described config as kafkajs's `configEntries` item. */
export function toConfigEntries(c: ConfigEntry): ConfigEntries {
  return {
    configName: c.name,
    // kafkajs gives the broker's null (a sensitive or unset value) as null too.
    configValue: c.value as string,
    readOnly: c.readOnly,
    isDefault: c.isDefault,
    configSource: configSourceId(c.source),
    isSensitive: c.isSensitive,
    configSynonyms: c.synonyms.map((s) => ({
      configName: s.name,
      configValue: s.value as string,
      configSource: configSourceId(s.source),
    })),
  };
}

/** A kafkajs topic to create as kafkats's `NewTopic` (-1 counts mean the broker's default). */
export function toNewTopic(t: ITopicConfig): NewTopic {
  const out: {
    name: string;
    numPartitions?: number;
    replicationFactor?: number;
    replicaAssignment?: number[][];
    configs?: Record<string, string>;
  } = { name: t.topic };
  if (t.replicaAssignment !== undefined && t.replicaAssignment.length > 0) {
    // kafkajs lists `{ partition, replicas }`; Kafka's assignment is indexed by partition.
    const sorted = [...t.replicaAssignment].sort((a, b) => a.partition - b.partition);
    out.replicaAssignment = sorted.map((a) => [...a.replicas]);
  } else {
    if (t.numPartitions !== undefined && t.numPartitions !== -1) {
      out.numPartitions = t.numPartitions;
    }
    if (t.replicationFactor !== undefined && t.replicationFactor !== -1) {
      out.replicationFactor = t.replicationFactor;
    }
  }
  if (t.configEntries !== undefined && t.configEntries !== null && t.configEntries.length > 0) {
    out.configs = Object.fromEntries(t.configEntries.map((e) => [e.name, e.value]));
  }
  return out;
}

/** A described partition as kafkajs's metadata (`leader` -1 and the error code when leaderless). */
export function toPartitionMetadata(p: PartitionDescription): PartitionMetadata {
  return {
    partitionErrorCode: p.error?.errorCode ?? 0,
    partitionId: p.partition,
    leader: p.leader ?? -1,
    replicas: [...p.replicas],
    isr: [...p.isr],
    offlineReplicas: [...p.offlineReplicas],
  };
}

/** An offset from a kafkajs caller (a decimal string, a number or a bigint) as an int64. */
export function toOffset(offset: string | number | bigint): bigint {
  return typeof offset === 'bigint' ? offset : BigInt(offset);
}

/** kafkajs's error code of a kafkats error: the broker's code, else -1 (not from a broker). */
export function errorCodeOf(e: unknown): number {
  return e instanceof ProtocolError ? e.errorCode : -1;
}
