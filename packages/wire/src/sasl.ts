import { KafkaError } from '@kafkats/codec';
import { AuthenticationError } from './errors.js';
import { ScramClient, ScramError } from './internal/scram.js';

/**
 * What a connection lends a SASL mechanism for one authentication: the broker it is talking
 * to, and SaslAuthenticate rounds (KIP-152). The connection has already sent SaslHandshake
 * with the mechanism's name; it takes the session lifetime (KIP-368) from the last round.
 */
export interface SaslExchange {
  /** The broker, for messages (`host:port`, or the node's name). */
  readonly broker: string;
  /** The host name or address the connection dialled (some mechanisms sign it). */
  readonly host: string;
  /**
   * One SaslAuthenticate round: sends `bytes` and resolves to the broker's answer (its
   * `authBytes`, possibly empty).
   *
   * @throws AuthenticationError `ERR_KAFKA_AUTHENTICATION_FAILED` with the broker's
   *   `errorMessage` when the broker refuses; ConnectionError when the connection is lost
   */
  send(bytes: Uint8Array): Promise<Buffer>;
}

/**
 * A SASL mechanism: its name for SaslHandshake, and the client side of its exchange.
 * `authenticate` runs on every connect and on every re-authentication (KIP-368), so a
 * mechanism with expiring credentials fetches fresh ones there. It resolves once the client
 * has verified whatever the broker owed it, and throws `AuthenticationError` for a refusal
 * (fatal: the connection is not retried); any other error fails the connect as retriable.
 * PLAIN, SCRAM and OAUTHBEARER are implemented this way; so can any other mechanism.
 */
export interface SaslMechanism {
  /** The name sent in SaslHandshake, e.g. `'OAUTHBEARER'`. */
  readonly mechanism: string;
  authenticate(exchange: SaslExchange): Promise<void>;
}

/** SASL/PLAIN (RFC 4616): the password travels as is, so use it over TLS only. */
export interface PlainOptions {
  readonly mechanism: 'PLAIN';
  readonly username: string;
  readonly password: string;
  /** Identity to act as; default none (the broker uses the username). */
  readonly authorizationId?: string;
}

/** SASL/SCRAM (RFC 5802, RFC 7677): proves knowledge of the password without sending it. */
export interface ScramOptions {
  readonly mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512';
  readonly username: string;
  readonly password: string;
}

/** A bearer token for SASL/OAUTHBEARER, as a token provider returns it. */
export interface OAuthBearerToken {
  /** The token (a JWT for Kafka's own validators), sent as `auth=Bearer <value>`. */
  readonly value: string;
  /**
   * When the token expires, ms since the epoch, if known. An expired token is refused before
   * anything is sent; the broker bounds the session by it (KIP-368).
   */
  readonly expiresAtMs?: number;
  /** SASL extensions sent with the token (KIP-342): keys of letters, printable values. */
  readonly extensions?: Readonly<Record<string, string>>;
}

/**
 * Supplies the OAUTHBEARER token: called on every connect and every re-authentication, so it
 * should cache the token and refresh it before it expires (as `oauthClientCredentials` does).
 * A string is taken as a token without extensions. Throwing a `KafkaError` that is not
 * retriable fails the connection as an authentication error; anything else fails the connect
 * as retriable.
 */
export type OAuthBearerTokenProvider = () => Promise<OAuthBearerToken | string>;

/** SASL/OAUTHBEARER (KIP-255, RFC 7628). */
export interface OAuthBearerOptions {
  readonly mechanism: 'OAUTHBEARER';
  readonly tokenProvider: OAuthBearerTokenProvider;
  /** Identity to act as (`a=` in the GS2 header); default none: the token's principal. */
  readonly authorizationId?: string;
}

/**
 * SASL settings of a connection: PLAIN, SCRAM or OAUTHBEARER by their options, or any
 * `SaslMechanism`. Secrets never appear in an error or log line.
 */
export type SaslOptions = PlainOptions | ScramOptions | OAuthBearerOptions | CustomSasl;

