// The admin's input checks, with kafkajs's messages word for word: its users' tests and logs
// match on them. Each throws KafkaJSNonRetriableError before anything is sent.
import {
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  ConfigResourceTypes,
  ResourcePatternTypes,
} from '../admin.js';
import { KafkaJSNonRetriableError } from '../errors.js';

// Inputs arrive from JavaScript callers too: every check takes `unknown` and narrows.
type Loose = Record<string, unknown>;

function fail(message: string): never {
  throw new KafkaJSNonRetriableError(message);
}

const str = (v: unknown): string => `${v as string}`;
const json = (v: unknown): string => JSON.stringify(v);
const isObj = (v: unknown): v is Loose => typeof v === 'object' && v !== null;
const field = (v: unknown, key: string): unknown => (isObj(v) ? v[key] : undefined);

function uniqueTopics(items: readonly unknown[], what: string): void {
  if (items.some((t) => typeof field(t, 'topic') !== 'string')) {
    fail(`Invalid ${what}, the topic names have to be a valid string`);
  }
  if (new Set(items.map((t) => field(t, 'topic'))).size < items.length) {
    fail(`Invalid ${what}, it cannot have multiple entries for the same topic`);
  }
}

export function validateCreateTopics(topics: unknown): asserts topics is readonly Loose[] {
  if (!Array.isArray(topics)) fail(`Invalid topics array ${str(topics)}`);
  uniqueTopics(topics, 'topics array');
  for (const t of topics as Loose[]) {
    const entries = t.configEntries;
    if (entries === undefined || entries === null) continue;
    if (!Array.isArray(entries)) {
      fail(`Invalid configEntries for topic "${str(t.topic)}", must be an array`);
    }
    entries.forEach((entry: unknown, i: number) => {
      if (!isObj(entry)) {
        fail(`Invalid configEntries for topic "${str(t.topic)}". Entry ${i} must be an object`);
      }
      for (const key of ['name', 'value']) {
        if (!Object.hasOwn(entry, key) || typeof entry[key] !== 'string') {
          fail(
            `Invalid configEntries for topic "${str(t.topic)}". Entry ${i} must have a valid "${key}" property`,
          );
        }
      }
    });
  }
}

export function validateCreatePartitions(items: unknown): asserts items is readonly Loose[] {
  if (!Array.isArray(items)) fail(`Invalid topic partitions array ${str(items)}`);
  if (items.length === 0) fail('Empty topic partitions array');
  uniqueTopics(items, 'topic partitions array');
}

export function validateDeleteTopics(topics: unknown): asserts topics is readonly string[] {
  if (!Array.isArray(topics)) fail(`Invalid topics array ${str(topics)}`);
  if (topics.some((t) => typeof t !== 'string')) {
    fail('Invalid topics array, the names must be a valid string');
  }
}

export function validateTopic(topic: unknown): asserts topic is string {
  if (typeof topic !== 'string' || topic === '') fail(`Invalid topic ${str(topic)}`);
}

export function validateMetadataTopics(topics: unknown): asserts topics is readonly string[] {
  if (topics === undefined || topics === null) return;
  if (!Array.isArray(topics)) fail(`Invalid topics array ${str(topics)}`);
  for (const t of topics) validateTopic(t);
}

export function validateGroupId(groupId: unknown): asserts groupId is string {
  if (typeof groupId !== 'string' || groupId === '') fail(`Invalid groupId ${str(groupId)}`);
}

/** setOffsets / resetOffsets: the group, then the topic (any non-empty value, as kafkajs). */
export function validateGroupAndTopic(groupId: unknown, topic: unknown): void {
  validateGroupId(groupId);
  if (topic === undefined || topic === null || topic === '') fail(`Invalid topic ${str(topic)}`);
}

/**
 * setOffsets' partitions, checked as kafkajs's consumer `seek` (which kafkajs's setOffsets goes
 * through) checks each: a number partition, an int64 offset, no negative but -1 and -2.
 */
