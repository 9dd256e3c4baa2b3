import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  ACCESS_TABLE,
  apiAccess,
  BrokerSelector,
  CoordinatorKind,
  ROUTING_TABLE,
  Routing,
  routing,
} from '../../src/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

/**
 * `[apiKey, name]` of every `*Request.json` in the pinned kafka-clients jar, read by a few
 * lines of Java (the JDK reads zips; Node does not without a dependency).
 */
let pinned: [number, string][] | undefined;
function pinnedApiKeys(): [number, string][] {
  pinned ??= schemaApiKeys();
  return pinned;
}

function schemaApiKeys(): [number, string][] {
  const dist = JSON.parse(
    execFileSync('node', [join(root, 'packages/testkit/bin/kafka-dist.mjs')], { encoding: 'utf8' }),
  ) as { libDir: string; version: string };
  const jar = join(dist.libDir, `kafka-clients-${dist.version}.jar`);
  const script = `
    import java.util.zip.*; import java.io.*; import java.util.regex.*;
    public class ListKeys { public static void main(String[] a) throws Exception {
      try (ZipFile z = new ZipFile(a[0])) { var e = z.entries(); Pattern p = Pattern.compile("\\"apiKey\\"\\\\s*:\\\\s*(\\\\d+)"); Pattern none = Pattern.compile("\\"validVersions\\"\\\\s*:\\\\s*\\"none\\"");
        while (e.hasMoreElements()) { ZipEntry x = e.nextElement(); String n = x.getName();
          if (n.startsWith("common/message/") && n.endsWith("Request.json")) {
            String s = new String(z.getInputStream(x).readAllBytes()); Matcher m = p.matcher(s);
            if (m.find() && !none.matcher(s).find()) System.out.println(m.group(1) + " " + n.substring(15, n.length() - 12)); } } } } }`;
  const file = join(mkdtempSync(join(tmpdir(), 'kafkats-routing-')), 'ListKeys.java');
  writeFileSync(file, script);
  const out = execFileSync('java', [file, jar], { encoding: 'utf8' });
  return out
    .trim()
    .split('\n')
    .map((line) => {
      const [key, name] = line.split(' ');
      return [Number(key), String(name)] as [number, string];
    })
    .sort((a, b) => a[0] - b[0]);
}

describe('the routing table', () => {
  it('has an explicit entry for every API key in the pinned schemas, and no other', () => {
    // Removed APIs (`validVersions: none`, the ZooKeeper-era 4-7) are left out by the reader.
    const schema = pinnedApiKeys();
    expect(schema.length).toBe(91);
    expect(ROUTING_TABLE.map((r) => [r.apiKey, r.name])).toEqual(schema);
  }, 60_000);

  // Where Kafka's clients send each of these requests.
  it.each([
    ['Metadata', Routing.Any],
    ['DescribeConfigs', Routing.Any],
    ['DescribeAcls', Routing.Any],
    ['ListGroups', Routing.Any],
    ['ListTransactions', Routing.Any],
    ['DescribeUserScramCredentials', Routing.Any],
    ['DescribeClientQuotas', Routing.Any],
    ['CreateTopics', Routing.Controller],
    ['DeleteTopics', Routing.Controller],
    ['CreatePartitions', Routing.Controller],
    ['AlterPartitionReassignments', Routing.Controller],
    ['ListPartitionReassignments', Routing.Controller],
    ['ElectLeaders', Routing.Controller],
    ['UpdateFeatures', Routing.Controller],
    ['OffsetCommit', Routing.Coordinator.Group],
    ['OffsetFetch', Routing.Coordinator.Group],
    ['OffsetDelete', Routing.Coordinator.Group],
    ['DescribeGroups', Routing.Coordinator.Group],
    ['DeleteGroups', Routing.Coordinator.Group],
    ['ConsumerGroupDescribe', Routing.Coordinator.Group],
    ['ShareGroupDescribe', Routing.Coordinator.Group],
    ['DescribeShareGroupOffsets', Routing.Coordinator.Group],
    ['AlterShareGroupOffsets', Routing.Coordinator.Group],
    ['DeleteShareGroupOffsets', Routing.Coordinator.Group],
    ['TxnOffsetCommit', Routing.Coordinator.Group],
    ['InitProducerId', Routing.Coordinator.Transaction],
    ['AddPartitionsToTxn', Routing.Coordinator.Transaction],
    ['AddOffsetsToTxn', Routing.Coordinator.Transaction],
    ['EndTxn', Routing.Coordinator.Transaction],
    ['DescribeTransactions', Routing.Coordinator.Transaction],
    ['DescribeLogDirs', Routing.Specific.Caller],
    ['AlterReplicaLogDirs', Routing.Specific.Caller],
    ['DescribeProducers', Routing.Specific.Caller],
    ['Produce', Routing.Specific.PartitionLeader],
    ['Fetch', Routing.Specific.PartitionLeader],
    ['ListOffsets', Routing.Specific.PartitionLeader],
    ['OffsetForLeaderEpoch', Routing.Specific.PartitionLeader],
  ])("%s is routed to where Kafka's clients send it", (name, expected) => {
    const entry = ROUTING_TABLE.find((r) => r.name === name);
    expect(entry?.routing).toBe(expected);
  });

  it('sends an unknown (newer) API key anywhere', () => {
    expect(routing(30_000)).toBe(Routing.Any);
    expect(routing(-1)).toEqual({ kind: 'any' });
  });

  it('is frozen and uses only the five classes', () => {
    expect(Object.isFrozen(ROUTING_TABLE)).toBe(true);
    const classes = new Set(ROUTING_TABLE.map((r) => r.routing));
    expect(classes).toEqual(
      new Set([
        Routing.Any,
        Routing.Controller,
        Routing.Coordinator.Group,
        Routing.Coordinator.Transaction,
        Routing.Specific.Caller,
        Routing.Specific.PartitionLeader,
      ]),
    );
    expect(CoordinatorKind.Group).toBe('group');
    expect(BrokerSelector.PartitionLeader).toBe('partitionLeader');
  });
});

describe('the read-only access table', () => {
  it('has an explicit entry for every API key in the pinned schemas, and no other', () => {
    expect(ACCESS_TABLE.map((r) => [r.apiKey, r.name])).toEqual(pinnedApiKeys());
  }, 60_000);

  it('refuses what it does not know: an unclassified key is a write', () => {
    expect(apiAccess(9_999)).toBe('write');
    expect(apiAccess(-1)).toBe('write');
  });

  it.each([
    'Produce',
    'CreateTopics',
    'InitProducerId',
    'AlterConfigs',
    'IncrementalAlterConfigs',
    'DeleteRecords',
    'OffsetCommit',
    'JoinGroup',
    'ConsumerGroupHeartbeat',
    'TxnOffsetCommit',
    'CreateAcls',
    'ElectLeaders',
  ])('%s writes', (name) => {
    expect(ACCESS_TABLE.find((r) => r.name === name)?.access).toBe('write');
  });

  it.each([
    'Metadata',
    'Fetch',
    'ListOffsets',
    'DescribeConfigs',
    'FindCoordinator',
    'OffsetFetch',
    'DescribeGroups',
    'DescribeCluster',
    'ApiVersions',
    'SaslHandshake',
    'SaslAuthenticate',
  ])('%s reads', (name) => {
    expect(ACCESS_TABLE.find((r) => r.name === name)?.access).toBe('read');
  });
});
