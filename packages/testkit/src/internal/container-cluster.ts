// The testcontainers backend: the same KafkaCluster API on the `apache/kafka` image, for hosts
// with a Docker engine (KAFKATS_BACKEND=testcontainers). It has never run on the machine it was
// written on (no Docker there, and testcontainers 12.2 does not even load on Node 20: its
// undici 8 needs Node 22); it typechecks and is kept deliberately small:
// PLAINTEXT listeners only, no ACLs, and no restartNode with a new port (a container's port
// bindings are fixed when it is created).
import {
  GenericContainer,
  getContainerRuntimeClient,
  Network,
  type StartedNetwork,
  type StartedTestContainer,
  Wait,
} from 'testcontainers';
import { javaClientConfig } from '../client-config.js';
import { kafkaDist } from '../dist.js';
import { TestkitError, TestkitErrorCode } from '../errors.js';
import { JavaAdmin } from '../java-admin.js';
import type {
  BrokerEndpoint,
  ClusterDescription,
  JavaAdminOptions,
  KafkaCluster,
  StartClusterOptions,
  StopNodeOptions,
} from '../types.js';
import { defaultBrokerSettings, kafkaEnvName } from './broker-config.js';
import { randomKafkaUuid } from './jvm-cluster.js';
import { releasePorts, reservePorts } from './ports.js';

interface ContainerNode {
  nodeId: number;
  port: number;
  container: StartedTestContainer;
  running: boolean;
}

class ContainerCluster implements KafkaCluster {
  readonly backend = 'testcontainers' as const;
  readonly security = null;
  readonly baseDir = '';
  readonly admin: JavaAdmin;
  private readonly admins: JavaAdmin[] = [];
  private stopped = false;
  readonly clusterId: string;
  private readonly nodes: ContainerNode[];
  private readonly network: StartedNetwork;

  constructor(clusterId: string, nodes: ContainerNode[], network: StartedNetwork) {
    this.clusterId = clusterId;
    this.nodes = nodes;
    this.network = network;
    this.admin = this.javaAdmin();
  }

  get bootstrap(): string {
    return this.nodes.map((n) => `127.0.0.1:${n.port}`).join(',');
  }

  get brokers(): BrokerEndpoint[] {
    return this.nodes.map((n) => ({
      nodeId: n.nodeId,
      host: '127.0.0.1',
      port: n.port,
      ports: { PLAINTEXT: n.port },
      controllerPort: 9093,
      logFile: '',
      running: n.running,
    }));
  }

  describe(): ClusterDescription {
    return {
      backend: 'testcontainers',
      kafkaVersion: kafkaDist().version,
      clusterId: this.clusterId,
      bootstrap: this.bootstrap,
      listeners: { PLAINTEXT: this.bootstrap },
      brokers: this.brokers,
      security: null,
      acls: false,
      baseDir: '',
    };
  }

  javaAdmin(options: JavaAdminOptions = {}): JavaAdmin {
    const admin = new JavaAdmin({ clientConfig: javaClientConfig(this.describe(), options) });
    this.admins.push(admin);
    return admin;
  }

  private node(nodeId: number): ContainerNode {
    const node = this.nodes.find((n) => n.nodeId === nodeId);
    if (this.stopped || node === undefined) {
      throw new TestkitError(
        TestkitErrorCode.ClusterState,
        `cluster ${this.clusterId} has no running node ${nodeId}`,
      );
    }
    return node;
  }

  pauseNode(nodeId: number): void {
    throw new TestkitError(
      TestkitErrorCode.ClusterState,
      `pauseNode(${nodeId}): the container backend cannot pause a broker`,
    );
  }

  resumeNode(_nodeId: number): void {}

  async stopNode(nodeId: number, options: StopNodeOptions = {}): Promise<void> {
    const node = this.node(nodeId);
    await node.container.stop({
      remove: false,
      timeout: options.signal === 'SIGKILL' ? 0 : 30_000,
    });
    node.running = false;
  }

  async startNode(nodeId: number): Promise<void> {
    const node = this.node(nodeId);
    if (node.running) return;
    await node.container.restart();
    node.running = true;
  }

