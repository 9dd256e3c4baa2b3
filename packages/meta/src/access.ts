/**
 * Which APIs a read-only cluster may send. The opposite default of the routing table's: an
 * API nobody classified is *mutating*, so it is refused. Mis-routing costs a retry;
 * mis-classifying a mutating API as a read costs the security property a read-only client
 * (a UI, an auditor, a replica of the tiered-storage state) promises its operator.
 *
 * Read-only means the request changes nothing on the cluster: no record, offset, config,
 * ACL, group membership, producer id or quorum state. Joining a group (JoinGroup,
 * ConsumerGroupHeartbeat, ...) changes the group, so it is mutating here; so is every
 * inter-broker and quorum API, which a client has no business sending at all.
 */

/** `read` or `write`. */
export type ApiAccess = 'read' | 'write';

/** One row of the access table. */
export interface AccessEntry {
  readonly apiKey: number;
  /** The schema's name without `Request`, e.g. `Metadata`. */
  readonly name: string;
  readonly access: ApiAccess;
}

const R: ApiAccess = 'read';
const W: ApiAccess = 'write';

const rows: readonly [number, string, ApiAccess][] = [
  [0, 'Produce', W],
  [1, 'Fetch', R], // a consumer's; a replica's fetch (a replica id) is not: see requestMutation
  [2, 'ListOffsets', R],
  [3, 'Metadata', R], // unless it allows auto topic creation: see requestMutation
  [8, 'OffsetCommit', W],
  [9, 'OffsetFetch', R],
  [10, 'FindCoordinator', R],
  [11, 'JoinGroup', W],
  [12, 'Heartbeat', W],
  [13, 'LeaveGroup', W],
  [14, 'SyncGroup', W],
  [15, 'DescribeGroups', R],
  [16, 'ListGroups', R],
  [17, 'SaslHandshake', R], // authentication of the connection itself
  [18, 'ApiVersions', R],
  [19, 'CreateTopics', W], // even validateOnly: a read-only client has no reason to ask
  [20, 'DeleteTopics', W],
  [21, 'DeleteRecords', W],
  [22, 'InitProducerId', W],
  [23, 'OffsetForLeaderEpoch', R],
  [24, 'AddPartitionsToTxn', W],
  [25, 'AddOffsetsToTxn', W],
  [26, 'EndTxn', W],
  [27, 'WriteTxnMarkers', W],
  [28, 'TxnOffsetCommit', W],
  [29, 'DescribeAcls', R],
  [30, 'CreateAcls', W],
  [31, 'DeleteAcls', W],
  [32, 'DescribeConfigs', R],
  [33, 'AlterConfigs', W],
  [34, 'AlterReplicaLogDirs', W],
  [35, 'DescribeLogDirs', R],
  [36, 'SaslAuthenticate', R],
  [37, 'CreatePartitions', W],
  [38, 'CreateDelegationToken', W],
  [39, 'RenewDelegationToken', W],
  [40, 'ExpireDelegationToken', W],
  [41, 'DescribeDelegationToken', R],
  [42, 'DeleteGroups', W],
  [43, 'ElectLeaders', W],
  [44, 'IncrementalAlterConfigs', W],
  [45, 'AlterPartitionReassignments', W],
  [46, 'ListPartitionReassignments', R],
  [47, 'OffsetDelete', W],
  [48, 'DescribeClientQuotas', R],
  [49, 'AlterClientQuotas', W],
  [50, 'DescribeUserScramCredentials', R],
  [51, 'AlterUserScramCredentials', W],
  [52, 'Vote', W], // internal (KRaft quorum)
  [53, 'BeginQuorumEpoch', W], // internal
  [54, 'EndQuorumEpoch', W], // internal
  [55, 'DescribeQuorum', R],
  [56, 'AlterPartition', W], // internal
  [57, 'UpdateFeatures', W],
  [58, 'Envelope', W], // internal
  [59, 'FetchSnapshot', W], // internal (KRaft quorum): not a client's read
  [60, 'DescribeCluster', R],
  [61, 'DescribeProducers', R],
  [62, 'BrokerRegistration', W], // internal
  [63, 'BrokerHeartbeat', W], // internal
  [64, 'UnregisterBroker', W],
  [65, 'DescribeTransactions', R],
  [66, 'ListTransactions', R],
  [67, 'AllocateProducerIds', W], // internal
  [68, 'ConsumerGroupHeartbeat', W],
  [69, 'ConsumerGroupDescribe', R],
  [70, 'ControllerRegistration', W], // internal
  [71, 'GetTelemetrySubscriptions', R],
  [72, 'PushTelemetry', W], // the broker stores what it is pushed (KIP-714)
  [73, 'AssignReplicasToDirs', W], // internal
  [74, 'ListConfigResources', R],
  [75, 'DescribeTopicPartitions', R],
  [76, 'ShareGroupHeartbeat', W],
  [77, 'ShareGroupDescribe', R],
  [78, 'ShareFetch', W], // acquires records for the share group (KIP-932)
  [79, 'ShareAcknowledge', W],
  [80, 'AddRaftVoter', W],
  [81, 'RemoveRaftVoter', W],
  [82, 'UpdateRaftVoter', W], // internal
  [83, 'InitializeShareGroupState', W], // internal
  [84, 'ReadShareGroupState', W], // internal: broker -> share coordinator
  [85, 'WriteShareGroupState', W], // internal
  [86, 'DeleteShareGroupState', W], // internal
  [87, 'ReadShareGroupStateSummary', W], // internal
  [88, 'StreamsGroupHeartbeat', W],
  [89, 'StreamsGroupDescribe', R],
  [90, 'DescribeShareGroupOffsets', R],
  [91, 'AlterShareGroupOffsets', W],
  [92, 'DeleteShareGroupOffsets', W],
  [93, 'StreamsGroupTopologyDescriptionUpdate', W],
  [94, 'UnregisterController', W],
];

