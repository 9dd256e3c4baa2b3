// SASL mechanisms on a scripted broker: the bytes OAUTHBEARER sends (RFC 7628 as Kafka's
// OAuthBearerClientInitialResponse writes them), its answer to an error challenge, what a token
// provider's failures become, a custom mechanism through the public interface, and the OAuth
// client credentials provider (KIP-768) against a scripted token endpoint.
import {
  SaslAuthenticateApi,
  type SaslAuthenticateRequest,
  SaslHandshakeApi,
} from '@kafkats/codec';
import type { FakeBroker } from '@kafkats/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BrokerConnection,
  type BrokerConnectionOptions,
  ConnectionError,
  type OAuthBearerToken,
  OAuthTokenError,
  oauthClientCredentials,
  type SaslExchange,
  type SaslMechanism,
} from '../../src/index.js';
import { decodeRequest, startCodecBroker } from '../helpers/codec-broker.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A broker enabling `mechanisms` whose SaslAuthenticate answers come from `answer` (one per
 * round, in order); every authBytes it receives is kept.
 */
async function saslBroker(
  mechanisms: string[],
  answer: (
    round: number,
    bytes: Buffer,
  ) => {
    errorCode?: number;
    errorMessage?: string;
    authBytes?: Buffer;
    sessionLifetimeMs?: bigint;
  },
): Promise<{ broker: FakeBroker; received: Buffer[] }> {
  const received: Buffer[] = [];
  const broker = await startCodecBroker((raw, conn, reply) => {
    if (raw.apiKey === SaslHandshakeApi.apiKey) {
      reply(SaslHandshakeApi, SaslHandshakeApi.createResponse({ mechanisms }));
    } else if (raw.apiKey === SaslAuthenticateApi.apiKey) {
      const bytes = (decodeRequest(raw).body as SaslAuthenticateRequest).authBytes;
      received.push(Buffer.from(bytes));
      const a = answer(received.length, bytes);
      reply(SaslAuthenticateApi, SaslAuthenticateApi.createResponse(a));
      if ((a.errorCode ?? 0) !== 0) conn.end();
    }
  });
  cleanups.push(() => broker.close());
  return { broker, received };
}

function connect(broker: FakeBroker, options: Partial<BrokerConnectionOptions>): BrokerConnection {
  const c = new BrokerConnection({ host: broker.host, port: broker.port, nodeId: 3, ...options });
  cleanups.push(() => c.close());
  return c;
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as Error,
  );

describe('SASL/OAUTHBEARER', () => {
  it("sends Kafka's client first message: GS2 header, auth=Bearer, extensions, two separators", async () => {
    const { broker, received } = await saslBroker(['OAUTHBEARER'], () => ({}));
    const c = connect(broker, {
      sasl: {
        mechanism: 'OAUTHBEARER',
        authorizationId: 'svc-orders',
        tokenProvider: async () => ({
          value: 'eyJh.eyJz.c2ln',
          extensions: { logicalCluster: 'lkc-1', identityPoolId: 'pool-2' },
        }),
      },
    });
    await c.connect();
    expect(received.map((b) => b.toString('latin1'))).toEqual([
      'n,a=svc-orders,\x01auth=Bearer eyJh.eyJz.c2ln\x01logicalCluster=lkc-1\x01identityPoolId=pool-2\x01\x01',
    ]);
  });

  it('takes a string as a token without extensions, and asks the provider again at every login', async () => {
    let calls = 0;
    const { broker, received } = await saslBroker(['OAUTHBEARER'], () => ({}));
    const options = {
      sasl: { mechanism: 'OAUTHBEARER' as const, tokenProvider: async () => `t${++calls}` },
    };
    await connect(broker, options).connect();
    await connect(broker, options).connect();
    expect(received.map((b) => b.toString('latin1'))).toEqual([
      'n,,\x01auth=Bearer t1\x01\x01',
      'n,,\x01auth=Bearer t2\x01\x01',
    ]);
  });

  it("answers the broker's error challenge with %x01 and fails with both reasons, fatally", async () => {
    const { broker, received } = await saslBroker(['OAUTHBEARER'], (round) =>
      round === 1
        ? { authBytes: Buffer.from('{"status":"invalid_token"}') }
        : {
            errorCode: 58,
            errorMessage:
              'Authentication failed during authentication due to invalid credentials with SASL mechanism OAUTHBEARER',
          },
    );
    const c = connect(broker, {
      sasl: { mechanism: 'OAUTHBEARER', tokenProvider: async () => 'bad.token.x' },
    });
    const e = await failure(c.connect());
    expect(e).toBeInstanceOf(AuthenticationError);
    expect(e).toMatchObject({ code: 'ERR_KAFKA_AUTHENTICATION_FAILED', retriable: false });
    expect(e.message).toContain('token refused: {"status":"invalid_token"}');
    expect(e.message).toContain('invalid credentials with SASL mechanism OAUTHBEARER');
    expect(received.map((b) => b.toString('latin1'))).toEqual([
      'n,,\x01auth=Bearer bad.token.x\x01\x01',
      '\x01',
    ]);
    expect(c.state).toBe('closed');
  });

  const refusedLocally: [string, OAuthBearerToken | string, RegExp][] = [
    ['an expired token', { value: 'a.b.c', expiresAtMs: Date.now() - 1000 }, /expired at/],
    ['a token with a space', 'a b', /cannot hold/],
    ['an extension named auth', { value: 'a.b.c', extensions: { auth: 'x' } }, /reserved "auth"/],
    ['an extension name with a digit', { value: 'a.b.c', extensions: { k1: 'x' } }, /letters only/],
    [
      'an extension value with a control character',
      { value: 'a.b.c', extensions: { k: 'x\x01y' } },
      /RFC 7628/,
    ],
  ];
  for (const [what, token, message] of refusedLocally) {
    it(`refuses ${what} before sending it`, async () => {
      const { broker, received } = await saslBroker(['OAUTHBEARER'], () => ({}));
      const c = connect(broker, {
        sasl: { mechanism: 'OAUTHBEARER', tokenProvider: async () => token },
      });
      const e = await failure(c.connect());
      expect(e).toBeInstanceOf(AuthenticationError);
      expect(e.message).toMatch(message);
      expect(received).toEqual([]);
    });
  }

  it('a provider failing with a non-retriable KafkaError is fatal; any other failure is retriable', async () => {
    const { broker } = await saslBroker(['OAUTHBEARER'], () => ({}));
    const fatal = connect(broker, {
      sasl: {
        mechanism: 'OAUTHBEARER',
        tokenProvider: async () => {
          throw new OAuthTokenError('token endpoint answered HTTP 401: invalid_client', {
            retriable: false,
            status: 401,
          });
        },
      },
    });
    const e1 = await failure(fatal.connect());
    expect(e1).toBeInstanceOf(AuthenticationError);
    expect(e1.message).toContain('the token provider failed: token endpoint answered HTTP 401');
    const transient = connect(broker, {
      sasl: {
        mechanism: 'OAUTHBEARER',
        tokenProvider: async () => {
          throw new Error('ECONNREFUSED');
        },
      },
    });
    const e2 = await failure(transient.connect());
    expect(e2).toBeInstanceOf(ConnectionError);
    expect(e2).toMatchObject({ retriable: true });
  });
});

