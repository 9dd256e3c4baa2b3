import { Admin } from '@kafkats/client';
import { ProtocolError } from '@kafkats/codec';
import { Cluster } from '@kafkats/meta';
import { CliError } from './cli-error.js';
import { authorizationResourceOf, isNotFound } from './explain.js';
import type { ConnectionSettings } from './settings.js';
import type { Terminal } from './terminal.js';

/** What every command runs with. */
export interface CommandContext {
  readonly term: Terminal;
  readonly settings: ConnectionSettings;
  /** Aborted on SIGINT/SIGTERM: streaming commands end cleanly. */
  readonly signal: AbortSignal;
}

/**
 * Connects (a spinner after a second on a TTY), runs `work`, and closes the cluster whatever
 * happens. `--read-only` is the cluster's own gate (`Cluster.connect({ readOnly: true })`).
 */
export async function withCluster<T>(
  ctx: CommandContext,
  work: (cluster: Cluster, admin: Admin) => Promise<T>,
): Promise<T> {
  const { bootstrap, cluster: config } = ctx.settings;
  const progress = ctx.term.progress(`connecting to ${bootstrap.join(', ')}`);
  let cluster: Cluster;
  try {
    cluster = await Cluster.connect(bootstrap, config);
  } catch (error) {
    progress.stop();
    throw error;
  }
  progress.stop();
  try {
    return await work(cluster, new Admin(cluster));
  } finally {
    await cluster.close();
  }
}

/** A Kafka ACL operation name (`DESCRIBE`, `WRITE`, ...), for authorization messages. */
export type AclOperationName =
  | 'READ'
  | 'WRITE'
  | 'DESCRIBE'
  | 'DESCRIBE_CONFIGS'
  | 'IDEMPOTENT_WRITE'
  | 'CREATE'
  | 'DELETE'
  | 'ALTER'
  | 'ALTER_CONFIGS'
  | 'CLUSTER_ACTION';

/**
 * Turns a broker's authorization or not-found answer about `resource` into the error a person
 * can act on: which operation on which resource lacks an ACL, or which thing does not exist.
 * Other errors pass through unchanged.
 */
export function actionable(
  error: unknown,
  operation: AclOperationName,
  resource: { readonly type: string; readonly name: string },
  clusterOperation: AclOperationName = operation,
): unknown {
  const found = brokerError(error);
  if (found === undefined) return error;
  const deniedOn = authorizationResourceOf(found);
  if (deniedOn !== undefined) {
    const op = deniedOn === 'CLUSTER' ? clusterOperation : operation;
    const what = deniedOn === 'CLUSTER' ? 'the CLUSTER' : `${deniedOn} ${resource.name}`;
    return new CliError(
      'ERR_KAFKA_CLI_AUTHORIZATION',
      `not authorized: ${op} on ${what} was denied (${found.errorName})`,
      {
        hint: `an operator can grant it: kafka-acls.sh --add --allow-principal User:<you> --operation ${op} ${
          deniedOn === 'CLUSTER' ? '--cluster' : `--${deniedOn.toLowerCase()} ${resource.name}`
        }`,
        cause: error,
      },
    );
  }
  if (isNotFound(found)) {
    return new CliError(
      'ERR_KAFKA_CLI_NOT_FOUND',
      `${resource.type.toLowerCase()} ${resource.name} does not exist (${found.errorName})`,
      resource.type === 'TOPIC'
        ? { hint: 'list the topics with `kafkats topics`', cause: error }
        : { cause: error },
    );
  }
  return error;
}

/** The broker error an error is or wraps (a producer's fatal error keeps it as its cause). */
function brokerError(error: unknown): ProtocolError | undefined {
  let e: unknown = error;
  for (let depth = 0; depth < 8 && e instanceof Error; depth++) {
    if (e instanceof ProtocolError) return e;
    e = e.cause;
  }
  return undefined;
}

/** Throws the actionable form of `error` when there is one. */
export function rethrowActionable(
  error: unknown,
  operation: AclOperationName,
  resource: { readonly type: string; readonly name: string },
  clusterOperation: AclOperationName = operation,
): never {
  throw actionable(error, operation, resource, clusterOperation);
}

/** Milliseconds as a short human duration (`3.2 s`, `4 min`). */
export function ago(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 60_000)} min`;
}
