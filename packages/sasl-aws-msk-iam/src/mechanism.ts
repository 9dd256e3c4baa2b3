import { createRequire } from 'node:module';
import { AuthenticationError, type SaslExchange, type SaslMechanism } from '@kafkats/wire';
import {
  type AwsCredentials,
  MSK_IAM_PAYLOAD_VERSION,
  mskIamPayload,
  regionOfHost,
} from './payload.js';

/** Supplies credentials, as the AWS SDK's credential providers do (`fromIni()`, `fromEnv()`...). */
export type AwsCredentialsProvider = () => Promise<AwsCredentials>;

/** Options of SASL/AWS_MSK_IAM. */
export interface AwsMskIamOptions {
  /**
   * The cluster's AWS region. Default: read from each broker's host name
   * (`...kafka.<region>.amazonaws.com`), else `AWS_REGION`, else `AWS_DEFAULT_REGION`.
   */
  readonly region?: string;
  /**
   * Credentials, or a provider called at every authentication (so it should cache, as the AWS
   * SDK's providers do). Default: the AWS SDK's default chain for Node.js (environment, SSO,
   * shared config and credentials files, `credential_process`, web identity, ECS and EC2
   * instance roles), loaded on first use. To assume a role, pass
   * `fromTemporaryCredentials({ params: { RoleArn } })` from `@aws-sdk/credential-providers`.
   */
  readonly credentials?: AwsCredentials | AwsCredentialsProvider;
  /** The profile the default chain reads from the shared files; default `AWS_PROFILE` or `default`. */
  readonly profile?: string;
  /** Sent to the broker as `user-agent`; default `kafkats-sasl-aws-msk-iam/<version>/node-<version>`. */
  readonly userAgent?: string;
}

const VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
const DEFAULT_USER_AGENT = `kafkats-sasl-aws-msk-iam/${VERSION}/node-${process.version}`;

/**
 * SASL/AWS_MSK_IAM, Amazon MSK's IAM access control: the client presents a SigV4-signed
 * `kafka-cluster:Connect` (see {@link mskIamPayload}) and the broker answers with its request
 * id. A fresh signature is made at every connect and at every re-authentication (KIP-368: MSK
 * bounds sessions by the credentials' lifetime).
 *
 * Missing credentials, an unknown region and a refusal are fatal `AuthenticationError`s
 * (`ERR_KAFKA_AUTHENTICATION_FAILED`), as they are for AWS's Java client.
 */
export class AwsMskIamMechanism implements SaslMechanism {
  readonly mechanism = 'AWS_MSK_IAM';
  readonly #region: string | undefined;
  readonly #userAgent: string;
  readonly #profile: string | undefined;
  readonly #given: AwsCredentials | AwsCredentialsProvider | undefined;
  #chain: Promise<AwsCredentialsProvider> | undefined;

  constructor(options: AwsMskIamOptions = {}) {
    if (options.region !== undefined && !/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/.test(options.region)) {
      throw new TypeError(`region ${JSON.stringify(options.region)} is not an AWS region name`);
    }
    this.#region = options.region;
    this.#userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.#profile = options.profile;
    this.#given = options.credentials;
  }

  async authenticate(exchange: SaslExchange): Promise<void> {
    const fail = (message: string, cause?: unknown) =>
      new AuthenticationError('ERR_KAFKA_AUTHENTICATION_FAILED', exchange.broker, message, {
        cause,
      });
    const region =
      this.#region ??
      regionOfHost(exchange.host) ??
      (process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || undefined);
    if (region === undefined) {
      throw fail(
        `AWS_MSK_IAM: the host name ${exchange.host} names no AWS region and neither the region option nor AWS_REGION is set`,
      );
    }
    let credentials: AwsCredentials;
    try {
      credentials = await this.#credentials();
    } catch (error) {
      throw fail(`AWS_MSK_IAM: no AWS credentials: ${(error as Error).message}`, error);
    }
    const payload = await mskIamPayload({
      host: exchange.host,
      region,
      credentials,
      signingDate: new Date(),
      userAgent: this.#userAgent,
    });
    const answer = await exchange.send(payload);
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    const version = (parsed as { version?: unknown } | null | undefined)?.version;
    if (version !== MSK_IAM_PAYLOAD_VERSION) {
      throw fail(
        `AWS_MSK_IAM: the broker's answer is not a version ${MSK_IAM_PAYLOAD_VERSION} response (${answer.length} bytes)`,
      );
    }
  }

  async #credentials(): Promise<AwsCredentials> {
    const given = this.#given;
    if (typeof given === 'function') return given();
    if (given !== undefined) return given;
    if (this.#chain === undefined) {
      const chain = import('@aws-sdk/credential-provider-node').then(({ defaultProvider }) =>
        defaultProvider(this.#profile === undefined ? {} : { profile: this.#profile }),
      );
      this.#chain = chain;
      // a failed load is tried again at the next authentication
      chain.catch(() => {
        if (this.#chain === chain) this.#chain = undefined;
      });
    }
    return (await this.#chain)();
  }
}

/** SASL/AWS_MSK_IAM as `sasl` options: `sasl: awsMskIam({ region: 'eu-west-1' })`. */
export function awsMskIam(options: AwsMskIamOptions = {}): AwsMskIamMechanism {
  return new AwsMskIamMechanism(options);
}
