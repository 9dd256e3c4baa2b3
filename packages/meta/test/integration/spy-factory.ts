// The real wire connection factory with every connect and every request recorded, for the
// acceptance tests' counts ("one connect", "no Metadata request"). Shared by the meta
// integration tests; `route` sends a target's connection elsewhere (a recording proxy).
import { ProtocolError } from '@kafkats/codec';
import {
  type ConnectionFactory,
  type MetaConnection,
  responseErrors,
  type WireConnectionOptions,
  wireConnectionFactory,
} from '../../src/index.js';

/** One request as it was sent. */
export interface Sent {
  /** Undefined on a bootstrap connection (the pool adopts one as the node's it reaches). */
  readonly nodeId: number | undefined;
  /** `host:port` of the target (before any `route`). */
  readonly address: string;
  readonly apiKey: number;
  readonly request: unknown;
  /** The timeout the cluster gave this attempt (`timeoutMs` of the wire send). */
  readonly timeoutMs: number | undefined;
  /** The decoded answer, when there was one. */
  response?: unknown;
  /** `'ok'`, or the class name of the error the send rejected with. */
  outcome?: string;
  /** The broker error name (or the message) when the send failed. */
  failed?: string;
  /** Error names found inside a successful response. */
  inner?: string[];
}

/** A recording factory: `connects` holds each target's label, `sent` each request. */
export function spyFactory(
  options: WireConnectionOptions = {},
  route: (target: { host: string; port: number; nodeId?: number }) => {
    host: string;
    port: number;
  } = (t) => t,
): { factory: ConnectionFactory; connects: string[]; sent: Sent[] } {
  const inner = wireConnectionFactory(options);
  const connects: string[] = [];
  const sent: Sent[] = [];
  const factory: ConnectionFactory = async (target) => {
    connects.push(target.label);
    const c = await inner({ ...target, ...route(target) });
    const wrapped: MetaConnection = {
      get closed() {
        return c.closed;
      },
      get pending() {
        return c.pending;
      },
      get lastActivityMs() {
        return c.lastActivityMs;
      },
      negotiatedVersion: (k) => c.negotiatedVersion(k),
      onClose: (l) => c.onClose(l),
      close: () => c.close(),
      send: async (api, request, sendOptions) => {
        const entry: Sent = {
          nodeId: target.nodeId,
          address: `${target.host}:${target.port}`,
          apiKey: api.apiKey,
          request,
          timeoutMs: sendOptions?.timeoutMs,
        };
        sent.push(entry);
        try {
          const response = await c.send(api, request, sendOptions);
          entry.outcome = 'ok';
          entry.response = response;
          entry.inner = responseErrors(api, response).map((e) => e.error.errorName);
          return response;
        } catch (error) {
          entry.outcome = error instanceof Error ? error.constructor.name : String(error);
          entry.failed = error instanceof ProtocolError ? error.errorName : String(error);
          throw error;
        }
      },
    };
    return wrapped;
  };
  return { factory, connects, sent };
}

/** Connects made to node `nodeId` (labels `broker <id> (...)`). */
export const connectsTo = (connects: readonly string[], nodeId: number): number =>
  connects.filter((l) => l.startsWith(`broker ${nodeId} (`)).length;
