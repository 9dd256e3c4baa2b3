import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { kafkaDist } from './dist.js';
import { compileJava, toolJvmFlags } from './java.js';
import { OWNER_PROPERTY, onProcessExit } from './reaper.js';

/**
 * One of the testkit's Java programs (java/<name>.java) in a JVM of its own, started with its
 * config as JSON, that writes one JSON object per line on stdout and stops on a line `stop`
 * on stdin (or stdin closing): the plumbing under the Java group and share consumers.
 */
export class JavaJsonProcess {
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  #stderrTail = '';

  private constructor(child: ChildProcess, unhook: () => void, onLine: (line: unknown) => void) {
    this.#child = child;
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      this.#stderrTail = (this.#stderrTail + d).slice(-4000);
    });
    createInterface({ input: child.stdout! }).on('line', (text) => {
      let line: unknown;
      try {
        line = JSON.parse(text);
      } catch {
        this.#stderrTail = `${this.#stderrTail}\n(stdout) ${text}`.slice(-4000);
        return;
      }
      onLine(line);
    });
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
   * Compiles java/<name>.java (once) and starts it with `config` as its argument; `onLine`
   * gets each JSON line it writes.
   * @throws TestkitError ERR_KAFKA_TESTKIT_TOOL_FAILED when javac fails
   */
  static async start(
    name: string,
    config: unknown,
    onLine: (line: unknown) => void,
  ): Promise<JavaJsonProcess> {
    const classes = await compileJava(name);
    const dist = kafkaDist();
    const child = spawn(
      'java',
      [
        ...toolJvmFlags(),
        `-D${OWNER_PROPERTY}=${process.pid}`,
        '-cp',
        `${classes}:${dist.classpath}`,
        name,
        JSON.stringify(config),
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const unhook = onProcessExit(() => child.kill('SIGKILL'));
    return new JavaJsonProcess(child, unhook, onLine);
  }

  /** The last lines the JVM wrote to stderr, and stdout lines that were not JSON. */
  get stderrTail(): string {
    return this.#stderrTail;
  }

  /** Asks the program to stop and waits for the JVM to exit; kills it after `graceMs`. */
  async stop(graceMs = 60_000): Promise<void> {
    this.#child.stdin?.write('stop\n');
    this.#child.stdin?.end();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), graceMs);
    await this.#exited;
    clearTimeout(timer);
  }

  /** Kills the JVM at once (a crash: nothing is closed). */
  async kill(): Promise<void> {
    this.#child.kill('SIGKILL');
    await this.#exited;
  }
}
