import type { ScramMechanism } from '@kafkats/client';
import { CliError } from '../cli-error.js';
import { type ChangeFlags, mayChange } from '../confirm.js';
import { type CommandContext, rethrowActionable, withCluster } from '../context.js';

const CLUSTER = { type: 'CLUSTER', name: 'kafka-cluster' };

/**
 * `kafkats users [USER...]`: the SCRAM credentials (mechanism, iterations) of the users, or of
 * every user that has one, as `kafka-configs.sh --describe --entity-type users` lists them.
 */
export async function usersCommand(ctx: CommandContext, users: readonly string[]): Promise<void> {
  const { term } = ctx;
  const result = await withCluster(ctx, (_cluster, admin) =>
    admin
      .describeUserScramCredentials(users.length === 0 ? undefined : users, {
        timeoutMs: ctx.settings.timeoutMs,
      })
      .catch((e: unknown) => rethrowActionable(e, 'DESCRIBE', CLUSTER)),
  );
  const rows = result.users.map((u) => ({
    user: u.user,
    credentials: u.credentials,
    error: u.error === undefined ? null : u.error.message,
  }));
  if (term.json) {
    term.document({ users: rows });
    return;
  }
  if (rows.length === 0) term.note('no SCRAM users');
  else
    term.table(
      ['USER', 'MECHANISM', 'ITERATIONS'],
      rows.flatMap((u) =>
        u.credentials.length === 0
          ? [[u.user, '-', '-']]
          : u.credentials.map((c) => [u.user, c.mechanism, String(c.iterations)]),
      ),
    );
  for (const u of rows) if (u.error !== null) term.note(`${u.user}: ${u.error}`);
}

/** Reads a password from `KAFKATS_USER_PASSWORD` or, with `--password-stdin`, stdin's first line. */
async function passwordOf(ctx: CommandContext, fromStdin: boolean): Promise<string> {
  const env = ctx.term.io.env.KAFKATS_USER_PASSWORD;
  if (!fromStdin) {
    if (env === undefined || env === '')
      throw new CliError(
        'ERR_KAFKA_CLI_USAGE',
        'give the password in env KAFKATS_USER_PASSWORD or on stdin with --password-stdin (never as a flag: flags show in ps)',
      );
    return env;
  }
  let text = '';
  for await (const chunk of ctx.term.io.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  const line = text.split(/\r?\n/)[0] ?? '';
  if (line === '') throw new CliError('ERR_KAFKA_CLI_INPUT_INVALID', 'no password on stdin');
  return line;
}

function mechanismOf(value: string): ScramMechanism {
  const m = value.toUpperCase();
  if (m !== 'SCRAM-SHA-256' && m !== 'SCRAM-SHA-512')
    throw new CliError(
      'ERR_KAFKA_CLI_USAGE',
      `--mechanism takes SCRAM-SHA-256 or SCRAM-SHA-512, got ${value}`,
    );
  return m;
}

/**
 * `kafkats users set USER --mechanism M [--iterations N]`: sets the user's credential for the
 * mechanism from a password, salted and hashed here (AlterUserScramCredentials), after saying
 * what it will do; `kafkats users delete USER --mechanism M` deletes it.
 */
export async function usersAlterCommand(
  ctx: CommandContext,
  action: 'set' | 'delete',
  user: string,
  options: ChangeFlags & {
    readonly mechanism: string;
    readonly iterations?: number;
    readonly passwordStdin?: boolean;
  },
): Promise<void> {
  const { term } = ctx;
  const mechanism = mechanismOf(options.mechanism);
  const iterations = options.iterations ?? 4096;
  const password = action === 'set' ? await passwordOf(ctx, options.passwordStdin === true) : '';
  const result = await withCluster(ctx, async (_cluster, admin) => {
    const plan = { user, mechanism, action, ...(action === 'set' ? { iterations } : {}) };
    if (!term.json)
      term.table(
        ['USER', 'MECHANISM', 'ACTION', 'ITERATIONS'],
        [
          [
            user,
            mechanism,
            action === 'set' ? 'set credential' : 'delete credential',
            action === 'set' ? String(iterations) : '-',
          ],
        ],
      );
    if (
      !(await mayChange(
        ctx,
        options,
        `${action === 'set' ? 'set' : 'delete'} the ${mechanism} credential of ${user}`,
      ))
    )
      return { ...plan, executed: false };
    const answer = await admin.alterUserScramCredentials(
      [
        action === 'set'
          ? { user, mechanism, password, iterations }
          : { user, mechanism, delete: true },
      ],
      { timeoutMs: ctx.settings.timeoutMs },
    );
    const error = answer.users[0]?.error;
    if (error !== undefined) rethrowActionable(error, 'ALTER', CLUSTER);
    term.note(`${action === 'set' ? 'set' : 'deleted'} the ${mechanism} credential of ${user}`);
    return { ...plan, executed: true };
  });
  if (term.json) term.document(result);
}
