import { TestkitError, TestkitErrorCode } from './errors.js';
import type { ClusterDescription, JavaAdminOptions } from './types.js';

/**
 * Java client properties for one listener of a cluster: bootstrap.servers plus, for TLS and
 * SASL listeners, the truststore (the cluster's CA as PEM) and a SCRAM/PLAIN JAAS line.
 * @throws TestkitError ERR_KAFKA_TESTKIT_CLUSTER_STATE when the listener is not enabled.
 */
export function javaClientConfig(
  cluster: Pick<ClusterDescription, 'listeners' | 'security'>,
  options: JavaAdminOptions = {},
): Record<string, string> {
  const listener = options.listener ?? 'PLAINTEXT';
  const bootstrap = cluster.listeners[listener];
  if (bootstrap === undefined) {
    throw new TestkitError(
      TestkitErrorCode.ClusterState,
      `the cluster has no ${listener} listener`,
    );
  }
  const config: Record<string, string> = {
    'bootstrap.servers': bootstrap,
    'security.protocol': listener,
  };
  if (listener === 'PLAINTEXT') return config;
  const security = cluster.security;
  if (security === null) {
    throw new TestkitError(
      TestkitErrorCode.ClusterState,
      `the cluster has no security material for ${listener}`,
    );
  }
  if (listener === 'SSL' || listener === 'SASL_SSL') {
    config['ssl.truststore.type'] = 'PEM';
    config['ssl.truststore.location'] = security.caPemPath;
    config['ssl.endpoint.identification.algorithm'] = 'https';
  }
  if (listener === 'SASL_SSL' || listener === 'SASL_PLAINTEXT') {
    const mechanism = options.mechanism ?? 'SCRAM-SHA-512';
    const user = options.user ?? security.admin;
    const module =
      mechanism === 'PLAIN'
        ? 'org.apache.kafka.common.security.plain.PlainLoginModule'
        : 'org.apache.kafka.common.security.scram.ScramLoginModule';
    config['sasl.mechanism'] = mechanism;
    config['sasl.jaas.config'] =
      `${module} required username="${user.username}" password="${user.password}";`;
  }
  return config;
}
