// A scripted in-memory cluster behind the meta ConnectionFactory interface: brokers by
// address, a metadata view each broker answers with, and hooks to fail, slow down or
// intercept any request. Counts connects, so "one socket" claims are checkable.
import {
  type ApiDescriptor,
  createMetadataResponse,
  createMetadataResponseBroker,
  createMetadataResponsePartition,
  createMetadataResponseTopic,
  KafkaError,
  type MetadataResponse,
} from '@kafkats/codec';
import { type CloseOptions, ConnectionError } from '@kafkats/wire';
import type {
  ConnectionFactory,
  ConnectionSendOptions,
  ConnectTarget,
  MetaConnection,
} from '../../src/index.js';

export interface FakePartition {
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  isr?: number[];
}

export interface FakeBroker {
  nodeId: number;
  host: string;
  port: number;
  up: boolean;
  /** When set, connects to this broker wait for it. */
  connectGate?: Promise<void>;
}

type Handler = (node: FakeBroker, apiKey: number, request: unknown, version: number) => unknown;

export class FakeCluster {
  brokers: FakeBroker[] = [];
  topics = new Map<string, { topicId: string; partitions: FakePartition[] }>();
  controllerId = 1;
  clusterId = 'fake-cluster';
  /** Versions every fake connection negotiates, by API key. */
  versions = new Map<number, number>([
    [3, 12],
    [10, 6],
  ]);
  /** Intercepts a request before the default handling; return undefined to fall through. */
  intercept: Handler | undefined;
  /** Per node: the metadata view it answers with (a lagging broker); default: the truth. */
  lagging = new Map<number, Map<string, { topicId: string; partitions: FakePartition[] }>>();
  connects: string[] = [];
  sent: {
    node: number;
    apiKey: number;
    request: unknown;
    version: number;
    timeoutMs: number | undefined;
  }[] = [];
  readonly open = new Set<FakeConnection>();
  /** Connections offer `sendCallback` (as the wire's do); false: they lack it. */
  callbacks = true;
  /** Sends made through a connection's `sendCallback`. */
  callbackSends = 0;
  coordinatorNode = 2;
  findCoordinatorErrors: number[] = [];

  constructor(nodes: number, basePort = 9000) {
    for (let id = 1; id <= nodes; id++)
      this.brokers.push({ nodeId: id, host: '127.0.0.1', port: basePort + id, up: true });
  }

  broker(id: number): FakeBroker {
    const b = this.brokers.find((x) => x.nodeId === id);
    if (b === undefined) throw new Error(`no fake broker ${id}`);
    return b;
  }

  bootstrap(): string[] {
    return this.brokers.map((b) => `${b.host}:${b.port}`);
  }

  factory: ConnectionFactory = async (target: ConnectTarget) => {
    this.connects.push(target.label);
    const broker = this.brokers.find((b) => b.host === target.host && b.port === target.port);
    if (broker?.connectGate) await broker.connectGate;
    if (broker === undefined || !broker.up) {
      throw new KafkaError('ERR_KAFKA_CONNECTION_FAILED', `${target.label}: connection refused`, {
        retriable: true,
      });
    }
    const connection = new FakeConnection(this, broker);
    this.open.add(connection);
    return connection;
  };

  /** Drops every connection to a broker, as the wire reports a lost socket. */
  drop(nodeId: number): void {
    for (const c of [...this.open])
      if (c.broker.nodeId === nodeId) c.lose(new Error('connection lost'));
  }