  async restartNode(): Promise<void> {
    throw new TestkitError(
      TestkitErrorCode.Unsupported,
      'restartNode on a new port needs the jvm backend (container port bindings are fixed)',
    );
  }

  processGroups(): number[] {
    return [];
  }

  logTail(): string {
    return '(container logs: docker logs <container>)';
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.all(this.admins.map((a) => a.close()));
    await Promise.all(this.nodes.map((n) => n.container.stop({ timeout: 0 })));
    await this.network.stop();
    releasePorts(this.nodes.map((n) => n.port));
  }
}

/**
 * Starts the cluster in Docker containers (see {@link startCluster}).
 * @throws TestkitError ERR_KAFKA_TESTKIT_BACKEND_UNAVAILABLE without a reachable Docker engine,
 *   ERR_KAFKA_TESTKIT_UNSUPPORTED for TLS/SASL listeners or ACLs.
 */
export async function startContainerCluster(options: StartClusterOptions): Promise<KafkaCluster> {
  try {
    await getContainerRuntimeClient();
  } catch (error) {
    throw new TestkitError(
      TestkitErrorCode.BackendUnavailable,
      'KAFKATS_BACKEND=testcontainers needs a reachable Docker engine',
      { cause: error },
    );
  }
  if ((options.listeners ?? []).some((l) => l !== 'PLAINTEXT') || options.acls === true) {
    throw new TestkitError(
      TestkitErrorCode.Unsupported,
      'the testcontainers backend offers PLAINTEXT without ACLs only',
    );
  }
  const count = options.nodes ?? 1;
  const clusterId = randomKafkaUuid();
  const ports = await reservePorts(count);
  const network = await new Network().start();
  const voters = ports.map((_, i) => `${i + 1}@kafka-${i + 1}:9093`).join(',');
  const containers = ports.map((port, i) => {
    const nodeId = i + 1;
    // The host port equals the container port, so what a broker advertises works from the host.
    const props: Record<string, string | number | boolean> = {
      'node.id': nodeId,
      'process.roles': 'broker,controller',
      'controller.quorum.voters': voters,
      listeners: `PLAINTEXT://0.0.0.0:${port},INTERNAL://0.0.0.0:19092,CONTROLLER://0.0.0.0:9093`,
      'advertised.listeners': `PLAINTEXT://127.0.0.1:${port},INTERNAL://kafka-${nodeId}:19092`,
      'listener.security.protocol.map':
        'PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT',
      'controller.listener.names': 'CONTROLLER',
      'inter.broker.listener.name': 'INTERNAL',
      ...defaultBrokerSettings(count),
      ...(options.brokerConfig ?? {}),
    };
    const env: Record<string, string> = { CLUSTER_ID: clusterId };
    for (const [key, value] of Object.entries(props)) env[kafkaEnvName(key)] = String(value);
    return new GenericContainer(`apache/kafka:${kafkaDist().version}`)
      .withNetwork(network)
      .withNetworkAliases(`kafka-${nodeId}`)
      .withExposedPorts({ container: port, host: port })
      .withEnvironment(env)
      .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
      .withStartupTimeout(options.startTimeoutMs ?? 120_000)
      .start();
  });
  const started = await Promise.all(containers);
  const nodes = started.map((container, i) => ({
    nodeId: i + 1,
    port: ports[i] as number,
    container,
    running: true,
  }));
  const cluster = new ContainerCluster(clusterId, nodes, network);
  const deadline = Date.now() + (options.startTimeoutMs ?? 120_000);
  for (;;) {
    let problem: unknown;
    try {
      const described = await cluster.admin.describeCluster();
      if (described.nodes.length === count) return cluster;
      problem = new Error(`${described.nodes.length} of ${count} nodes registered`);
    } catch (error) {
      problem = error;
    }
    if (Date.now() > deadline) {
      await cluster.stop();
      throw new TestkitError(
        TestkitErrorCode.ClusterStartFailed,
        `containers up but cluster ${clusterId} not ready`,
        { cause: problem },
      );
    }
    await new Promise((r) => setTimeout(r, 300));
  }
}
