import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { OWNER_PROPERTY } from '../reaper.js';

/** Kafka's own exception, verbatim: the Java class name and its message. */
export interface OracleJavaError {
  readonly class: string;
  readonly message: string;
}

/** One answer of the `encode` op: Kafka's bytes as hex, or the exception Kafka threw. */
export type OracleEncodeResult = { readonly hex: string } | { readonly error: OracleJavaError };

/**
 * One answer of the `decode` op: the message as Kafka's JsonConverter writes it, in the pipe
 * conventions (int64/uint32 as decimal strings, float64 as `{"$f64": text}`, bytes/records as
 * base64 strings, unknown tagged fields in `_unknownTaggedFields`), plus how many input bytes
 * Kafka's reader left unread; or the exception Kafka threw.
 */
export type OracleDecodeResult =
  | { readonly json: unknown; readonly trailing: number }
  | { readonly error: OracleJavaError };

/** A record as the oracle builds and reports it. Bytes are base64, int64 are decimal strings. */
export interface OracleRecord {
  /** Offset relative to the batch's base offset (build); absolute offset is `offset` (decode). */
  readonly offsetDelta?: number;
  readonly offset?: string;
  readonly timestamp: string;
  readonly key: string | null;
  readonly value: string | null;
  readonly headers: readonly { readonly key: string; readonly value: string | null }[];
}

/**
 * A v2 record batch for Kafka's `MemoryRecordsBuilder`. `compression` is Kafka's codec name
 * (`none`, `gzip`, `snappy`, `lz4`, `zstd`); `timestampType` is `CreateTime` or
 * `LogAppendTime`. int64 fields are decimal strings.
 */
export interface OracleBatchDescription {
  /** 2 (default); 0 or 1 build a legacy message set (no headers, producer fields or zstd). */
  readonly magic?: number;
  readonly compression: string;
  readonly timestampType?: string;
  readonly baseOffset: string;
  readonly logAppendTime?: string;
  readonly producerId: string;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  readonly isTransactional: boolean;
  readonly isControl?: boolean;
  readonly partitionLeaderEpoch: number;
  readonly records: readonly OracleRecord[];
}

/** A transaction marker for Kafka's `MemoryRecords.withEndTransactionMarker`; int64 as text. */
export interface OracleEndTransactionMarker {
  readonly type: 'COMMIT' | 'ABORT';
  readonly baseOffset: string;
  readonly timestamp: string;
  readonly partitionLeaderEpoch: number;
  readonly producerId: string;
  readonly producerEpoch: number;
  readonly coordinatorEpoch: number;
}

/** A batch as Kafka's `RecordBatch` reports it after `ensureValid()` (CRC checked). */
export interface OracleDecodedBatch {
  readonly magic: number;
  readonly baseOffset: string;
  readonly lastOffset: string;
  readonly partitionLeaderEpoch: number;
  readonly compression: string;
  readonly timestampType: string;
  /** v2 batches only. */
  readonly baseTimestamp?: string;
  readonly maxTimestamp: string;
  readonly producerId: string;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  readonly isTransactional: boolean;
  readonly isControl: boolean;
  readonly crc: string;
  readonly records: readonly OracleRecord[];
}

/** One API as Kafka's `ApiMessageType` describes it (retired APIs have `oldest > latest`). */
export interface OracleApi {
  readonly apiKey: number;
  readonly name: string;
  readonly oldest: number;
  /** Highest version, unstable ones included. */
  readonly latest: number;
  readonly latestVersionUnstable: boolean;
  /** Kafka's listener enum names: `BROKER`, `CONTROLLER`, `ZK_BROKER`. */
  readonly listeners: readonly string[];
  /** Request and response header version for each version from `oldest` to `latest`. */
  readonly headers: readonly {
    readonly version: number;
    readonly request: number;
    readonly response: number;
  }[];
}

/** A message schema file shipped inside one of the pinned jars. */
export interface OracleSchemaFile {
  readonly path: string;
  readonly text: string;
}

