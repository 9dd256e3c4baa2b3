// The Metadata and FindCoordinator shapes meta reads and writes, field for field as the
// pinned schemas name them (camelCase, per docs/internals.md). Structural, so the codec's
// generated types satisfy them.

export interface MetadataRequestTopicShape {
  topicId: string;
  name: string | null;
}

export interface MetadataRequestShape {
  topics: MetadataRequestTopicShape[] | null;
  allowAutoTopicCreation: boolean;
  includeClusterAuthorizedOperations: boolean;
  includeTopicAuthorizedOperations: boolean;
}

export interface MetadataResponseShape {
  brokers: { nodeId: number; host: string; port: number; rack: string | null }[];
  clusterId: string | null;
  controllerId: number;
  topics: {
    errorCode: number;
    name: string | null;
    topicId: string;
    isInternal: boolean;
    partitions: {
      errorCode: number;
      partitionIndex: number;
      leaderId: number;
      leaderEpoch: number;
      replicaNodes: number[];
      isrNodes: number[];
      offlineReplicas: number[];
    }[];
  }[];
  /** v13+: a whole-response error (REBOOTSTRAP_REQUIRED, KIP-1102). */
  errorCode?: number;
}

export interface FindCoordinatorRequestShape {
  key: string;
  keyType: number;
  coordinatorKeys: string[];
}

export interface FindCoordinatorResponseShape {
  errorCode: number;
  errorMessage: string | null;
  nodeId: number;
  host: string;
  port: number;
  coordinators: {
    key: string;
    nodeId: number;
    host: string;
    port: number;
    errorCode: number;
    errorMessage: string | null;
  }[];
}
