import type { Readable, Writable } from 'node:stream';
import { createSpinner } from 'nanospinner';
import picocolors from 'picocolors';

/** The streams and environment a command runs in (the real process, or a test's). */
export interface TerminalIo {
  readonly stdin: Readable;
  readonly stdout: Writable & { readonly isTTY?: boolean; readonly columns?: number };
  readonly stderr: Writable & { readonly isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The colour functions output uses; identity functions when colour is off. */
export type Colors = ReturnType<typeof picocolors.createColors>;

/** Something long-running shown on a TTY; a no-op elsewhere. */
export interface Progress {
  update(text: string): void;
  succeed(text?: string): void;
  fail(text?: string): void;
  stop(): void;
}

/** The process's own streams and environment. */
export function processIo(): TerminalIo {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
}

const SILENT: Progress = { update() {}, succeed() {}, fail() {}, stop() {} };

/** How long something may run before a spinner appears, ms. */
const SPINNER_DELAY_MS = 1000;

/**
 * Where output goes and how it looks. Colour and spinners only on a TTY, and never with
 * `NO_COLOR`, `--no-color`, `TERM=dumb` or `--json`: piped output is plain lines without an
 * escape code. Spinners go to stderr, so stdout stays the command's result.
 */
export class Terminal {
  readonly io: TerminalIo;
  readonly json: boolean;
  readonly colors: Colors;
  /** Whether spinners and colour are on. */
  readonly fancy: boolean;

  constructor(io: TerminalIo, options: { json: boolean; color: boolean }) {
    this.io = io;
    this.json = options.json;
    const env = io.env;
    this.fancy =
      !options.json &&
      options.color &&
      io.stdout.isTTY === true &&
      io.stderr.isTTY === true &&
      env.NO_COLOR === undefined &&
      env.TERM !== 'dumb';
    this.colors = picocolors.createColors(this.fancy);
  }

  /** Writes one line to stdout. */
  line(text = ''): void {
    this.io.stdout.write(`${text}\n`);
  }

  /** Writes one JSON document on one line to stdout (bigints as decimal strings). */
  document(value: unknown): void {
    this.io.stdout.write(`${JSON.stringify(value, jsonReplacer)}\n`);
  }

  /** A note for the person (stderr): never part of a result. Suppressed with --json. */
  note(text: string): void {
    if (!this.json) this.io.stderr.write(`${this.colors.dim(text)}\n`);
  }

  /**
   * A spinner on stderr that appears only when the work takes more than a second, and only on
   * a TTY with colour on.
   */
  progress(text: string): Progress {
    if (!this.fancy) return SILENT;
    let current = text;
    let spinner: ReturnType<typeof createSpinner> | undefined;
    const timer = setTimeout(() => {
      spinner = createSpinner(current, { stream: this.io.stderr as NodeJS.WriteStream }).start();
    }, SPINNER_DELAY_MS);
    timer.unref();
    const end = (how: 'success' | 'error' | 'clear', final?: string) => {
      clearTimeout(timer);
      if (spinner === undefined) return;
      if (how === 'clear') spinner.clear().stop();
      else if (how === 'success') spinner.success({ text: final ?? current });
      else spinner.error({ text: final ?? current });
      spinner = undefined;
    };
    return {
      update: (t) => {
        current = t;
        spinner?.update({ text: t });
      },
      succeed: (t) => end('success', t),
      fail: (t) => end('error', t),
      stop: () => end('clear'),
    };
  }

  /**
   * Aligned columns; a header row in bold. Cells are plain strings (colour is applied after
   * measuring, by `paint`, so escape codes never skew the alignment).
   */
  table(
    header: readonly string[],
    rows: readonly (readonly string[])[],
    paint?: (row: number, column: number, cell: string) => string,
  ): void {
    const widths = header.map((h, i) =>
      Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)),
    );
    const pad = (
      cells: readonly string[],
      style: (row: number, c: number, s: string) => string,
      row: number,
    ) =>
      cells
        .map((cell, c) => {
          const padded = c === cells.length - 1 ? cell : cell.padEnd(widths[c] ?? 0);
          return style(row, c, padded);
        })
        .join('  ')
        .trimEnd();
    this.line(pad(header, (_r, _c, s) => this.colors.bold(s), -1));
    rows.forEach((r, i) => {
      this.line(pad(r, paint ?? ((_r, _c, s) => s), i));
    });
  }
}

/** JSON.stringify replacer: bigint as decimal strings, Buffers as base64. */
export function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (
    value !== null &&
    typeof value === 'object' &&
    (value as { type?: unknown }).type === 'Buffer' &&
    Array.isArray((value as { data?: unknown }).data)
  ) {
    return Buffer.from((value as { data: number[] }).data).toString('base64');
  }
  return value;
}
