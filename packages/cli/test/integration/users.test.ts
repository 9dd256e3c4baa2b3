// `kafkats users` on the shared cluster: a SCRAM credential set from a password (salted and
// hashed by the client, as Kafka's admin does) lets that user sign in over SASL_PLAINTEXT, as
// Kafka's kafka-configs.sh then lists it; deleted, the user can no longer sign in.
import { sharedCluster } from '@kafkats/testkit';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/index.js';
import { describeUserWithKafka, kafkats, unique } from '../support/run-cli.js';

const shared = sharedCluster();
const b = () => ['--bootstrap', shared.bootstrap];

/** The credentials ConfigCommand lists for `user`: `SCRAM-SHA-512=iterations=8192`, ... */
async function javaCredentials(user: string): Promise<string[]> {
  const out = await describeUserWithKafka(shared.bootstrap, user);
  const line = out.split('\n').find((l) => l.startsWith('SCRAM credential configs')) ?? '';
  return [...line.matchAll(/(SCRAM-SHA-\d+)=iterations=(\d+)/g)].map((m) => `${m[1]}=${m[2]}`);
}

/** `kafkats cluster` signed in as `user` over SASL_PLAINTEXT with SCRAM-SHA-512. */
const signIn = (user: string, password: string) =>
  kafkats(
    [
      'cluster',
      '--bootstrap',
      shared.listeners.SASL_PLAINTEXT!,
      '--sasl-mechanism',
      'SCRAM-SHA-512',
      '--sasl-username',
      user,
    ],
    { env: { KAFKATS_SASL_PASSWORD: password } },
  );

describe('kafkats users, checked by signing in and by kafka-configs.sh', () => {
  it('sets a credential the broker then accepts, lists it, and deletes it', async () => {
    const user = unique('carol');
    const password = 'correct horse battery staple';
    const set = ['users', 'set', user, '--mechanism', 'SCRAM-SHA-512', '--iterations', '8192'];

    const plan = await kafkats([...set, ...b()], { env: { KAFKATS_USER_PASSWORD: password } });
    expect(plan.code, plan.stderr).toBe(0);
    expect(await javaCredentials(user)).toEqual([]);

    const noPassword = await kafkats([...set, '--execute', ...b()]);
    expect(noPassword.code).toBe(ExitCode.USAGE);

    const done = await kafkats([...set, '--execute', '--password-stdin', ...b()], {
      input: `${password}\n`,
    });
    expect(done.code, done.stderr).toBe(0);
    expect(await javaCredentials(user)).toEqual(['SCRAM-SHA-512=8192']);

    // The salted password we computed is what the broker checks a sign-in against.
    let ok = await signIn(user, password);
    for (let i = 0; ok.code !== 0 && i < 20; i++) {
      await new Promise((r) => setTimeout(r, 250));
      ok = await signIn(user, password);
    }
    expect(ok.code, ok.stderr).toBe(0);
    expect((await signIn(user, 'wrong')).code).toBe(ExitCode.AUTHENTICATION);

    const listed = await kafkats(['users', user, ...b(), '--json']);
    expect(JSON.parse(listed.stdout).users).toEqual([
      { user, credentials: [{ mechanism: 'SCRAM-SHA-512', iterations: 8192 }], error: null },
    ]);

    const deleted = await kafkats([
      'users',
      'delete',
      user,
      '--mechanism',
      'SCRAM-SHA-512',
      '--execute',
      ...b(),
    ]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(await javaCredentials(user)).toEqual([]);
    let refused = await signIn(user, password);
    for (let i = 0; refused.code === 0 && i < 20; i++) {
      await new Promise((r) => setTimeout(r, 250));
      refused = await signIn(user, password);
    }
    expect(refused.code).toBe(ExitCode.AUTHENTICATION);
  });
});
