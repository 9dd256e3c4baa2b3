// The AWS_MSK_IAM payload's shape: a golden vector built by AWS's own Java library
// (aws-msk-iam-auth 2.4.0), the fields each input controls, Jackson's escapes, and the region
// read from Amazon MSK host names. The byte-for-byte comparison with that library over random
// inputs is the conformance suite's (test/conformance).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MSK_IAM_PAYLOAD_VERSION, mskIamPayload, regionOfHost } from '../../src/index.js';

const HOST = 'b-1.c.x.c2.kafka.us-east-1.amazonaws.com';
const base = {
  host: HOST,
  region: 'us-east-1',
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
  signingDate: new Date(Date.UTC(2026, 11, 4, 0, 56, 58)),
  userAgent: 'ua/1',
};

describe('mskIamPayload', () => {
  it('equals the bytes aws-msk-iam-auth 2.4.0 built for the same inputs', async () => {
    // AWS4SignedPayloadGenerator.signedPayload for these credentials, host and user agent,
    // run at 2026-12-04T00:56:58Z
    const java =
      '{"x-amz-date":"20261204T005658Z","x-amz-signedheaders":"host","x-amz-signature":"af0324a0db596a546b3d14b653de6f2db17157982b72136fb809e5781253fd0c","host":"b-1.c.x.c2.kafka.us-east-1.amazonaws.com","action":"kafka-cluster:Connect","x-amz-expires":"900","version":"2020_10_22","x-amz-algorithm":"AWS4-HMAC-SHA256","x-amz-credential":"AKIDEXAMPLE/20261204/us-east-1/kafka-cluster/aws4_request","user-agent":"ua/1"}';
    expect((await mskIamPayload(base)).toString('utf8')).toBe(java);
  });

  it('signs the time, region, host and credentials it is given; a session token travels as is', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.date({ min: new Date('2020-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }),
        fc.constantFrom('eu-west-1', 'ap-southeast-2', 'us-gov-west-1'),
        fc.option(fc.stringMatching(/^[A-Za-z0-9+/=]{1,200}$/), { nil: undefined }),
        async (signingDate, region, sessionToken) => {
          const credentials = { ...base.credentials, ...(sessionToken ? { sessionToken } : {}) };
          const bytes = await mskIamPayload({ ...base, region, signingDate, credentials });
          const fields = JSON.parse(bytes.toString('utf8')) as Record<string, string>;
          const iso = signingDate.toISOString().replace(/[-:]|\.\d{3}/g, '');
          expect(fields['x-amz-date']).toBe(iso);
          expect(fields['x-amz-credential']).toBe(
            `AKIDEXAMPLE/${iso.slice(0, 8)}/${region}/kafka-cluster/aws4_request`,
          );
          expect(fields['x-amz-security-token']).toBe(sessionToken);
          expect(fields.version).toBe(MSK_IAM_PAYLOAD_VERSION);
          expect(fields.action).toBe('kafka-cluster:Connect');
          expect(fields.host).toBe(HOST);
          expect(fields['x-amz-signature']).toMatch(/^[0-9a-f]{64}$/);
          const again = await mskIamPayload({ ...base, region, signingDate, credentials });
          expect(again.equals(bytes)).toBe(true);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('changes the signature with the secret and the second, not with the milliseconds', async () => {
    const sig = async (over: object) =>
      (
        JSON.parse((await mskIamPayload({ ...base, ...over })).toString()) as Record<string, string>
      )['x-amz-signature'];
    const first = await sig({});
    expect(await sig({ signingDate: new Date(base.signingDate.getTime() + 999) })).toBe(first);
    expect(await sig({ signingDate: new Date(base.signingDate.getTime() + 1000) })).not.toBe(first);
    expect(
      await sig({ credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secreT' } }),
    ).not.toBe(first);
  });

  it('escapes the user agent as Jackson does: short escapes, uppercase \\u, astral halves', async () => {
    const bytes = await mskIamPayload({ ...base, userAgent: 'a"b\\c\n\t\u0001\u007fé😀/' });
    expect(bytes.toString('utf8')).toContain(
      '"user-agent":"a\\"b\\\\c\\n\\t\\u0001\u007fé\\uD83D\\uDE00/"',
    );
  });

  it('refuses an expiry SigV4 cannot presign', async () => {
    for (const expiresInSeconds of [0, -1, 1.5, 604_801]) {
      await expect(mskIamPayload({ ...base, expiresInSeconds })).rejects.toThrow(RangeError);
    }
    const week = await mskIamPayload({ ...base, expiresInSeconds: 604_800 });
    expect(JSON.parse(week.toString())['x-amz-expires']).toBe('604800');
  });
});

describe('regionOfHost', () => {
  it('reads the region of provisioned and serverless MSK brokers', () => {
    expect(regionOfHost('b-2.orders.a1b2c3.c4.kafka.eu-west-1.amazonaws.com')).toBe('eu-west-1');
    expect(regionOfHost('b-1-public.orders.a1b2c3.c4.kafka.us-gov-west-1.amazonaws.com')).toBe(
      'us-gov-west-1',
    );
    expect(regionOfHost('boot-abc.c1.kafka-serverless.ap-southeast-2.amazonaws.com')).toBe(
      'ap-southeast-2',
    );
    expect(regionOfHost('B-1.X.Y.C2.KAFKA.US-EAST-2.AMAZONAWS.COM')).toBe('us-east-2');
    expect(regionOfHost('b-1.x.y.c2.kafka.cn-north-1.amazonaws.com.cn')).toBe('cn-north-1');
  });

  it('prefers the label after kafka, then any region-shaped label, else none', () => {
    expect(regionOfHost('us-west-2.b-1.x.kafka.eu-central-1.amazonaws.com')).toBe('eu-central-1');
    expect(regionOfHost('vpce-1.eu-north-1.vpce.amazonaws.com')).toBe('eu-north-1');
    expect(regionOfHost('kafka-1.internal.example.com')).toBeUndefined();
    expect(regionOfHost('10.0.4.17')).toBeUndefined();
    expect(regionOfHost('')).toBeUndefined();
  });
});
