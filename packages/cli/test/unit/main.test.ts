import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/exit-codes.js';
import { main } from '../../src/main.js';
import type { TerminalIo } from '../../src/terminal.js';

async function run(argv: string[], env: Record<string, string> = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => {
    out += d;
  });
  stderr.on('data', (d) => {
    err += d;
  });
  const io: TerminalIo = { stdin: new PassThrough(), stdout, stderr, env };
  const code = await main(argv, io);
  return { code, out, err };
}

describe('main (no broker needed)', () => {
  it('prints help and exits 0 for --help, 1 for no command', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(ExitCode.OK);
    expect(help.out).toContain('Usage: kafkats');
    expect((await run([])).code).toBe(ExitCode.USAGE);
  });

  it('exits 1 with a usage message for an unknown command, a missing argument or a bad option value', async () => {
    for (const argv of [
      ['nope'],
      ['topic'],
      ['consume', 't', '--count', 'many'],
      ['produce', 't', '--acks', '2'],
    ]) {
      const r = await run([...argv, '--bootstrap', '127.0.0.1:1']);
      expect(r.code, argv.join(' ')).toBe(ExitCode.USAGE);
      expect(r.err).toMatch(/error: /);
      expect(r.err).not.toContain('    at ');
    }
  });

  it('refuses a transaction to abort or a hanging search it cannot pin down, before dialling', async () => {
    const abort = ['transactions', 'abort', '--topic', 't', '--partition', '0'];
    for (const [argv, says] of [
      [abort, /--start-offset, or with --producer-id/],
      [[...abort, '--start-offset', '5', '--producer-id', '7'], /not both/],
      [[...abort, '--producer-id', '7', '--producer-epoch', '1'], /--coordinator-epoch/],
      [[...abort, '--start-offset', 'x'], /--start-offset must be an offset/],
      [[...abort, '--producer-id', '7', '--producer-id', '8'], /one --producer-id/],
      [['transactions', 'find-hanging'], /--topic or --broker-id/],
      [
        ['transactions', 'find-hanging', '--broker-id', '1', '--partition', '0'],
        /--partition needs --topic/,
      ],
    ] as const) {
      // Port 1 refuses connections: a command that dialled would fail otherwise.
      const r = await run([...argv, '--bootstrap', '127.0.0.1:1']);
      expect(r.code, argv.join(' ')).toBe(ExitCode.USAGE);
      expect(r.err, argv.join(' ')).toMatch(says);
    }
    // A whole --producer-id spec is taken (the list's own --producer-id does not swallow it):
    // the command goes on to dial.
    const spec = ['--producer-id', '7', '--producer-epoch', '1', '--coordinator-epoch', '-1'];
    const r = await run([...abort, ...spec, '--execute', '--bootstrap', '127.0.0.1:1']);
    expect(r.code).toBe(ExitCode.CONNECTION);
    expect(r.err).toContain('cannot reach the cluster');
  });

  it('exits 1 without dialling when no bootstrap is given, and says how to give one', async () => {
    const r = await run(['topics']);
    expect(r.code).toBe(ExitCode.USAGE);
    expect(r.err).toContain('error: no bootstrap address');
    expect(r.err).toContain('KAFKATS_BOOTSTRAP');
  });

  it('puts a failure as one JSON document on stderr with --json', async () => {
    const r = await run(['topics', '--json']);
    expect(r.code).toBe(ExitCode.USAGE);
    expect(JSON.parse(r.err)).toEqual({
      error: {
        code: 'ERR_KAFKA_CLI_CONFIG_INVALID',
        exitCode: 1,
        message: 'no bootstrap address',
        hint: expect.any(String),
      },
    });
    expect(r.out).toBe('');
  });

  it('shows the stack of a failure only with --debug', async () => {
    const plain = await run(['topics', '--bootstrap', 'nohostport']);
    expect(plain.err).not.toContain('    at ');
    const debug = await run(['topics', '--bootstrap', 'nohostport', '--debug']);
    expect(debug.err).toContain('    at ');
  });
});
