/**
 * Which broker each API belongs to. Mis-routing does not fail loudly: it turns into a
 * NOT_CONTROLLER or NOT_COORDINATOR retry loop that looks like a flaky cluster, so the
 * decision lives here, once, for every API key of the pinned schemas (Kafka 4.4: 0-94 but
 * 4-7, the ZooKeeper-era LeaderAndIsr, StopReplica, UpdateMetadata and ControlledShutdown,
 * whose schemas say `validVersions: none`).
 */

/** Which coordinator a coordinator-routed API goes to (FindCoordinator `keyType`). */
export const CoordinatorKind = {
  /** Key = group id (consumer, share and streams groups). keyType 0. */
  Group: 'group',
  /** Key = transactional id. keyType 1. */
  Transaction: 'transaction',
} as const;
/** `'group'` or `'transaction'`. */
export type CoordinatorKind = (typeof CoordinatorKind)[keyof typeof CoordinatorKind];

/** FindCoordinator `keyType` for each kind (FindCoordinatorRequest.CoordinatorType). */
export const COORDINATOR_KEY_TYPE: Readonly<Record<CoordinatorKind, number>> = {
  group: 0,
  transaction: 1,
};

/** The two ways a `Specific` broker is chosen. */
export const BrokerSelector = {
  /** The caller names the broker (DescribeLogDirs against node 3). */
  Caller: 'caller',
  /** The snapshot names it: the partition's leader. */
  PartitionLeader: 'partitionLeader',
} as const;
/** `'caller'` or `'partitionLeader'`. */
export type BrokerSelector = (typeof BrokerSelector)[keyof typeof BrokerSelector];

/** A routing class. */
export type Routing =
  | { readonly kind: 'any' }
  | { readonly kind: 'controller' }
  | { readonly kind: 'coordinator'; readonly coordinator: CoordinatorKind }
  | { readonly kind: 'specific'; readonly selector: BrokerSelector };

/** The routing classes as values: `Routing.Any`, `Routing.Coordinator.Group`, ... */
export const Routing = {
  /** Any live broker. */
  Any: Object.freeze({ kind: 'any' }),
  /** The controller id from Metadata (in KRaft a broker that forwards it to the active controller). */
  Controller: Object.freeze({ kind: 'controller' }),
  Coordinator: {
    Group: Object.freeze({ kind: 'coordinator', coordinator: 'group' }),
    Transaction: Object.freeze({ kind: 'coordinator', coordinator: 'transaction' }),
  },
  Specific: {
    Caller: Object.freeze({ kind: 'specific', selector: 'caller' }),
    PartitionLeader: Object.freeze({ kind: 'specific', selector: 'partitionLeader' }),
  },
} as const satisfies {
  Any: Routing;
  Controller: Routing;
  Coordinator: Record<string, Routing>;
  Specific: Record<string, Routing>;
};

const ANY = Routing.Any;
const CONTROLLER = Routing.Controller;
const GROUP = Routing.Coordinator.Group;
const TXN = Routing.Coordinator.Transaction;
const CALLER = Routing.Specific.Caller;
const LEADER = Routing.Specific.PartitionLeader;

/** One row of the routing table. */
export interface RouteEntry {
  readonly apiKey: number;
  /** The schema's name without `Request`, e.g. `Metadata`. */
  readonly name: string;
  readonly routing: Routing;
}

