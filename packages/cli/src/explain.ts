import { lookup } from 'node:dns/promises';
import { KafkaError, ProtocolError } from '@kafkats/codec';
import { OperationTimeoutError, ReadOnlyError } from '@kafkats/meta';
import { AuthenticationError, ConnectionError } from '@kafkats/wire';
import { CliError } from './cli-error.js';
import { ExitCode } from './exit-codes.js';

/** What the command line prints for a failure, and how it exits. */
export interface Explanation {
  readonly exitCode: ExitCode;
  /** A stable machine code: the error's own (`ERR_KAFKA_...`), or `ERR_KAFKA_CLI_INTERNAL`. */
  readonly code: string;
  /** One paragraph: what failed, where. */
  readonly message: string;
  /** What to do next, when there is something to say. */
  readonly hint: string | undefined;
}

/** Broker errors that mean "no ACL for this": the resource type each one is about. */
const AUTHORIZATION_ERRORS: Readonly<Record<string, string>> = {
  TOPIC_AUTHORIZATION_FAILED: 'TOPIC',
  GROUP_AUTHORIZATION_FAILED: 'GROUP',
  CLUSTER_AUTHORIZATION_FAILED: 'CLUSTER',
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: 'TRANSACTIONAL_ID',
  DELEGATION_TOKEN_AUTHORIZATION_FAILED: 'DELEGATION_TOKEN',
};

/** Broker errors that mean "it does not exist". */
const NOT_FOUND_ERRORS = new Set([
  'UNKNOWN_TOPIC_OR_PARTITION',
  'UNKNOWN_TOPIC_ID',
  'GROUP_ID_NOT_FOUND',
  'RESOURCE_NOT_FOUND',
]);

/** The resource type a broker authorization error is about, or undefined when it is another error. */
export function authorizationResourceOf(error: ProtocolError): string | undefined {
  return AUTHORIZATION_ERRORS[error.errorName];
}

/** Whether a broker error says the thing asked about does not exist. */
export function isNotFound(error: ProtocolError): boolean {
  return NOT_FOUND_ERRORS.has(error.errorName);
}

/** The error and its causes, outermost first (bounded: cause chains can be cyclic). */
function chain(error: unknown): unknown[] {
  const out: unknown[] = [];
  let e: unknown = error;
  while (e !== undefined && e !== null && out.length < 8 && !out.includes(e)) {
    out.push(e);
    e = e instanceof Error ? e.cause : undefined;
  }
  return out;
}

/** Every address a bootstrap host resolves to, with its family, for an unreachable-cluster message. */
async function describeResolution(bootstrap: readonly string[]): Promise<string[]> {
  const lines: string[] = [];
  for (const address of bootstrap) {
    const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(address);
    const host = match?.[1] ?? match?.[2];
    if (host === undefined) continue;
    try {
      const all = await lookup(host, { all: true });
      const v4 = all.filter((a) => a.family === 4).map((a) => a.address);
      const v6 = all.filter((a) => a.family === 6).map((a) => a.address);
      lines.push(
        `${address}: IPv4 ${v4.length > 0 ? v4.join(', ') : 'none'}; IPv6 ${v6.length > 0 ? v6.join(', ') : 'none'}`,
      );
    } catch (error) {
      lines.push(`${address}: ${host} does not resolve (${(error as NodeJS.ErrnoException).code})`);
    }
  }
  return lines;
}

/**
 * Turns any failure into what a person can act on: the exit code of its kind, the message, and
 * a hint. Known failures are classified by class (never by message text); a cause chain is
 * searched for the most telling one (an authentication error inside a timeout is an
 * authentication failure).
 *
 * @param bootstrap the addresses the command tried, to list what they resolve to when none answered
 */
export async function explain(error: unknown, bootstrap: readonly string[]): Promise<Explanation> {
  const errors = chain(error);
  const outer = error instanceof Error ? error.message : String(error);
  for (const e of errors) {
    if (e instanceof CliError) {
      return { exitCode: e.exitCode, code: e.code, message: e.message, hint: e.hint };
    }
  }
  for (const e of errors) {
    if (e instanceof ReadOnlyError) {
      return {
        exitCode: ExitCode.READ_ONLY,
        code: e.code,
        message: `refused by --read-only: ${e.message}`,
        hint: 'run it without --read-only (and without "readOnly": true in the config file) to change the cluster',
      };
    }
    if (e instanceof AuthenticationError) {
      return {
        exitCode: ExitCode.AUTHENTICATION,
        code: e.code,
        message: `authentication failed: ${e.message}`,
        hint:
          e.code === 'ERR_KAFKA_AUTHENTICATION_TLS'
            ? 'check --tls-ca (the CA that signed the broker certificate) and the address the certificate names'
            : e.message.includes('AWS_MSK_IAM')
              ? 'check the AWS credentials (AWS_PROFILE or --sasl-aws-profile, AWS_ACCESS_KEY_ID), --sasl-aws-region, and that an IAM policy allows kafka-cluster:Connect'
              : 'check --sasl-mechanism, --sasl-username and the password (KAFKATS_SASL_PASSWORD), and that the listener speaks SASL',
      };
    }
  }
  for (const e of errors) {
    if (e instanceof ProtocolError) {
      const resource = authorizationResourceOf(e);
      if (resource !== undefined) {
        return {
          exitCode: ExitCode.AUTHORIZATION,
          code: e.code,
          message: `not authorized on ${resource}: ${e.message}`,
          hint: `ask for an ACL on the ${resource} for your principal`,
        };
      }
      if (isNotFound(e)) {
        return { exitCode: ExitCode.NOT_FOUND, code: e.code, message: outer, hint: undefined };
      }
    }
  }
  for (const e of errors) {
    if (e instanceof ConnectionError) {
      const resolution = await describeResolution(bootstrap);
      return {
        exitCode: ExitCode.CONNECTION,
        code: e.code,
        message: `cannot reach the cluster: ${e.message}`,
        hint: [
          `tried ${bootstrap.join(', ')}`,
          ...resolution,
          'check --bootstrap (host:port of a broker listener) and that the broker runs',
        ].join('\n'),
      };
    }
  }
  if (error instanceof OperationTimeoutError) {
    return {
      exitCode: ExitCode.TIMEOUT,
      code: error.code,
      message: outer,
      hint: 'raise --timeout, or check the brokers (`kafkats cluster`)',
    };
  }
  for (const e of errors) {
    if (e instanceof ProtocolError) {
      return { exitCode: ExitCode.BROKER, code: e.code, message: outer, hint: undefined };
    }
  }
  if (error instanceof KafkaError) {
    return { exitCode: ExitCode.BROKER, code: error.code, message: outer, hint: undefined };
  }
  return {
    exitCode: ExitCode.INTERNAL,
    code: 'ERR_KAFKA_CLI_INTERNAL',
    message: `internal error: ${outer}`,
    hint: 'this is a bug in kafkats; run again with --debug for the stack trace',
  };
}
