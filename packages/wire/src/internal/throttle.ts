import { API_DESCRIPTORS } from '@kafkats/codec';

/**
 * From which response version the broker expects the client to hold off after a throttled
 * answer (KIP-219): the broker answers at once with `throttleTimeMs` and mutes the channel for
 * that long, so the client must send nothing on it meanwhile. Older versions were delayed by
 * the broker itself before the answer went out. The figures are those of each Kafka response
 * class's `shouldClientThrottle(version)`; an API not listed never asks the client to wait.
 */
const THROTTLED_FROM_VERSION: Readonly<Record<string, number>> = {
  Produce: 6,
  Fetch: 8,
  ListOffsets: 3,
  Metadata: 6,
  OffsetCommit: 4,
  OffsetFetch: 4,
  FindCoordinator: 2,
  JoinGroup: 3,
  Heartbeat: 2,
  LeaveGroup: 2,
  SyncGroup: 2,
  DescribeGroups: 2,
  ListGroups: 2,
  ApiVersions: 2,
  CreateTopics: 3,
  DeleteTopics: 2,
  DeleteRecords: 1,
  InitProducerId: 1,
  AddPartitionsToTxn: 1,
  AddOffsetsToTxn: 1,
  EndTxn: 1,
  TxnOffsetCommit: 1,
  DescribeAcls: 1,
  CreateAcls: 1,
  DeleteAcls: 1,
  DescribeConfigs: 2,
  AlterConfigs: 1,
  AlterReplicaLogDirs: 1,
  DescribeLogDirs: 1,
  CreatePartitions: 1,
  CreateDelegationToken: 1,
  RenewDelegationToken: 1,
  ExpireDelegationToken: 1,
  DescribeDelegationToken: 1,
  DeleteGroups: 1,
  ElectLeaders: 0,
  IncrementalAlterConfigs: 0,
  AlterPartitionReassignments: 0,
  ListPartitionReassignments: 0,
  OffsetDelete: 0,
  DescribeUserScramCredentials: 0,
  AlterUserScramCredentials: 0,
  DescribeTopicPartitions: 0,
  BrokerRegistration: 0,
  BrokerHeartbeat: 0,
  UnregisterBroker: 0,
};

/** The table by API key; 0x7fff (never) for APIs that do not ask the client to wait. */
const FROM_BY_KEY: readonly number[] = (() => {
  const byKey: number[] = [];
  for (const d of API_DESCRIPTORS) byKey[d.apiKey] = THROTTLED_FROM_VERSION[d.name] ?? 0x7fff;
  return byKey;
})();

/** Whether an answer of `apiKey` at `version` with a positive `throttleTimeMs` mutes the channel. */
export function clientThrottles(apiKey: number, version: number): boolean {
  return version >= (FROM_BY_KEY[apiKey] ?? 0x7fff);
}

/** The table's API names, for a check that each names an API the codec knows. */
export const THROTTLED_API_NAMES: readonly string[] = Object.keys(THROTTLED_FROM_VERSION);