  metadataResponse(
    node: FakeBroker,
    request: { topics: { name: string | null }[] | null },
  ): MetadataResponse {
    const view = this.lagging.get(node.nodeId) ?? this.topics;
    const names =
      request.topics === null ? [...view.keys()] : request.topics.map((t) => t.name ?? '');
    return createMetadataResponse({
      throttleTimeMs: 0,
      brokers: this.brokers.map((b) =>
        createMetadataResponseBroker({
          nodeId: b.nodeId,
          host: b.host,
          port: b.port,
          rack: `rack-${b.nodeId}`,
        }),
      ),
      clusterId: this.clusterId,
      controllerId: this.controllerId,
      topics: names.map((name) => {
        const t = view.get(name);
        if (t === undefined) {
          return createMetadataResponseTopic({
            errorCode: 3,
            name,
            topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
            isInternal: false,
            partitions: [],
          });
        }
        return createMetadataResponseTopic({
          errorCode: 0,
          name,
          topicId: t.topicId,
          isInternal: false,
          partitions: t.partitions.map((p, i) =>
            createMetadataResponsePartition({
              errorCode: 0,
              partitionIndex: i,
              leaderId: p.leader,
              leaderEpoch: p.leaderEpoch,
              replicaNodes: p.replicas,
              isrNodes: p.isr ?? p.replicas,
              offlineReplicas: [],
            }),
          ),
        });
      }),
      errorCode: 0,
    });
  }
}

export class FakeConnection implements MetaConnection {
  closed = false;
  pending = 0;
  lastActivityMs = Date.now();
  readonly #listeners = new Set<(e: Error | undefined) => void>();
  /** Fails the requests still waiting for their answer, as the wire's shutdown does. */
  readonly #inFlight = new Set<(e: Error) => void>();

  readonly cluster: FakeCluster;
  readonly broker: FakeBroker;

  constructor(cluster: FakeCluster, broker: FakeBroker) {
    this.cluster = cluster;
    this.broker = broker;
  }

  /**
   * The wire's callback form, over `send` (answers on a microtask here, errors too); absent
   * while `cluster.callbacks` is false, as on a connection that lacks it.
   */
  get sendCallback(): MetaConnection['sendCallback'] {
    if (!this.cluster.callbacks) return undefined;
    return (api, request, options, onResponse, onError, context) => {
      this.cluster.callbackSends++;
      this.send(api, request, options).then(
        (response) => onResponse(response, context),
        (error: unknown) => onError(error, context),
      );
    };
  }

  /** A version of -1 in `cluster.versions` means the broker does not offer the API. */
  negotiatedVersion(apiKey: number): number | undefined {
    const v = this.cluster.versions.get(apiKey) ?? 0;
    return v < 0 ? undefined : v;
  }

