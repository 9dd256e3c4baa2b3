import { inject } from 'vitest';
import { javaClientConfig } from '../client-config.js';
import { TestkitError, TestkitErrorCode } from '../errors.js';
import { JavaAdmin } from '../java-admin.js';
import type {
  BrokerEndpoint,
  ClusterDescription,
  ClusterSecurity,
  JavaAdminOptions,
  ListenerName,
} from '../types.js';

/** Key under which the global setup provides the shared cluster's description. */
export const SHARED_CLUSTER_KEY = 'kafkatsSharedCluster';

declare module 'vitest' {
  export interface ProvidedContext {
    kafkatsSharedCluster: ClusterDescription;
  }
}

/** The run-wide cluster as seen from a test file: read-only endpoints plus Java admins. */
export interface SharedCluster {
  readonly description: ClusterDescription;
  readonly clusterId: string;
  /** PLAINTEXT bootstrap. */
  readonly bootstrap: string;
  /** Bootstrap per listener (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL). */
  readonly listeners: Partial<Record<ListenerName, string>>;
  readonly brokers: readonly BrokerEndpoint[];
  readonly security: ClusterSecurity | null;
  /** Kafka's Java admin on PLAINTEXT, started on first use, closed when the worker exits. */
  readonly admin: JavaAdmin;
  /** Another Java admin (e.g. a SASL user on SASL_SSL), closed when the worker exits. */
  javaAdmin(options?: JavaAdminOptions): JavaAdmin;
}

let cached: SharedCluster | undefined;

/**
 * The one 3-node cluster the integration run shares (started by the testkit's global setup in
 * vitest.integration.config.ts). Do not stop or restart its nodes: start a private cluster
 * with `startCluster()` for that. Use unique topic names.
 * @throws TestkitError ERR_KAFKA_TESTKIT_NO_SHARED_CLUSTER outside such a run.
 */
export function sharedCluster(): SharedCluster {
  if (cached !== undefined) return cached;
  let description: ClusterDescription | undefined;
  try {
    description = inject(SHARED_CLUSTER_KEY);
  } catch {
    description = undefined;
  }
  if (description === undefined) {
    throw new TestkitError(
      TestkitErrorCode.NoSharedCluster,
      'no shared Kafka cluster: run integration tests with vitest.integration.config.ts (its global setup starts one)',
    );
  }
  const desc = description;
  let admin: JavaAdmin | undefined;
  const view: SharedCluster = {
    description: desc,
    clusterId: desc.clusterId,
    bootstrap: desc.bootstrap,
    listeners: desc.listeners,
    brokers: desc.brokers,
    security: desc.security,
    get admin(): JavaAdmin {
      admin ??= view.javaAdmin();
      return admin;
    },
    javaAdmin(options: JavaAdminOptions = {}): JavaAdmin {
      // The JVM reads stdin; when this worker exits, its end closes and the JVM exits too
      // (and the exit hook SIGKILLs it in any case).
      return new JavaAdmin({ clientConfig: javaClientConfig(desc, options) });
    },
  };
  cached = view;
  return view;
}
