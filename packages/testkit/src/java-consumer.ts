import { JavaJsonProcess } from './java-json-process.js';

/** How to start one Java group member (java/GroupConsumer.java). */
export interface JavaGroupConsumerOptions {
  readonly bootstrap: string;
  readonly groupId: string;
  readonly topics: readonly string[];
  /** Kafka's `group.protocol`. Default `'consumer'` (KIP-848). */
  readonly groupProtocol?: 'consumer' | 'classic';
  /** Default `'earliest'`. */
  readonly autoOffsetReset?: 'earliest' | 'latest' | 'none';
  readonly isolationLevel?: 'read_uncommitted' | 'read_committed';
}

/** A record the Java member consumed (value decoded as UTF-8). */
export interface JavaConsumedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly value: string | null;
}

interface Line {
  t: 'assigned' | 'revoked' | 'lost' | 'record' | 'closed';
  partitions?: string[];
  topic?: string;
  partition?: number;
  offset?: string;
  value?: string | null;
}

/**
 * Kafka's own `KafkaConsumer` as a member of a group (auto-commit on, so it commits on
 * revocation and close), in a JVM of its own: what it consumed and owns, read from its stdout.
 */
export class JavaGroupConsumer {
  /** Every record consumed, in order. */
  readonly records: JavaConsumedRecord[] = [];
  /** Partitions owned now, as `topic-partition`. */
  readonly owned = new Set<string>();
  #process: JavaJsonProcess | undefined;

  private constructor() {}

  /**
   * Compiles (once) and starts the member; it joins on its first poll.
   * @throws TestkitError ERR_KAFKA_TESTKIT_TOOL_FAILED when javac fails
   */
  static async start(options: JavaGroupConsumerOptions): Promise<JavaGroupConsumer> {
    const member = new JavaGroupConsumer();
    member.#process = await JavaJsonProcess.start(
      'GroupConsumer',
      {
        bootstrap: options.bootstrap,
        groupId: options.groupId,
        topics: options.topics,
        groupProtocol: options.groupProtocol ?? 'consumer',
        autoOffsetReset: options.autoOffsetReset ?? 'earliest',
        isolationLevel: options.isolationLevel ?? 'read_uncommitted',
      },
      (line) => member.#onLine(line as Line),
    );
    return member;
  }

  #onLine(line: Line): void {
    if (line.t === 'record')
      this.records.push({
        topic: line.topic!,
        partition: line.partition!,
        offset: BigInt(line.offset!),
        value: line.value ?? null,
      });
    else if (line.t === 'assigned') for (const p of line.partitions ?? []) this.owned.add(p);
    else if (line.t === 'revoked' || line.t === 'lost')
      for (const p of line.partitions ?? []) this.owned.delete(p);
  }

  /** The last lines the JVM wrote to stderr (for failure messages). */
  get stderrTail(): string {
    return this.#process?.stderrTail ?? '';
  }

  /**
   * Asks the member to close (it commits and leaves the group) and waits for the JVM to exit;
   * kills it after `graceMs`.
   */
  async stop(graceMs = 60_000): Promise<void> {
    await this.#process?.stop(graceMs);
  }

  /** Kills the JVM at once (a crash: no commit, no leave). */
  async kill(): Promise<void> {
    await this.#process?.kill();
  }
}
