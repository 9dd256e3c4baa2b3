import { KafkaError } from '@kafkats/codec';
import type { OAuthBearerToken, OAuthBearerTokenProvider } from './sasl.js';

/** Options of {@link oauthClientCredentials}. */
export interface OAuthClientCredentialsOptions {
  /** The OAuth/OIDC token endpoint (Kafka's `sasl.oauthbearer.token.endpoint.url`). */
  readonly tokenEndpointUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Space-separated scopes to ask for (`sasl.oauthbearer.scope`); default none. */
  readonly scope?: string;
  /** SASL extensions sent with every token (KIP-342), e.g. a cloud's logical cluster id. */
  readonly extensions?: Readonly<Record<string, string>>;
  /**
   * The share of a token's lifetime after which a new one is fetched; default 0.8 (Kafka's
   * `sasl.login.refresh.window.factor`). Between 0.5 and 1.
   */
  readonly refreshWindowFactor?: number;
  /** Timeout of one request to the endpoint, ms; default 10000. */
  readonly requestTimeoutMs?: number;
  /**
   * Attempts at the endpoint when it cannot be reached or answers 5xx or 429, with backoff
   * from `retryBackoffMs` doubling to `retryBackoffMaxMs` (Kafka's `sasl.login.retry.backoff.*`);
   * default 4.
   */
  readonly attempts?: number;
  /** Default 100. */
  readonly retryBackoffMs?: number;
  /** Default 10000. */
  readonly retryBackoffMaxMs?: number;
  /** The HTTP client; default the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** The clock, ms since the epoch; default `Date.now`. */
  readonly now?: () => number;
}

/**
 * The token endpoint failed. Code `ERR_KAFKA_OAUTH_TOKEN`. Retriable when the endpoint could
 * not be reached or answered 5xx or 429 after every attempt; not retriable when it refused the
 * client (4xx: wrong id or secret, unknown scope) or answered something that is not a token.
 * The client secret never appears in the message.
 */
export class OAuthTokenError extends KafkaError {
  /** The HTTP status, when the endpoint answered. */
  readonly status: number | undefined;

  constructor(message: string, options: { retriable: boolean; status?: number; cause?: unknown }) {
    super('ERR_KAFKA_OAUTH_TOKEN', message, {
      retriable: options.retriable,
      cause: options.cause,
    });
    this.status = options.status;
  }
}

/**
 * An OAUTHBEARER token provider for the OAuth 2 client credentials grant (KIP-768, as Kafka's
 * `OAuthBearerLoginCallbackHandler` with a token endpoint): it posts
 * `grant_type=client_credentials` (and the scope) with the client id and secret as HTTP Basic
 * authentication, caches the token, and fetches a new one once `refreshWindowFactor` of its
 * lifetime has passed. Concurrent connections share one request. The token's expiry is its
 * JWT `exp` claim, else the answer's `expires_in`.
 *
 * @example
 * const sasl = {
 *   mechanism: 'OAUTHBEARER',
 *   tokenProvider: oauthClientCredentials({ tokenEndpointUrl, clientId, clientSecret }),
 * };
 */
