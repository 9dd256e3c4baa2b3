import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';

/** AWS credentials as the payload is signed with them (an AWS SDK credential identity). */
export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** The session token of temporary credentials (STS, SSO, instance roles). */
  readonly sessionToken?: string;
}

/** What one AWS_MSK_IAM authentication payload is built from. */
export interface MskIamPayloadParams {
  /** The broker's host name, as the client dialled it: it is signed. */
  readonly host: string;
  /** The AWS region the cluster is in, e.g. `eu-west-1`. */
  readonly region: string;
  readonly credentials: AwsCredentials;
  /** The signing time; only its whole seconds count. */
  readonly signingDate: Date;
  /** How long the signature is valid, in seconds; default 900, as AWS's own clients sign. */
  readonly expiresInSeconds?: number;
  /** Sent as `user-agent`, for the broker's logs. */
  readonly userAgent: string;
}

/** The payload's format version, the only one MSK brokers speak. */
export const MSK_IAM_PAYLOAD_VERSION = '2020_10_22';
/** The SigV4 service name MSK's IAM authentication is signed for. */
const SERVICE = 'kafka-cluster';
const ACTION = 'kafka-cluster:Connect';
const DEFAULT_EXPIRES_IN_SECONDS = 900;

/**
 * The client's message for SASL/AWS_MSK_IAM: a SigV4-presigned `GET https://<host>/?Action=
 * kafka-cluster:Connect` (service `kafka-cluster`), its query parameters and `host` header
 * lowercased into one JSON object with the payload `version` and the `user-agent`.
 *
 * The bytes equal those AWS's Java library (`aws-msk-iam-auth`) builds for the same inputs,
 * key order included: it serialises a `java.util.HashMap`, whose order we reproduce (MSK reads
 * the object by key, so the order only matters to byte-for-byte comparison).
 *
 * @throws RangeError when `expiresInSeconds` is not an integer from 1 to 604800 (SigV4's
 *   presigning limit)
 */
export async function mskIamPayload(params: MskIamPayloadParams): Promise<Buffer> {
  const expiresIn = params.expiresInSeconds ?? DEFAULT_EXPIRES_IN_SECONDS;
  if (!Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > 604_800) {
    throw new RangeError(`expiresInSeconds must be an integer from 1 to 604800, not ${expiresIn}`);
  }
  const signer = new SignatureV4({
    credentials: params.credentials,
    region: params.region,
    service: SERVICE,
    sha256: Hash.bind(null, 'sha256'),
    uriEscapePath: true,
    applyChecksum: false,
  });
  const signed = await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname: params.host,
      path: '/',
      query: { Action: ACTION },
      headers: { host: params.host },
    },
    { signingDate: params.signingDate, expiresIn },
  );
  const query = signed.query ?? {};
  const param = (name: string): string => {
    const value = query[name];
    if (typeof value !== 'string') throw new Error(`SigV4 presigning gave no ${name}`);
    return value;
  };
  // Java's insertion order: the presigned query (in the order AWS's SDK adds its parameters),
  // then version, user-agent and the signed headers.
  const entries: [string, string][] = [['action', ACTION]];
  if (params.credentials.sessionToken !== undefined) {
    entries.push(['x-amz-security-token', param('X-Amz-Security-Token')]);
  }
  for (const name of [
    'X-Amz-Algorithm',
    'X-Amz-Date',
    'X-Amz-SignedHeaders',
    'X-Amz-Expires',
    'X-Amz-Credential',
    'X-Amz-Signature',
  ]) {
    entries.push([name.toLowerCase(), param(name)]);
  }
  entries.push(['version', MSK_IAM_PAYLOAD_VERSION], ['user-agent', params.userAgent]);
  entries.push(['host', params.host]);
  return Buffer.from(jsonObject(javaHashMapOrder(entries)), 'utf8');
}

/**
 * The region in an Amazon MSK broker's host name: the label after `kafka` or
 * `kafka-serverless` (`b-1.c.x.c2.kafka.us-east-1.amazonaws.com`), else any label shaped like a
 * region; undefined when there is none (a private DNS name, an IP address).
 */
export function regionOfHost(host: string): string | undefined {
  const labels = host.toLowerCase().split('.');
  const shaped = (label: string | undefined) =>
    label !== undefined && /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/.test(label) ? label : undefined;
  for (let i = 0; i + 1 < labels.length; i++) {
    if (labels[i] === 'kafka' || labels[i] === 'kafka-serverless') {
      const region = shaped(labels[i + 1]);
      if (region !== undefined) return region;
    }
  }
  for (const label of labels) {
    const region = shaped(label);
    if (region !== undefined) return region;
  }
  return undefined;
}

/** `String.hashCode()` of Java, over UTF-16 code units. */
function javaStringHash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return h;
}

/**
 * The order a `java.util.HashMap` iterates `entries` put in this order: by bucket
 * (`(h ^ h >>> 16) & (capacity - 1)`, capacity the power of two that keeps the size within
 * a 0.75 load factor, 16 at least), and by insertion within a bucket (a resize splits buckets
 * without reordering them). Payloads have at most 12 entries, far from treeified buckets.
 */
function javaHashMapOrder(entries: readonly [string, string][]): [string, string][] {
  let capacity = 16;
  while (entries.length > capacity * 0.75) capacity *= 2;
  const bucket = (key: string) => {
    const h = javaStringHash(key);
    return (h ^ (h >>> 16)) & (capacity - 1);
  };
  return entries
    .map((entry, index) => ({ entry, index, bucket: bucket(entry[0]) }))
    .sort((a, b) => a.bucket - b.bucket || a.index - b.index)
    .map((e) => e.entry);
}

/** A JSON object of strings, written as Jackson's ObjectMapper writes one: no spaces. */
function jsonObject(entries: readonly [string, string][]): string {
  return `{${entries.map(([k, v]) => `${jsonString(k)}:${jsonString(v)}`).join(',')}}`;
}

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\f': '\\f',
  '\r': '\\r',
};

// Jackson's UTF-8 writer escapes, besides `"`, `\` and control characters, each UTF-16 half of a
// character beyond the BMP (`\uD834\uDD1E`); other characters go out as UTF-8.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/g;

function jsonString(text: string): string {
  const escaped = text.replace(
    NEEDS_ESCAPE,
    (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`,
  );
  return `"${escaped}"`;
}
