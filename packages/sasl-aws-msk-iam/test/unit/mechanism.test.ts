// SASL/AWS_MSK_IAM through a real BrokerConnection against a scripted broker that checks what
// an MSK broker checks: the mechanism, the host it was dialled as, a fresh time, and the SigV4
// signature (recomputed here from the secret with node:crypto, independently of the signer).
// Also: a fresh signature at re-authentication (KIP-368) on the same socket, credentials from
// the provider and from the AWS SDK's default chain, and what each failure becomes.
import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ApiDescriptor,
  ApiVersionsApi,
  apiDescriptor,
  decodeRequestHeader,
  encodeResponseHeader,
  MetadataApi,
  Reader,
  SaslAuthenticateApi,
  type SaslAuthenticateRequest,
  SaslHandshakeApi,
  Writer,
} from '@kafkats/codec';
import { type FakeBroker, startFakeBroker } from '@kafkats/testkit';
import { AuthenticationError, BrokerConnection, type SaslExchange } from '@kafkats/wire';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AwsMskIamMechanism, awsMskIam } from '../../src/index.js';

const HOST = 'b-1.orders.a1b2c3.c4.kafka.eu-west-1.amazonaws.com';
const CREDENTIALS = { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG' };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  vi.useRealTimers();
});

/** What the scripted broker decided about one payload. */
interface Seen {
  fields: Record<string, string>;
  valid: boolean;
}

/** The SigV4 signature of an MSK payload, computed from the secret as AWS documents it. */
function expectedSignature(fields: Record<string, string>, secret: string): string {
  const query = Object.entries({
    Action: fields.action,
    'X-Amz-Algorithm': fields['x-amz-algorithm'],
    'X-Amz-Credential': fields['x-amz-credential'],
    'X-Amz-Date': fields['x-amz-date'],
    'X-Amz-Expires': fields['x-amz-expires'],
    ...(fields['x-amz-security-token'] === undefined
      ? {}
      : { 'X-Amz-Security-Token': fields['x-amz-security-token'] }),
    'X-Amz-SignedHeaders': fields['x-amz-signedheaders'],
  })
    .map(([k, v]) => [encodeURIComponent(k), encodeURIComponent(v as string)])
    .sort(([a], [b]) => (a as string).localeCompare(b as string))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const hash = (s: string) => createHash('sha256').update(s).digest('hex');
  const canonical = ['GET', '/', query, `host:${fields.host}`, '', 'host', hash('')].join('\n');
  const [, day, region, service] = (fields['x-amz-credential'] as string).split('/');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', fields['x-amz-date'], scope, hash(canonical)].join('\n');
  let key: Buffer = Buffer.from(`AWS4${secret}`);
  for (const part of [day, region, service, 'aws4_request']) {
    key = createHmac('sha256', key)
      .update(part as string)
      .digest();
  }
  return createHmac('sha256', key).update(toSign).digest('hex');
}

/**
 * A broker enabling AWS_MSK_IAM that accepts a payload only when its signature, host, region
 * and time check out (answering MSK's JSON, or `answer` when given), with `lifetimeMs` sessions.
 */
