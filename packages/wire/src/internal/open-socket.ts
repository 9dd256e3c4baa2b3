import { isIP, Socket } from 'node:net';
import { createSecureContext, type SecureContext, connect as tlsConnect } from 'node:tls';
import {
  type BrokerAddress,
  formatBrokerAddress,
  type ResolvedAddress,
  type Resolver,
  resolveBrokerHost,
} from '../dns.js';
import { AbortedError, AuthenticationError, ConnectionError } from '../errors.js';
import type { TlsOptions } from '../options.js';

/** What opening a socket needs to know. */
export interface SocketTarget {
  /** `broker 3 (host:port)`, for messages. */
  readonly name: string;
  readonly address: BrokerAddress;
  readonly resolver: Resolver;
  /** Null for plaintext. */
  readonly tls: TlsOptions | null;
  /** Timeout of one TCP (+TLS) connect to one address, ms. */
  readonly setupTimeoutMs: number;
}

// Node's TLS verification failures; a TLS error after TCP is up with one of these is a trust
// problem to fix, not a network blip to retry.
const TLS_AUTH_CODE = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|HOSTNAME|ALTNAME|ERR_SSL|EPROTO/;

/**
 * Resolves the host (on every call, so a broker that moved is found), then tries every
 * address in order (IPv4 first, as `resolveBrokerHost` sorts them) until one completes TCP and,
 * when configured, TLS. Resolves with a socket ready for requests.
 *
 * @throws ConnectionError `ERR_KAFKA_CONNECTION_FAILED` naming every address tried;
 *   AuthenticationError `ERR_KAFKA_AUTHENTICATION_TLS` when a certificate cannot be verified
 *   (fatal); AbortedError when `signal` aborts (the half-open socket is destroyed)
 */
export async function openSocket(target: SocketTarget, signal: AbortSignal): Promise<Socket> {
  let addresses: readonly ResolvedAddress[];
  try {
    addresses = await resolveBrokerHost(target.address.host, target.resolver);
  } catch (err) {
    throw new ConnectionError(
      'ERR_KAFKA_CONNECTION_FAILED',
      target.name,
      `cannot resolve ${target.address.host}: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
  if (addresses.length === 0) {
    throw new ConnectionError(
      'ERR_KAFKA_CONNECTION_FAILED',
      target.name,
      `${target.address.host} resolved to no address`,
    );
  }
  const failures: string[] = [];
  let lastError: unknown;
  for (const a of addresses) {
    if (signal.aborted) throw new AbortedError(`${target.name}: connect`, signal.reason);
    try {
      return await openOne(target, a, signal);
    } catch (err) {
      if (err instanceof AuthenticationError || err instanceof AbortedError) throw err;
      lastError = err;
      failures.push(
        `${formatBrokerAddress({ host: a.address, port: target.address.port })}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  throw new ConnectionError(
    'ERR_KAFKA_CONNECTION_FAILED',
    target.name,
    `could not connect to any address (${failures.join('; ')})`,
    { cause: lastError },
  );
}

/**
 * The secure context of a connection's TLS options, made once: the CA, the client certificate
 * and key or PKCS#12 are parsed (and decrypted) on the first connect, not on every one.
 */
const contexts = new WeakMap<TlsOptions, SecureContext>();
function secureContextOf(tls: TlsOptions): SecureContext {
  let context = contexts.get(tls);
  if (context === undefined) {
    context = createSecureContext({
      ...(tls.ca === undefined ? {} : { ca: tls.ca as string | Buffer | (string | Buffer)[] }),
      ...(tls.cert === undefined ? {} : { cert: tls.cert }),
      ...(tls.key === undefined ? {} : { key: tls.key }),
      ...(tls.pfx === undefined ? {} : { pfx: tls.pfx }),
      ...(tls.passphrase === undefined ? {} : { passphrase: tls.passphrase }),
    });
    contexts.set(tls, context);
  }
  return context;
}

/** One TCP (+TLS) connect with the setup timeout; resolves once the socket can carry requests. */
function openOne(target: SocketTarget, a: ResolvedAddress, signal: AbortSignal): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const { tls, address } = target;
    let socket: Socket;
    let tcpUp = false;
    if (tls === null) {
      socket = new Socket();
      socket.connect({ host: a.address, port: address.port, family: a.family });
    } else {
      const servername = tls.servername ?? (isIP(address.host) === 0 ? address.host : undefined);
      let secureContext: SecureContext;
      try {
        secureContext = secureContextOf(tls);
      } catch (err) {
        reject(
          new AuthenticationError(
            'ERR_KAFKA_AUTHENTICATION_TLS',
            target.name,
            `the TLS settings cannot be used (CA, client certificate, key, PKCS#12 or passphrase): ${err instanceof Error ? err.message : String(err)}`,
            { cause: err },
          ),
        );
        return;
      }
      socket = tlsConnect({
        host: a.address,
        port: address.port,
        ...(servername === undefined ? {} : { servername }),
        secureContext,
        rejectUnauthorized: tls.rejectUnauthorized ?? true,
      });
    }
    const onTcp = () => {
      tcpUp = true;
    };
    const readyEvent = tls === null ? 'connect' : 'secureConnect';
    // Only our own listeners come off: Node's sockets keep internal ones (e.g. on 'end').
    const detach = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.off('connect', onTcp);
      socket.off('error', onError);
      socket.off('close', onClose);
      socket.off(readyEvent, onReady);
    };
    const fail = (err: Error) => {
      detach();
      socket.on('error', () => {});
      socket.destroy();
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (tls !== null && tcpUp && TLS_AUTH_CODE.test(code)) {
        reject(
          new AuthenticationError(
            'ERR_KAFKA_AUTHENTICATION_TLS',
            target.name,
            `TLS handshake failed: ${err.message}`,
            { cause: err },
          ),
        );
      } else {
        reject(err);
      }
    };
    const onError = (err: Error) => fail(err);
    const onClose = () => fail(new Error('connection closed during connect'));
    const onAbort = () => fail(new AbortedError(`${target.name}: connect`, signal.reason));
    const onReady = () => {
      detach();
      resolve(socket);
    };
    const timer = setTimeout(() => {
      fail(new Error(`connect timed out after ${target.setupTimeoutMs} ms`));
    }, target.setupTimeoutMs);
    if (tls !== null) socket.once('connect', onTcp);
    socket.once('error', onError);
    socket.once('close', onClose);
    socket.once(readyEvent, onReady);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
