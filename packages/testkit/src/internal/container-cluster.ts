// The testcontainers backend: the same KafkaCluster API on the `apache/kafka` image, for hosts
// with a Docker engine (KAFKATS_BACKEND=testcontainers). testcontainers is pinned to 11.x, whose
// undici 7 loads on Node 20 as well as 22 and 24 (12.x needs Node 22). What it asks Docker for
// is built by container-spec.ts and unit-tested there; the machine this repo is developed on
// has no Docker, so the containers themselves are exercised only on hosts that have one. Kept
// deliberately small: PLAINTEXT listeners only, no ACLs, and no restartNode with a new port (a
// container's port bindings are fixed when it is created).
import {
  GenericContainer,
  getContainerRuntimeClient,
  Network,
  type StartedNetwork,
  type StartedTestContainer,
  Wait,
} from 'testcontainers';
import { javaClientConfig } from '../client-config.js';
import { defaultKafkaVersion, resolveKafkaVersion } from '../dist.js';
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
import { CONTROLLER_PORT, containerNodeSpecs } from './container-spec.js';
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
  private readonly kafkaVersion: string;

  constructor(
    clusterId: string,
    nodes: ContainerNode[],
    network: StartedNetwork,
    kafkaVersion: string,
  ) {
    this.clusterId = clusterId;
    this.kafkaVersion = kafkaVersion;
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
      controllerPort: CONTROLLER_PORT,
      logFile: '',
      running: n.running,
    }));
  }

  describe(): ClusterDescription {
    return {
      backend: 'testcontainers',
      kafkaVersion: this.kafkaVersion,
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
  const kafkaVersion = resolveKafkaVersion(options.kafkaVersion ?? defaultKafkaVersion());
  // Checked before Docker is asked anything: a bad option fails the same with or without it.
  containerNodeSpecs(options, { clusterId: 'check', kafkaVersion, ports: [0] });
  try {
    await getContainerRuntimeClient();
  } catch (error) {
    throw new TestkitError(
      TestkitErrorCode.BackendUnavailable,
      `KAFKATS_BACKEND=testcontainers needs a reachable Docker engine (DOCKER_HOST or the local socket): ${(error as Error).message}`,
      { cause: error },
    );
  }
  const count = options.nodes ?? 1;
  const clusterId = randomKafkaUuid();
  const ports = await reservePorts(count);
  const specs = containerNodeSpecs(options, { clusterId, kafkaVersion, ports });
  const network = await new Network().start();
  const started = await Promise.all(
    specs.map((spec) =>
      new GenericContainer(spec.image)
        .withNetwork(network)
        .withNetworkAliases(spec.alias)
        .withExposedPorts({ container: spec.port, host: spec.port })
        .withEnvironment(spec.env)
        .withWaitStrategy(Wait.forLogMessage(spec.readyLog))
        .withStartupTimeout(spec.startupTimeoutMs)
        .start(),
    ),
  );
  const nodes = started.map((container, i) => ({
    nodeId: i + 1,
    port: ports[i] as number,
    container,
    running: true,
  }));
  const cluster = new ContainerCluster(clusterId, nodes, network, kafkaVersion);
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
