import type { ConnectionOptions } from 'node:tls';
import type { ClusterConfig, OAuthBearerToken, SaslOptions, TlsOptions } from '@kafkats/client';
import { Cluster } from '@kafkats/client';
import { KafkaJSNonRetriableError, KafkaJSNotImplemented, toKafkaJSError } from './errors.js';
import {
  createLogger,
  kafkatsLogger,
  type Logger,
  type logCreator,
  type logLevel,
} from './logger.js';

/** A function giving the bootstrap brokers, called at each connect (kafkajs's `brokers`). */
export type BrokersFunction = () => string[] | Promise<string[]>;

/** kafkajs's retry options. */
export interface RetryOptions {
  /** Longest wait between attempts, ms (kafkats: `maxBackoffMs`). */
  maxRetryTime?: number;
  /** First wait, ms (kafkats: `backoffMs`). */
  initialRetryTime?: number;
  /** Jitter fraction (kafkats: `jitter`). */
  factor?: number;
  /** Growth per attempt: kafkats doubles; other values are accepted and ignored. */
  multiplier?: number;
  /** Retries after the first attempt (kafkats: `maxAttempts` = retries + 1). */
  retries?: number;
  /** kafkajs's producer `send` restart: accepted and ignored (kafkats's producer never restarts). */
  restartOnFailure?: (e: Error) => Promise<boolean>;
}

/** The token an `oauthbearer` provider resolves with. */
export interface OauthbearerProviderResponse {
  value: string;
}

interface SASLMechanismOptionsMap {
  plain: { username: string; password: string };
  'scram-sha-256': { username: string; password: string };
  'scram-sha-512': { username: string; password: string };
  aws: {
    authorizationIdentity: string;
    accessKeyId: string;
    secretAccessKey: string;
    sessionToken?: string;
  };
  oauthbearer: { oauthBearerProvider: () => Promise<OauthbearerProviderResponse> };
}

export type SASLMechanism = keyof SASLMechanismOptionsMap;
type SASLMechanismOptions<T> = T extends SASLMechanism
  ? { mechanism: T } & SASLMechanismOptionsMap[T]
  : never;
export type SASLOptions = SASLMechanismOptions<SASLMechanism>;

/** kafkajs's custom SASL mechanism (not supported by the facade: see its README). */
export interface Mechanism {
  mechanism: string;
  // biome-ignore lint/suspicious/noExplicitAny: kafkajs's authentication provider shape
  authenticationProvider: (args: any) => { authenticate: () => Promise<void> };
}

/** `new Kafka(config)`. */
export interface KafkaConfig {
  brokers: string[] | BrokersFunction;
  ssl?: ConnectionOptions | boolean;
  sasl?: SASLOptions | Mechanism;
  /** Default `'kafkajs'`, as in kafkajs. */
  clientId?: string;
  /** TCP and TLS connect timeout, ms. Default 1000, as in kafkajs. */
  connectionTimeout?: number;
  /** SASL handshake timeout, ms: accepted; kafkats bounds the whole connect by connectionTimeout's setup. */
  authenticationTimeout?: number;
  /** Accepted and ignored: kafkats re-authenticates by the broker's session lifetime (KIP-368). */
  reauthenticationThreshold?: number;
  /** Request timeout, ms. Default 30000, as in kafkajs. */
  requestTimeout?: number;
  /** Accepted; kafkats always enforces the request timeout. */
  enforceRequestTimeout?: boolean;
  retry?: RetryOptions;
  /** Not supported: kafkats owns its sockets (a value throws `KafkaJSNotImplemented`). */
  // biome-ignore lint/suspicious/noExplicitAny: kafkajs's socket factory shape
  socketFactory?: (...args: any[]) => unknown;
  logLevel?: logLevel;
  logCreator?: logCreator;
}

function tlsOptions(
  ssl: ConnectionOptions | boolean | undefined,
): boolean | TlsOptions | undefined {
  if (ssl === undefined || ssl === false) return undefined;
  if (ssl === true) return true;
  const out: { -readonly [K in keyof TlsOptions]: TlsOptions[K] } = {};
  if (ssl.ca !== undefined) out.ca = ssl.ca as NonNullable<TlsOptions['ca']>;
  if (ssl.cert !== undefined)
    out.cert = (Array.isArray(ssl.cert) ? ssl.cert[0] : ssl.cert) as string | Buffer;
  if (ssl.key !== undefined) {
    const key = Array.isArray(ssl.key) ? ssl.key[0] : ssl.key;
    out.key = (typeof key === 'object' && key !== null && 'pem' in key ? key.pem : key) as
      | string
      | Buffer;
  }
  if (ssl.pfx !== undefined) {
    const pfx = Array.isArray(ssl.pfx) ? ssl.pfx[0] : ssl.pfx;
    const buf = typeof pfx === 'object' && pfx !== null && 'buf' in pfx ? pfx.buf : pfx;
    out.pfx = (typeof buf === 'string' ? Buffer.from(buf) : buf) as Buffer;
  }
  if (ssl.passphrase !== undefined) out.passphrase = ssl.passphrase;
  if (ssl.servername !== undefined) out.servername = ssl.servername;
  if (ssl.rejectUnauthorized !== undefined) out.rejectUnauthorized = ssl.rejectUnauthorized;
  return out;
}

