import { pathToFileURL } from 'node:url';
import type { ClusterOAuth } from '../oauth.js';
import type { ListenerName, ScramUser } from '../types.js';

/** Where one node listens. */
export interface NodeLayout {
  nodeId: number;
  controllerPort: number;
  /** Port per client listener (PLAINTEXT always present). */
  ports: Partial<Record<ListenerName, number>>;
}

/** Files and users of the TLS/SASL variants. */
export interface SecurityMaterial {
  keystorePath: string;
  keystorePassword: string;
  caPemPath: string;
  users: readonly ScramUser[];
  /** OAUTHBEARER validation (Kafka's OAuthBearerValidatorCallbackHandler); null: not enabled. */
  oauth: ClusterOAuth | null;
}

export interface BrokerConfigInput {
  nodeId: number;
  layout: readonly NodeLayout[];
  dataDir: string;
  listeners: readonly ListenerName[];
  security: SecurityMaterial | null;
  acls: boolean;
  /** The admin principal's user name, a super user when ACLs are on. */
  superUser: string;
  brokerConfig: Readonly<Record<string, string | number | boolean>>;
}

/** Settings for small, fast test clusters on a two-core machine; `brokerConfig` overrides. */
export function defaultBrokerSettings(nodes: number): Record<string, string | number | boolean> {
  const rf = Math.min(3, nodes);
  const minIsr = Math.min(2, nodes);
  return {
    // Off so a client that creates topics by accident is caught; the meta layer's acceptance
    // test turns it on through brokerConfig.
    'auto.create.topics.enable': false,
    'delete.topic.enable': true,
    'num.partitions': 1,
    'default.replication.factor': 1,
    'offsets.topic.replication.factor': rf,
    'offsets.topic.num.partitions': 10,
    'transaction.state.log.replication.factor': rf,
    'transaction.state.log.min.isr': minIsr,
    'transaction.state.log.num.partitions': 10,
    'share.coordinator.state.topic.replication.factor': rf,
    'share.coordinator.state.topic.min.isr': minIsr,
    'group.initial.rebalance.delay.ms': 0,
    // Two cores shared by three brokers: keep the thread count low.
    'num.network.threads': 2,
    'num.io.threads': 2,
    'background.threads': 2,
    'num.replica.fetchers': 1,
    'num.recovery.threads.per.data.dir': 1,
    'log.cleaner.threads': 1,
    'log.cleaner.dedupe.buffer.size': 8 * 1024 * 1024,
    // No time-based retention: tests pin record timestamps in the past, and with Kafka's
    // default (7 days, checked every 5 minutes) the retention check deletes such a log, active
    // segment included, at a random moment between a write and the read that checks it. A
    // topic that wants retention sets `retention.ms`.
    'log.retention.ms': -1,
    'controlled.shutdown.enable': true,
    // KRaft: a dead broker is fenced after this many ms without heartbeats (default 9000).
    'broker.session.timeout.ms': 6000,
  };
}