export function validateSeekEntries(
  partitions: unknown,
): asserts partitions is readonly { partition: number; offset: string | number }[] {
  if (!Array.isArray(partitions) || partitions.length === 0) fail('Invalid partitions');
  for (const p of partitions) {
    const partition = field(p, 'partition');
    if (typeof partition !== 'number' || Number.isNaN(partition)) {
      fail(`Invalid partition, expected a number received ${str(partition)}`);
    }
    const offset = parseOffset(field(p, 'offset'));
    if (offset < 0n && offset !== -1n && offset !== -2n) {
      fail('Offset must not be a negative number');
    }
  }
}

function parseOffset(offset: unknown): bigint {
  if (typeof offset === 'bigint') return offset;
  if (
    (typeof offset === 'string' || typeof offset === 'number') &&
    /^-?\d+$/.test(String(offset))
  ) {
    return BigInt(offset);
  }
  return fail(`Invalid offset, expected a long received ${str(offset)}`);
}

export function validateDeleteTopicRecords(topic: unknown, partitions: unknown): void {
  if (!topic || typeof topic !== 'string') fail(`Invalid topic "${str(topic)}"`);
  if (!Array.isArray(partitions) || partitions.length === 0) fail('Invalid partitions');
  for (const p of partitions) parseOffset(field(p, 'offset'));
}

function validateResources(resources: unknown): asserts resources is readonly Loose[] {
  if (!Array.isArray(resources)) fail(`Invalid resources array ${str(resources)}`);
  if (resources.length === 0) fail('Resources array cannot be empty');
  const types: readonly unknown[] = Object.values(ConfigResourceTypes);
  const badType = resources.find((r) => !types.includes(field(r, 'type')));
  if (badType !== undefined) {
    fail(`Invalid resource type ${str(field(badType, 'type'))}: ${json(badType)}`);
  }
  const badName = resources.find((r) => {
    const name = field(r, 'name');
    return typeof name !== 'string' || name === '';
  });
  if (badName !== undefined) {
    fail(`Invalid resource name ${str(field(badName, 'name'))}: ${json(badName)}`);
  }
}

export function validateDescribeConfigs(resources: unknown): asserts resources is readonly Loose[] {
  validateResources(resources);
  const bad = resources.find((r) => {
    const names = r.configNames;
    return names !== undefined && names !== null && !Array.isArray(names);
  });
  if (bad !== undefined) fail(`Invalid resource configNames ${str(bad.configNames)}: ${json(bad)}`);
}

export function validateAlterConfigs(resources: unknown): asserts resources is readonly Loose[] {
  validateResources(resources);
  const bad = resources.find((r) => !Array.isArray(r.configEntries));
  if (bad !== undefined) {
    fail(`Invalid resource configEntries ${str(bad.configEntries)}: ${json(bad)}`);
  }
  const badValue = resources.find((r) =>
    (r.configEntries as unknown[]).some(
      (e) => typeof field(e, 'name') !== 'string' || typeof field(e, 'value') !== 'string',
    ),
  );
  if (badValue !== undefined) fail(`Invalid resource config value: ${json(badValue)}`);
}

export function validateGroupIds(groupIds: unknown): asserts groupIds is readonly string[] {
  if (!Array.isArray(groupIds)) fail(`Invalid groupIds array ${str(groupIds)}`);
  if (groupIds.some((g) => typeof g !== 'string')) {
    // kafkajs prints the `some` result here, not the id: kept so logs match.
    fail(`Invalid groupId name: ${json(true)}`);
  }
}

// A function, not a constant: admin.ts imports this module's importer, so its enums are not
// initialized yet while this module loads.
const aclEnums = () =>
  [
    ['operation', AclOperationTypes, 'operation type'],
    ['resourcePatternType', ResourcePatternTypes, 'resource pattern type'],
    ['permissionType', AclPermissionTypes, 'permission type'],
    ['resourceType', AclResourceTypes, 'resource type'],
  ] as const;

