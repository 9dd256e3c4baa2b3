import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ClusterConfig, WireConnectionOptions } from '@kafkats/meta';
import {
  oauthClientCredentials,
  type SaslMechanism,
  type SaslOptions,
  type TlsOptions,
} from '@kafkats/wire';
import { CliError } from './cli-error.js';

/** SASL mechanisms the connection speaks. */
export const SASL_MECHANISMS = [
  'PLAIN',
  'SCRAM-SHA-256',
  'SCRAM-SHA-512',
  'OAUTHBEARER',
  'AWS_MSK_IAM',
] as const;

/** The optional package that brings SASL/AWS_MSK_IAM (and the AWS SDK) when installed. */
export const AWS_MSK_IAM_PLUGIN = '@kafkats/sasl-aws-msk-iam';
/** One of {@link SASL_MECHANISMS}. */
export type SaslMechanismName = (typeof SASL_MECHANISMS)[number];

/** Default deadline of each command's cluster operations, ms. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The `--config FILE` document (JSON). Every field is optional; a flag given on the command
 * line wins over the file. Paths are relative to the working directory.
 */
export interface ConfigFile {
  readonly bootstrap?: string | readonly string[];
  readonly clientId?: string;
  readonly readOnly?: boolean;
  readonly timeoutMs?: number;
  readonly tls?:
    | boolean
    | {
        readonly ca?: string;
        readonly cert?: string;
        readonly key?: string;
        readonly passphrase?: string;
        readonly servername?: string;
        readonly rejectUnauthorized?: boolean;
      };
  readonly sasl?: {
    readonly mechanism: SaslMechanismName;
    /** PLAIN and SCRAM. */
    readonly username?: string;
    readonly password?: string;
    /** OAUTHBEARER with a token endpoint (client credentials grant, KIP-768). */
    readonly tokenEndpointUrl?: string;
    readonly clientId?: string;
    readonly clientSecret?: string;
    readonly scope?: string;
    /** OAUTHBEARER with a token read from this file (re-read on every authentication). */
    readonly tokenFile?: string;
    /** AWS_MSK_IAM: the cluster's region (default: from the broker host names, then AWS_REGION). */
    readonly awsRegion?: string;
    /** AWS_MSK_IAM: the profile of the shared AWS files to take credentials from. */
    readonly awsProfile?: string;
  };
}

/** The global flags as parsed (every one optional). */
export interface ConnectionFlags {
  readonly bootstrap?: string;
  readonly config?: string;
  readonly clientId?: string;
  readonly readOnly?: boolean;
  readonly timeout?: string;
  readonly tls?: boolean;
  readonly tlsCa?: string;
  readonly tlsCert?: string;
  readonly tlsKey?: string;
  readonly tlsServername?: string;
  readonly saslMechanism?: string;
  readonly saslUsername?: string;
  readonly saslPassword?: string;
  readonly saslTokenEndpoint?: string;
  readonly saslClientId?: string;
  readonly saslClientSecret?: string;
  readonly saslScope?: string;
  readonly saslTokenFile?: string;
  readonly saslAwsRegion?: string;
  readonly saslAwsProfile?: string;
}

/** Everything a command needs to reach the cluster. */
export interface ConnectionSettings {
  readonly bootstrap: readonly string[];
  readonly readOnly: boolean;
  readonly timeoutMs: number;
  /** For `Cluster.connect` / `Admin.connect` (TLS, SASL, timeouts, read-only). */
  readonly cluster: ClusterConfig;
}

const configError = (message: string, hint?: string) =>
  new CliError('ERR_KAFKA_CLI_CONFIG_INVALID', message, hint === undefined ? {} : { hint });

function readPem(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw configError(
      `cannot read the ${what} file ${path}: ${(error as NodeJS.ErrnoException).code}`,
    );
  }
}

/** Reads and checks a `--config` file. */
export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw configError(
      `cannot read the config file ${path}: ${(error as NodeJS.ErrnoException).code}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw configError(`the config file ${path} is not JSON: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw configError(`the config file ${path} must hold a JSON object`);
  }
  const known = new Set(['bootstrap', 'clientId', 'readOnly', 'timeoutMs', 'tls', 'sasl']);
  for (const key of Object.keys(parsed)) {
    if (!known.has(key)) {
      throw configError(
        `the config file ${path} has an unknown field "${key}"`,
        `known fields: ${[...known].join(', ')}`,
      );
    }
  }
  return parsed as ConfigFile;
}

function mechanismOf(value: string): SaslMechanismName {
  const upper = value.toUpperCase();
  const found = SASL_MECHANISMS.find((m) => m === upper);
  if (found === undefined) {
    throw configError(
      `unknown SASL mechanism ${value}`,
      `use one of ${SASL_MECHANISMS.join(', ')}`,
    );
  }
  return found;
}

