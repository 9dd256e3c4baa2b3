import { CommanderError } from 'commander';
import { CliError } from './cli-error.js';
import { ExitCode } from './exit-codes.js';
import { explain } from './explain.js';
import { buildProgram, contextOf, type GlobalFlags } from './program.js';
import { processIo, Terminal, type TerminalIo } from './terminal.js';

/**
 * Runs `kafkats` with `argv` (without node and the script) and resolves with the exit code;
 * never throws and never calls `process.exit`. SIGINT and SIGTERM end streaming commands
 * cleanly (exit 130 when the command had not finished on its own).
 *
 * @param io streams and environment; default the process's
 */
export async function main(argv: readonly string[], io: TerminalIo = processIo()): Promise<number> {
  const stopper = new AbortController();
  const onSignal = () => stopper.abort(new CliError('ERR_KAFKA_CLI_USAGE', 'interrupted'));
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // The cluster's retry and backoff timers do not hold the process open (unref'd); this does,
  // for as long as a command runs.
  const keepAlive = setInterval(() => {}, 1 << 30);
  let flags: GlobalFlags = {};
  let bootstrap: readonly string[] = [];
  try {
    const program = buildProgram(io, async (work, command) => {
      flags = command.optsWithGlobals<GlobalFlags>();
      const ctx = contextOf(io, flags, stopper.signal);
      bootstrap = ctx.settings.bootstrap;
      await work(ctx);
    });
    if (argv.length === 0) {
      program.outputHelp();
      return ExitCode.USAGE;
    }
    await program.parseAsync([...argv], { from: 'user' });
    return stopper.signal.aborted ? ExitCode.INTERRUPTED : ExitCode.OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, successfully.
      return error.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE;
    }
    if (stopper.signal.aborted) return ExitCode.INTERRUPTED;
    const json = flags.json === true || argv.includes('--json');
    const term = new Terminal(io, {
      json,
      color: flags.color !== false && !argv.includes('--no-color'),
    });
    const e = await explain(error, bootstrap);
    if (json) {
      io.stderr.write(
        `${JSON.stringify({ error: { code: e.code, exitCode: e.exitCode, message: e.message, hint: e.hint ?? null } })}\n`,
      );
    } else {
      const c = term.colors;
      io.stderr.write(`${c.red(c.bold('error:'))} ${e.message}\n`);
      if (e.hint !== undefined) io.stderr.write(`${c.dim(e.hint.replace(/^/gm, '  '))}\n`);
    }
    if (flags.debug === true || argv.includes('--debug'))
      io.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    return e.exitCode;
  } finally {
    clearInterval(keepAlive);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
