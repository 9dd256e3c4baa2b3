import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomUUID,
  sign,
} from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/**
 * How a cluster's brokers validate OAUTHBEARER tokens: Kafka's own
 * `OAuthBearerValidatorCallbackHandler`, with this issuer and audience, and the RS256 key of a
 * JWKS file the testkit wrote (so a detached cluster keeps validating after its starter exits).
 */
export interface ClusterOAuth {
  /** The `iss` the brokers expect. */
  issuer: string;
  /** The `aud` the brokers expect. */
  audience: string;
  /** The JWKS file the brokers read (`sasl.oauthbearer.jwks.endpoint.url=file:...`). */
  jwksPath: string;
  /** The PKCS#8 PEM private key whose public half is in the JWKS: signs the tokens. */
  privateKeyPemPath: string;
  /** The JWKS key id (`kid`) tokens carry. */
  keyId: string;
}

/** Writes a fresh RS256 key pair as a JWKS file and a private key file under `dir`. */
export function writeOAuthMaterial(dir: string): ClusterOAuth {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyId = `kafkats-${randomUUID().slice(0, 8)}`;
  const jwk = publicKey.export({ format: 'jwk' });
  const jwksPath = join(dir, 'jwks.json');
  const privateKeyPemPath = join(dir, 'oauth-signing-key.pem');
  writeFileSync(
    jwksPath,
    JSON.stringify({ keys: [{ ...jwk, kid: keyId, alg: 'RS256', use: 'sig' }] }),
  );
  writeFileSync(privateKeyPemPath, privateKey.export({ format: 'pem', type: 'pkcs8' }), {
    mode: 0o600,
  });
  return {
    issuer: 'https://kafkats-testkit.invalid',
    audience: 'kafka',
    jwksPath,
    privateKeyPemPath,
    keyId,
  };
}

/** What {@link mintToken} puts in a token; everything has a default the brokers accept. */
export interface MintOptions {
  /** The principal (`sub`); the broker sees `User:<subject>`. */
  subject: string;
  /** Seconds until `exp`; default 3600. Negative makes an expired token. */
  lifetimeSec?: number;
  /** Default the cluster's issuer. */
  issuer?: string;
  /** Default the cluster's audience. */
  audience?: string;
  /** Default `'kafka'`. */
  scope?: string;
  /** Signs with a key the brokers do not know (a forged token). */
  foreignKey?: boolean;
}

/** A JWT signed as the cluster's identity provider would sign it (RS256). */
export function mintToken(oauth: ClusterOAuth, options: MintOptions): string {
  const nowSec = Math.floor(Date.now() / 1000);
  const header = { alg: 'RS256', typ: 'JWT', kid: oauth.keyId };
  const claims = {
    iss: options.issuer ?? oauth.issuer,
    aud: options.audience ?? oauth.audience,
    sub: options.subject,
    scope: options.scope ?? 'kafka',
    iat: nowSec,
    exp: nowSec + (options.lifetimeSec ?? 3600),
    jti: randomUUID(),
  };
  const encode = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const input = `${encode(header)}.${encode(claims)}`;
  const key =
    options.foreignKey === true
      ? generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
      : createPrivateKey(readFileSync(oauth.privateKeyPemPath));
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

/** A client the token endpoint knows. */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
  /** The token's `sub`; default the client id. */
  subject?: string;
  /** Seconds each token lives; default 3600. */
  lifetimeSec?: number;
}

/** A running token endpoint (see {@link startOAuthServer}). */
export interface OAuthServer {
  /** `http://127.0.0.1:<port>/oauth2/token`. */
  readonly tokenEndpointUrl: string;
  /** Tokens issued so far, per client id. */
  readonly issued: ReadonlyMap<string, number>;
  /** Requests refused (bad client, bad grant), in order: the `error` code of each. */
  readonly refused: readonly string[];
  /** Answers the next `n` requests with HTTP `status` (an outage), then behaves again. */
  failNext(n: number, status: number): void;
  close(): Promise<void>;
}

/**
 * An OAuth 2 token endpoint for the client credentials grant (RFC 6749 4.4) on 127.0.0.1,
 * signing with the cluster's key: what an OIDC provider (Keycloak, Okta, Entra ID) does for a
 * Kafka client. Client authentication by HTTP Basic or by `client_id`/`client_secret` in the
 * form, errors as RFC 6749 5.2 JSON.
 */
export async function startOAuthServer(
  oauth: ClusterOAuth,
  clients: readonly OAuthClient[],
): Promise<OAuthServer> {
  // The public key must match: a stale key file would mint tokens every broker refuses.
  createPublicKey(createPrivateKey(readFileSync(oauth.privateKeyPemPath)));
  const issued = new Map<string, number>();
  const refused: string[] = [];
  let failures = 0;
  let failStatus = 503;
  const byId = new Map(clients.map((c) => [c.clientId, c]));
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      res.statusCode = 500;
      res.end();
    });
  });
  const answer = (res: ServerResponse, status: number, body: object) => {
    res.statusCode = status;
    res.setHeader('content-type', 'application/json');
    res.setHeader('cache-control', 'no-store');
    res.end(JSON.stringify(body));
  };
  const refuse = (res: ServerResponse, status: number, error: string, description: string) => {
    refused.push(error);
    answer(res, status, { error, error_description: description });
  };
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (failures > 0) {
      failures--;
      answer(res, failStatus, { error: 'temporarily_unavailable' });
      return;
    }
    if (req.method !== 'POST' || req.url !== '/oauth2/token') {
      refuse(res, 404, 'not_found', `${req.method} ${req.url}`);
      return;
    }
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    let id = form.get('client_id');
    let secret = form.get('client_secret');
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
    if (basic !== null) {
      const text = Buffer.from(basic[1] as string, 'base64').toString('utf8');
      const colon = text.indexOf(':');
      id = decodeURIComponent(text.slice(0, colon));
      secret = decodeURIComponent(text.slice(colon + 1));
    }
    if (form.get('grant_type') !== 'client_credentials') {
      refuse(res, 400, 'unsupported_grant_type', `grant_type ${form.get('grant_type')}`);
      return;
    }
    const client = id === null ? undefined : byId.get(id);
    if (client === undefined || client.clientSecret !== secret) {
      refuse(res, 401, 'invalid_client', 'unknown client or wrong secret');
      return;
    }
    const lifetimeSec = client.lifetimeSec ?? 3600;
    const token = mintToken(oauth, {
      subject: client.subject ?? client.clientId,
      lifetimeSec,
      scope: form.get('scope') ?? 'kafka',
    });
    issued.set(client.clientId, (issued.get(client.clientId) ?? 0) + 1);
    answer(res, 200, { access_token: token, token_type: 'Bearer', expires_in: lifetimeSec });
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    tokenEndpointUrl: `http://127.0.0.1:${port}/oauth2/token`,
    issued,
    refused,
    failNext(n: number, status: number) {
      failures = n;
      failStatus = status;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
