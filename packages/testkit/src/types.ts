import type { JavaAdmin } from './java-admin.js';
import type { ClusterOAuth } from './oauth.js';

/** A client listener. PLAINTEXT is always present (inter-broker traffic and the default admin). */
export type ListenerName = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';

/** A SASL user, created as SCRAM-SHA-256 and SCRAM-SHA-512 credentials at format time and as a PLAIN user. */
export interface ScramUser {
  username: string;
  password: string;
}

/** The SASL mechanisms every SASL listener enables. */
export type SaslMechanism = 'SCRAM-SHA-256' | 'SCRAM-SHA-512' | 'PLAIN' | 'OAUTHBEARER';

/** Where one broker can be reached. */
export interface BrokerEndpoint {
  nodeId: number;
  host: string;
  /** The PLAINTEXT port. */
  port: number;
  /** Port per listener, PLAINTEXT included. */
  ports: Partial<Record<ListenerName, number>>;
  /** The KRaft controller listener (PLAINTEXT, not for clients). */
  controllerPort: number;
  /** The node's log file (stdout and stderr of its JVM). */
  logFile: string;
  /** False after `stopNode` until `startNode`/`restartNode`. */
  running: boolean;
}

/** What a client needs for the TLS and SASL listeners. */
export interface ClusterSecurity {
  /** PEM file of the CA that signed every broker certificate (SAN 127.0.0.1 and localhost). */
  caPemPath: string;
  /** The CA's private key (PEM): `issueClientCertificate` signs client certificates with it. */
  caKeyPath: string;
  /** Mechanisms enabled on every SASL listener. */
  mechanisms: readonly SaslMechanism[];
  /** Super user (when ACLs are on); also a SCRAM/PLAIN user. */
  admin: ScramUser;
  /** Every SASL user, admin first. Defaults: admin, alice, bob. */
  users: readonly ScramUser[];
  /**
   * OAUTHBEARER on every SASL listener (null without one): Kafka's
   * OAuthBearerValidatorCallbackHandler over a JWKS file; mint tokens with `mintToken`, or serve
   * them with `startOAuthServer`. Sessions end at the token's expiry (KIP-368).
   */
  oauth: ClusterOAuth | null;
}

/** A plain, serialisable description of a running cluster (what the vitest setup `provide`s). */
export interface ClusterDescription {
  backend: 'jvm' | 'testcontainers';
  kafkaVersion: string;
  /** KRaft cluster id (Kafka's base64 uuid text). */
  clusterId: string;
  /** PLAINTEXT bootstrap, `127.0.0.1:p1,127.0.0.1:p2,...`. */
  bootstrap: string;
  /** Bootstrap string per enabled listener. */
  listeners: Partial<Record<ListenerName, string>>;
  brokers: BrokerEndpoint[];
  /** Null when no TLS/SASL listener is enabled. */
  security: ClusterSecurity | null;
  /** True when StandardAuthorizer is on (super users: ANONYMOUS, i.e. PLAINTEXT, and admin). */
  acls: boolean;
  /** The cluster's working directory: configs, data, logs. */
  baseDir: string;
}

/** Options of {@link startCluster}. */
export interface StartClusterOptions {
  /** Number of combined broker+controller nodes (ids 1..n). Default 1. */
  nodes?: 1 | 3;
  /** Broker settings applied last (override the testkit's defaults), e.g. `{'auto.create.topics.enable': true}`. */
  brokerConfig?: Readonly<Record<string, string | number | boolean>>;
  /**
   * Settings of one node, by node id, applied after `brokerConfig`: `{ 1: { 'broker.rack': 'a' } }`.
   */
  nodeConfig?: Readonly<Record<number, Readonly<Record<string, string | number | boolean>>>>;
  /** Client listeners besides PLAINTEXT. TLS/SASL ones generate certificates and users. */
  listeners?: readonly ListenerName[];
  /** Turns on StandardAuthorizer with `allow.everyone.if.no.acl.found=false`. Default false. */
  acls?: boolean;
  /** SASL users besides the defaults (admin, alice, bob), created at format time. */
  users?: readonly ScramUser[];
  /** JVM max heap per node in MiB. Default 512. */
  heapMb?: number;
  /** How long to wait for every node to be registered and answering. Default 120000 ms. */
  startTimeoutMs?: number;
  /** Working directory (created). Default: a fresh directory under the OS temp dir. */
  baseDir?: string;
  /** Keep the JVMs running after this process exits (`npm run kafka:up`). Default false. */
  detached?: boolean;
  /**
   * The Kafka release the nodes run: a release line (`3.9`, `4.0`: the newest patch pinned for
   * it in fixtures/kafka-release.json) or an exact release from 3.9.0 on, assembled from Maven
   * Central on first use. Default: $KAFKATS_KAFKA_VERSION, else the pinned release. The Java
   * tools (admin, consumers, oracle) always run from the pinned release's clients, which talk
   * to older brokers through ApiVersions like any client.
   */
  kafkaVersion?: string;
  /** Backend; default from KAFKATS_BACKEND, else `jvm`. */
  backend?: 'jvm' | 'testcontainers';
}