// "Internal" rows are inter-broker or controller-quorum APIs a client never sends. They are
// Caller-routed so that nothing picks a broker for them implicitly: whoever really means to
// send one (a test, a tool) names the node.
const rows: readonly [number, string, Routing][] = [
  [0, 'Produce', LEADER],
  [1, 'Fetch', LEADER],
  [2, 'ListOffsets', LEADER],
  [3, 'Metadata', ANY],
  [8, 'OffsetCommit', GROUP],
  [9, 'OffsetFetch', GROUP],
  [10, 'FindCoordinator', ANY],
  [11, 'JoinGroup', GROUP],
  [12, 'Heartbeat', GROUP],
  [13, 'LeaveGroup', GROUP],
  [14, 'SyncGroup', GROUP],
  [15, 'DescribeGroups', GROUP],
  // Each broker answers for the groups it coordinates; a full list is a fan-out the caller
  // does with sendToNode. One broker's answer is still a valid Any call.
  [16, 'ListGroups', ANY],
  [17, 'SaslHandshake', ANY], // per connection, sent by the wire during authentication
  [18, 'ApiVersions', ANY], // per connection, sent by the wire on connect
  [19, 'CreateTopics', CONTROLLER],
  [20, 'DeleteTopics', CONTROLLER],
  [21, 'DeleteRecords', LEADER],
  // Transactional producers go to the transaction coordinator; an idempotent-only producer
  // may send it to any broker with sendAny (Java's Sender does the same).
  [22, 'InitProducerId', TXN],
  [23, 'OffsetForLeaderEpoch', LEADER],
  [24, 'AddPartitionsToTxn', TXN],
  [25, 'AddOffsetsToTxn', TXN],
  [26, 'EndTxn', TXN],
  [27, 'WriteTxnMarkers', LEADER], // coordinator -> leaders; admin abortTransaction too
  [28, 'TxnOffsetCommit', GROUP], // keyed by the consumer group id, not the transactional id
  [29, 'DescribeAcls', ANY],
  [30, 'CreateAcls', ANY], // brokers forward to the controller
  [31, 'DeleteAcls', ANY], // brokers forward to the controller
  // BROKER/BROKER_LOGGER resources must go to that broker (sendToNode); the rest anywhere.
  [32, 'DescribeConfigs', ANY],
  [33, 'AlterConfigs', ANY],
  [34, 'AlterReplicaLogDirs', CALLER],
  [35, 'DescribeLogDirs', CALLER],
  [36, 'SaslAuthenticate', ANY], // per connection, sent by the wire during authentication
  [37, 'CreatePartitions', CONTROLLER],
  [38, 'CreateDelegationToken', ANY],
  [39, 'RenewDelegationToken', ANY],
  [40, 'ExpireDelegationToken', ANY],
  [41, 'DescribeDelegationToken', ANY],
  [42, 'DeleteGroups', GROUP],
  [43, 'ElectLeaders', CONTROLLER],
  [44, 'IncrementalAlterConfigs', ANY], // as AlterConfigs: broker resources via sendToNode
  [45, 'AlterPartitionReassignments', CONTROLLER],
  [46, 'ListPartitionReassignments', CONTROLLER],
  [47, 'OffsetDelete', GROUP],
  [48, 'DescribeClientQuotas', ANY],
  [49, 'AlterClientQuotas', ANY], // brokers forward to the controller
  [50, 'DescribeUserScramCredentials', ANY],
  [51, 'AlterUserScramCredentials', CONTROLLER], // Java admin: ControllerNodeProvider
  [52, 'Vote', CALLER], // internal (KRaft quorum)
  [53, 'BeginQuorumEpoch', CALLER], // internal (KRaft quorum)
  [54, 'EndQuorumEpoch', CALLER], // internal (KRaft quorum)
  [55, 'DescribeQuorum', ANY], // brokers forward to the quorum leader
  [56, 'AlterPartition', CALLER], // internal: leader broker -> controller
  [57, 'UpdateFeatures', CONTROLLER],
  [58, 'Envelope', CALLER], // internal: forwarding wrapper
  [59, 'FetchSnapshot', CALLER], // internal (KRaft quorum)
  [60, 'DescribeCluster', ANY],
  [61, 'DescribeProducers', CALLER], // the caller names the partition's broker
  [62, 'BrokerRegistration', CALLER], // internal: broker -> controller
  [63, 'BrokerHeartbeat', CALLER], // internal: broker -> controller
  [64, 'UnregisterBroker', ANY], // brokers forward to the controller
  [65, 'DescribeTransactions', TXN],
  [66, 'ListTransactions', ANY], // per-broker answer, like ListGroups
  [67, 'AllocateProducerIds', CALLER], // internal: broker -> controller
  [68, 'ConsumerGroupHeartbeat', GROUP], // KIP-848
  [69, 'ConsumerGroupDescribe', GROUP],
  [70, 'ControllerRegistration', CALLER], // internal: controller -> controller
  // KIP-714 telemetry: any broker; Java sticks to one, which sendToNode can do.
  [71, 'GetTelemetrySubscriptions', ANY],
  [72, 'PushTelemetry', ANY],
  [73, 'AssignReplicasToDirs', CALLER], // internal: broker -> controller
  [74, 'ListConfigResources', ANY], // formerly ListClientMetricsResources
  [75, 'DescribeTopicPartitions', ANY], // KIP-966, the paged Metadata for admin describeTopics
  [76, 'ShareGroupHeartbeat', GROUP], // KIP-932: share groups use the group coordinator
  [77, 'ShareGroupDescribe', GROUP],
  [78, 'ShareFetch', LEADER],
  [79, 'ShareAcknowledge', LEADER],
  [80, 'AddRaftVoter', ANY], // KIP-853: brokers forward to the quorum leader
  [81, 'RemoveRaftVoter', ANY], // KIP-853: brokers forward to the quorum leader
  [82, 'UpdateRaftVoter', CALLER], // internal: voter -> quorum leader
  // KIP-932 share-group state: broker -> share coordinator (FindCoordinator keyType 2), internal.
  [83, 'InitializeShareGroupState', CALLER],
  [84, 'ReadShareGroupState', CALLER],
  [85, 'WriteShareGroupState', CALLER],
  [86, 'DeleteShareGroupState', CALLER],
  [87, 'ReadShareGroupStateSummary', CALLER],
  [88, 'StreamsGroupHeartbeat', GROUP], // KIP-1071: streams groups use the group coordinator
  [89, 'StreamsGroupDescribe', GROUP],
  [90, 'DescribeShareGroupOffsets', GROUP], // admin, keyed by share group id
  [91, 'AlterShareGroupOffsets', GROUP],
  [92, 'DeleteShareGroupOffsets', GROUP],
  [93, 'StreamsGroupTopologyDescriptionUpdate', GROUP],
  [94, 'UnregisterController', ANY], // like UnregisterBroker: brokers forward it
];

/** The routing table, one row per API key of the pinned schemas, ordered by key. */
export const ROUTING_TABLE: readonly RouteEntry[] = Object.freeze(
  rows.map(([apiKey, name, routing]) => Object.freeze({ apiKey, name, routing })),
);

const byKey = new Map<number, Routing>(ROUTING_TABLE.map((r) => [r.apiKey, r.routing]));

/**
 * The routing class of an API key. A key the table does not know (a newer broker's API) is
 * `Any`: mis-routing costs at worst a redirect and a retry.
 */
export function routing(apiKey: number): Routing {
  return byKey.get(apiKey) ?? Routing.Any;
}
