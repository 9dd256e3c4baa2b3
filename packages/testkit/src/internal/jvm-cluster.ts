import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { javaClientConfig } from '../client-config.js';
import { defaultKafkaVersion, type KafkaDist, kafkaDist } from '../dist.js';
import { TestkitError, TestkitErrorCode } from '../errors.js';
import { compileJava, run, toolJvmFlags } from '../java.js';
import { JavaAdmin } from '../java-admin.js';
import {
  killGroup,
  type NodeProcess,
  spawnSupervised,
  stopGroup,
  stopSupervised,
  tailFile,
} from '../node-process.js';
import { writeOAuthMaterial } from '../oauth.js';
import { onProcessExit, reapOrphans } from '../reaper.js';
import type {
  BrokerEndpoint,
  ClusterDescription,
  ClusterSecurity,
  JavaAdminOptions,
  KafkaCluster,
  ListenerName,
  RestartNodeOptions,
  ScramUser,
  StartClusterOptions,
  StopNodeOptions,
} from '../types.js';
import {
  type NodeLayout,
  oauthJvmFlags,
  renderBrokerProperties,
  renderLog4j1,
  renderLog4j2,
  type SecurityMaterial,
} from './broker-config.js';
import { brokerArchivePath, createArchiveFlags, publishArchive, useArchiveFlags } from './cds.js';
import { releasePorts, reservePorts } from './ports.js';
import { generateCertificates } from './tls.js';

const LISTENER_ORDER: readonly ListenerName[] = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];

/** Kafka's uuid text: 16 random bytes, URL-safe base64 without padding, never starting with '-'. */
export function randomKafkaUuid(): string {
  for (;;) {
    const text = randomBytes(16).toString('base64url');
    if (!text.startsWith('-')) return text;
  }
}

/** PLAINTEXT first, then the others in a fixed order, without duplicates. */
export function normaliseListeners(listeners: readonly ListenerName[] | undefined): ListenerName[] {
  const wanted = new Set<ListenerName>(['PLAINTEXT', ...(listeners ?? [])]);
  return LISTENER_ORDER.filter((l) => wanted.has(l));
}

/** Default SASL users (admin first) plus any extra ones. Passwords are random per cluster. */
export function makeUsers(extra: readonly ScramUser[] = []): ScramUser[] {
  const pw = () => randomBytes(12).toString('hex');
  const users: ScramUser[] = [
    { username: 'admin', password: pw() },
    { username: 'alice', password: pw() },
    { username: 'bob', password: pw() },
  ];
  for (const user of extra) {
    const i = users.findIndex((u) => u.username === user.username);
    if (i >= 0) users[i] = { ...user };
    else users.push({ ...user });
  }
  return users;
}

/** StorageTool arguments that create SCRAM-SHA-256 and -512 credentials for every user. */
export function scramFormatArgs(users: readonly ScramUser[]): string[] {
  const args: string[] = [];
  for (const u of users) {
    for (const mechanism of ['SCRAM-SHA-256', 'SCRAM-SHA-512']) {
      args.push('--add-scram', `${mechanism}=[name=${u.username},password=${u.password}]`);
    }
  }
  return args;
}

interface NodeState {
  layout: NodeLayout;
  dir: string;
  configFile: string;
  logFile: string;
  process: NodeProcess | null;
  /** True between pauseNode and resumeNode. */
  paused?: boolean;
  /** Set while this node's JVM will write the CDS archive on a graceful exit. */
  archiveTmp?: string | undefined;
}

/** Log lines after which a starting broker will not recover. */
const FATAL = /Encountered fatal fault|Exiting Kafka due to fatal exception/;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

class JvmCluster implements KafkaCluster {
  readonly backend = 'jvm' as const;
  readonly clusterId: string;
  readonly security: ClusterSecurity | null;
  readonly baseDir: string;
  /** The Kafka release the nodes run. */
  readonly dist: KafkaDist;
  private currentAdmin: JavaAdmin | null = null;
  private readonly nodes: NodeState[];
  private readonly listeners: ListenerName[];
  private readonly material: SecurityMaterial | null;
  private readonly acls: boolean;
  private readonly brokerConfig: Readonly<Record<string, string | number | boolean>>;
  private readonly nodeConfig: Readonly<
    Record<number, Readonly<Record<string, string | number | boolean>>>
  >;
  private readonly heapMb: number;
  private readonly owner: number;
  private readonly admins: JavaAdmin[] = [];
  private readonly unhook: () => void;
  private stopped = false;
  private readonly ports = new Set<number>();

