// The AWS_MSK_IAM payload against AWS's own Java library (software.amazon.msk:aws-msk-iam-auth,
// its AWS4SignedPayloadGenerator): the same credentials, host and user agent, and the signing
// time the library used (read back from its payload), must give the same bytes, key order and
// signature included. Random hosts across regions, long-term and session credentials, and user
// agents that need JSON escapes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileJavaSource, mavenClasspath, runJava } from '@kafkats/testkit';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { mskIamPayload, regionOfHost } from '../../src/index.js';

const AWS_LIBRARY = 'software.amazon.msk:aws-msk-iam-auth:2.4.0';
const SOURCE = join(import.meta.dirname, '..', 'support', 'MskIamPayloads.java');
const SEED = Number(process.env.KAFKATS_CONFORMANCE_SEED ?? 20260505);
const RUNS = Math.max(200, Number(process.env.KAFKATS_CONFORMANCE_RUNS ?? 50) * 4);

// Regions of AWS's partitions (commercial, China, GovCloud) that MSK runs in.
const REGIONS = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'ca-central-1',
  'sa-east-1',
  'eu-west-1',
  'eu-west-2',
  'eu-west-3',
  'eu-central-1',
  'eu-central-2',
  'eu-north-1',
  'eu-south-1',
  'eu-south-2',
  'ap-south-1',
  'ap-south-2',
  'ap-northeast-1',
  'ap-northeast-2',
  'ap-northeast-3',
  'ap-southeast-1',
  'ap-southeast-2',
  'ap-southeast-3',
  'ap-east-1',
  'me-south-1',
  'me-central-1',
  'af-south-1',
  'il-central-1',
  'cn-north-1',
  'cn-northwest-1',
  'us-gov-west-1',
  'us-gov-east-1',
];

interface Vector {
  host: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string | undefined;
  userAgent: string;
}

const label = fc.stringMatching(/^[a-z0-9]{1,16}$/);
const host = fc.oneof(
  fc
    .tuple(
      fc.integer({ min: 1, max: 30 }),
      label,
      label,
      fc.integer({ min: 1, max: 25 }),
      fc.constantFrom(...REGIONS),
    )
    .map(([n, name, id, c, region]) => `b-${n}.${name}.${id}.c${c}.kafka.${region}.amazonaws.com`),
  fc
    .tuple(label, fc.integer({ min: 1, max: 3 }), fc.constantFrom(...REGIONS))
    .map(([id, c, region]) => `boot-${id}.c${c}.kafka-serverless.${region}.amazonaws.com`),
);
const base64ish = (min: number, max: number) =>
  fc.stringMatching(new RegExp(`^[A-Za-z0-9+/]{${min},${max}}={0,2}$`));
const userAgent = fc.oneof(
  fc.constant('aws-msk-iam-auth/2.4.0/kafkats'),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({
    unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)),
    maxLength: 30,
  }),
);
const vector: fc.Arbitrary<Vector> = fc.record({
  host,
  accessKeyId: fc.stringMatching(/^(AKIA|ASIA)[A-Z0-9]{16}$/),
  secretAccessKey: fc.stringMatching(/^[A-Za-z0-9+/]{40}$/),
  sessionToken: fc.option(base64ish(100, 600), { nil: undefined }),
  userAgent,
});

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

async function javaPayloads(vectors: readonly Vector[], classpath: string, classes: string) {
  const input = vectors
    .map((v) =>
      [v.host, v.accessKeyId, v.secretAccessKey, v.sessionToken ?? '', v.userAgent]
        .map(b64)
        .join('\t'),
    )
    .join('\n');
  const java = await runJava(`${classes}:${classpath}`, 'MskIamPayloads', [], {
    input: `${input}\n`,
  });
  expect(java.status, java.stderr).toBe(0);
  return java.stdout
    .trimEnd()
    .split('\n')
    .map((line) => Buffer.from(line, 'base64'));
}

/** `20261204T005658Z` as a Date. */
function amzDate(text: string): Date {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (m === null) throw new Error(`not an x-amz-date: ${text}`);
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return new Date(Date.UTC(y, mo - 1, d, h, mi, s));
}

function writeTally(tally: { passed: number; total: number }): void {
  const dir = process.env.KAFKATS_CONFORMANCE_OUT;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'msk-iam.json'), JSON.stringify(tally));
}

describe('AWS_MSK_IAM payload against aws-msk-iam-auth', () => {
  let classpath: string;
  let classes: string;

  beforeAll(async () => {
    classpath = await mavenClasspath([AWS_LIBRARY]);
    classes = await compileJavaSource(SOURCE, classpath);
  }, 600_000);

  it(`builds the same bytes as AWS's Java library for ${RUNS} random inputs`, async () => {
    const vectors = fc.sample(vector, { numRuns: RUNS, seed: SEED });
    const started = Date.now();
    const theirs = await javaPayloads(vectors, classpath, classes);
    expect(theirs).toHaveLength(vectors.length);
    let passed = 0;
    const failures: string[] = [];
    for (const [i, v] of vectors.entries()) {
      const java = theirs[i] as Buffer;
      const fields = JSON.parse(java.toString('utf8')) as Record<string, string>;
      const signingDate = amzDate(fields['x-amz-date'] as string);
      // the library signs at its own clock: it must be this run's time
      expect(Math.abs(signingDate.getTime() - started)).toBeLessThan(300_000);
      const region = regionOfHost(v.host) as string;
      const ours = await mskIamPayload({
        host: v.host,
        region,
        credentials: {
          accessKeyId: v.accessKeyId,
          secretAccessKey: v.secretAccessKey,
          ...(v.sessionToken === undefined ? {} : { sessionToken: v.sessionToken }),
        },
        signingDate,
        // 900, or 899 when the library's clock crossed a second between its two readings
        expiresInSeconds: Number(fields['x-amz-expires']),
        userAgent: v.userAgent,
      });
      if (ours.equals(java)) passed++;
      else if (failures.length < 3)
        failures.push(`${JSON.stringify(v)}\n ours: ${ours}\njava: ${java}`);
    }
    writeTally({ passed, total: vectors.length });
    expect(failures).toEqual([]);
    expect(passed).toBe(vectors.length);
  });
});
