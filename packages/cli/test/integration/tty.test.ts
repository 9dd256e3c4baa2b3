// The binary under a real pseudo-terminal (tmux): colour and the spinner show on a TTY, and
// neither an escape code nor the spinner when stdout is piped. tmux runs on its own socket, so
// no other tmux server is touched; the test kills only that server.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, unique } from '../support/run-cli.js';

const shared = sharedCluster();
const socket = `kafkats-cli-test-${process.pid}`;
const dir = mkdtempSync(join(tmpdir(), 'kafkats-cli-tty-'));
let topic: string;
const ESC = '\u001b';

function tmux(...args: string[]): string {
  const r = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/**
 * Starts `command` in a 200x50 pane of a new session; the pane stays after it ends. The shell
 * traps SIGINT (its children keep the default), so Ctrl-C ends the command and not the pane.
 */
function session(name: string, command: string): void {
  tmux(
    'new-session',
    '-d',
    '-s',
    name,
    '-x',
    '200',
    '-y',
    '50',
    `sh -c 'trap : INT; ${command}; echo EXIT:$?; sleep 600'`,
  );
}

/** The pane's text; with escapes: `-e` keeps colour attributes as escape sequences. */
const capture = (name: string, escapes = false) =>
  tmux('capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', name);

async function waitFor(
  name: string,
  test: (text: string) => boolean,
  what: string,
  timeoutMs = 90_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = capture(name);
    if (test(text)) return text;
    if (Date.now() > deadline)
      throw new Error(`pane ${name}: no ${what} within ${timeoutMs} ms; it shows:\n${text}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const cli = (args: string) => `${process.execPath} ${BIN} ${args} --bootstrap ${shared.bootstrap}`;

beforeAll(async () => {
  topic = unique('cli-tty');
  await shared.admin.createTopic(topic, { partitions: 2, replicationFactor: 3 });
});
afterAll(() => {
  spawnSync('tmux', ['-L', socket, 'kill-server']);
});

describe('kafkats on a terminal', () => {
  it('colours its tables on a TTY and writes plain text to a file', async () => {
    session('colour', `${cli(`topic ${topic}`)}; ${cli(`topic ${topic}`)} > ${dir}/topic.out 2>&1`);
    await waitFor('colour', (t) => t.includes('EXIT:'), 'exit');
    expect(capture('colour')).toMatch(new RegExp(`topic\\s+${topic}`));
    // Bold (SGR 1), maybe followed by tmux's own colour resets, right before the header text.
    expect(capture('colour', true)).toMatch(
      new RegExp(`${ESC}\\[(0;)?1m(${ESC}\\[\\d+m)*PARTITION`),
    );
    const piped = readFileSync(join(dir, 'topic.out'), 'utf8');
    expect(piped).toMatch(/PARTITION\s+LEADER/);
    expect(piped).not.toContain('\x1b');
  });

  it('shows a spinner while consuming on a TTY; Ctrl-C ends it with exit 130', async () => {
    session('spin', cli(`consume ${topic} --from latest --follow`));
    await waitFor('spin', (t) => new RegExp(`consuming ${topic}`).test(t), 'spinner');
    tmux('send-keys', '-t', 'spin', 'C-c');
    const after = await waitFor('spin', (t) => t.includes('EXIT:'), 'exit');
    expect(after).toContain('EXIT:130');
  });

  it('asks before a change on a terminal: "n" changes nothing, "y" carries it out', async () => {
    const doomed = unique('cli-tty-doomed');
    await shared.admin.createTopic(doomed, { partitions: 1, replicationFactor: 3 });
    session('ask-no', cli(`topic delete ${doomed} --execute`));
    await waitFor('ask-no', (t) => t.includes('[y/N]'), 'the question');
    tmux('send-keys', '-t', 'ask-no', 'n', 'Enter');
    const no = await waitFor('ask-no', (t) => t.includes('EXIT:'), 'exit');
    expect(no).toContain('nothing changed');
    expect(no).toContain('EXIT:0');
    expect(await shared.admin.listTopics()).toContain(doomed);

    session('ask-yes', cli(`topic delete ${doomed} --execute`));
    await waitFor('ask-yes', (t) => t.includes('[y/N]'), 'the question');
    tmux('send-keys', '-t', 'ask-yes', 'y', 'Enter');
    const yes = await waitFor('ask-yes', (t) => t.includes('EXIT:'), 'exit');
    expect(yes).toContain(`deleted topic ${doomed}`);
    expect(await shared.admin.listTopics()).not.toContain(doomed);
  });

  it('shows no spinner and no escape code when stdout is piped', async () => {
    session('piped', `${cli(`consume ${topic} --from latest --follow`)} | cat`);
    // Well past the second after which a spinner would appear.
    await new Promise((r) => setTimeout(r, 5000));
    tmux('send-keys', '-t', 'piped', 'C-c');
    const after = await waitFor('piped', (t) => t.includes('EXIT:'), 'exit');
    expect(after).not.toContain('consuming');
    // Bold, dim or a colour would show as SGR 1, 2, 3x or 9x in the captured cells.
    expect(capture('piped', true)).not.toMatch(new RegExp(`${ESC}\\[(1|2|3\\d|9\\d)[;m]`));
  });
});
