import { ErrorCode, KafkaError, ProtocolError } from '@kafkats/codec';
import { OperationTimeoutError, ReadOnlyError } from '@kafkats/meta';
import { AuthenticationError, ConnectionError } from '@kafkats/wire';
import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli-error.js';
import { actionable } from '../../src/context.js';
import { ExitCode } from '../../src/exit-codes.js';
import { explain } from '../../src/explain.js';

describe('explain', () => {
  it('gives each kind of failure its exit code, by class', async () => {
    const cases: [unknown, ExitCode][] = [
      [new CliError('ERR_KAFKA_CLI_NOT_FOUND', 'x'), ExitCode.NOT_FOUND],
      [new ReadOnlyError('Produce', 0), ExitCode.READ_ONLY],
      [
        new AuthenticationError(
          'ERR_KAFKA_AUTHENTICATION_FAILED',
          'broker 1 (h:1)',
          'bad password (SASL_AUTHENTICATION_FAILED)',
        ),
        ExitCode.AUTHENTICATION,
      ],
      [
        new ProtocolError(ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Metadata v12, topic t'),
        ExitCode.AUTHORIZATION,
      ],
      [
        new ProtocolError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'ListOffsets, t-0'),
        ExitCode.NOT_FOUND,
      ],
      [new ProtocolError(ErrorCode.POLICY_VIOLATION, 'CreateTopics'), ExitCode.BROKER],
      [
        new OperationTimeoutError('Metadata timed out after 30000 ms', new Error('slow')),
        ExitCode.TIMEOUT,
      ],
      [new KafkaError('ERR_KAFKA_SOMETHING', 'else'), ExitCode.BROKER],
      [new TypeError('x is undefined'), ExitCode.INTERNAL],
    ];
    for (const [error, code] of cases)
      expect((await explain(error, [])).exitCode, String(error)).toBe(code);
  });

  it('finds the telling error inside a timeout: a failed authentication is exit 3, not a timeout', async () => {
    const auth = new AuthenticationError(
      'ERR_KAFKA_AUTHENTICATION_FAILED',
      'bootstrap (h:1)',
      'SASL PLAIN authentication failed: bad credentials',
    );
    const e = await explain(new OperationTimeoutError('Metadata timed out', auth), []);
    expect(e.exitCode).toBe(ExitCode.AUTHENTICATION);
    expect(e.message).toContain('bad credentials');
  });

  it('says which addresses an unreachable bootstrap tried, with what each resolves to in IPv4 and IPv6', async () => {
    const refused = new ConnectionError(
      'ERR_KAFKA_CONNECTION_FAILED',
      'bootstrap (127.0.0.1:1)',
      'could not connect to any address (127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1)',
    );
    const e = await explain(new OperationTimeoutError('Metadata timed out', refused), [
      '127.0.0.1:1',
      '[::1]:2',
      'name.invalid:3',
    ]);
    expect(e.exitCode).toBe(ExitCode.CONNECTION);
    expect(e.message).toContain('ECONNREFUSED');
    expect(e.hint).toContain('tried 127.0.0.1:1, [::1]:2, name.invalid:3');
    expect(e.hint).toContain('127.0.0.1:1: IPv4 127.0.0.1; IPv6 none');
    expect(e.hint).toContain('[::1]:2: IPv4 none; IPv6 ::1');
    expect(e.hint).toMatch(/name\.invalid:3: name\.invalid does not resolve/);
  });

  it('never leaks a stack or "internal" wording for an expected failure', async () => {
    const e = await explain(new ReadOnlyError('CreateTopics', 19), []);
    expect(e.message).toBe(
      'refused by --read-only: CreateTopics (key 19) changes the cluster; this cluster was opened read-only',
    );
    expect(e.message).not.toContain('    at ');
  });
});

describe('actionable', () => {
  it('names the operation and the resource a missing ACL is about, with the command that grants it', () => {
    const e = actionable(
      new ProtocolError(ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Produce'),
      'WRITE',
      { type: 'TOPIC', name: 'orders' },
    );
    expect(e).toBeInstanceOf(CliError);
    expect((e as CliError).exitCode).toBe(ExitCode.AUTHORIZATION);
    expect((e as CliError).message).toBe(
      'not authorized: WRITE on TOPIC orders was denied (TOPIC_AUTHORIZATION_FAILED)',
    );
    expect((e as CliError).hint).toContain('--operation WRITE --topic orders');
    const cluster = actionable(
      new ProtocolError(ErrorCode.CLUSTER_AUTHORIZATION_FAILED),
      'DESCRIBE',
      { type: 'TOPIC', name: 'x' },
    );
    expect((cluster as CliError).message).toContain('DESCRIBE on the CLUSTER');
  });

  it('finds the broker error inside a wrapping one, and names the cluster operation for the cluster', () => {
    const wrapped = new KafkaError('ERR_KAFKA_PRODUCER_FATAL', 'InitProducerId failed', {
      cause: new ProtocolError(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'InitProducerId v5'),
    });
    const e = actionable(wrapped, 'WRITE', { type: 'TOPIC', name: 'orders' }, 'IDEMPOTENT_WRITE');
    expect((e as CliError).message).toBe(
      'not authorized: IDEMPOTENT_WRITE on the CLUSTER was denied (CLUSTER_AUTHORIZATION_FAILED)',
    );
    expect((e as CliError).hint).toContain('--operation IDEMPOTENT_WRITE --cluster');
  });

  it('turns an unknown topic into a not-found error, and leaves other errors as they are', () => {
    const e = actionable(new ProtocolError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION), 'READ', {
      type: 'TOPIC',
      name: 'nope',
    });
    expect((e as CliError).message).toBe('topic nope does not exist (UNKNOWN_TOPIC_OR_PARTITION)');
    expect((e as CliError).exitCode).toBe(ExitCode.NOT_FOUND);
    const other = new ProtocolError(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    expect(actionable(other, 'READ', { type: 'TOPIC', name: 'x' })).toBe(other);
  });
});