  async send<Req, Res>(
    api: ApiDescriptor<Req, Res>,
    request: Req,
    options: ConnectionSendOptions,
  ): Promise<Res> {
    if (this.closed) throw new KafkaError('ERR_KAFKA_CONNECTION_CLOSED', 'closed');
    const version = options.version;
    this.cluster.sent.push({
      node: this.broker.nodeId,
      apiKey: api.apiKey,
      request,
      version,
      timeoutMs: options.timeoutMs,
    });
    this.lastActivityMs = Date.now();
    this.pending++;
    let fail: (e: Error) => void = () => {};
    const failed = new Promise<never>((_, reject) => {
      fail = reject;
    });
    this.#inFlight.add(fail);
    try {
      return (await Promise.race([this.#answer(api, request, version), failed])) as Res;
    } finally {
      this.#inFlight.delete(fail);
      this.pending--;
    }
  }

  async #answer(
    api: ApiDescriptor<unknown, unknown>,
    request: unknown,
    version: number,
  ): Promise<never> {
    await Promise.resolve();
    const custom = this.cluster.intercept?.(this.broker, api.apiKey, request, version);
    if (custom !== undefined) {
      if (custom instanceof Error) throw custom;
      return custom as never;
    }
    if (api.apiKey === 3)
      return this.cluster.metadataResponse(this.broker, request as never) as never;
    if (api.apiKey === 10) {
      const code = this.cluster.findCoordinatorErrors.shift() ?? 0;
      const c = this.cluster.broker(this.cluster.coordinatorNode);
      const r = request as { key: string; coordinatorKeys: string[] };
      return (
        version >= 4
          ? {
              throttleTimeMs: 0,
              errorCode: 0,
              errorMessage: null,
              nodeId: 0,
              host: '',
              port: 0,
              coordinators: r.coordinatorKeys.map((key) => ({
                key,
                nodeId: code === 0 ? c.nodeId : -1,
                host: code === 0 ? c.host : '',
                port: code === 0 ? c.port : -1,
                errorCode: code,
                errorMessage: null,
              })),
            }
          : {
              throttleTimeMs: 0,
              errorCode: code,
              errorMessage: null,
              nodeId: code === 0 ? c.nodeId : -1,
              host: c.host,
              port: c.port,
              coordinators: [],
            }
      ) as never;
    }
    return { errorCode: 0, servedBy: this.broker.nodeId } as never;
  }

  onClose(listener: (error: Error | undefined) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The socket is gone: what is in flight fails with a retriable LOST, listeners get `error`. */
  lose(error: Error | undefined): void {
    const name = `broker ${this.broker.nodeId}`;
    this.#end(
      error,
      new ConnectionError('ERR_KAFKA_CONNECTION_LOST', name, 'connection lost', { cause: error }),
    );
  }

  /** As the wire's `BrokerConnection.close`: final by default, retriable when asked. */
  async close(options: CloseOptions = {}): Promise<void> {
    const name = `broker ${this.broker.nodeId}`;
    const reason = options.reason ?? 'connection closed';
    this.#end(
      undefined,
      options.retriable === true
        ? new ConnectionError('ERR_KAFKA_CONNECTION_LOST', name, `closed by its owner: ${reason}`)
        : new ConnectionError('ERR_KAFKA_CONNECTION_CLOSED', name, reason),
    );
  }

  #end(reported: Error | undefined, failure: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.cluster.open.delete(this);
    for (const fail of [...this.#inFlight]) fail(failure);
    this.#inFlight.clear();
    for (const l of this.#listeners) l(reported);
  }
}

/** A descriptor for an arbitrary API in tests (routing, dispatch): only what the cluster reads. */
export function fakeApi(
  apiKey: number,
  name: string,
): ApiDescriptor<Record<string, unknown>, { errorCode: number; servedBy: number }> {
  const unused = () => {
    throw new Error(`fake ${name} descriptor: not for encoding`);
  };
  return {
    apiKey,
    name,
    minVersion: 0,
    maxVersion: 0,
    latestVersionUnstable: false,
    flexibleFrom: null,
    listeners: ['broker'],
    requestHeaderVersion: () => 1,
    responseHeaderVersion: () => 0,
    createRequest: (): Record<string, unknown> => ({}),
    encodeRequest: unused,
    decodeRequest: unused,
    createResponse: () => ({ errorCode: 0, servedBy: -1 }),
    encodeResponse: unused,
    decodeResponse: () => ({ errorCode: 0, servedBy: -1 }),
    responseErrors: (r) => (r.errorCode === 0 ? [] : [{ path: '', errorCode: r.errorCode }]),
  };
}

/** A topic with `n` partitions led round-robin by nodes 1..brokers, RF = brokers. */
export function spreadTopic(
  brokers: number,
  n: number,
  epoch = 0,
): { topicId: string; partitions: FakePartition[] } {
  const partitions: FakePartition[] = [];
  for (let i = 0; i < n; i++) {
    const leader = (i % brokers) + 1;
    const replicas = [
      leader,
      ...Array.from({ length: brokers }, (_, k) => k + 1).filter((x) => x !== leader),
    ];
    partitions.push({ leader, leaderEpoch: epoch, replicas });
  }
  return { topicId: 'TOPICIDAAAAAAAAAAAAAAA', partitions };
}

export function retriableError(code: string): Error {
  return new KafkaError(code, code, { retriable: true });
}