/**
 * Any `SaslMechanism` as `sasl` options. The `never` fields keep `mechanism` a discriminant, so
 * options whose mechanism is a union (`'PLAIN' | 'SCRAM-SHA-512'` from configuration) still
 * type-check against the built-in mechanisms.
 */
export type CustomSasl = SaslMechanism & {
  readonly username?: never;
  readonly tokenProvider?: never;
};

/** The mechanism that `options` describe. */
export function saslMechanism(options: SaslOptions): SaslMechanism {
  if ('authenticate' in options && typeof options.authenticate === 'function') return options;
  const o = options as PlainOptions | ScramOptions | OAuthBearerOptions;
  switch (o.mechanism) {
    case 'PLAIN':
      return new PlainMechanism(o);
    case 'SCRAM-SHA-256':
    case 'SCRAM-SHA-512':
      return new ScramMechanism(o);
    case 'OAUTHBEARER':
      return new OAuthBearerMechanism(o);
    default:
      throw new TypeError(
        `sasl.mechanism ${JSON.stringify((o as { mechanism: unknown }).mechanism)} is not PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER; pass a SaslMechanism for any other`,
      );
  }
}

/** SASL/PLAIN: one round, `authzid NUL user NUL password`. */
export class PlainMechanism implements SaslMechanism {
  readonly mechanism = 'PLAIN';
  readonly #message: Buffer;

  constructor(options: Omit<PlainOptions, 'mechanism'>) {
    this.#message = Buffer.from(
      `${options.authorizationId ?? ''}\0${options.username}\0${options.password}`,
      'utf8',
    );
  }

  async authenticate(exchange: SaslExchange): Promise<void> {
    await exchange.send(this.#message);
  }
}

/** SASL/SCRAM-SHA-256 or -512: client-first, client-final, then the server's proof is checked. */
export class ScramMechanism implements SaslMechanism {
  readonly mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512';
  readonly #username: string;
  readonly #password: string;

  constructor(options: ScramOptions) {
    this.mechanism = options.mechanism;
    this.#username = options.username;
    this.#password = options.password;
  }

  async authenticate(exchange: SaslExchange): Promise<void> {
    const scram = new ScramClient(
      this.mechanism === 'SCRAM-SHA-256' ? 'sha256' : 'sha512',
      this.#username,
      this.#password,
    );
    try {
      const serverFirst = await exchange.send(Buffer.from(scram.first(), 'utf8'));
      const clientFinal = await scram.final(serverFirst.toString('utf8'));
      const serverFinal = await exchange.send(Buffer.from(clientFinal, 'utf8'));
      scram.verify(serverFinal.toString('utf8'));
    } catch (err) {
      if (err instanceof ScramError) {
        throw new AuthenticationError(
          'ERR_KAFKA_AUTHENTICATION_FAILED',
          exchange.broker,
          `SASL ${this.mechanism}: ${err.message}`,
        );
      }
      throw err;
    }
  }
}

// RFC 7628 and Kafka's OAuthBearerClientInitialResponse: what a token and an extension may hold.
const TOKEN_PATTERN = /^[-_.a-zA-Z0-9]+$/;
const EXTENSION_KEY_PATTERN = /^[A-Za-z]+$/;
const EXTENSION_VALUE_PATTERN = /^[\x21-\x7E \t\r\n]+$/;
const SEPARATOR = '\x01';

/**
 * SASL/OAUTHBEARER (KIP-255): the client's first message carries the token and the extensions
 * (KIP-342). A refused token is answered with a JSON error challenge; the client answers that
 * with `%x01` and the broker then fails the exchange, whose error carries both.
 */
export class OAuthBearerMechanism implements SaslMechanism {
  readonly mechanism = 'OAUTHBEARER';
  readonly #provider: OAuthBearerTokenProvider;
  readonly #authorizationId: string;
  readonly #now: () => number;