function saslOptions(sasl: SASLOptions | Mechanism | undefined): SaslOptions | undefined {
  if (sasl === undefined) return undefined;
  if ('authenticationProvider' in sasl) {
    throw new KafkaJSNotImplemented(
      `custom SASL mechanism ${sasl.mechanism}: kafkajs authentication providers are not supported; pass a kafkats SaslMechanism through @kafkats/client instead`,
    );
  }
  switch (String(sasl.mechanism).toLowerCase()) {
    case 'plain': {
      const o = sasl as SASLMechanismOptionsMap['plain'];
      return { mechanism: 'PLAIN', username: o.username, password: o.password };
    }
    case 'scram-sha-256':
    case 'scram-sha-512': {
      const o = sasl as SASLMechanismOptionsMap['plain'];
      const mechanism =
        String(sasl.mechanism).toLowerCase() === 'scram-sha-256'
          ? 'SCRAM-SHA-256'
          : 'SCRAM-SHA-512';
      return { mechanism, username: o.username, password: o.password };
    }
    case 'oauthbearer': {
      const o = sasl as SASLMechanismOptionsMap['oauthbearer'];
      return {
        mechanism: 'OAUTHBEARER',
        tokenProvider: async (): Promise<OAuthBearerToken> => {
          const token = await o.oauthBearerProvider();
          return { value: token.value };
        },
      };
    }
    case 'aws':
      throw new KafkaJSNotImplemented(
        'SASL mechanism aws (AWS_MSK_IAM): use @kafkats/sasl-aws-msk-iam with @kafkats/client',
      );
    default:
      throw new KafkaJSNonRetriableError(
        `SASL ${sasl.mechanism} mechanism is not supported by the client`,
      );
  }
}

/** kafkajs's retry options as kafkats's retry policy (only the fields given). */
export function katsRetry(r: RetryOptions): NonNullable<ClusterConfig['retry']> {
  return {
    ...(r.retries === undefined ? {} : { maxAttempts: r.retries + 1 }),
    ...(r.initialRetryTime === undefined ? {} : { backoffMs: r.initialRetryTime }),
    ...(r.maxRetryTime === undefined ? {} : { maxBackoffMs: r.maxRetryTime }),
    ...(r.factor === undefined ? {} : { jitter: r.factor }),
  };
}

/**
 * What every client made by one `Kafka` shares: the configuration, the root logger, and the
 * way to open the `Cluster` (metadata, connection pool) a client owns between its `connect()`
 * and `disconnect()`, as each kafkajs client owns its own cluster.
 */
export class ClientContext {
  readonly config: KafkaConfig;
  readonly logger: Logger;
  readonly clientId: string;

  constructor(config: KafkaConfig) {
    if (config === null || typeof config !== 'object') {
      throw new KafkaJSNonRetriableError('Kafka config is required');
    }
    if (config.brokers === undefined || config.brokers === null) {
      throw new KafkaJSNonRetriableError('Failed to connect: brokers parameter should not be null');
    }
    if (!Array.isArray(config.brokers) && typeof config.brokers !== 'function') {
      throw new KafkaJSNonRetriableError(
        'Failed to connect: "config.brokers" must be an array or a function',
      );
    }
    if (config.socketFactory !== undefined) {
      throw new KafkaJSNotImplemented(
        'socketFactory: kafkats opens its own sockets (TLS and SASL through ssl and sasl)',
      );
    }
    this.config = config;
    this.clientId = config.clientId ?? 'kafkajs';
    this.logger = createLogger({
      ...(config.logLevel === undefined ? {} : { level: config.logLevel }),
      ...(config.logCreator === undefined ? {} : { logCreator: config.logCreator }),
    });
    // Fail on a bad sasl now, at construction, as kafkajs does.
    saslOptions(config.sasl);
  }

  async #brokers(): Promise<string[]> {
    const b = this.config.brokers;
    let list: string[];
    try {
      list = typeof b === 'function' ? await b() : b;
    } catch (e) {
      throw new KafkaJSNonRetriableError(
        `Failed to connect: brokers function threw: ${e instanceof Error ? e.message : String(e)}`,
        { cause: e },
      );
    }
    if (!Array.isArray(list) || list.length === 0) {
      throw new KafkaJSNonRetriableError(
        'Failed to connect: "config.brokers" returned void or empty array',
      );
    }
    return list;
  }

  /**
   * The kafkats cluster options this config stands for, merged with `extra`. `traceOwner` goes
   * to every connection's traces (the client's request events find their requests by it).
   */
  clusterConfig(
    logger: Logger,
    extra: Partial<ClusterConfig> = {},
    traceOwner?: unknown,
  ): ClusterConfig {
    const c = this.config;
    const tls = tlsOptions(c.ssl);
    const sasl = saslOptions(c.sasl);
    const retry = c.retry;
    return {
      connection: {
        clientId: this.clientId,
        clientSoftwareName: 'kafkats-kafkajs',
        connectionSetupTimeoutMs: c.connectionTimeout ?? 1000,
        ...(tls === undefined ? {} : { tls }),
        ...(sasl === undefined ? {} : { sasl }),
        ...(traceOwner === undefined ? {} : { traceOwner }),
      },
      requestTimeoutMs: c.requestTimeout ?? 30_000,
      ...(retry === undefined
        ? {}
        : {
            retry: katsRetry(retry),
          }),
      logger: kafkatsLogger(logger),
      ...extra,
    };
  }

  /** Opens a cluster for one client: the first Metadata answer, or kafkajs's error for the failure. */
  async openCluster(
    logger: Logger,
    extra: Partial<ClusterConfig> = {},
    traceOwner?: unknown,
  ): Promise<Cluster> {
    const brokers = await this.#brokers();
    try {
      return await Cluster.connect(brokers, this.clusterConfig(logger, extra, traceOwner));
    } catch (e) {
      throw toKafkaJSError(e);
    }
  }
}
