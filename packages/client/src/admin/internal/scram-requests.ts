import { pbkdf2Sync, randomBytes } from 'node:crypto';
import {
  AlterUserScramCredentialsApi,
  type AlterUserScramCredentialsRequestScramCredentialDeletion,
  type AlterUserScramCredentialsRequestScramCredentialUpsertion,
  createAlterUserScramCredentialsRequest,
  createAlterUserScramCredentialsRequestScramCredentialDeletion,
  createAlterUserScramCredentialsRequestScramCredentialUpsertion,
  createDescribeUserScramCredentialsRequest,
  createDescribeUserScramCredentialsRequestUserName,
  DescribeUserScramCredentialsApi,
} from '@kafkats/codec';
import type {
  AlterUserScramCredentialsResult,
  DescribeUserScramCredentialsResult,
  ScramMechanism,
  UserScramCredentialAlteration,
} from '../scram.js';
import { type AdminCall, errorOrUndefined } from './admin-call.js';

/** Kafka's `ScramMechanism` type ids. */
const MECHANISM_ID: Readonly<Record<ScramMechanism, number>> = {
  'SCRAM-SHA-256': 1,
  'SCRAM-SHA-512': 2,
};
const MECHANISM_OF = new Map<number, ScramMechanism>([
  [1, 'SCRAM-SHA-256'],
  [2, 'SCRAM-SHA-512'],
]);

/**
 * SCRAM's Hi(password, salt, iterations) (RFC 5802): PBKDF2 with the mechanism's HMAC, as
 * Kafka's `ScramFormatter.hi` computes the salted password from the password's UTF-8 bytes.
 */
export function saltedPassword(
  mechanism: ScramMechanism,
  password: string,
  salt: Uint8Array,
  iterations: number,
): Buffer {
  const hash = mechanism === 'SCRAM-SHA-256' ? 'sha256' : 'sha512';
  return pbkdf2Sync(
    Buffer.from(password, 'utf8'),
    salt,
    iterations,
    hash === 'sha256' ? 32 : 64,
    hash,
  );
}

/** DescribeUserScramCredentials, any broker; every user with a credential when `users` is undefined. */
export async function describeUserScramCredentials(
  call: AdminCall,
  users: readonly string[] | undefined,
): Promise<DescribeUserScramCredentialsResult> {
  const r = await call.cluster.sendAny(
    DescribeUserScramCredentialsApi,
    () =>
      createDescribeUserScramCredentialsRequest({
        users:
          users === undefined
            ? null
            : users.map((name) => createDescribeUserScramCredentialsRequestUserName({ name })),
      }),
    call.sendOptions(),
  );
  const top = errorOrUndefined(r.errorCode, 'DescribeUserScramCredentials', r.errorMessage);
  if (top !== undefined) throw top;
  return {
    users: r.results.map((u) => {
      const error = errorOrUndefined(
        u.errorCode,
        `DescribeUserScramCredentials, user ${u.user}`,
        u.errorMessage,
      );
      const credentials = u.credentialInfos.flatMap((c) => {
        const mechanism = MECHANISM_OF.get(c.mechanism);
        return mechanism === undefined ? [] : [{ mechanism, iterations: c.iterations }];
      });
      return error === undefined
        ? { user: u.user, credentials }
        : { user: u.user, credentials, error };
    }),
  };
}

/**
 * AlterUserScramCredentials to the controller. Upsertions carry a salt and the salted password
 * made here (Kafka's `KafkaAdminClient` does the same), never the password.
 */
export async function alterUserScramCredentials(
  call: AdminCall,
  alterations: readonly UserScramCredentialAlteration[],
): Promise<AlterUserScramCredentialsResult> {
  const deletions: AlterUserScramCredentialsRequestScramCredentialDeletion[] = [];
  const upsertions: AlterUserScramCredentialsRequestScramCredentialUpsertion[] = [];
  for (const a of alterations) {
    const mechanism = MECHANISM_ID[a.mechanism];
    if (mechanism === undefined)
      throw new TypeError(`unknown SCRAM mechanism ${String(a.mechanism)}`);
    if ('delete' in a)
      deletions.push(
        createAlterUserScramCredentialsRequestScramCredentialDeletion({ name: a.user, mechanism }),
      );
    else {
      const iterations = a.iterations ?? 4096;
      const salt = Buffer.from(a.salt ?? randomBytes(32));
      upsertions.push(
        createAlterUserScramCredentialsRequestScramCredentialUpsertion({
          name: a.user,
          mechanism,
          iterations,
          salt,
          saltedPassword: saltedPassword(a.mechanism, a.password, salt, iterations),
        }),
      );
    }
  }
  const r = await call.cluster.sendToController(
    AlterUserScramCredentialsApi,
    () => createAlterUserScramCredentialsRequest({ deletions, upsertions }),
    call.sendOptions(),
  );
  const byUser = new Map(r.results.map((x) => [x.user, x]));
  const users = [...new Set(alterations.map((a) => a.user))];
  return {
    users: users.map((user) => {
      const x = byUser.get(user);
      const error =
        x === undefined
          ? undefined
          : errorOrUndefined(
              x.errorCode,
              `AlterUserScramCredentials, user ${user}`,
              x.errorMessage,
            );
      return error === undefined ? { user } : { user, error };
    }),
  };
}