/**
 * Merges flags over the config file over the environment (`KAFKATS_BOOTSTRAP`,
 * `KAFKATS_SASL_PASSWORD`) into what `Cluster.connect` takes. File contents (CA, certificate,
 * key) are read here, so a missing file is a usage error before anything is dialled.
 *
 * @throws CliError `ERR_KAFKA_CLI_CONFIG_INVALID` (exit 1)
 */
export function resolveSettings(
  flags: ConnectionFlags,
  env: Readonly<Record<string, string | undefined>>,
  installed: (name: string) => boolean = pluginInstalled,
): ConnectionSettings {
  const file = flags.config === undefined ? {} : readConfigFile(flags.config);
  const rawBootstrap = flags.bootstrap ?? file.bootstrap ?? env.KAFKATS_BOOTSTRAP;
  if (rawBootstrap === undefined) {
    throw configError(
      'no bootstrap address',
      'pass --bootstrap host:port (or "bootstrap" in --config, or KAFKATS_BOOTSTRAP)',
    );
  }
  const bootstrap = (typeof rawBootstrap === 'string' ? rawBootstrap.split(',') : rawBootstrap)
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const address of bootstrap) {
    if (!/^(?:\[[^\]]+\]|[^:[\]]+):\d{1,5}$/.test(address)) {
      throw configError(
        `bootstrap address "${address}" is not host:port`,
        'e.g. 127.0.0.1:9092 or [::1]:9092',
      );
    }
  }
  const timeoutMs =
    flags.timeout !== undefined ? Number(flags.timeout) : (file.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw configError(
      `--timeout must be a positive number of milliseconds, got ${flags.timeout ?? file.timeoutMs}`,
    );
  }

  const fileTls = typeof file.tls === 'object' ? file.tls : {};
  const caPath = flags.tlsCa ?? fileTls.ca;
  const certPath = flags.tlsCert ?? fileTls.cert;
  const keyPath = flags.tlsKey ?? fileTls.key;
  const servername = flags.tlsServername ?? fileTls.servername;
  const tlsOn =
    flags.tls === true ||
    file.tls === true ||
    typeof file.tls === 'object' ||
    caPath !== undefined ||
    certPath !== undefined ||
    keyPath !== undefined;
  if ((certPath === undefined) !== (keyPath === undefined)) {
    throw configError('a client certificate needs both --tls-cert and --tls-key');
  }
  let tls: TlsOptions | undefined;
  if (tlsOn) {
    tls = {
      ...(caPath === undefined ? {} : { ca: readPem(caPath, 'CA') }),
      ...(certPath === undefined ? {} : { cert: readPem(certPath, 'certificate') }),
      ...(keyPath === undefined ? {} : { key: readPem(keyPath, 'key') }),
      ...(fileTls.passphrase === undefined ? {} : { passphrase: fileTls.passphrase }),
      ...(servername === undefined ? {} : { servername }),
      ...(fileTls.rejectUnauthorized === undefined
        ? {}
        : { rejectUnauthorized: fileTls.rejectUnauthorized }),
    };
  }

  const mechanismName = flags.saslMechanism ?? file.sasl?.mechanism;
  let sasl: SaslOptions | undefined;
  if (mechanismName !== undefined) {
    const mechanism = mechanismOf(mechanismName);
    sasl =
      mechanism === 'OAUTHBEARER'
        ? oauthSettings(flags, file.sasl, env)
        : mechanism === 'AWS_MSK_IAM'
          ? awsMskIamSettings(flags, file.sasl, installed)
          : passwordSettings(mechanism, flags, file.sasl, env);
  } else if (flags.saslUsername !== undefined) {
    throw configError('--sasl-username needs --sasl-mechanism');
  } else if (flags.saslTokenEndpoint !== undefined || flags.saslTokenFile !== undefined) {
    throw configError(
      '--sasl-token-endpoint and --sasl-token-file need --sasl-mechanism OAUTHBEARER',
    );
  } else if (flags.saslAwsRegion !== undefined || flags.saslAwsProfile !== undefined) {
    throw configError('--sasl-aws-region and --sasl-aws-profile need --sasl-mechanism AWS_MSK_IAM');
  }

  const readOnly = flags.readOnly === true || file.readOnly === true;
  const clientId = flags.clientId ?? file.clientId ?? 'kafkats-cli';
  const connection: WireConnectionOptions = {
    clientId,
    requestTimeoutMs: Math.min(timeoutMs, 30_000),
    connectionSetupTimeoutMs: Math.min(timeoutMs, 10_000),
    ...(tls === undefined ? {} : { tls }),
    ...(sasl === undefined ? {} : { sasl }),
  };
  return {
    bootstrap,
    readOnly,
    timeoutMs,
    cluster: {
      connection,
      readOnly,
      // A command is short-lived: no background refresh, and one deadline per operation.
      refreshIntervalMs: 0,
      retry: { operationTimeoutMs: timeoutMs },
    },
  };
}