/** Escapes a value for a Java .properties file (backslash and line breaks). */
export function escapeProperty(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

/** The JAAS line a broker needs for PLAIN: every user listed with its password. */
export function plainJaas(users: readonly ScramUser[]): string {
  const entries = users.map((u) => `user_${u.username}="${u.password}"`).join(' ');
  return `org.apache.kafka.common.security.plain.PlainLoginModule required ${entries};`;
}

const SASL_MECHANISMS = ['SCRAM-SHA-256', 'SCRAM-SHA-512', 'PLAIN'] as const;

/** Kafka's JWT validator (KIP-768): signature by the JWKS, `iss`, `aud`, `exp`, `sub`. */
const OAUTH_VALIDATOR =
  'org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler';

/**
 * A session on an OAUTHBEARER connection ends when its token expires (KIP-368 bounds it by
 * this and the token's `exp`): clients must re-authenticate with a fresh token.
 */
const OAUTH_MAX_REAUTH_MS = 3_600_000;

/** Renders one combined broker+controller node's server.properties. */
export function renderBrokerProperties(input: BrokerConfigInput): string {
  const self = input.layout.find((n) => n.nodeId === input.nodeId);
  if (self === undefined) throw new Error(`node ${input.nodeId} is not in the layout`);
  const listeners = input.listeners.includes('PLAINTEXT')
    ? input.listeners
    : (['PLAINTEXT', ...input.listeners] as const);
  const sec = input.security;
  const usesTls = listeners.includes('SSL') || listeners.includes('SASL_SSL');
  const saslListeners = listeners.filter((l) => l === 'SASL_SSL' || l === 'SASL_PLAINTEXT');
  if ((usesTls || saslListeners.length > 0) && sec === null) {
    throw new Error('TLS or SASL listeners need security material');
  }
  const bound: string[] = [];
  const advertised: string[] = [];
  for (const name of listeners) {
    const port = self.ports[name];
    if (port === undefined) throw new Error(`node ${input.nodeId} has no port for ${name}`);
    bound.push(`${name}://127.0.0.1:${port}`);
    advertised.push(`${name}://127.0.0.1:${port}`);
  }
  bound.push(`CONTROLLER://127.0.0.1:${self.controllerPort}`);
  const props: Record<string, string | number | boolean> = {
    'process.roles': 'broker,controller',
    'node.id': input.nodeId,
    'controller.quorum.voters': input.layout
      .map((n) => `${n.nodeId}@127.0.0.1:${n.controllerPort}`)
      .join(','),
    listeners: bound.join(','),
    'advertised.listeners': advertised.join(','),
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map':
      'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL',
    'log.dirs': input.dataDir,
    ...defaultBrokerSettings(input.layout.length),
  };
  if (sec !== null && usesTls) {
    props['ssl.keystore.type'] = 'PKCS12';
    props['ssl.keystore.location'] = sec.keystorePath;
    props['ssl.keystore.password'] = sec.keystorePassword;
    props['ssl.truststore.type'] = 'PEM';
    props['ssl.truststore.location'] = sec.caPemPath;
    props['ssl.client.auth'] = 'none';
  }
  if (sec !== null && saslListeners.length > 0) {
    props['sasl.enabled.mechanisms'] = [
      ...SASL_MECHANISMS,
      ...(sec.oauth === null ? [] : ['OAUTHBEARER']),
    ].join(',');
    if (sec.oauth !== null) {
      props['sasl.oauthbearer.jwks.endpoint.url'] = pathToFileURL(sec.oauth.jwksPath).href;
      props['sasl.oauthbearer.expected.issuer'] = sec.oauth.issuer;
      props['sasl.oauthbearer.expected.audience'] = sec.oauth.audience;
    }
    for (const listener of saslListeners) {
      const prefix = `listener.name.${listener.toLowerCase()}`;
      props[`${prefix}.scram-sha-256.sasl.jaas.config`] =
        'org.apache.kafka.common.security.scram.ScramLoginModule required;';
      props[`${prefix}.scram-sha-512.sasl.jaas.config`] =
        'org.apache.kafka.common.security.scram.ScramLoginModule required;';
      props[`${prefix}.plain.sasl.jaas.config`] = plainJaas(sec.users);
      if (sec.oauth !== null) {
        props[`${prefix}.oauthbearer.sasl.jaas.config`] =
          'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;';
        props[`${prefix}.oauthbearer.sasl.server.callback.handler.class`] = OAUTH_VALIDATOR;
        props[`${prefix}.oauthbearer.connections.max.reauth.ms`] = OAUTH_MAX_REAUTH_MS;
      }
    }
  }
  if (input.acls) {
    props['authorizer.class.name'] = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
    // PLAINTEXT (inter-broker, controller, the default admin) is ANONYMOUS: it must be super.
    props['super.users'] = `User:ANONYMOUS;User:${input.superUser}`;
    props['allow.everyone.if.no.acl.found'] = false;
  }
  Object.assign(props, input.brokerConfig);
  const lines = ['# written by @kafkats/testkit'];
  for (const [key, value] of Object.entries(props))
    lines.push(`${key}=${escapeProperty(String(value))}`);
  return `${lines.join('\n')}\n`;
}

/** log4j2 configuration: everything to stdout (redirected to the node's log file). */
export function renderLog4j2(level = 'INFO'): string {
  return [
    'status = warn',
    'appender.out.type = Console',
    'appender.out.name = OUT',
    'appender.out.layout.type = PatternLayout',
    'appender.out.layout.pattern = [%d{HH:mm:ss,SSS}] %p %m (%c)%n',
    `rootLogger.level = ${level}`,
    'rootLogger.appenderRef.out.ref = OUT',
    'logger.statechange.name = state.change.logger',
    'logger.statechange.level = WARN',
    'logger.request.name = kafka.request.logger',
    'logger.request.level = WARN',
    '',
  ].join('\n');
}

/** The same for 3.x brokers, which log through log4j 1 (reload4j). */
export function renderLog4j1(level = 'INFO'): string {
  return [
    `log4j.rootLogger=${level}, stdout`,
    'log4j.appender.stdout=org.apache.log4j.ConsoleAppender',
    'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout',
    'log4j.appender.stdout.layout.ConversionPattern=[%d{HH:mm:ss,SSS}] %p %m (%c)%n',
    'log4j.logger.state.change.logger=WARN',
    'log4j.logger.kafka.request.logger=WARN',
    '',
  ].join('\n');
}

/** log4j2 configuration for Java tools whose stdout is a protocol: everything to stderr. */
export function renderToolLog4j2(level = 'WARN'): string {
  return [
    'status = warn',
    'appender.err.type = Console',
    'appender.err.name = ERR',
    'appender.err.target = SYSTEM_ERR',
    'appender.err.layout.type = PatternLayout',
    'appender.err.layout.pattern = [%d{HH:mm:ss,SSS}] %p %m (%c)%n',
    `rootLogger.level = ${level}`,
    'rootLogger.appenderRef.err.ref = ERR',
    '',
  ].join('\n');
}

/** The apache/kafka image's env convention: KAFKA_ + upper case, '.' -> '_', '_' -> '__', '-' -> '___'. */
export function kafkaEnvName(property: string): string {
  return `KAFKA_${property.replace(/_/g, '__').replace(/-/g, '___').replace(/\./g, '_').toUpperCase()}`;
}

/**
 * JVM flags a broker needs to read the OAUTHBEARER key set: Kafka 3.9.1 and later refuse JWKS
 * locations not listed in these system properties.
 */
export function oauthJvmFlags(oauth: ClusterOAuth | null): string[] {
  if (oauth === null) return [];
  return [
    `-Dorg.apache.kafka.sasl.oauthbearer.allowed.files=${oauth.jwksPath}`,
    `-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=${pathToFileURL(oauth.jwksPath).href}`,
  ];
}
