import { createInterface } from 'node:readline';
import type { CommandContext } from './context.js';

/** The flags every command that changes the cluster takes. */
export interface ChangeFlags {
  /** Carry the plan out (without it, the plan is shown and nothing changes). */
  readonly execute?: boolean;
  /** Show the plan and change nothing, even with `--execute`. */
  readonly dryRun?: boolean;
  /** Do not ask on a terminal. */
  readonly yes?: boolean;
}

/**
 * Whether a command that has just shown its plan may carry it out. Nothing changes without
 * `--execute` (as in `kafka-consumer-groups.sh --reset-offsets`), nor with `--dry-run`; on a
 * terminal (stdin and stderr both TTYs) the person is also asked, `question` followed by
 * `[y/N]`, unless `--yes`. Says why when the answer is no.
 */
export async function mayChange(
  ctx: CommandContext,
  flags: ChangeFlags,
  question: string,
): Promise<boolean> {
  const { term } = ctx;
  if (flags.dryRun === true) {
    term.note('dry run: nothing changed');
    return false;
  }
  if (flags.execute !== true) {
    term.note('nothing changed: add --execute to carry this out');
    return false;
  }
  const stdin = term.io.stdin as NodeJS.ReadableStream & { isTTY?: boolean };
  if (flags.yes === true || stdin.isTTY !== true || term.io.stderr.isTTY !== true) return true;
  const answer = await ask(ctx, `${question} [y/N] `);
  if (/^y(es)?$/i.test(answer.trim())) return true;
  term.note('nothing changed');
  return false;
}

/** One line read from the terminal after `prompt` (empty when interrupted). */
function ask(ctx: CommandContext, prompt: string): Promise<string> {
  const { io } = ctx.term;
  return new Promise((resolve) => {
    const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: true });
    const done = (answer: string) => {
      ctx.signal.removeEventListener('abort', interrupted);
      rl.close();
      resolve(answer);
    };
    const interrupted = () => done('');
    ctx.signal.addEventListener('abort', interrupted, { once: true });
    rl.question(prompt, done);
  });
}
