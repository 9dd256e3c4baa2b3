import type { KafkaError } from '@kafkats/codec';

/** Kafka's `ScramMechanism` names. */
export type ScramMechanism = 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

/** One credential of a user: its mechanism and iteration count (never the secret). */
export interface ScramCredentialInfo {
  readonly mechanism: ScramMechanism;
  readonly iterations: number;
}

/** {@link Admin.describeUserScramCredentials}' answer: one entry per user, in the broker's order. */
export interface DescribeUserScramCredentialsResult {
  readonly users: readonly {
    readonly user: string;
    readonly credentials: readonly ScramCredentialInfo[];
    /** RESOURCE_NOT_FOUND for a user named that has no credential, ... */
    readonly error?: KafkaError;
  }[];
}

/**
 * One change of {@link Admin.alterUserScramCredentials}: set a user's credential for a
 * mechanism from a password (salted and hashed here, as Kafka's admin does: the password never
 * leaves the client), or delete it.
 */
export type UserScramCredentialAlteration =
  | {
      readonly user: string;
      readonly mechanism: ScramMechanism;
      readonly password: string;
      /** Default 4096 (the broker's minimum, and kafka-configs.sh's default). */
      readonly iterations?: number;
      /** Default 32 random bytes. */
      readonly salt?: Uint8Array;
    }
  | { readonly user: string; readonly mechanism: ScramMechanism; readonly delete: true };

/** {@link Admin.alterUserScramCredentials}' answer: one entry per user of the request. */
export interface AlterUserScramCredentialsResult {
  readonly users: readonly { readonly user: string; readonly error?: KafkaError }[];
}