/** An encode request: `json` is JSON text (so int64 values can be written without loss). */
export interface OracleEncodeItem {
  readonly name: string;
  readonly version: number;
  readonly json: string;
}

/**
 * A frame request: Kafka writes header + body (no size prefix) with `RequestUtils.serialize`,
 * choosing the header version its `ApiKeys` gives `version`; `response` asks for a response
 * header (correlation id only) instead of a request header.
 */
export interface OracleFrameItem {
  /** The body's message name, e.g. `MetadataRequest`. */
  readonly name: string;
  readonly apiKey: number;
  readonly version: number;
  readonly correlationId: number;
  readonly clientId: string | null;
  /** The body as JSON text, in the pipe conventions of {@link OracleEncodeItem}. */
  readonly json: string;
  readonly response?: boolean;
}

/** A decode request: Kafka parses `bytes` with the generated reader at `version`. */
export interface OracleDecodeItem {
  readonly name: string;
  readonly version: number;
  readonly bytes: Uint8Array;
}

/**
 * The oracle process failed (could not start, died, or answered something unreadable). Never
 * retriable: like every testkit error, a harness failure is final.
 */
export class OracleError extends Error {
  readonly code: string;
  readonly retriable = false;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OracleError';
    this.code = code;
  }
}

/**
 * A running oracle: one long-lived JVM holding Apache Kafka's generated message classes and
 * record-batch builder from the pinned jars. Requests are pipelined: many may be in flight, each
 * carrying many items, and answers come back in order.
 */
export interface Oracle {
  /** Kafka's bytes for each message (JSON in the pipe conventions), or Kafka's exception. */
  encode(items: readonly OracleEncodeItem[]): Promise<OracleEncodeResult[]>;
  /** Kafka's reading of each byte string, as JSON, or Kafka's exception. */
  decode(items: readonly OracleDecodeItem[]): Promise<OracleDecodeResult[]>;
  /** v2 batch bytes from Kafka's `MemoryRecordsBuilder`, or Kafka's exception. */
  buildBatches(
    batches: readonly OracleBatchDescription[],
  ): Promise<({ readonly hex: string } | { readonly error: OracleJavaError })[]>;
  /** The control batch `MemoryRecords.withEndTransactionMarker` writes for each marker. */
  buildEndTransactionMarkers(
    markers: readonly OracleEndTransactionMarker[],
  ): Promise<({ readonly hex: string } | { readonly error: OracleJavaError })[]>;
  /** Kafka's reading of each byte string as record batches (CRC checked), or its exception. */
  decodeBatches(
    data: readonly Uint8Array[],
  ): Promise<({ readonly batches: OracleDecodedBatch[] } | { readonly error: OracleJavaError })[]>;
  /** The `*.json` schema files directly under `prefix` in the jar whose name starts with `jar`. */
  schemas(jar: string, prefix: string): Promise<OracleSchemaFile[]>;
  /** Every API of Kafka's `ApiMessageType`, retired ones included. */
  apiKeys(): Promise<OracleApi[]>;
  /** Header + body as Kafka frames them (no size prefix), or Kafka's exception. */
  frames(items: readonly OracleFrameItem[]): Promise<OracleEncodeResult[]>;
  /** Ends the JVM; pending and later requests fail with `ERR_KAFKA_TESTKIT_ORACLE_EXITED`. */
  close(): Promise<void>;
}

/** Options for {@link startOracle}. */
export interface StartOracleOptions {
  /** Directory of the pinned Kafka jars; default: what `bin/kafka-dist.mjs` prints. */
  readonly libDir?: string;
  /** The `java` executable; default `java` on the PATH. */
  readonly java?: string;
}

const ORACLE_SOURCE = fileURLToPath(new URL('../../java/Oracle.java', import.meta.url));
const KAFKA_DIST = fileURLToPath(new URL('../../bin/kafka-dist.mjs', import.meta.url));

interface Pending {
  readonly resolve: (value: unknown[]) => void;
  readonly reject: (error: Error) => void;
}

