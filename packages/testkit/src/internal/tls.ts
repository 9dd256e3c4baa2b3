import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientCertificate, ClientCertificateOptions } from '../client-certificates.js';
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
  /** The CA's private key (PEM): signs client certificates. */
  caKeyPath: string;
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

/** A throw-away CA valid 7 days: its key and certificate written to `keyPath` and `pemPath`. */
function selfSignedCa(dir: string, keyPath: string, pemPath: string, name: string): void {
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
      keyPath,
      '-out',
      pemPath,
      '-subj',
      `/CN=${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
}

/** A new RSA key and a certificate request for `CN=<commonName>`. */
function keyAndRequest(dir: string, keyPath: string, csrPath: string, commonName: string): void {
  openssl(
    [
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-sha256',
      '-keyout',
      keyPath,
      '-out',
      csrPath,
      '-subj',
      `/CN=${commonName}`,
    ],
    dir,
  );
}

/** Signs a certificate request with a CA, valid 7 days, with the extensions of `extPath`. */
function signRequest(
  dir: string,
  ca: { caPemPath: string; caKeyPath: string },
  csrPath: string,
  pemPath: string,
  extPath: string,
): void {
  openssl(
    [
      'x509',
      '-req',
      '-in',
      csrPath,
      '-CA',
      ca.caPemPath,
      '-CAkey',
      ca.caKeyPath,
      '-CAcreateserial',
      '-sha256',
      '-days',
      '7',
      '-out',
      pemPath,
      '-extfile',
      extPath,
    ],
    dir,
  );
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
  selfSignedCa(dir, 'ca.key', 'ca.pem', 'kafkats test CA');
  keyAndRequest(dir, 'broker.key', 'broker.csr', 'localhost');
  signRequest(
    dir,
    { caPemPath: 'ca.pem', caKeyPath: 'ca.key' },
    'broker.csr',
    'broker.pem',
    'broker-ext.cnf',
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
    caKeyPath: join(dir, 'ca.key'),
  };
}

/**
 * A client certificate for mutual TLS (`ssl.client.auth=required`), signed by the cluster's CA
 * (`caPemPath` with `caKeyPath` beside it) unless `untrusted`, written under `dir`.
 * @throws TestkitError ERR_KAFKA_TESTKIT_TOOL_FAILED when openssl is missing or fails.
 */
export function signClientCertificate(
  dir: string,
  ca: { caPemPath: string; caKeyPath: string },
  options: ClientCertificateOptions,
): ClientCertificate {
  const name = options.commonName;
  if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new Error(`commonName ${name} is not [A-Za-z0-9._-]+`);
  const tag = `${name}${options.expired === true ? '-expired' : ''}${options.untrusted === true ? '-untrusted' : ''}-${randomBytes(3).toString('hex')}`;
  const base = join(dir, `client-${tag}`);
  let caPem = ca.caPemPath;
  let caKey = ca.caKeyPath;
  if (options.untrusted === true) {
    caPem = `${base}-ca.pem`;
    caKey = `${base}-ca.key`;
    selfSignedCa(dir, caKey, caPem, 'untrusted test CA');
  }
  writeFileSync(
    `${base}-ext.cnf`,
    [
      'basicConstraints = CA:FALSE',
      'keyUsage = critical, digitalSignature, keyEncipherment',
      'extendedKeyUsage = clientAuth',
      '',
    ].join('\n'),
  );
  keyAndRequest(dir, `${base}.key`, `${base}.csr`, name);
  if (options.expired === true) {
    // `openssl ca` is the one way to pick both dates on OpenSSL 3.0.
    const caDir = `${base}-ca-db`;
    mkdirSync(join(caDir, 'new'), { recursive: true });
    writeFileSync(join(caDir, 'index.txt'), '');
    writeFileSync(join(caDir, 'serial'), `${randomBytes(8).toString('hex').toUpperCase()}\n`);
    writeFileSync(
      join(caDir, 'ca.cnf'),
      [
        '[ca]',
        'default_ca = test',
        '[test]',
        `dir = ${caDir}`,
        'database = $dir/index.txt',
        'new_certs_dir = $dir/new',
        'serial = $dir/serial',
        'default_md = sha256',
        'policy = any',
        'copy_extensions = none',
        '[any]',
        'commonName = supplied',
        '',
      ].join('\n'),
    );
    openssl(
      [
        'ca',
        '-batch',
        '-config',
        join(caDir, 'ca.cnf'),
        '-cert',
        caPem,
        '-keyfile',
        caKey,
        '-in',
        `${base}.csr`,
        '-out',
        `${base}.pem`,
        '-startdate',
        '20200101000000Z',
        '-enddate',
        '20200102000000Z',
        '-extfile',
        `${base}-ext.cnf`,
        '-notext',
      ],
      dir,
    );
  } else {
    signRequest(
      dir,
      { caPemPath: caPem, caKeyPath: caKey },
      `${base}.csr`,
      `${base}.pem`,
      `${base}-ext.cnf`,
    );
  }
  const p12Passphrase = randomBytes(9).toString('hex');
  openssl(
    [
      'pkcs12',
      '-export',
      '-in',
      `${base}.pem`,
      '-inkey',
      `${base}.key`,
      '-name',
      name,
      '-out',
      `${base}.p12`,
      '-passout',
      `pass:${p12Passphrase}`,
    ],
    dir,
  );
  return {
    certPemPath: `${base}.pem`,
    keyPemPath: `${base}.key`,
    p12Path: `${base}.p12`,
    p12Passphrase,
    principal: `User:CN=${name}`,
  };
}