describe('a custom SaslMechanism', () => {
  it('runs its rounds through the exchange, and the session lifetime is taken from the last', async () => {
    const { broker, received } = await saslBroker(['X-ECHO'], (round) => ({
      authBytes: Buffer.from(`server-${round}`),
      sessionLifetimeMs: round === 2 ? 60_000n : 0n,
    }));
    const heard: string[] = [];
    const mechanism: SaslMechanism = {
      mechanism: 'X-ECHO',
      async authenticate(exchange: SaslExchange) {
        expect(exchange.host).toBe('127.0.0.1');
        heard.push((await exchange.send(Buffer.from('hello'))).toString());
        heard.push((await exchange.send(new Uint8Array([0x6f, 0x6b]))).toString());
      },
    };
    const c = connect(broker, { sasl: mechanism });
    await c.connect();
    expect(received.map(String)).toEqual(['hello', 'ok']);
    expect(heard).toEqual(['server-1', 'server-2']);
    expect(c.state).toBe('ready');
  });

  it('one that sends nothing fails authentication instead of leaving the broker waiting', async () => {
    const { broker } = await saslBroker(['X-NONE'], () => ({}));
    const c = connect(broker, { sasl: { mechanism: 'X-NONE', authenticate: async () => {} } });
    const e = await failure(c.connect());
    expect(e).toBeInstanceOf(AuthenticationError);
    expect(e.message).toContain('finished without sending anything');
  });
});

