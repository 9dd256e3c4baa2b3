import { createHash, createHmac, pbkdf2, randomBytes, timingSafeEqual } from 'node:crypto';

/** SCRAM (RFC 5802 / RFC 7677) as Kafka speaks it: no channel binding, `n,,` GS2 header. */
export type ScramHash = 'sha256' | 'sha512';

const GS2_HEADER = 'n,,';
/** Kafka refuses credentials with fewer iterations (ScramMechanism minIterations). */
const MIN_ITERATIONS = 4096;
/** Bounds the CPU a hostile server can make us burn in PBKDF2. */
const MAX_ITERATIONS = 1_000_000;

/** The SCRAM exchange failed on our side; `message` never includes the password. */
export class ScramError extends Error {}

function saslName(user: string): string {
  // RFC 5802 5.1: ',' and '=' in the user name are escaped.
  return user.replace(/=/g, '=3D').replace(/,/g, '=2C');
}

function pbkdf2Async(
  password: string,
  salt: Buffer,
  iterations: number,
  hash: ScramHash,
): Promise<Buffer> {
  const keyLength = hash === 'sha256' ? 32 : 64;
  return new Promise((resolve, reject) => {
    // Raw UTF-8, no SASLprep/NFKC: Kafka's ScramFormatter.normalize is just getBytes(UTF_8),
    // and the broker's stored credential was salted that way.
    pbkdf2(Buffer.from(password, 'utf8'), salt, iterations, keyLength, hash, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

function hmac(hash: ScramHash, key: Buffer, text: string): Buffer {
  return createHmac(hash, key).update(text, 'utf8').digest();
}

function parseAttributes(message: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of message.split(',')) {
    const eq = part.indexOf('=');
    if (eq === 1) out.set(part.slice(0, 1), part.slice(2));
  }
  return out;
}

/**
 * One SCRAM client conversation: `first()` -> server-first -> `final(serverFirst)` ->
 * server-final -> `verify(serverFinal)`. The nonce is injectable for the RFC test vectors.
 */
export class ScramClient {
  private readonly hash: ScramHash;
  private readonly user: string;
  private readonly password: string;
  private readonly clientNonce: string;
  private clientFirstBare = '';
  private serverSignature: Buffer | null = null;

  constructor(hash: ScramHash, user: string, password: string, clientNonce?: string) {
    this.hash = hash;
    this.user = user;
    this.password = password;
    this.clientNonce = clientNonce ?? randomBytes(24).toString('base64url');
  }

  /** The client-first message. */
  first(): string {
    this.clientFirstBare = `n=${saslName(this.user)},r=${this.clientNonce}`;
    return GS2_HEADER + this.clientFirstBare;
  }

  /**
   * The client-final message with the proof, computed from the server-first message.
   *
   * @throws ScramError when the server-first message is malformed, does not extend our
   *   nonce, or asks for an iteration count outside [4096, 1000000]
   */
  async final(serverFirst: string): Promise<string> {
    const attrs = parseAttributes(serverFirst);
    const error = attrs.get('e');
    if (error !== undefined) throw new ScramError(`server refused SCRAM: ${error}`);
    const nonce = attrs.get('r');
    const saltText = attrs.get('s');
    const iterations = Number(attrs.get('i'));
    if (nonce === undefined || saltText === undefined || !Number.isInteger(iterations)) {
      throw new ScramError('malformed SCRAM server-first message');
    }
    if (!nonce.startsWith(this.clientNonce) || nonce.length === this.clientNonce.length) {
      throw new ScramError('SCRAM server nonce does not extend the client nonce');
    }
    if (iterations < MIN_ITERATIONS || iterations > MAX_ITERATIONS) {
      throw new ScramError(
        `SCRAM iteration count ${iterations} outside [${MIN_ITERATIONS}, ${MAX_ITERATIONS}]`,
      );
    }
    const salt = Buffer.from(saltText, 'base64');
    const salted = await pbkdf2Async(this.password, salt, iterations, this.hash);
    const clientKey = hmac(this.hash, salted, 'Client Key');
    const storedKey = createHash(this.hash).update(clientKey).digest();
    const finalWithoutProof = `c=${Buffer.from(GS2_HEADER).toString('base64')},r=${nonce}`;
    const authMessage = `${this.clientFirstBare},${serverFirst},${finalWithoutProof}`;
    const clientSignature = hmac(this.hash, storedKey, authMessage);
    const proof = Buffer.alloc(clientKey.length);
    for (let i = 0; i < proof.length; i++) {
      proof[i] = (clientKey[i] as number) ^ (clientSignature[i] as number);
    }
    this.serverSignature = hmac(this.hash, hmac(this.hash, salted, 'Server Key'), authMessage);
    return `${finalWithoutProof},p=${proof.toString('base64')}`;
  }

  /**
   * Checks the server-final message: the server proves it knows the credential too.
   *
   * @throws ScramError on `e=` or a signature that does not match
   */
  verify(serverFinal: string): void {
    const attrs = parseAttributes(serverFinal);
    const error = attrs.get('e');
    if (error !== undefined) throw new ScramError(`server refused SCRAM: ${error}`);
    const v = attrs.get('v');
    const expected = this.serverSignature;
    if (v === undefined || expected === null)
      throw new ScramError('malformed SCRAM server-final message');
    const got = Buffer.from(v, 'base64');
    if (got.length !== expected.length || !timingSafeEqual(got, expected)) {
      throw new ScramError(
        'SCRAM server signature does not match: the server does not hold this credential',
      );
    }
  }
}