/** The access table: one explicit row per API key of the pinned schemas, ordered by key. */
export const ACCESS_TABLE: readonly AccessEntry[] = Object.freeze(
  rows.map(([apiKey, name, access]) => Object.freeze({ apiKey, name, access })),
);

const byKey = new Map<number, ApiAccess>(ACCESS_TABLE.map((r) => [r.apiKey, r.access]));

/**
 * Whether an API key reads or writes. A key the table does not know (a newer broker's API) is
 * `write`: an unclassified API is refused by a read-only cluster.
 */
export function apiAccess(apiKey: number): ApiAccess {
  return byKey.get(apiKey) ?? 'write';
}

/**
 * Why one request of an API the table calls `read` would still change the cluster, or
 * undefined when it would not: a Metadata request that lets the broker create the topics it
 * names (`allowAutoTopicCreation`, implied below v4 for named topics), and a Fetch sent as a
 * replica (a replica id moves the follower's position, the high watermark and the ISR).
 */
export function requestMutation(
  apiKey: number,
  request: unknown,
  version: number,
): string | undefined {
  if (request === null || typeof request !== 'object') return undefined;
  if (apiKey === 3) {
    const r = request as { allowAutoTopicCreation?: boolean; topics?: readonly unknown[] | null };
    const named = r.topics != null && r.topics.length > 0;
    if (version >= 4 ? r.allowAutoTopicCreation === true && named : named)
      return version >= 4
        ? 'with allowAutoTopicCreation it may create the topics it names'
        : `Metadata v${version} may create the topics it names (no way to turn that off below v4)`;
    return undefined;
  }
  if (apiKey === 1) {
    const r = request as { replicaId?: number; replicaState?: { replicaId?: number } };
    if ((r.replicaId ?? -1) >= 0 || (r.replicaState?.replicaId ?? -1) >= 0)
      return "as a replica's fetch it moves a follower's position and the partition's ISR";
  }
  return undefined;
}