  constructor(args: {
    clusterId: string;
    baseDir: string;
    dist: KafkaDist;
    nodes: NodeState[];
    listeners: ListenerName[];
    security: ClusterSecurity | null;
    material: SecurityMaterial | null;
    acls: boolean;
    brokerConfig: Readonly<Record<string, string | number | boolean>>;
    nodeConfig: Readonly<Record<number, Readonly<Record<string, string | number | boolean>>>>;
    heapMb: number;
    owner: number;
    ports: number[];
  }) {
    this.clusterId = args.clusterId;
    this.baseDir = args.baseDir;
    this.dist = args.dist;
    this.nodes = args.nodes;
    this.listeners = args.listeners;
    this.security = args.security;
    this.material = args.material;
    this.acls = args.acls;
    this.brokerConfig = args.brokerConfig;
    this.nodeConfig = args.nodeConfig;
    this.heapMb = args.heapMb;
    this.owner = args.owner;
    for (const p of args.ports) this.ports.add(p);
    this.unhook =
      args.owner === 0
        ? () => {}
        : onProcessExit(() => {
            for (const n of this.nodes) if (n.process !== null) killGroup(n.process.pgid);
          });
  }

  get brokers(): BrokerEndpoint[] {
    return this.nodes.map((n) => ({
      nodeId: n.layout.nodeId,
      host: '127.0.0.1',
      port: n.layout.ports.PLAINTEXT ?? 0,
      ports: { ...n.layout.ports },
      controllerPort: n.layout.controllerPort,
      logFile: n.logFile,
      running: n.process?.isRunning() ?? false,
    }));
  }

  get bootstrap(): string {
    return this.bootstrapFor('PLAINTEXT');
  }

  // Bound to the current addresses: once restartNode has moved every broker, an admin that
  // bootstrapped from the old ones can never find the cluster again. Earlier admins stay open
  // (a test may hold one) until stop().
  get admin(): JavaAdmin {
    if (this.currentAdmin === null || this.currentAdmin.bootstrap !== this.bootstrap) {
      this.currentAdmin = this.javaAdmin();
    }
    return this.currentAdmin;
  }

  private bootstrapFor(listener: ListenerName): string {
    return this.nodes.map((n) => `127.0.0.1:${n.layout.ports[listener]}`).join(',');
  }

  describe(): ClusterDescription {
    const listeners: Partial<Record<ListenerName, string>> = {};
    for (const l of this.listeners) listeners[l] = this.bootstrapFor(l);
    return {
      backend: 'jvm',
      kafkaVersion: this.dist.version,
      clusterId: this.clusterId,
      bootstrap: this.bootstrap,
      listeners,
      brokers: this.brokers,
      security: this.security,
      acls: this.acls,
      baseDir: this.baseDir,
    };
  }

  javaAdmin(options: JavaAdminOptions = {}): JavaAdmin {
    const admin = new JavaAdmin({ clientConfig: javaClientConfig(this.describe(), options) });
    this.admins.push(admin);
    return admin;
  }

  private node(nodeId: number): NodeState {
    if (this.stopped)
      throw new TestkitError(TestkitErrorCode.ClusterState, `cluster ${this.clusterId} is stopped`);
    const node = this.nodes.find((n) => n.layout.nodeId === nodeId);
    if (node === undefined) {
      throw new TestkitError(
        TestkitErrorCode.ClusterState,
        `cluster ${this.clusterId} has no node ${nodeId}`,
      );
    }
    return node;
  }

  writeConfig(node: NodeState): void {
    writeFileSync(
      node.configFile,
      renderBrokerProperties({
        nodeId: node.layout.nodeId,
        layout: this.nodes.map((n) => n.layout),
        dataDir: join(node.dir, 'data'),
        listeners: this.listeners,
        security: this.material,
        acls: this.acls,
        superUser: this.security?.admin.username ?? 'admin',
        brokerConfig: {
          ...this.brokerConfig,
          ...(this.nodeConfig[node.layout.nodeId] ?? {}),
        },
      }),
    );
  }