describe('oauthClientCredentials', () => {
  const jwt = (expSec: number) =>
    `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'svc', exp: expSec })).toString('base64url')}.c2ln`;

  /** A token endpoint that answers from `script` and records each request. */
  function endpoint(script: (n: number) => Response | Error) {
    const requests: { url: string; init: RequestInit }[] = [];
    const fetchFn = (async (url: string | URL, init?: RequestInit) => {
      requests.push({ url: String(url), init: init ?? {} });
      const r = script(requests.length);
      if (r instanceof Error) throw r;
      return r;
    }) as typeof fetch;
    return { requests, fetchFn };
  }
  const json = (status: number, body: object) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

  it('posts the client credentials grant with HTTP Basic auth and the scope', async () => {
    const { requests, fetchFn } = endpoint(() =>
      json(200, { access_token: jwt(2_000_000_000), expires_in: 3600 }),
    );
    const provider = oauthClientCredentials({
      tokenEndpointUrl: 'https://idp.example/oauth2/token',
      clientId: 'svc',
      clientSecret: 'p@ss:word',
      scope: 'kafka write',
      extensions: { logicalCluster: 'lkc-1' },
      fetch: fetchFn,
      now: () => 1_000_000_000_000,
    });
    const token = (await provider()) as OAuthBearerToken;
    expect(token).toEqual({
      value: jwt(2_000_000_000),
      expiresAtMs: 2_000_000_000_000,
      extensions: { logicalCluster: 'lkc-1' },
    });
    const { url, init } = requests[0] as { url: string; init: RequestInit };
    expect(url).toBe('https://idp.example/oauth2/token');
    expect(init.method).toBe('POST');
    const headers = init.headers as Record<string, string>;
    expect(headers.authorization).toBe(`Basic ${Buffer.from('svc:p@ss:word').toString('base64')}`);
    expect(headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(String(init.body)).toBe('grant_type=client_credentials&scope=kafka+write');
  });

  it('caches the token until 80% of its lifetime, sharing one request among concurrent callers', async () => {
    let now = 1_000_000_000_000;
    const { requests, fetchFn } = endpoint((n) =>
      json(200, { access_token: jwt(Math.floor(now / 1000) + 100), token_type: 'Bearer', n }),
    );
    const provider = oauthClientCredentials({
      tokenEndpointUrl: 'http://127.0.0.1:1/token',
      clientId: 'a',
      clientSecret: 'b',
      fetch: fetchFn,
      now: () => now,
    });
    const [a, b, c] = await Promise.all([provider(), provider(), provider()]);
    expect(requests).toHaveLength(1);
    expect(b).toBe(a);
    expect(c).toBe(a);
    now += 79_000;
    expect(await provider()).toBe(a);
    expect(requests).toHaveLength(1);
    now += 2_000;
    const next = (await provider()) as OAuthBearerToken;
    expect(requests).toHaveLength(2);
    expect(next.value).not.toBe((a as OAuthBearerToken).value);
  });

  it('uses expires_in for a token that is not a JWT', async () => {
    const { fetchFn } = endpoint(() => json(200, { access_token: 'opaque-token', expires_in: 60 }));
    const provider = oauthClientCredentials({
      tokenEndpointUrl: 'http://h/t',
      clientId: 'a',
      clientSecret: 'b',
      fetch: fetchFn,
      now: () => 5_000,
    });
    expect(await provider()).toEqual({ value: 'opaque-token', expiresAtMs: 65_000 });
  });

  it('retries an unreachable endpoint, 5xx and 429 with backoff, then gives up retriable', async () => {
    const { requests, fetchFn } = endpoint((n) =>
      n === 1
        ? new TypeError('fetch failed')
        : n === 2
          ? json(503, {})
          : n === 3
            ? json(429, {})
            : json(200, { access_token: jwt(2_000_000_000) }),
    );
    const provider = oauthClientCredentials({
      tokenEndpointUrl: 'http://h/t',
      clientId: 'a',
      clientSecret: 'b',
      fetch: fetchFn,
      retryBackoffMs: 1,
    });
    expect(((await provider()) as OAuthBearerToken).value).toBe(jwt(2_000_000_000));
    expect(requests).toHaveLength(4);

    const down = endpoint(() => json(502, { error: 'bad_gateway' }));
    const failing = oauthClientCredentials({
      tokenEndpointUrl: 'http://h/t',
      clientId: 'a',
      clientSecret: 'b',
      fetch: down.fetchFn,
      retryBackoffMs: 1,
      attempts: 3,
    });
    const e = await failure(failing());
    expect(e).toBeInstanceOf(OAuthTokenError);
    expect(e).toMatchObject({ code: 'ERR_KAFKA_OAUTH_TOKEN', retriable: true, status: 502 });
    expect(down.requests).toHaveLength(3);
  });

  it('fails at once, not retriable, when the endpoint refuses the client or answers no token', async () => {
    const cases: [Response, RegExp][] = [
      [
        json(401, { error: 'invalid_client', error_description: 'bad secret' }),
        /HTTP 401: invalid_client \(bad secret\)/,
      ],
      [json(200, { token_type: 'Bearer' }), /without an access_token/],
      [new Response('<html>', { status: 200 }), /not JSON/],
      [json(200, { access_token: 'opaque' }), /no expiry/],
    ];
    for (const [response, message] of cases) {
      const { requests, fetchFn } = endpoint(() => response);
      const provider = oauthClientCredentials({
        tokenEndpointUrl: 'http://h/t',
        clientId: 'a',
        clientSecret: 'secret-xyz',
        fetch: fetchFn,
        retryBackoffMs: 1,
      });
      const e = await failure(provider());
      expect(e).toBeInstanceOf(OAuthTokenError);
      expect(e).toMatchObject({ retriable: false });
      expect(e.message).toMatch(message);
      expect(e.message).not.toContain('secret-xyz');
      expect(requests).toHaveLength(1);
    }
  });

  it('refuses options that cannot work, at once', () => {
    expect(() =>
      oauthClientCredentials({ tokenEndpointUrl: 'not a url', clientId: 'a', clientSecret: 'b' }),
    ).toThrow(/not a URL/);
    expect(() =>
      oauthClientCredentials({ tokenEndpointUrl: 'ftp://h/t', clientId: 'a', clientSecret: 'b' }),
    ).toThrow(/http\(s\)/);
    expect(() =>
      oauthClientCredentials({
        tokenEndpointUrl: 'http://h/t',
        clientId: 'a',
        clientSecret: 'b',
        refreshWindowFactor: 0.2,
      }),
    ).toThrow(/refreshWindowFactor/);
  });
});
