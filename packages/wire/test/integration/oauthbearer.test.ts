// SASL/OAUTHBEARER (KIP-255) against real brokers that validate tokens with Kafka's own
// OAuthBearerValidatorCallbackHandler (signature from a JWKS, issuer, audience, expiry), with
// the testkit's token endpoint (client credentials, KIP-768) on the client side. What reaches
// the broker is recorded by the testkit's TCP proxy, not by our own code.
import { MetadataApi, SaslAuthenticateApi } from '@kafkats/codec';
import {
  type ClusterOAuth,
  mintToken,
  type OAuthServer,
  sharedCluster,
  startFaultProxy,
  startOAuthServer,
} from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BrokerConnection,
  type OAuthBearerToken,
  oauthClientCredentials,
} from '../../src/index.js';

const metadata = () => MetadataApi.createRequest({ topics: null, allowAutoTopicCreation: false });

describe('SASL/OAUTHBEARER against Kafka OAuthBearerValidatorCallbackHandler', () => {
  let oauth: ClusterOAuth;
  let server: OAuthServer;
  let host: string;
  let port: number;
  beforeAll(async () => {
    const cluster = sharedCluster();
    const o = cluster.security?.oauth;
    const broker = cluster.brokers[0];
    const p = broker?.ports.SASL_PLAINTEXT;
    if (o == null || broker === undefined || p === undefined)
      throw new Error('the shared cluster has no OAUTHBEARER listener');
    oauth = o;
    host = broker.host;
    port = p;
    server = await startOAuthServer(oauth, [
      { clientId: 'orders-service', clientSecret: 's3cret-orders' },
      { clientId: 'short-lived', clientSecret: 's3cret-short', lifetimeSec: 4 },
    ]);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('authenticates with a static token and answers requests', async () => {
    const token = mintToken(oauth, { subject: 'alice' });
    const c = new BrokerConnection({
      host,
      port,
      sasl: { mechanism: 'OAUTHBEARER', tokenProvider: async () => token },
    });
    try {
      await c.connect();
      const res = await c.send(MetadataApi, metadata());
      expect(res.brokers.length).toBe(sharedCluster().brokers.length);
    } finally {
      await c.close();
    }
  });

  it('authenticates with tokens from an OIDC token endpoint (client credentials)', async () => {
    const provider = oauthClientCredentials({
      tokenEndpointUrl: server.tokenEndpointUrl,
      clientId: 'orders-service',
      clientSecret: 's3cret-orders',
      scope: 'kafka',
    });
    const before = server.issued.get('orders-service') ?? 0;
    const conns = [0, 1, 2].map(
      () =>
        new BrokerConnection({
          host,
          port,
          sasl: { mechanism: 'OAUTHBEARER', tokenProvider: provider },
        }),
    );
    try {
      await Promise.all(conns.map((c) => c.connect()));
      for (const c of conns) await c.send(MetadataApi, metadata());
      // Three connections, one token: the provider caches it and shares the one request.
      expect((server.issued.get('orders-service') ?? 0) - before).toBe(1);
    } finally {
      await Promise.all(conns.map((c) => c.close()));
    }
  });

  it('re-authenticates in place with a fresh token before the session ends (KIP-368)', async () => {
    const proxy = await startFaultProxy({ target: { host, port }, record: true });
    const provider = oauthClientCredentials({
      tokenEndpointUrl: server.tokenEndpointUrl,
      clientId: 'short-lived',
      clientSecret: 's3cret-short',
    });
    const seen: string[] = [];
    const c = new BrokerConnection({
      host: proxy.host,
      port: proxy.port,
      sasl: {
        mechanism: 'OAUTHBEARER',
        tokenProvider: async () => {
          const t = (await provider()) as OAuthBearerToken;
          seen.push(t.value);
          return t;
        },
      },
    });
    try {
      await c.connect();
      // Requests in flight all along: the broker ends a session at the token's expiry (4 s),
      // so without re-authentication a request after it would fail and the socket would close.
      let ok = 0;
      const until = Date.now() + 7000;
      while (Date.now() < until) {
        await Promise.all([c.send(MetadataApi, metadata()), c.send(MetadataApi, metadata())]);
        ok += 2;
        await new Promise((r) => setTimeout(r, 50));
      }
      const auths = proxy.recording().filter((e) => e.apiKey === SaslAuthenticateApi.apiKey);
      expect(auths.length).toBeGreaterThanOrEqual(2);
      expect(auths.every((e) => e.connection === 1 && e.response !== null)).toBe(true);
      expect(proxy.connectionsAccepted).toBe(1);
      // Each login presented a different token: the expiring one was replaced, not re-sent.
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.length).toBeGreaterThanOrEqual(2);
      expect(ok).toBeGreaterThan(20);
    } finally {
      await c.close();
      await proxy.close();
    }
  });

  const refused: [string, () => string][] = [
    [
      'forged (signed by a key outside the JWKS)',
      () => mintToken(oauth, { subject: 'mallory', foreignKey: true }),
    ],
    ['for another audience', () => mintToken(oauth, { subject: 'alice', audience: 'not-kafka' })],
    [
      'from another issuer',
      () => mintToken(oauth, { subject: 'alice', issuer: 'https://elsewhere.invalid' }),
    ],
    [
      'expired past the clock skew',
      () => mintToken(oauth, { subject: 'alice', lifetimeSec: -600 }),
    ],
  ];
  for (const [what, make] of refused) {
    it(`refuses a token ${what} with a fatal AuthenticationError carrying the broker's reason`, async () => {
      const proxy = await startFaultProxy({ target: { host, port } });
      const token = make();
      const c = new BrokerConnection({
        host: proxy.host,
        port: proxy.port,
        sasl: { mechanism: 'OAUTHBEARER', tokenProvider: async () => token },
      });
      try {
        const error = await c.connect().then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(AuthenticationError);
        expect(error).toMatchObject({ code: 'ERR_KAFKA_AUTHENTICATION_FAILED', retriable: false });
        // The broker's JSON error challenge ({"status":"invalid_token"}) is in the message.
        expect((error as Error).message).toMatch(
          /OAUTHBEARER token refused: \{"status":"invalid_token"\}/,
        );
        // Fatal: the connection is closed and not dialled again.
        expect(c.state).toBe('closed');
        expect(proxy.connectionsAccepted).toBe(1);
      } finally {
        await c.close();
        await proxy.close();
      }
    });
  }

  it('fails authentication, not the connection, when the token endpoint refuses the client', async () => {
    const c = new BrokerConnection({
      host,
      port,
      sasl: {
        mechanism: 'OAUTHBEARER',
        tokenProvider: oauthClientCredentials({
          tokenEndpointUrl: server.tokenEndpointUrl,
          clientId: 'orders-service',
          clientSecret: 'Not-The-Secret-7731',
        }),
      },
    });
    try {
      const error = await c.connect().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AuthenticationError);
      expect((error as Error).message).toContain('HTTP 401: invalid_client');
      expect((error as Error).message).not.toContain('Not-The-Secret-7731');
    } finally {
      await c.close();
    }
  });
});
