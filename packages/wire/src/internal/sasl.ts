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
import type { SaslOptions } from '../options.js';
import { ScramClient, ScramError } from './scram.js';

/** What the connection lends the SASL exchange. */
export interface SaslContext {
  readonly broker: string;
  readonly capabilities: BrokerCapabilities;
  exchange<Req, Res>(
    api: ApiDescriptor<Req, Res>,
    request: Req,
    version: number,
  ): Promise<Res | Buffer>;
}

/**
 * SaslHandshake then SaslAuthenticate rounds (KIP-152). Resolves with the session lifetime
 * the broker granted in ms (0 = no re-authentication needed, KIP-368).
 *
 * @throws AuthenticationError `ERR_KAFKA_AUTHENTICATION_MECHANISM` when the broker does not
 *   enable the mechanism, `ERR_KAFKA_AUTHENTICATION_FAILED` with the broker's errorMessage
 *   when the credentials are refused or the server's SCRAM proof is wrong;
 *   UnsupportedVersionError when the broker lacks SaslAuthenticate
 */
export async function authenticateSasl(options: SaslOptions, ctx: SaslContext): Promise<number> {
  const handshakeVersion = ctx.capabilities.requireVersion(SaslHandshakeApi, ctx.broker);
  const authVersion = ctx.capabilities.requireVersion(SaslAuthenticateApi, ctx.broker);
  const handshake = (await ctx.exchange(
    SaslHandshakeApi,
    SaslHandshakeApi.createRequest({ mechanism: options.mechanism }),
    Math.max(1, handshakeVersion),
  )) as SaslHandshakeResponse;
  if (handshake.errorCode !== 0) {
    throw new AuthenticationError(
      'ERR_KAFKA_AUTHENTICATION_MECHANISM',
      ctx.broker,
      `SASL mechanism ${options.mechanism} is not enabled (broker offers ${handshake.mechanisms.join(', ') || 'none'}; ${new ProtocolError(handshake.errorCode).errorName})`,
    );
  }
  const round = async (bytes: Buffer): Promise<SaslAuthenticateResponse> => {
    const res = (await ctx.exchange(
      SaslAuthenticateApi,
      SaslAuthenticateApi.createRequest({ authBytes: bytes }),
      authVersion,
    )) as SaslAuthenticateResponse;
    if (res.errorCode !== 0) {
      const name = new ProtocolError(res.errorCode).errorName;
      throw new AuthenticationError(
        'ERR_KAFKA_AUTHENTICATION_FAILED',
        ctx.broker,
        `SASL ${options.mechanism} authentication failed: ${res.errorMessage ?? name} (${name})`,
      );
    }
    return res;
  };
  if (options.mechanism === 'PLAIN') {
    const token = Buffer.from(
      `${options.authorizationId ?? ''}\0${options.username}\0${options.password}`,
      'utf8',
    );
    const res = await round(token);
    return Number(res.sessionLifetimeMs);
  }
  const scram = new ScramClient(
    options.mechanism === 'SCRAM-SHA-256' ? 'sha256' : 'sha512',
    options.username,
    options.password,
  );
  try {
    const serverFirst = await round(Buffer.from(scram.first(), 'utf8'));
    const clientFinal = await scram.final(serverFirst.authBytes.toString('utf8'));
    const serverFinal = await round(Buffer.from(clientFinal, 'utf8'));
    scram.verify(serverFinal.authBytes.toString('utf8'));
    return Number(serverFinal.sessionLifetimeMs);
  } catch (err) {
    if (err instanceof ScramError) {
      throw new AuthenticationError(
        'ERR_KAFKA_AUTHENTICATION_FAILED',
        ctx.broker,
        `SASL ${options.mechanism}: ${err.message}`,
      );
    }
    throw err;
  }
}