/**
 * Starts the conformance oracle (`packages/testkit/java/Oracle.java`) against the pinned Kafka
 * jars and waits until it answers a ping. The JVM compiles the single source file on start
 * (a few seconds).
 *
 * @throws OracleError `ERR_KAFKA_TESTKIT_ORACLE_START` when Java or the jars are missing or the JVM exits.
 */
export async function startOracle(options: StartOracleOptions = {}): Promise<Oracle> {
  const libDir = options.libDir ?? (await defaultLibDir());
  // The owner mark lets the testkit's reaper and its no-JVM-left-behind check find this JVM;
  // it also exits by itself when our end of its stdin closes.
  const args = [`-D${OWNER_PROPERTY}=${process.pid}`, '-cp', `${libDir}/*`, ORACLE_SOURCE];
  const child = spawn(options.java ?? 'java', args, {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const client = new OracleProcess(child);
  try {
    await client.call('ping', []);
  } catch (cause) {
    await client.close();
    throw new OracleError(
      'ERR_KAFKA_TESTKIT_ORACLE_START',
      `conformance oracle did not start: ${(cause as Error).message}`,
      {
        cause,
      },
    );
  }
  return client;
}

async function defaultLibDir(): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [KAFKA_DIST], {
    maxBuffer: 1 << 24,
  });
  const dist = JSON.parse(stdout) as { libDir?: unknown };
  if (typeof dist.libDir !== 'string')
    throw new OracleError('ERR_KAFKA_TESTKIT_ORACLE_START', 'kafka-dist.mjs printed no libDir');
  return dist.libDir;
}

class OracleProcess implements Oracle {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #buffered = '';
  #stderr = '';
  #exited: Error | null = null;

