import { dirname } from 'node:path';
import { signClientCertificate } from './internal/tls.js';
import type { ClusterSecurity } from './types.js';

/** Files written by {@link issueClientCertificate}. */
export interface ClientCertificate {
  /** The certificate (PEM). */
  certPemPath: string;
  /** Its private key, unencrypted (PEM). */
  keyPemPath: string;
  /** Key and certificate as PKCS#12, encrypted with `p12Passphrase`. */
  p12Path: string;
  p12Passphrase: string;
  /** The principal Kafka's default SSL principal builder gives it: `User:CN=<name>`. */
  principal: string;
}

/** Options of {@link issueClientCertificate}. */
export interface ClientCertificateOptions {
  /** The subject's CN (letters, digits, `-`, `_`, `.`). */
  commonName: string;
  /** Validity ended in 2020 (the broker refuses it as expired). Default false. */
  expired?: boolean;
  /** Signed by a throw-away CA the brokers do not trust. Default false. */
  untrusted?: boolean;
}

/**
 * Issues a client certificate for mutual TLS against a testkit cluster: signed by the cluster's
 * CA (brokers with `ssl.client.auth=required` accept it, as principal `User:CN=<commonName>`),
 * or expired, or from a CA the brokers do not trust. Written beside the cluster's CA.
 * @throws TestkitError ERR_KAFKA_TESTKIT_TOOL_FAILED when openssl is missing or fails.
 */
export function issueClientCertificate(
  security: ClusterSecurity,
  options: ClientCertificateOptions,
): ClientCertificate {
  return signClientCertificate(
    dirname(security.caPemPath),
    { caPemPath: security.caPemPath, caKeyPath: security.caKeyPath },
    options,
  );
}
