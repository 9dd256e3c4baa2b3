import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SaslMechanism } from '@kafkats/wire';
import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli-error.js';
import { ExitCode } from '../../src/exit-codes.js';
import { DEFAULT_TIMEOUT_MS, resolveSettings } from '../../src/settings.js';

const dir = mkdtempSync(join(tmpdir(), 'kafkats-cli-settings-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

function usageError(fn: () => unknown): CliError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(ExitCode.USAGE);
    return error as CliError;
  }
  throw new Error('expected a CliError');
}

describe('resolveSettings', () => {
  it('takes the bootstrap from the flag, then the config file, then KAFKATS_BOOTSTRAP', () => {
    const config = file('b.json', JSON.stringify({ bootstrap: 'file:1' }));
    const env = { KAFKATS_BOOTSTRAP: 'env:1' };
    expect(resolveSettings({ bootstrap: 'flag:1,flag:2', config }, env).bootstrap).toEqual([
      'flag:1',
      'flag:2',
    ]);
    expect(resolveSettings({ config }, env).bootstrap).toEqual(['file:1']);
    expect(resolveSettings({}, env).bootstrap).toEqual(['env:1']);
  });

  it('refuses a missing or malformed bootstrap with a usage error that says what to pass', () => {
    expect(usageError(() => resolveSettings({}, {})).hint).toContain('--bootstrap');
    expect(usageError(() => resolveSettings({ bootstrap: 'localhost' }, {})).message).toContain(
      '"localhost" is not host:port',
    );
    expect(resolveSettings({ bootstrap: '[::1]:9092' }, {}).bootstrap).toEqual(['[::1]:9092']);
  });

  it('opens the cluster read-only with --read-only or "readOnly" in the file', () => {
    expect(resolveSettings({ bootstrap: 'h:1' }, {}).cluster.readOnly).toBe(false);
    expect(resolveSettings({ bootstrap: 'h:1', readOnly: true }, {}).cluster.readOnly).toBe(true);
    const config = file('ro.json', JSON.stringify({ bootstrap: 'h:1', readOnly: true }));
    expect(resolveSettings({ config }, {}).cluster.readOnly).toBe(true);
  });

  it('turns TLS on with --tls-ca and reads the PEM files, failing early on a missing one', () => {
    const ca = file('ca.pem', 'PEM');
    const s = resolveSettings({ bootstrap: 'h:1', tlsCa: ca }, {});
    expect(s.cluster.connection?.tls).toEqual({ ca: Buffer.from('PEM') });
    expect(resolveSettings({ bootstrap: 'h:1' }, {}).cluster.connection?.tls).toBeUndefined();
    expect(
      usageError(() => resolveSettings({ bootstrap: 'h:1', tlsCa: join(dir, 'absent.pem') }, {}))
        .message,
    ).toContain('absent.pem');
    expect(
      usageError(() => resolveSettings({ bootstrap: 'h:1', tlsCert: ca }, {})).message,
    ).toContain('--tls-cert and --tls-key');
  });

  it('builds SASL from flags and KAFKATS_SASL_PASSWORD, and needs both user and password', () => {
    const s = resolveSettings(
      { bootstrap: 'h:1', saslMechanism: 'scram-sha-512', saslUsername: 'alice' },
      { KAFKATS_SASL_PASSWORD: 'pw' },
    );
    expect(s.cluster.connection?.sasl).toEqual({
      mechanism: 'SCRAM-SHA-512',
      username: 'alice',
      password: 'pw',
    });
    expect(
      usageError(() =>
        resolveSettings({ bootstrap: 'h:1', saslMechanism: 'PLAIN', saslUsername: 'a' }, {}),
      ).message,
    ).toContain('needs a username and a password');
    expect(
      usageError(() =>
        resolveSettings(
          { bootstrap: 'h:1', saslMechanism: 'GSSAPI', saslUsername: 'a', saslPassword: 'p' },
          {},
        ),
      ).message,
    ).toContain('unknown SASL mechanism GSSAPI');
  });

  it('builds OAUTHBEARER from a token endpoint and KAFKATS_SASL_CLIENT_SECRET, or from a token file', async () => {
    const s = resolveSettings(
      {
        bootstrap: 'h:1',
        saslMechanism: 'oauthbearer',
        saslTokenEndpoint: 'https://idp.example/token',
        saslClientId: 'svc',
      },
      { KAFKATS_SASL_CLIENT_SECRET: 'secret' },
    );
    expect(s.cluster.connection?.sasl).toMatchObject({ mechanism: 'OAUTHBEARER' });
    const tokenFile = file('token.jwt', 'eyJh.eyJz.c2ln\n');
    const t = resolveSettings(
      { bootstrap: 'h:1', saslMechanism: 'OAUTHBEARER', saslTokenFile: tokenFile },
      {},
    );
    const sasl = t.cluster.connection?.sasl as { tokenProvider: () => Promise<unknown> };
    expect(await sasl.tokenProvider()).toBe('eyJh.eyJz.c2ln');
    expect(
      usageError(() =>
        resolveSettings(
          { bootstrap: 'h:1', saslMechanism: 'OAUTHBEARER', saslTokenEndpoint: 'https://i/t' },
          {},
        ),
      ).message,
    ).toContain('needs a client id and a client secret');
    expect(
      usageError(() => resolveSettings({ bootstrap: 'h:1', saslMechanism: 'OAUTHBEARER' }, {}))
        .message,
    ).toContain('a token endpoint or a token file');
    expect(
      usageError(() => resolveSettings({ bootstrap: 'h:1', saslTokenFile: tokenFile }, {})).message,
    ).toContain('need --sasl-mechanism OAUTHBEARER');
  });

  it('builds AWS_MSK_IAM from the optional plugin, signing with the region flag and AWS credentials from the environment', async () => {
    const saved = { ...process.env };
    try {
      process.env.AWS_ACCESS_KEY_ID = 'AKIAEXAMPLE';
      process.env.AWS_SECRET_ACCESS_KEY = 'secret';
      const s = resolveSettings(
        { bootstrap: 'h:1', saslMechanism: 'aws_msk_iam', saslAwsRegion: 'eu-west-1' },
        {},
      );
      const sasl = s.cluster.connection?.sasl as SaslMechanism;
      expect(sasl.mechanism).toBe('AWS_MSK_IAM');
      const sent: Buffer[] = [];
      await sasl.authenticate({
        broker: 'kafka-1:9098',
        host: 'kafka-1.internal.example.com',
        send: async (bytes) => {
          sent.push(Buffer.from(bytes));
          return Buffer.from('{"version":"2020_10_22","request-id":"r-1"}');
        },
      });
      const payload = JSON.parse(sent[0]?.toString('utf8') ?? '{}');
      expect(payload['x-amz-credential']).toMatch(
        /^AKIAEXAMPLE\/\d{8}\/eu-west-1\/kafka-cluster\/aws4_request$/,
      );
      expect(payload.host).toBe('kafka-1.internal.example.com');
    } finally {
      process.env = saved;
    }
    const config = file(
      'msk.json',
      JSON.stringify({
        bootstrap: 'h:1',
        sasl: { mechanism: 'AWS_MSK_IAM', awsRegion: 'Ireland' },
      }),
    );
    expect(usageError(() => resolveSettings({ config }, {})).message).toContain(
      '"Ireland" is not an AWS region',
    );
    const missing = usageError(() =>
      resolveSettings({ bootstrap: 'h:1', saslMechanism: 'AWS_MSK_IAM' }, {}, () => false),
    );
    expect(missing.message).toContain('needs the optional package @kafkats/sasl-aws-msk-iam');
    expect(missing.hint).toContain('npm install @kafkats/sasl-aws-msk-iam');
    expect(
      usageError(() => resolveSettings({ bootstrap: 'h:1', saslAwsProfile: 'prod' }, {})).message,
    ).toContain('need --sasl-mechanism AWS_MSK_IAM');
  });

  it('lets a flag win over the config file, field by field', () => {
    const config = file(
      'sasl.json',
      JSON.stringify({
        bootstrap: 'h:1',
        timeoutMs: 5000,
        sasl: { mechanism: 'PLAIN', username: 'file', password: 'p' },
      }),
    );
    const s = resolveSettings({ config, saslUsername: 'flag', timeout: '7000' }, {});
    expect(s.cluster.connection?.sasl).toEqual({
      mechanism: 'PLAIN',
      username: 'flag',
      password: 'p',
    });
    expect(s.timeoutMs).toBe(7000);
    expect(resolveSettings({ config }, {}).timeoutMs).toBe(5000);
    expect(resolveSettings({ bootstrap: 'h:1' }, {}).timeoutMs).toBe(DEFAULT_TIMEOUT_MS);
  });

  it('refuses a config file that is not JSON, not an object, or has an unknown field', () => {
    expect(
      usageError(() => resolveSettings({ config: file('bad.json', '{') }, {})).message,
    ).toContain('is not JSON');
    expect(
      usageError(() => resolveSettings({ config: file('arr.json', '[]') }, {})).message,
    ).toContain('JSON object');
    expect(
      usageError(() => resolveSettings({ config: file('typo.json', '{"bootstap":"h:1"}') }, {}))
        .message,
    ).toContain('unknown field "bootstap"');
    expect(
      usageError(() => resolveSettings({ config: join(dir, 'none.json') }, {})).message,
    ).toContain('ENOENT');
  });

  it('refuses a timeout that is not a positive number of milliseconds', () => {
    expect(
      usageError(() => resolveSettings({ bootstrap: 'h:1', timeout: 'soon' }, {})).message,
    ).toContain('--timeout');
    expect(
      usageError(() => resolveSettings({ bootstrap: 'h:1', timeout: '0' }, {})).message,
    ).toContain('--timeout');
  });
});