/** createAcls (`array` 'ACL array') and deleteAcls ('ACL Filter array'): same checks, own words. */
function validateAclList(items: unknown, array: string, optional: boolean): void {
  if (!Array.isArray(items)) fail(`Invalid ${array} ${str(items)}`);
  if (items.length === 0) fail(`Empty ${array}`);
  const ok = (v: unknown) => typeof v === 'string' || (optional && v === undefined);
  for (const [key, plural] of [
    ['principal', 'principals'],
    ['host', 'hosts'],
    ['resourceName', 'resourceNames'],
  ] as const) {
    if (items.some((a) => !ok(field(a, key)))) {
      fail(`Invalid ${array}, the ${plural} have to be a valid string`);
    }
  }
  for (const [key, values, what] of aclEnums()) {
    const allowed: readonly unknown[] = Object.values(values);
    const bad = items.find((a) => !allowed.includes(field(a, key)));
    if (bad !== undefined) fail(`Invalid ${what} ${str(field(bad, key))}: ${json(bad)}`);
  }
}

export function validateCreateAcls(acl: unknown): asserts acl is readonly Loose[] {
  validateAclList(acl, 'ACL array', false);
}

export function validateDeleteAcls(filters: unknown): asserts filters is readonly Loose[] {
  validateAclList(filters, 'ACL Filter array', true);
}

export function validateDescribeAcls(filter: unknown): asserts filter is Loose {
  const f = isObj(filter) ? filter : {};
  for (const key of ['principal', 'host', 'resourceName'] as const) {
    if (typeof f[key] !== 'string' && f[key] !== undefined) {
      fail(`Invalid ${key}, the ${key} have to be a valid string`);
    }
  }
  const checks = [
    ['operation', AclOperationTypes, 'operation type'],
    ['resourcePatternType', ResourcePatternTypes, 'resource pattern filter type'],
    ['permissionType', AclPermissionTypes, 'permission type'],
    ['resourceType', AclResourceTypes, 'resource type'],
  ] as const;
  for (const [key, values, what] of checks) {
    if (!(Object.values(values) as unknown[]).includes(f[key])) {
      fail(`Invalid ${what} ${str(f[key])}`);
    }
  }
}

export function validateAlterReassignments(topics: unknown): asserts topics is readonly Loose[] {
  if (!Array.isArray(topics)) fail(`Invalid topics array ${str(topics)}`);
  uniqueTopics(topics, 'topics array');
  for (const { topic, partitionAssignment } of topics as Loose[]) {
    if (!Array.isArray(partitionAssignment)) {
      fail(`Invalid partitions array: ${str(partitionAssignment)} for topic: ${str(topic)}`);
    }
    for (const a of partitionAssignment) {
      const partition = field(a, 'partition');
      const replicas = field(a, 'replicas');
      if (typeof partition !== 'number' || partition < 0) {
        fail(`Invalid partitions index: ${str(partition)} for topic: ${str(topic)}`);
      }
      if (!Array.isArray(replicas)) {
        fail(
          `Invalid replica assignment: ${str(replicas)} for topic: ${str(topic)} on partition: ${partition}`,
        );
      }
      if (replicas.some((r) => typeof r !== 'number' || r < 0)) {
        fail(
          `Invalid replica assignment: ${str(replicas)} for topic: ${str(topic)} on partition: ${partition}. Replicas must be a non negative number`,
        );
      }
    }
  }
}

export function validateListReassignments(topics: unknown): void {
  if (topics === undefined || topics === null) return;
  if (!Array.isArray(topics)) fail(`Invalid topics array ${str(topics)}`);
  uniqueTopics(topics, 'topics array');
  for (const { topic, partitions } of topics as Loose[]) {
    if (!Array.isArray(partitions)) {
      fail(`Invalid partition array: ${str(partitions)} for topic: ${str(topic)}`);
    }
    if (partitions.some((p) => typeof p !== 'number' || p < 0)) {
      fail(
        `Invalid partition array: ${str(partitions)} for topic: ${str(topic)}. The partition indices have to be a valid number greater than 0.`,
      );
    }
  }
}
