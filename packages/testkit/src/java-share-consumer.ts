import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { kafkaDist } from './dist.js';
import { compileJava, toolJvmFlags } from './java.js';
import { OWNER_PROPERTY, onProcessExit } from './reaper.js';

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
  readonly #exited: Promise<void>;
  readonly #child: ReturnType<typeof spawn>;
  #stderrTail = '';

  private constructor(child: ReturnType<typeof spawn>, unhook: () => void) {
    this.#child = child;
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      this.#stderrTail = (this.#stderrTail + d).slice(-4000);
    });
    createInterface({ input: child.stdout! }).on('line', (text) => this.#onLine(text));
    this.#exited = new Promise((resolve) => {
      child.once('exit', () => {
        unhook();
        resolve();
      });
    });
    child.stdin?.on('error', () => {
      // the process died; stop() still resolves on its exit
    });
  }

  /**
   * Compiles (once) and starts the member; it joins on its first poll.
   * @throws TestkitError ERR_KAFKA_TESTKIT_TOOL_FAILED when javac fails
   */
  static async start(options: JavaShareConsumerOptions): Promise<JavaShareConsumer> {
    const classes = await compileJava('ShareConsumer');
    const dist = kafkaDist();
    const child = spawn(
      'java',
      [
        ...toolJvmFlags(),
        `-D${OWNER_PROPERTY}=${process.pid}`,
        '-cp',
        `${classes}:${dist.classpath}`,
        'ShareConsumer',
        JSON.stringify({
          bootstrap: options.bootstrap,
          groupId: options.groupId,
          topics: options.topics,
        }),
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const unhook = onProcessExit(() => child.kill('SIGKILL'));
    return new JavaShareConsumer(child, unhook);
  }

  #onLine(text: string): void {
    let line: Line;
    try {
      line = JSON.parse(text) as Line;
    } catch {
      this.#stderrTail = `${this.#stderrTail}\n(stdout) ${text}`.slice(-4000);
      return;
    }
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
    return this.#stderrTail;
  }

  /**
   * Asks the member to close (it sends its acknowledgements and leaves the group) and waits for
   * the JVM to exit; kills it after `graceMs`.
   */
  async stop(graceMs = 60_000): Promise<void> {
    this.#child.stdin?.write('stop\n');
    this.#child.stdin?.end();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), graceMs);
    await this.#exited;
    clearTimeout(timer);
  }
}