  /** Formats every node's storage with Kafka's StorageTool, all in one JVM (java/FormatStorage.java). */
  async formatAll(): Promise<void> {
    const dist = this.dist;
    const classes = await compileJava('FormatStorage', dist);
    const args: string[] = [];
    for (const node of this.nodes) {
      if (args.length > 0) args.push('--next-node');
      args.push('format', '-t', this.clusterId, '-c', node.configFile);
      if (this.security !== null) args.push(...scramFormatArgs(this.security.users));
    }
    const result = await run(
      'java',
      [...toolJvmFlags(), '-cp', `${classes}:${dist.classpath}`, 'FormatStorage', ...args],
      {
        timeoutMs: 120_000,
      },
    );
    if (result.status !== 0) {
      throw new TestkitError(
        TestkitErrorCode.ClusterStartFailed,
        `formatting the storage of cluster ${this.clusterId} with Kafka ${dist.version} StorageTool failed (exit ${result.status}): ${(result.stdout + result.stderr).slice(-2000)}`,
      );
    }
  }

  launch(node: NodeState): void {
    const dist = this.dist;
    const args: string[] = [
      '-Xms128m',
      `-Xmx${this.heapMb}m`,
      '-XX:+UseSerialGC',
      '-XX:+ExitOnOutOfMemoryError',
      '-Xss512k',
      '-Djava.awt.headless=true',
      ...oauthJvmFlags(this.material?.oauth ?? null),
      `-Dkafkats.node=${node.layout.nodeId}`,
      `-Dkafka.logs.dir=${node.dir}`,
      dist.logging === 'log4j1'
        ? `-Dlog4j.configuration=file:${join(this.baseDir, 'log4j.properties')}`
        : `-Dlog4j2.configurationFile=${join(this.baseDir, 'log4j2.properties')}`,
      '-cp',
      dist.classpath,
      'kafka.Kafka',
      node.configFile,
    ];
    const archive = brokerArchivePath(dist);
    let cds = useArchiveFlags(archive);
    // The first node of a non-detached cluster on a machine without an archive writes one;
    // stop() and stopNode() give it a graceful exit so it can.
    if (
      cds.length === 0 &&
      this.owner !== 0 &&
      !this.nodes.some((n) => n.archiveTmp !== undefined)
    ) {
      node.archiveTmp = `${archive}.tmp-${process.pid}-${node.layout.nodeId}`;
      cds = createArchiveFlags(node.archiveTmp);
    }
    args.unshift(...cds);
    writeFileSync(
      node.logFile,
      `--- starting node ${node.layout.nodeId} at ${new Date().toISOString()}\n`,
      {
        flag: 'a',
      },
    );
    node.process = spawnSupervised(args, node.logFile, this.owner);
  }