async function mskBroker(options: { lifetimeMs?: bigint; answer?: Buffer } = {}) {
  const seen: Seen[] = [];
  const respond = <Res>(
    raw: { apiKey: number; apiVersion: number; correlationId: number },
    api: ApiDescriptor<unknown, Res>,
    body: Res,
  ) => {
    const w = new Writer(128);
    w.pos = 4;
    encodeResponseHeader(
      w,
      { correlationId: raw.correlationId },
      api.responseHeaderVersion(raw.apiVersion),
    );
    api.encodeResponse(w, body, raw.apiVersion);
    w.buf.writeInt32BE(w.pos - 4, 0);
    return Buffer.from(w.finish());
  };
  const broker = await startFakeBroker((raw, conn) => {
    const api = apiDescriptor(raw.apiKey) as ApiDescriptor;
    const r = new Reader(raw.frame);
    decodeRequestHeader(r, api.requestHeaderVersion(raw.apiVersion));
    const body = api.decodeRequest(r, raw.apiVersion);
    if (raw.apiKey === ApiVersionsApi.apiKey) {
      const apiKeys = [ApiVersionsApi, SaslHandshakeApi, SaslAuthenticateApi, MetadataApi].map(
        (d) => ({ apiKey: d.apiKey, minVersion: d.minVersion, maxVersion: d.maxVersion }),
      );
      conn.write(respond(raw, ApiVersionsApi, ApiVersionsApi.createResponse({ apiKeys })));
    } else if (raw.apiKey === SaslHandshakeApi.apiKey) {
      const ok = (body as { mechanism: string }).mechanism === 'AWS_MSK_IAM';
      const answer = SaslHandshakeApi.createResponse({
        errorCode: ok ? 0 : 33,
        mechanisms: ['AWS_MSK_IAM'],
      });
      conn.write(respond(raw, SaslHandshakeApi, answer));
    } else if (raw.apiKey === SaslAuthenticateApi.apiKey) {
      const bytes = Buffer.from((body as SaslAuthenticateRequest).authBytes);
      const fields = JSON.parse(bytes.toString('utf8')) as Record<string, string>;
      const signedAt = Date.parse(
        (fields['x-amz-date'] as string).replace(
          /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/,
          '$1-$2-$3T$4:$5:$6Z',
        ),
      );
      const valid =
        fields.host === HOST &&
        fields.version === '2020_10_22' &&
        (fields['x-amz-credential'] as string).startsWith(`${CREDENTIALS.accessKeyId}/`) &&
        (fields['x-amz-credential'] as string).includes('/eu-west-1/kafka-cluster/') &&
        Math.abs(signedAt - Date.now()) < 300_000 &&
        fields['x-amz-signature'] === expectedSignature(fields, CREDENTIALS.secretAccessKey);
      seen.push({ fields, valid });
      const answer = valid
        ? SaslAuthenticateApi.createResponse({
            authBytes:
              options.answer ??
              Buffer.from(`{"version":"2020_10_22","request-id":"req-${seen.length}"}`),
            sessionLifetimeMs: options.lifetimeMs ?? 0n,
          })
        : SaslAuthenticateApi.createResponse({
            errorCode: 58,
            errorMessage: '[b-1] Access denied',
          });
      conn.write(respond(raw, SaslAuthenticateApi, answer));
      if (!valid) conn.end();
    } else if (raw.apiKey === MetadataApi.apiKey) {
      conn.write(respond(raw, MetadataApi, MetadataApi.createResponse({})));
    }
  });
  cleanups.push(() => broker.close());
  return { broker, seen };
}

/** A connection to `broker` dialled as the MSK host name. */
function dial(broker: FakeBroker, sasl: AwsMskIamMechanism): BrokerConnection {
  const c = new BrokerConnection({
    host: HOST,
    port: broker.port,
    resolver: async () => [{ address: broker.host, family: 4 }],
    sasl,
  });
  cleanups.push(() => c.close());
  return c;
}

const metadata = MetadataApi.createRequest({ topics: [], allowAutoTopicCreation: false });

