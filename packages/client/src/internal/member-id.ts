import { randomBytes } from 'node:crypto';

/**
 * A member id as a KIP-848 or KIP-932 member makes up its own, in the form of Kafka's
 * `Uuid.randomUuid().toString()`: 16 random bytes, base64url without padding, never starting
 * with '-'.
 */
export function randomMemberId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}