type FileSasl = ConfigFile['sasl'];

function passwordSettings(
  mechanism: Exclude<SaslMechanismName, 'OAUTHBEARER' | 'AWS_MSK_IAM'>,
  flags: ConnectionFlags,
  file: FileSasl,
  env: Readonly<Record<string, string | undefined>>,
): SaslOptions {
  const username = flags.saslUsername ?? file?.username;
  const password = flags.saslPassword ?? env.KAFKATS_SASL_PASSWORD ?? file?.password;
  if (username === undefined || password === undefined) {
    throw configError(
      `SASL ${mechanism} needs a username and a password`,
      'pass --sasl-username and KAFKATS_SASL_PASSWORD (or --sasl-password, or "sasl" in --config)',
    );
  }
  return { mechanism, username, password };
}

/**
 * OAUTHBEARER: a token endpoint with client credentials (the secret from
 * `KAFKATS_SASL_CLIENT_SECRET`, the flag or the file), or a token file read at every
 * authentication (a sidecar that rotates it, as Kubernetes projected tokens are).
 */
function oauthSettings(
  flags: ConnectionFlags,
  file: FileSasl,
  env: Readonly<Record<string, string | undefined>>,
): SaslOptions {
  const endpoint = flags.saslTokenEndpoint ?? file?.tokenEndpointUrl;
  const tokenFile = flags.saslTokenFile ?? file?.tokenFile;
  if ((endpoint === undefined) === (tokenFile === undefined)) {
    throw configError(
      'SASL OAUTHBEARER needs a token endpoint or a token file (one of them)',
      'pass --sasl-token-endpoint URL with --sasl-client-id and KAFKATS_SASL_CLIENT_SECRET, or --sasl-token-file FILE',
    );
  }
  if (tokenFile !== undefined) {
    return {
      mechanism: 'OAUTHBEARER',
      tokenProvider: async () => {
        try {
          return readFileSync(tokenFile, 'utf8').trim();
        } catch (error) {
          throw configError(
            `cannot read the token file ${tokenFile}: ${(error as NodeJS.ErrnoException).code}`,
          );
        }
      },
    };
  }
  const clientId = flags.saslClientId ?? file?.clientId;
  const clientSecret =
    flags.saslClientSecret ?? env.KAFKATS_SASL_CLIENT_SECRET ?? file?.clientSecret;
  if (clientId === undefined || clientSecret === undefined) {
    throw configError(
      'SASL OAUTHBEARER with a token endpoint needs a client id and a client secret',
      'pass --sasl-client-id and KAFKATS_SASL_CLIENT_SECRET (or --sasl-client-secret, or "sasl" in --config)',
    );
  }
  const scope = flags.saslScope ?? file?.scope;
  try {
    return {
      mechanism: 'OAUTHBEARER',
      tokenProvider: oauthClientCredentials({
        tokenEndpointUrl: endpoint as string,
        clientId,
        clientSecret,
        ...(scope === undefined ? {} : { scope }),
      }),
    };
  } catch (error) {
    throw configError((error as Error).message);
  }
}

/** True when `name` resolves from the CLI: an optional plugin is installed. */
export function pluginInstalled(name: string): boolean {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * AWS_MSK_IAM, from the optional plugin package: its absence is a configuration error with the
 * install command. The plugin loads at the first authentication; credentials come from the AWS
 * SDK's default chain (environment, shared files with `--sasl-aws-profile`, roles).
 */
function awsMskIamSettings(
  flags: ConnectionFlags,
  file: FileSasl,
  installed: (name: string) => boolean,
): SaslMechanism {
  if (!installed(AWS_MSK_IAM_PLUGIN)) {
    throw configError(
      `SASL AWS_MSK_IAM needs the optional package ${AWS_MSK_IAM_PLUGIN}, which is not installed`,
      `npm install ${AWS_MSK_IAM_PLUGIN} beside @kafkats/cli`,
    );
  }
  const region = flags.saslAwsRegion ?? file?.awsRegion;
  const profile = flags.saslAwsProfile ?? file?.awsProfile;
  if (region !== undefined && !/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/.test(region)) {
    throw configError(`--sasl-aws-region "${region}" is not an AWS region`, 'e.g. eu-west-1');
  }
  let plugin: Promise<SaslMechanism> | undefined;
  return {
    mechanism: 'AWS_MSK_IAM',
    async authenticate(exchange) {
      plugin ??= import('@kafkats/sasl-aws-msk-iam').then(({ awsMskIam }) =>
        awsMskIam({
          ...(region === undefined ? {} : { region }),
          ...(profile === undefined ? {} : { profile }),
        }),
      );
      return (await plugin).authenticate(exchange);
    },
  };
}