describe('SASL/AWS_MSK_IAM', () => {
  it('authenticates with a payload the broker verifies, the region read from the host', async () => {
    const { broker, seen } = await mskBroker();
    const c = dial(broker, awsMskIam({ credentials: CREDENTIALS }));
    await c.connect();
    expect(seen.map((s) => s.valid)).toEqual([true]);
    expect(seen[0]?.fields['user-agent']).toMatch(
      /^kafkats-sasl-aws-msk-iam\/\d+\.\d+\.\d+\/node-v/,
    );
    expect(c.state).toBe('ready');
  });

  it('signs afresh at re-authentication on the same socket, with the provider asked again (KIP-368)', async () => {
    const { broker, seen } = await mskBroker({ lifetimeMs: 1_500n });
    let calls = 0;
    const provider = async () => {
      calls++;
      return { ...CREDENTIALS, sessionToken: `token-${calls}` };
    };
    const c = dial(broker, awsMskIam({ credentials: provider, userAgent: 'orders/7' }));
    await c.connect();
    await vi.waitFor(
      async () => {
        await c.send(MetadataApi, metadata);
        expect(seen.length).toBeGreaterThanOrEqual(2);
      },
      { timeout: 10_000, interval: 100 },
    );
    await c.send(MetadataApi, metadata);
    expect(broker.connectionsAccepted).toBe(1);
    expect(seen.every((s) => s.valid)).toBe(true);
    expect(seen[0]?.fields['x-amz-security-token']).toBe('token-1');
    expect(seen[1]?.fields['x-amz-security-token']).toBe('token-2');
    expect(seen[1]?.fields['user-agent']).toBe('orders/7');
    expect(c.state).toBe('ready');
  });

  it('a refused signature is a fatal AuthenticationError carrying the broker message', async () => {
    const { broker, seen } = await mskBroker();
    const c = dial(
      broker,
      awsMskIam({ credentials: { ...CREDENTIALS, secretAccessKey: 'not-the-secret' } }),
    );
    const error = await c.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ code: 'ERR_KAFKA_AUTHENTICATION_FAILED', retriable: false });
    expect((error as Error).message).toContain('Access denied');
    expect(seen.map((s) => s.valid)).toEqual([false]);
  });

  it('takes credentials from the AWS SDK default chain: the environment, or a named profile', async () => {
    const saved = { ...process.env };
    cleanups.push(() => {
      process.env = saved;
    });
    const { broker, seen } = await mskBroker();
    process.env.AWS_ACCESS_KEY_ID = CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = CREDENTIALS.secretAccessKey;
    process.env.AWS_SESSION_TOKEN = 'from-env';
    await dial(broker, awsMskIam()).connect();
    expect(seen[0]).toMatchObject({ valid: true });
    expect(seen[0]?.fields['x-amz-security-token']).toBe('from-env');

    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    delete process.env.AWS_SESSION_TOKEN;
    const dir = mkdtempSync(join(tmpdir(), 'kafkats-aws-'));
    writeFileSync(
      join(dir, 'credentials'),
      `[default]\naws_access_key_id = AKIAWRONG\naws_secret_access_key = wrong\n\n[orders]\naws_access_key_id = ${CREDENTIALS.accessKeyId}\naws_secret_access_key = ${CREDENTIALS.secretAccessKey}\n`,
    );
    writeFileSync(join(dir, 'config'), '');
    process.env.AWS_SHARED_CREDENTIALS_FILE = join(dir, 'credentials');
    process.env.AWS_CONFIG_FILE = join(dir, 'config');
    await dial(broker, awsMskIam({ profile: 'orders' })).connect();
    expect(seen[1]).toMatchObject({ valid: true });
    expect(seen[1]?.fields['x-amz-security-token']).toBeUndefined();
  });

  it('fails fatally, before sending anything, without credentials or without a region', async () => {
    const { broker, seen } = await mskBroker();
    const noCredentials = dial(
      broker,
      awsMskIam({
        credentials: async () => {
          throw new Error('Could not load credentials from any providers');
        },
      }),
    );
    const e1 = await noCredentials.connect().catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(AuthenticationError);
    expect((e1 as Error).message).toContain('no AWS credentials: Could not load credentials');

    const saved = { ...process.env };
    cleanups.push(() => {
      process.env = saved;
    });
    delete process.env.AWS_REGION;
    delete process.env.AWS_DEFAULT_REGION;
    const exchange: SaslExchange = {
      broker: 'kafka-1:9098',
      host: 'kafka-1.internal.example.com',
      send: async () => {
        throw new Error('must not send');
      },
    };
    const e2 = await new AwsMskIamMechanism({ credentials: CREDENTIALS })
      .authenticate(exchange)
      .catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(AuthenticationError);
    expect((e2 as Error).message).toContain('names no AWS region');
    process.env.AWS_REGION = 'eu-west-1';
    const sent: Buffer[] = [];
    await new AwsMskIamMechanism({ credentials: CREDENTIALS }).authenticate({
      ...exchange,
      send: async (bytes) => {
        sent.push(Buffer.from(bytes));
        return Buffer.from('{"version":"2020_10_22","request-id":"r"}');
      },
    });
    expect(JSON.parse(sent[0]?.toString() ?? '{}')['x-amz-credential']).toContain('/eu-west-1/');
    expect(seen).toEqual([]);
  });

  it("refuses a broker answer that is not MSK's response", async () => {
    for (const answer of ['', 'not json', '{"version":"2019_01_01","request-id":"r"}', 'null']) {
      const { broker } = await mskBroker({ answer: Buffer.from(answer) });
      const e = await dial(broker, awsMskIam({ credentials: CREDENTIALS }))
        .connect()
        .catch((err: unknown) => err);
      expect(e, answer).toBeInstanceOf(AuthenticationError);
      expect((e as Error).message).toContain('not a version 2020_10_22 response');
    }
  });

  it('refuses a region option that is not a region name', () => {
    expect(() => awsMskIam({ region: 'Ireland' })).toThrow(TypeError);
    expect(awsMskIam({ region: 'eu-west-1' }).mechanism).toBe('AWS_MSK_IAM');
  });
});