  constructor(child: ChildProcessWithoutNullStreams) {
    this.#child = child;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.#onData(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      // Keep only the tail: enough to explain a crash, bounded whatever the JVM prints.
      this.#stderr = (this.#stderr + chunk).slice(-8192);
    });
    child.on('error', (error) =>
      this.#fail(
        new OracleError('ERR_KAFKA_TESTKIT_ORACLE_START', error.message, { cause: error }),
      ),
    );
    child.on('exit', (code, signal) =>
      this.#fail(
        new OracleError(
          'ERR_KAFKA_TESTKIT_ORACLE_EXITED',
          `conformance oracle exited (${code ?? signal}); stderr: ${this.#stderr.trim() || '(empty)'}`,
        ),
      ),
    );
    child.stdin.on('error', () => {
      // An EPIPE here is reported by the 'exit' handler with the JVM's own output.
    });
  }

  encode(items: readonly OracleEncodeItem[]): Promise<OracleEncodeResult[]> {
    const texts = items.map(
      (i) => `{"name":${JSON.stringify(i.name)},"version":${i.version | 0},"json":${i.json}}`,
    );
    return this.call('encode', texts) as Promise<OracleEncodeResult[]>;
  }

  decode(items: readonly OracleDecodeItem[]): Promise<OracleDecodeResult[]> {
    const texts = items.map((i) =>
      JSON.stringify({
        name: i.name,
        version: i.version,
        hex: Buffer.from(i.bytes).toString('hex'),
      }),
    );
    return this.call('decode', texts) as Promise<OracleDecodeResult[]>;
  }

  buildBatches(
    batches: readonly OracleBatchDescription[],
  ): Promise<({ readonly hex: string } | { readonly error: OracleJavaError })[]> {
    return this.call(
      'batch-build',
      batches.map((b) => JSON.stringify(b)),
    ) as Promise<({ readonly hex: string } | { readonly error: OracleJavaError })[]>;
  }

  buildEndTransactionMarkers(
    markers: readonly OracleEndTransactionMarker[],
  ): Promise<({ readonly hex: string } | { readonly error: OracleJavaError })[]> {
    return this.call(
      'batch-marker',
      markers.map((m) => JSON.stringify(m)),
    ) as Promise<({ readonly hex: string } | { readonly error: OracleJavaError })[]>;
  }

  decodeBatches(
    data: readonly Uint8Array[],
  ): Promise<({ readonly batches: OracleDecodedBatch[] } | { readonly error: OracleJavaError })[]> {
    return this.call(
      'batch-decode',
      data.map((d) => JSON.stringify({ hex: Buffer.from(d).toString('hex') })),
    ) as Promise<
      ({ readonly batches: OracleDecodedBatch[] } | { readonly error: OracleJavaError })[]
    >;
  }

  async schemas(jar: string, prefix: string): Promise<OracleSchemaFile[]> {
    const [result] = (await this.call('schemas', [JSON.stringify({ jar, prefix })])) as (
      | { files: OracleSchemaFile[] }
      | { error: OracleJavaError }
    )[];
    if (result === undefined || 'error' in result) {
      throw new OracleError(
        'ERR_KAFKA_TESTKIT_ORACLE_REQUEST',
        `schemas ${jar} ${prefix}: ${JSON.stringify(result)}`,
      );
    }
    return result.files;
  }

  frames(items: readonly OracleFrameItem[]): Promise<OracleEncodeResult[]> {
    const texts = items.map(
      (i) =>
        `{"name":${JSON.stringify(i.name)},"apiKey":${i.apiKey | 0},"version":${i.version | 0},` +
        `"correlationId":${i.correlationId | 0},"clientId":${JSON.stringify(i.clientId)},` +
        `"response":${i.response === true},"json":${i.json}}`,
    );
    return this.call('frame', texts) as Promise<OracleEncodeResult[]>;
  }

  async apiKeys(): Promise<OracleApi[]> {
    const [result] = (await this.call('api-keys', ['{}'])) as (
      | { apis: OracleApi[] }
      | { error: OracleJavaError }
    )[];
    if (result === undefined || 'error' in result) {
      throw new OracleError(
        'ERR_KAFKA_TESTKIT_ORACLE_REQUEST',
        `api-keys: ${JSON.stringify(result)}`,
      );
    }
    return result.apis;
  }

  /** Sends one request line whose items are already JSON text; resolves with the results. */
  call(op: string, items: readonly string[]): Promise<unknown[]> {
    if (this.#exited) return Promise.reject(this.#exited);
    const id = this.#nextId++;
    const line = `{"id":${id},"op":${JSON.stringify(op)},"items":[${items.join(',')}]}\n`;
    return new Promise<unknown[]>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#child.stdin.write(line);
    });
  }

  close(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.#child.once('exit', () => resolve());
      this.#child.stdin.end();
      // The JVM exits when stdin closes; the kill is for a JVM stuck in start-up.
      setTimeout(() => this.#child.kill('SIGKILL'), 5000).unref();
    });
  }

  #onData(chunk: string): void {
    this.#buffered += chunk;
    let newline = this.#buffered.indexOf('\n');
    while (newline >= 0) {
      const line = this.#buffered.slice(0, newline);
      this.#buffered = this.#buffered.slice(newline + 1);
      if (line.trim() !== '') this.#onLine(line);
      newline = this.#buffered.indexOf('\n');
    }
  }

  #onLine(line: string): void {
    let message: { id?: number; results?: unknown[]; pong?: boolean; error?: OracleJavaError };
    try {
      message = JSON.parse(line);
    } catch (cause) {
      this.#fail(
        new OracleError(
          'ERR_KAFKA_TESTKIT_ORACLE_PROTOCOL',
          `unreadable oracle line: ${line.slice(0, 200)}`,
          {
            cause,
          },
        ),
      );
      return;
    }
    const pending = message.id === undefined ? undefined : this.#pending.get(message.id);
    if (pending === undefined || message.id === undefined) return;
    this.#pending.delete(message.id);
    if (message.error) {
      pending.reject(
        new OracleError(
          'ERR_KAFKA_TESTKIT_ORACLE_REQUEST',
          `${message.error.class}: ${message.error.message}`,
        ),
      );
    } else {
      pending.resolve(message.results ?? []);
    }
  }

  #fail(error: Error): void {
    if (this.#exited) return;
    this.#exited = error;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }
}