/** Options of {@link KafkaCluster.stopNode}. */
export interface StopNodeOptions {
  /** SIGTERM (controlled shutdown, the default) or SIGKILL (a crash). */
  signal?: 'SIGTERM' | 'SIGKILL';
}

/** Options of {@link KafkaCluster.restartNode}. */
export interface RestartNodeOptions {
  /** New PLAINTEXT port to listen on and advertise; default: a fresh free port. */
  port?: number;
  signal?: 'SIGTERM' | 'SIGKILL';
}

/** Options for a Java admin bound to a cluster. */
export interface JavaAdminOptions {
  /** Listener to connect through. Default PLAINTEXT. */
  listener?: ListenerName;
  /** SASL user for SASL listeners; default: the admin user. */
  user?: ScramUser;
  /** SASL mechanism; default SCRAM-SHA-512. */
  mechanism?: Exclude<SaslMechanism, 'OAUTHBEARER'>;
}

/** A running cluster started by {@link startCluster}. */
export interface KafkaCluster {
  readonly backend: 'jvm' | 'testcontainers';
  readonly clusterId: string;
  /** PLAINTEXT bootstrap of the nodes currently configured (changes after `restartNode` with a new port). */
  readonly bootstrap: string;
  readonly brokers: readonly BrokerEndpoint[];
  readonly security: ClusterSecurity | null;
  readonly baseDir: string;
  /**
   * Kafka's own Java admin on PLAINTEXT, started lazily on first use of a method, closed by
   * `stop()`. Bound to the current bootstrap: after `restartNode` moved a port, the next read of
   * `admin` gives a new one (earlier ones stay usable until `stop()`).
   */
  readonly admin: JavaAdmin;
  /** A further Java admin, e.g. as a SASL user on SASL_SSL; closed by `stop()`. */
  javaAdmin(options?: JavaAdminOptions): JavaAdmin;
  /** A serialisable snapshot of the current endpoints. */
  describe(): ClusterDescription;
  /**
   * Stops one node and waits for its JVM to exit (SIGTERM: controlled shutdown, SIGKILL after 30 s).
   * @throws TestkitError ERR_KAFKA_TESTKIT_CLUSTER_STATE for an unknown node id.
   */
  stopNode(nodeId: number, options?: StopNodeOptions): Promise<void>;
  /**
   * Freezes one node's JVM (SIGSTOP): its port still accepts connections, but nothing is read
   * or answered until {@link resumeNode}. For timeout tests: a broker that stops answering.
   * On Linux it returns once every thread of the node has stopped (read from `/proc`), so a
   * request sent after the call is never answered before the resume. JVM backend only.
   * @throws TestkitError ERR_KAFKA_TESTKIT_CLUSTER_STATE for an unknown or stopped node, or
   *   one whose threads have not all stopped within 10 s.
   */
  pauseNode(nodeId: number): void;
  /** Lets a paused node run again (SIGCONT); a no-op for a node that is not paused. */
  resumeNode(nodeId: number): void;
  /** Starts a stopped node and waits until the cluster sees it registered. */
  startNode(nodeId: number): Promise<void>;
  /** Stops a node and starts it again on a new PLAINTEXT port, re-advertised to clients. */
  restartNode(nodeId: number, options?: RestartNodeOptions): Promise<void>;
  /** Process group ids of the running nodes' supervisors (JVM backend; empty for containers). */
  processGroups(): number[];
  /** The last `lines` lines of one node's log, or of every node's. */
  logTail(nodeId?: number, lines?: number): string;
  /** Stops every node and admin, releases ports, deletes the working directory unless KAFKATS_KEEP_LOGS=1. */
  stop(): Promise<void>;
}
