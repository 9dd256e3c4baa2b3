import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { jsonReplacer, Terminal, type TerminalIo } from '../../src/terminal.js';

function io(tty: boolean, env: Record<string, string> = {}): TerminalIo & { out: () => string } {
  const stdout = Object.assign(new PassThrough(), { isTTY: tty });
  const stderr = Object.assign(new PassThrough(), { isTTY: tty });
  let text = '';
  stdout.on('data', (d) => {
    text += d;
  });
  return { stdin: new PassThrough(), stdout, stderr, env, out: () => text };
}

describe('Terminal', () => {
  it('is plain when piped, with NO_COLOR, TERM=dumb, --no-color or --json: no escape code at all', () => {
    for (const [t, options] of [
      [io(false), { json: false, color: true }],
      [io(true, { NO_COLOR: '1' }), { json: false, color: true }],
      [io(true, { TERM: 'dumb' }), { json: false, color: true }],
      [io(true), { json: false, color: false }],
      [io(true), { json: true, color: true }],
    ] as const) {
      const term = new Terminal(t, options);
      expect(term.fancy).toBe(false);
      term.table(['A', 'B'], [['x', 'y']], (_r, _c, s) => term.colors.red(s));
      expect(t.out()).not.toContain('\x1b');
    }
  });

  it('colours on a TTY', () => {
    const t = io(true);
    const term = new Terminal(t, { json: false, color: true });
    expect(term.fancy).toBe(true);
    term.table(['A'], [['x']]);
    expect(t.out()).toContain('\x1b[1m');
  });

  it('aligns columns by their text, whatever colour is painted on', () => {
    const t = io(false);
    const term = new Terminal(t, { json: false, color: false });
    term.table(
      ['NAME', 'N'],
      [
        ['a', '1'],
        ['longer', '22'],
      ],
    );
    expect(t.out()).toBe('NAME    N\na       1\nlonger  22\n');
  });

  it('writes one JSON document per line with bigints as decimal strings and bytes as base64', () => {
    const t = io(false);
    new Terminal(t, { json: true, color: true }).document({
      offset: 2n ** 63n - 1n,
      bytes: Buffer.from('hi'),
    });
    expect(t.out()).toBe('{"offset":"9223372036854775807","bytes":"aGk="}\n');
    expect(JSON.stringify({ n: 1n }, jsonReplacer)).toBe('{"n":"1"}');
  });
});