  /**
   * Ready when every running node's JVM is alive and the cluster, asked through the Java
   * admin, lists exactly the running nodes on their current PLAINTEXT ports.
   */
  async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = 'no answer yet';
    // A node that dies (or logs a fatal fault, after which it can take many seconds to exit)
    // fails the wait at once, even while a describeCluster attempt is still out.
    let fail: (error: TestkitError) => void = () => {};
    const failed = new Promise<never>((_, reject) => {
      fail = reject;
    });
    failed.catch(() => {});
    const watch = setInterval(() => {
      const problem = this.startProblem();
      if (problem !== null) fail(this.startError(problem));
    }, 250);
    try {
      for (;;) {
        const problem = this.startProblem();
        if (problem !== null) throw this.startError(problem);
        const expected = this.nodes
          .filter((n) => n.process !== null)
          .map((n) => `${n.layout.nodeId}@${n.layout.ports.PLAINTEXT}`)
          .join(',');
        try {
          // Short per-attempt deadline, so a stalled attempt does not hold up the next.
          const described = await Promise.race([
            this.admin.request<{ nodes: { id: number; port: number }[] }>(
              'describeCluster',
              { timeoutMs: 3000 },
              10_000,
            ),
            failed,
          ]);
          const seen = described.nodes.map((n) => `${n.id}@${n.port}`).join(',');
          if (seen === expected) return;
          last = `registered ${seen || 'none'}, want ${expected}`;
        } catch (error) {
          if (error instanceof TestkitError && error.code === TestkitErrorCode.ClusterStartFailed)
            throw error;
          last = (error as Error).message.split('\n')[0] ?? String(error);
        }
        if (Date.now() > deadline)
          throw this.startError(`not ready after ${timeoutMs} ms (${last})`);
        await sleep(300);
      }
    } finally {
      clearInterval(watch);
    }
  }

  /** Why a starting node cannot become ready, or null. */
  private startProblem(): string | null {
    for (const n of this.nodes) {
      if (n.process === null) continue;
      if (!n.process.isRunning()) return `node ${n.layout.nodeId} exited during start-up`;
      // Only this start's lines: the log file keeps earlier runs of the node.
      const tail = tailFile(n.logFile, 400);
      if (FATAL.test(tail.slice(Math.max(0, tail.lastIndexOf('--- starting node'))))) {
        return `node ${n.layout.nodeId} exited during start-up (fatal fault in its log)`;
      }
    }
    return null;
  }

  startError(reason: string): TestkitError {
    return new TestkitError(
      TestkitErrorCode.ClusterStartFailed,
      `Kafka cluster ${this.clusterId} in ${this.baseDir}: ${reason}\n${this.logTail(undefined, 40)}`,
    );
  }

  processGroups(): number[] {
    return this.nodes.flatMap((n) => (n.process?.isRunning() ? [n.process.pgid] : []));
  }

  logTail(nodeId?: number, lines = 60): string {
    const nodes =
      nodeId === undefined ? this.nodes : this.nodes.filter((n) => n.layout.nodeId === nodeId);
    return nodes
      .map(
        (n) =>
          `--- node ${n.layout.nodeId} log tail (${n.logFile}):\n${tailFile(n.logFile, lines)}`,
      )
      .join('\n');
  }

  pauseNode(nodeId: number): void {
    const node = this.node(nodeId);
    if (node.process === null || !node.process.isRunning()) {
      throw new TestkitError(
        TestkitErrorCode.ClusterState,
        `cannot pause node ${nodeId}: it is not running`,
      );
    }
    // The whole group (supervisor and JVM): the kernel still accepts TCP connections on the
    // broker's port, but nothing is read or answered, as with a broker stuck in a long GC.
    // Returns once every thread has stopped, so nothing sent after this call is answered.
    stopGroup(node.process.pgid);
    node.paused = true;
  }

  resumeNode(nodeId: number): void {
    const node = this.node(nodeId);
    if (node.process === null || node.paused !== true) return;
    killGroup(node.process.pgid, 'SIGCONT');
    node.paused = false;
  }

  async stopNode(nodeId: number, options: StopNodeOptions = {}): Promise<void> {
    const node = this.node(nodeId);
    if (node.process === null) return;
    // A stopped JVM cannot run its SIGTERM handler: let it go on first.
    this.resumeNode(nodeId);
    await stopSupervised(node.process, options.signal ?? 'SIGTERM');
    node.process = null;
    this.settleArchive(node);
  }

  /** After the archiving node exited: publish its archive if it wrote one; never retry. */
  private settleArchive(node: NodeState): void {
    if (node.archiveTmp === undefined) return;
    publishArchive(node.archiveTmp, brokerArchivePath(this.dist));
    node.archiveTmp = undefined;
  }

  async startNode(nodeId: number): Promise<void> {
    const node = this.node(nodeId);
    if (node.process?.isRunning()) return;
    this.launch(node);
    await this.waitReady(120_000);
  }

  async restartNode(nodeId: number, options: RestartNodeOptions = {}): Promise<void> {
    const node = this.node(nodeId);
    await this.stopNode(nodeId, options.signal === undefined ? {} : { signal: options.signal });
    let port = options.port;
    if (port === undefined) {
      [port] = await reservePorts(1);
      if (port !== undefined) this.ports.add(port);
    }
    if (port === undefined)
      throw new TestkitError(TestkitErrorCode.PortsExhausted, 'no port for restartNode');
    node.layout.ports.PLAINTEXT = port;
    this.writeConfig(node);
    await this.startNode(nodeId);
  }

  /** Kills every node (the data is throw-away), closes the admins, frees ports and files. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const n of this.nodes) {
      if (n.paused === true && n.process !== null) killGroup(n.process.pgid, 'SIGCONT');
      n.paused = false;
    }
    await Promise.all(this.admins.map((a) => a.close()));
    // The node writing the CDS archive first, gracefully, while its peers still answer (a
    // controlled shutdown needs the quorum); then the rest are killed.
    for (const n of this.nodes) {
      if (n.archiveTmp !== undefined && n.process?.isRunning()) {
        await stopSupervised(n.process, 'SIGTERM', 60_000);
        n.process = null;
      }
      this.settleArchive(n);
    }
    await Promise.all(
      this.nodes.map(async (n) => {
        if (n.process !== null) await stopSupervised(n.process, 'SIGKILL');
        n.process = null;
      }),
    );
    this.unhook();
    releasePorts(this.ports);
    if (process.env.KAFKATS_KEEP_LOGS !== '1')
      rmSync(this.baseDir, { recursive: true, force: true });
  }

  /** Kills the nodes without the rest of stop(), for a retry with fresh ports. */
  async abort(): Promise<void> {
    await Promise.all(this.admins.map((a) => a.close()));
    await Promise.all(
      this.nodes.map(async (n) =>
        n.process === null ? undefined : stopSupervised(n.process, 'SIGKILL'),
      ),
    );
    for (const n of this.nodes) {
      if (n.archiveTmp !== undefined) rmSync(n.archiveTmp, { force: true });
      n.archiveTmp = undefined;
    }
    this.unhook();
    releasePorts(this.ports);
  }

  portClash(): boolean {
    return this.nodes.some((n) => {
      try {
        return /Address already in use|BindException/.test(readFileSync(n.logFile, 'utf8'));
      } catch {
        return false;
      }
    });
  }
}