export function oauthClientCredentials(
  options: OAuthClientCredentialsOptions,
): OAuthBearerTokenProvider {
  const url = parseUrl(options.tokenEndpointUrl);
  const factor = options.refreshWindowFactor ?? 0.8;
  if (!(factor >= 0.5 && factor <= 1))
    throw new TypeError(`refreshWindowFactor must be between 0.5 and 1, got ${factor}`);
  const attempts = Math.max(1, Math.floor(options.attempts ?? 4));
  const backoffMs = options.retryBackoffMs ?? 100;
  const backoffMaxMs = options.retryBackoffMaxMs ?? 10_000;
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const now = options.now ?? Date.now;
  const doFetch = options.fetch ?? globalThis.fetch;
  const authorization = `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`, 'utf8').toString('base64')}`;
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (options.scope !== undefined && options.scope !== '') form.set('scope', options.scope);
  const body = form.toString();

  let cached: { token: OAuthBearerToken; refreshAtMs: number } | undefined;
  let inFlight: Promise<OAuthBearerToken> | undefined;

  /** One request: the token and when to fetch the next. */
  const once = async (): Promise<{ token: OAuthBearerToken; refreshAtMs: number }> => {
    let res: Response;
    try {
      res = await doFetch(url, {
        method: 'POST',
        headers: {
          authorization,
          accept: 'application/json',
          'content-type': 'application/x-www-form-urlencoded',
        },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new OAuthTokenError(
        `token endpoint ${url.origin}${url.pathname} could not be reached: ${err instanceof Error ? err.message : String(err)}`,
        { retriable: true, cause: err },
      );
    }
    const text = await res.text().catch(() => '');
    if (!res.ok) {
      throw new OAuthTokenError(
        `token endpoint ${url.origin}${url.pathname} answered HTTP ${res.status}${describeError(text)}`,
        { retriable: res.status >= 500 || res.status === 429, status: res.status },
      );
    }
    const issuedAtMs = now();
    const { value, expiresAtMs } = parseTokenResponse(text, issuedAtMs, url);
    const token: OAuthBearerToken =
      options.extensions === undefined
        ? { value, expiresAtMs }
        : { value, expiresAtMs, extensions: options.extensions };
    return { token, refreshAtMs: issuedAtMs + Math.floor((expiresAtMs - issuedAtMs) * factor) };
  };

  const fetchToken = async (): Promise<OAuthBearerToken> => {
    let delay = backoffMs;
    for (let attempt = 1; ; attempt++) {
      try {
        cached = await once();
        return cached.token;
      } catch (err) {
        if (!(err instanceof OAuthTokenError) || !err.retriable || attempt >= attempts) throw err;
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(backoffMaxMs, delay * 2);
      }
    }
  };

  return async () => {
    const c = cached;
    if (c !== undefined && now() < c.refreshAtMs) return c.token;
    inFlight ??= fetchToken().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(`tokenEndpointUrl ${JSON.stringify(text)} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new TypeError(`tokenEndpointUrl must be http(s), got ${url.protocol}`);
  return url;
}

/** ` (error: description)` from an RFC 6749 error answer, or a bounded excerpt of the body. */
function describeError(text: string): string {
  try {
    const j = JSON.parse(text) as { error?: unknown; error_description?: unknown };
    if (typeof j.error === 'string')
      return `: ${j.error}${typeof j.error_description === 'string' ? ` (${j.error_description.slice(0, 300)})` : ''}`;
  } catch {
    // not JSON
  }
  const excerpt = text.trim().slice(0, 200);
  return excerpt === '' ? '' : `: ${excerpt}`;
}

/** The token of a successful answer, with its expiry (JWT `exp`, else `expires_in`). */
function parseTokenResponse(
  text: string,
  issuedAtMs: number,
  url: URL,
): { value: string; expiresAtMs: number } {
  const bad = (why: string) =>
    new OAuthTokenError(`token endpoint ${url.origin}${url.pathname} ${why}`, {
      retriable: false,
    });
  let j: { access_token?: unknown; expires_in?: unknown };
  try {
    j = JSON.parse(text) as typeof j;
  } catch {
    throw bad('answered something that is not JSON');
  }
  if (
    typeof j !== 'object' ||
    j === null ||
    typeof j.access_token !== 'string' ||
    j.access_token === ''
  )
    throw bad('answered without an access_token');
  const value = j.access_token;
  let expiresAtMs = jwtExpiryMs(value);
  if (expiresAtMs === undefined && typeof j.expires_in === 'number' && j.expires_in > 0)
    expiresAtMs = issuedAtMs + j.expires_in * 1000;
  if (expiresAtMs === undefined)
    throw bad('answered a token with no expiry (no JWT exp claim, no expires_in)');
  if (expiresAtMs <= issuedAtMs) throw bad('answered a token that has already expired');
  return { value, expiresAtMs };
}

/** The `exp` claim of a JWT, in ms, or undefined when `token` is not a JWT with one. */
function jwtExpiryMs(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1] as string, 'base64url').toString('utf8')) as {
      exp?: unknown;
    };
    return typeof claims.exp === 'number' && Number.isFinite(claims.exp)
      ? claims.exp * 1000
      : undefined;
  } catch {
    return undefined;
  }
}