  constructor(options: Omit<OAuthBearerOptions, 'mechanism'>, now: () => number = Date.now) {
    if (typeof options.tokenProvider !== 'function')
      throw new TypeError('sasl.tokenProvider must be a function returning a token');
    this.#provider = options.tokenProvider;
    const authzid = options.authorizationId ?? '';
    if (authzid.includes(','))
      throw new TypeError('sasl.authorizationId cannot hold a comma (RFC 7628 GS2 header)');
    this.#authorizationId = authzid;
    this.#now = now;
  }

  async authenticate(exchange: SaslExchange): Promise<void> {
    const message = this.#initialResponse(await this.#token(exchange.broker), exchange.broker);
    const challenge = await exchange.send(message);
    if (challenge.length === 0) return;
    // The broker refused the token: it fails the exchange once we acknowledge its error.
    const detail = challenge.toString('utf8');
    try {
      await exchange.send(Buffer.from(SEPARATOR, 'latin1'));
    } catch (err) {
      if (err instanceof AuthenticationError) {
        throw new AuthenticationError(
          'ERR_KAFKA_AUTHENTICATION_FAILED',
          exchange.broker,
          `SASL OAUTHBEARER token refused: ${detail} (${err.message.slice(exchange.broker.length + 2)})`,
          { cause: err },
        );
      }
      throw err;
    }
    throw new AuthenticationError(
      'ERR_KAFKA_AUTHENTICATION_FAILED',
      exchange.broker,
      `SASL OAUTHBEARER token refused: ${detail}`,
    );
  }

  async #token(broker: string): Promise<OAuthBearerToken> {
    let got: OAuthBearerToken | string;
    try {
      got = await this.#provider();
    } catch (err) {
      if (err instanceof KafkaError && !err.retriable) {
        throw new AuthenticationError(
          'ERR_KAFKA_AUTHENTICATION_FAILED',
          broker,
          `SASL OAUTHBEARER: the token provider failed: ${err.message}`,
          { cause: err },
        );
      }
      throw err;
    }
    const token = typeof got === 'string' ? { value: got } : got;
    const fail = (why: string) =>
      new AuthenticationError(
        'ERR_KAFKA_AUTHENTICATION_FAILED',
        broker,
        `SASL OAUTHBEARER: the token provider ${why}`,
      );
    if (token === null || typeof token !== 'object' || typeof token.value !== 'string')
      throw fail('returned no token (expected a string or { value })');
    if (!TOKEN_PATTERN.test(token.value))
      throw fail('returned a token with characters a bearer token cannot hold ([-_.a-zA-Z0-9])');
    if (token.expiresAtMs !== undefined && token.expiresAtMs <= this.#now())
      throw fail(`returned a token that expired at ${new Date(token.expiresAtMs).toISOString()}`);
    return token;
  }

  #initialResponse(token: OAuthBearerToken, broker: string): Buffer {
    let extensions = '';
    for (const [key, value] of Object.entries(token.extensions ?? {})) {
      if (key === 'auth' || !EXTENSION_KEY_PATTERN.test(key))
        throw new AuthenticationError(
          'ERR_KAFKA_AUTHENTICATION_FAILED',
          broker,
          `SASL OAUTHBEARER: extension name ${JSON.stringify(key)} is not letters only, or is the reserved "auth"`,
        );
      if (!EXTENSION_VALUE_PATTERN.test(value))
        throw new AuthenticationError(
          'ERR_KAFKA_AUTHENTICATION_FAILED',
          broker,
          `SASL OAUTHBEARER: extension ${key} has a value with characters RFC 7628 does not allow`,
        );
      extensions += `${SEPARATOR}${key}=${value}`;
    }
    // Written as is, as Kafka's OAuthBearerClientInitialResponse does (no saslname escaping).
    const authzid = this.#authorizationId === '' ? '' : `a=${this.#authorizationId}`;
    return Buffer.from(
      `n,${authzid},${SEPARATOR}auth=Bearer ${token.value}${extensions}${SEPARATOR}${SEPARATOR}`,
      'utf8',
    );
  }
}
