// An in-memory Kafka behind meta's ConnectionFactory: brokers 1..n, topics with leaders, and a
// handler per API key, so admin logic runs through a real Cluster (routing, snapshot,
// dispatcher) against scripted answers. Every request sent is recorded with its node and version.
import {
  apiDescriptor,
  createFindCoordinatorResponse,
  createMetadataResponse,
  KafkaError,
  type MetadataRequest,
} from '@kafkats/codec';
import { Cluster, type ConnectionFactory, type MetaConnection } from '@kafkats/meta';
import { ConnectionError } from '@kafkats/wire';
import { Admin } from '../../../src/index.js';

export interface FakePartition {
  /** -1: no leader. */
  leader: number;
  replicas: number[];
  leaderEpoch?: number;
}

export interface FakeTopic {
  topicId: string;
  partitions: FakePartition[];
}

export interface Sent {
  node: number;
  apiKey: number;
  version: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read request fields freely
  request: any;
}

/** Returns the response, an Error to fail the request with, or undefined for the default. */
// biome-ignore lint/suspicious/noExplicitAny: tests read request fields freely
export type Handler = (node: number, request: any, version: number) => unknown;

const PORT = 19000;

export class FakeKafka {
  readonly brokers: number[];
  readonly topics = new Map<string, FakeTopic>();
  readonly handlers = new Map<number, Handler>();
  readonly sent: Sent[] = [];
  controllerId = 1;
  coordinatorId = 2;
  /** Versions the fake negotiates, by API key (undefined: not offered); default each API's maximum. */
  readonly versions = new Map<number, number | undefined>();

  constructor(nodes = 3) {
    this.brokers = Array.from({ length: nodes }, (_, i) => i + 1);
  }

  /** A topic with `n` partitions led round-robin by brokers 1..n, replicas all brokers. */
  addTopic(name: string, n: number, topicId = `${name.padEnd(21, 'A')}A`.slice(0, 22)): FakeTopic {
    const partitions = Array.from({ length: n }, (_, i) => {
      const leader = this.brokers[i % this.brokers.length]!;
      return { leader, replicas: [leader, ...this.brokers.filter((b) => b !== leader)] };
    });
    const topic = { topicId, partitions };
    this.topics.set(name, topic);
    return topic;
  }

  leaderOf(topic: string, partition: number): number | undefined {
    return this.topics.get(topic)?.partitions[partition]?.leader;
  }

  sentTo(apiKey: number): Sent[] {
    return this.sent.filter((s) => s.apiKey === apiKey);
  }

  on(apiKey: number, handler: Handler): void {
    this.handlers.set(apiKey, handler);
  }

  readonly factory: ConnectionFactory = async (target) => {
    const node = target.port - PORT;
    if (!this.brokers.includes(node))
      throw new KafkaError('ERR_KAFKA_CONNECTION_FAILED', `${target.label}: refused`, {
        retriable: true,
      });
    return this.#connection(node);
  };

  connect(): Promise<Cluster> {
    return Cluster.connect(
      this.brokers.map((b) => `127.0.0.1:${PORT + b}`),
      {
        connectionFactory: this.factory,
        refreshIntervalMs: 0,
        retry: { backoffMs: 5, maxBackoffMs: 20, jitter: 0 },
      },
    );
  }

  metadata(request: MetadataRequest): unknown {
    const names =
      request.topics === null ? [...this.topics.keys()] : request.topics.map((t) => t.name ?? '');
    return createMetadataResponse({
      brokers: this.brokers.map((b) => ({
        nodeId: b,
        host: '127.0.0.1',
        port: PORT + b,
        rack: null,
      })),
      clusterId: 'fake',
      controllerId: this.controllerId,
      topics: names.map((name) => {
        const t = this.topics.get(name);
        if (t === undefined)
          return {
            errorCode: 3,
            name,
            topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
            isInternal: false,
            partitions: [],
            topicAuthorizedOperations: -2147483648,
          };
        return {
          errorCode: 0,
          name,
          topicId: t.topicId,
          isInternal: false,
          partitions: t.partitions.map((p, i) => ({
            errorCode: 0,
            partitionIndex: i,
            leaderId: p.leader,
            leaderEpoch: p.leaderEpoch ?? 0,
            replicaNodes: p.replicas,
            isrNodes: p.replicas,
            offlineReplicas: [],
          })),
          topicAuthorizedOperations: -2147483648,
        };
      }),
    });
  }

  #connection(node: number): MetaConnection {
    const listeners = new Set<(e: Error | undefined) => void>();
    let closed = false;
    const fake = this;
    return {
      get closed() {
        return closed;
      },
      pending: 0,
      lastActivityMs: Date.now(),
      negotiatedVersion: (apiKey) =>
        fake.versions.has(apiKey) ? fake.versions.get(apiKey) : apiDescriptor(apiKey)?.maxVersion,
      async send(api, request, options) {
        if (closed)
          throw new KafkaError('ERR_KAFKA_CONNECTION_CLOSED', 'closed', { retriable: true });
        fake.sent.push({ node, apiKey: api.apiKey, version: options.version, request });
        await Promise.resolve();
        const custom = fake.handlers.get(api.apiKey)?.(node, request, options.version);
        if (custom instanceof Error) throw custom;
        if (custom !== undefined) return custom as never;
        if (api.apiKey === 3) return fake.metadata(request as MetadataRequest) as never;
        if (api.apiKey === 10) {
          const keys = (request as { coordinatorKeys: string[] }).coordinatorKeys;
          return createFindCoordinatorResponse({
            coordinators: keys.map((key) => ({
              key,
              nodeId: fake.coordinatorId,
              host: '127.0.0.1',
              port: PORT + fake.coordinatorId,
              errorCode: 0,
              errorMessage: null,
            })),
          }) as never;
        }
        throw new Error(`fake broker ${node}: no handler for API key ${api.apiKey}`);
      },
      onClose(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      async close() {
        closed = true;
        for (const l of listeners) l(undefined);
      },
    };
  }
}

/** A retriable transport failure, as the wire reports a dropped connection. */
export function connectionLost(node: number): ConnectionError {
  return new ConnectionError('ERR_KAFKA_CONNECTION_LOST', `broker ${node}`, 'connection reset');
}

const admins: Admin[] = [];

/** An Admin over a cluster connected to `fake`; {@link closeAdmins} closes both. */
export async function adminOn(fake: FakeKafka): Promise<Admin> {
  const admin = new Admin(await fake.connect());
  admins.push(admin);
  return admin;
}

/** Closes every admin {@link adminOn} made, and its cluster (an admin borrows its cluster). */
export async function closeAdmins(): Promise<void> {
  for (const admin of admins.splice(0)) {
    await admin.close();
    await admin.cluster.close();
  }
}
