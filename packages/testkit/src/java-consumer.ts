import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { kafkaDist } from './dist.js';
import { compileJava, toolJvmFlags } from './java.js';
import { OWNER_PROPERTY, onProcessExit } from './reaper.js';

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
  static async start(options: JavaGroupConsumerOptions): Promise<JavaGroupConsumer> {
    const classes = await compileJava('GroupConsumer');
    const dist = kafkaDist();
    const child = spawn(
      'java',
      [
        ...toolJvmFlags(),
        `-D${OWNER_PROPERTY}=${process.pid}`,
        '-cp',
        `${classes}:${dist.classpath}`,
        'GroupConsumer',
        JSON.stringify({
          bootstrap: options.bootstrap,
          groupId: options.groupId,
          topics: options.topics,
          groupProtocol: options.groupProtocol ?? 'consumer',
          autoOffsetReset: options.autoOffsetReset ?? 'earliest',
          isolationLevel: options.isolationLevel ?? 'read_uncommitted',
        }),
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const unhook = onProcessExit(() => child.kill('SIGKILL'));
    return new JavaGroupConsumer(child, unhook);
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
        value: line.value ?? null,
      });
    else if (line.t === 'assigned') for (const p of line.partitions ?? []) this.owned.add(p);
    else if (line.t === 'revoked' || line.t === 'lost')
      for (const p of line.partitions ?? []) this.owned.delete(p);
  }

  /** The last lines the JVM wrote to stderr (for failure messages). */
  get stderrTail(): string {
    return this.#stderrTail;
  }

  /**
   * Asks the member to close (it commits and leaves the group) and waits for the JVM to exit;
   * kills it after `graceMs`.
   */
  async stop(graceMs = 60_000): Promise<void> {
    this.#child.stdin?.write('stop\n');
    this.#child.stdin?.end();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), graceMs);
    await this.#exited;
    clearTimeout(timer);
  }

  /** Kills the JVM at once (a crash: no commit, no leave). */
  async kill(): Promise<void> {
    this.#child.kill('SIGKILL');
    await this.#exited;
  }
}
