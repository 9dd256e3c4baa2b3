import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestkitError, TestkitErrorCode } from '../errors.js';

/** Files written by {@link generateCertificates}. */
export interface Certificates {
  /** CA certificate (PEM): what clients trust. */
  caPemPath: string;
  /** Broker key + certificate chain (PKCS12), for `ssl.keystore.location`. */
  keystorePath: string;
  keystorePassword: string;
  /** Broker certificate alone (PEM), for inspection. */
  brokerPemPath: string;
}

function openssl(args: string[], cwd: string): void {
  const run = spawnSync('openssl', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (run.status !== 0) {
    throw new TestkitError(
      TestkitErrorCode.ToolFailed,
      `openssl ${args[0]} failed (exit ${run.status ?? run.signal}): ${(run.stderr ?? '').slice(-1000)}`,
    );
  }
}

/**
 * Generates a throw-away CA and one broker certificate signed by it (SAN IP:127.0.0.1,
 * DNS:localhost, valid 7 days) with the openssl CLI. Every node of a cluster shares the
 * broker certificate: they all listen on 127.0.0.1.
 * @throws TestkitError ERR_KAFKA_TESTKIT_TOOL_FAILED when openssl is missing or fails.
 */
export function generateCertificates(dir: string): Certificates {
  const keystorePassword = randomBytes(12).toString('hex');
  writeFileSync(
    join(dir, 'broker-ext.cnf'),
    [
      'basicConstraints = CA:FALSE',
      'keyUsage = critical, digitalSignature, keyEncipherment',
      'extendedKeyUsage = serverAuth, clientAuth',
      'subjectAltName = IP:127.0.0.1, DNS:localhost',
      '',
    ].join('\n'),
  );
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-sha256',
      '-days',
      '7',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-subj',
      '/CN=kafkats test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  openssl(
    [
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-sha256',
      '-keyout',
      'broker.key',
      '-out',
      'broker.csr',
      '-subj',
      '/CN=localhost',
    ],
    dir,
  );
  openssl(
    [
      'x509',
      '-req',
      '-in',
      'broker.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-sha256',
      '-days',
      '7',
      '-out',
      'broker.pem',
      '-extfile',
      'broker-ext.cnf',
    ],
    dir,
  );
  openssl(
    [
      'pkcs12',
      '-export',
      '-in',
      'broker.pem',
      '-inkey',
      'broker.key',
      '-certfile',
      'ca.pem',
      '-name',
      'broker',
      '-out',
      'broker.p12',
      '-passout',
      `pass:${keystorePassword}`,
    ],
    dir,
  );
  return {
    caPemPath: join(dir, 'ca.pem'),
    keystorePath: join(dir, 'broker.p12'),
    keystorePassword,
    brokerPemPath: join(dir, 'broker.pem'),
  };
}