/**
 * Starts a KRaft cluster of combined broker+controller JVMs on 127.0.0.1 (see {@link startCluster}).
 * @throws TestkitError ERR_KAFKA_TESTKIT_CLUSTER_START_FAILED with every node's log tail.
 */
export async function startJvmCluster(options: StartClusterOptions = {}): Promise<KafkaCluster> {
  reapOrphans();
  const dist = kafkaDist(options.kafkaVersion ?? defaultKafkaVersion());
  const count = options.nodes ?? 1;
  const listeners = normaliseListeners(options.listeners);
  const baseDir = options.baseDir ?? mkdtempSync(join(tmpdir(), 'kafkats-cluster-'));
  mkdirSync(baseDir, { recursive: true });
  if (dist.logging === 'log4j1') writeFileSync(join(baseDir, 'log4j.properties'), renderLog4j1());
  else writeFileSync(join(baseDir, 'log4j2.properties'), renderLog4j2());
  let security: ClusterSecurity | null = null;
  let material: SecurityMaterial | null = null;
  if (listeners.length > 1) {
    const tlsDir = join(baseDir, 'tls');
    mkdirSync(tlsDir, { recursive: true });
    const certs = generateCertificates(tlsDir);
    const users = makeUsers(options.users);
    const admin = users[0] as ScramUser;
    const sasl = listeners.includes('SASL_PLAINTEXT') || listeners.includes('SASL_SSL');
    const oauth = sasl ? writeOAuthMaterial(tlsDir) : null;
    security = {
      caPemPath: certs.caPemPath,
      caKeyPath: certs.caKeyPath,
      mechanisms: [
        'SCRAM-SHA-256',
        'SCRAM-SHA-512',
        'PLAIN',
        ...(sasl ? (['OAUTHBEARER'] as const) : []),
      ],
      admin,
      users,
      oauth,
    };
    material = {
      keystorePath: certs.keystorePath,
      keystorePassword: certs.keystorePassword,
      caPemPath: certs.caPemPath,
      users,
      oauth,
    };
  }
  const owner = options.detached === true ? 0 : process.pid;
  const timeoutMs = options.startTimeoutMs ?? 120_000;
  for (let attempt = 1; ; attempt++) {
    const perNode = listeners.length + 1;
    const ports = await reservePorts(count * perNode);
    const nodes: NodeState[] = [];
    for (let i = 0; i < count; i++) {
      const nodeId = i + 1;
      const dir = join(baseDir, `node-${nodeId}`);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const mine = ports.slice(i * perNode, (i + 1) * perNode);
      const portMap: Partial<Record<ListenerName, number>> = {};
      listeners.forEach((l, j) => {
        portMap[l] = mine[j] as number;
      });
      nodes.push({
        layout: { nodeId, controllerPort: mine[listeners.length] as number, ports: portMap },
        dir,
        configFile: join(dir, 'server.properties'),
        logFile: join(dir, 'server.log'),
        process: null,
      });
    }
    const cluster = new JvmCluster({
      clusterId: randomKafkaUuid(),
      baseDir,
      dist,
      nodes,
      listeners,
      security,
      material,
      acls: options.acls ?? false,
      brokerConfig: options.brokerConfig ?? {},
      nodeConfig: options.nodeConfig ?? {},
      heapMb: options.heapMb ?? 512,
      owner,
      ports,
    });
    try {
      for (const n of nodes) cluster.writeConfig(n);
      await cluster.formatAll();
      for (const n of nodes) cluster.launch(n);
      await cluster.waitReady(timeoutMs);
      return cluster;
    } catch (error) {
      const clash = cluster.portClash();
      await cluster.abort();
      // On failure the working directory stays: its logs are the evidence.
      if (!clash || attempt >= 3) throw error;
    }
  }
}
