import { JavaJsonProcess } from './java-json-process.js';

/** How to start one Java share-group member (java/ShareConsumer.java). */
export interface JavaShareConsumerOptions {
  readonly bootstrap: string;
  readonly groupId: string;
  readonly topics: readonly string[];
}

/** A record the Java member accepted (commitSync applied it), value decoded as UTF-8. */
export interface JavaSharedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly deliveryCount: number;
  readonly value: string | null;
}

interface Line {
  t: 'record' | 'ack-failed' | 'closed';
  topic?: string;
  partition?: number;
  offset?: string;
  deliveryCount?: number;
  value?: string | null;
  error?: string;
}

/**
 * Kafka's own `KafkaShareConsumer` (KIP-932) as a member of a share group, in a JVM of its
 * own: it accepts every record it is given (explicit acknowledgement, commitSync per poll) and
 * reports each record once its acknowledgement was applied.
 */
export class JavaShareConsumer {
  /** Every record accepted, in order. */
  readonly records: JavaSharedRecord[] = [];
  /** Acknowledgements the brokers refused, as `topic-partition@offset: error`. */
  readonly failures: string[] = [];
  #process: JavaJsonProcess | undefined;

  private constructor() {}

  /**
   * Compiles (once) and starts the member; it joins on its first poll.
   * @throws TestkitError ERR_KAFKA_TESTKIT_TOOL_FAILED when javac fails
   */
  static async start(options: JavaShareConsumerOptions): Promise<JavaShareConsumer> {
    const member = new JavaShareConsumer();
    member.#process = await JavaJsonProcess.start(
      'ShareConsumer',
      { bootstrap: options.bootstrap, groupId: options.groupId, topics: options.topics },
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
        deliveryCount: line.deliveryCount ?? -1,
        value: line.value ?? null,
      });
    else if (line.t === 'ack-failed')
      this.failures.push(`${line.topic}-${line.partition}@${line.offset}: ${line.error}`);
  }

  /** The last lines the JVM wrote to stderr (for failure messages). */
  get stderrTail(): string {
    return this.#process?.stderrTail ?? '';
  }

  /**
   * Asks the member to close (it sends its acknowledgements and leaves the group) and waits for
   * the JVM to exit; kills it after `graceMs`.
   */
  async stop(graceMs = 60_000): Promise<void> {
    await this.#process?.stop(graceMs);
  }
}
