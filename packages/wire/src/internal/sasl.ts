import {
  type ApiDescriptor,
  ProtocolError,
  SaslAuthenticateApi,
  type SaslAuthenticateResponse,
  SaslHandshakeApi,
  type SaslHandshakeResponse,
} from '@kafkats/codec';
import type { BrokerCapabilities } from '../broker-capabilities.js';
import { AuthenticationError } from '../errors.js';
import type { SaslMechanism } from '../sasl.js';

/** What the connection lends the SASL exchange. */
export interface SaslContext {
  readonly broker: string;
  readonly host: string;
  readonly capabilities: BrokerCapabilities;
  exchange<Req, Res>(
    api: ApiDescriptor<Req, Res>,
    request: Req,
    version: number,
  ): Promise<Res | Buffer>;
}

/**
 * SaslHandshake, then the mechanism's SaslAuthenticate rounds (KIP-152). Resolves with the
 * session lifetime the broker granted in the last round, in ms (0 = no re-authentication
 * needed, KIP-368).
 *
 * @throws AuthenticationError `ERR_KAFKA_AUTHENTICATION_MECHANISM` when the broker does not
 *   enable the mechanism, `ERR_KAFKA_AUTHENTICATION_FAILED` with the broker's errorMessage
 *   when it refuses (or whatever the mechanism throws); UnsupportedVersionError when the
 *   broker lacks SaslAuthenticate
 */
export async function authenticateSasl(
  mechanism: SaslMechanism,
  ctx: SaslContext,
): Promise<number> {
  const name = mechanism.mechanism;
  const handshakeVersion = ctx.capabilities.requireVersion(SaslHandshakeApi, ctx.broker);
  const authVersion = ctx.capabilities.requireVersion(SaslAuthenticateApi, ctx.broker);
  const handshake = (await ctx.exchange(
    SaslHandshakeApi,
    SaslHandshakeApi.createRequest({ mechanism: name }),
    Math.max(1, handshakeVersion),
  )) as SaslHandshakeResponse;
  if (handshake.errorCode !== 0) {
    throw new AuthenticationError(
      'ERR_KAFKA_AUTHENTICATION_MECHANISM',
      ctx.broker,
      `SASL mechanism ${name} is not enabled (broker offers ${handshake.mechanisms.join(', ') || 'none'}; ${new ProtocolError(handshake.errorCode).errorName})`,
    );
  }
  let rounds = 0;
  let lifetimeMs = 0;
  await mechanism.authenticate({
    broker: ctx.broker,
    host: ctx.host,
    send: async (bytes) => {
      rounds++;
      const res = (await ctx.exchange(
        SaslAuthenticateApi,
        SaslAuthenticateApi.createRequest({
          authBytes: Buffer.isBuffer(bytes)
            ? bytes
            : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
        }),
        authVersion,
      )) as SaslAuthenticateResponse;
      if (res.errorCode !== 0) {
        const code = new ProtocolError(res.errorCode).errorName;
        throw new AuthenticationError(
          'ERR_KAFKA_AUTHENTICATION_FAILED',
          ctx.broker,
          `SASL ${name} authentication failed: ${res.errorMessage ?? code} (${code})`,
        );
      }
      lifetimeMs = Number(res.sessionLifetimeMs);
      return res.authBytes;
    },
  });
  if (rounds === 0) {
    // The broker waits for SaslAuthenticate after a handshake: nothing sent is a broken mechanism.
    throw new AuthenticationError(
      'ERR_KAFKA_AUTHENTICATION_FAILED',
      ctx.broker,
      `SASL mechanism ${name} finished without sending anything`,
    );
  }
  return lifetimeMs;
}
